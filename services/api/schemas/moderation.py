"""Bodies of moderation: the admins' actions and the audit log, users' reports, a bot's public
moderation history (docs/moderation.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from services.api.schemas.accounts import Name
from services.domain.moderation import (
    MAX_REASON,
    MAX_REPORT_TEXT,
    Action,
    AuditDetail,
    ReportCategory,
    ReportOutcome,
    ReportStatus,
    ReportTarget,
    TargetKind,
)
from services.ladder.collusion import Evidence
from services.ladder.model import LadderPool

Reason = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=MAX_REASON,
        pattern=r"^[^\x00]*$",
        description="why: written to the audit log (shown on a bot's page for actions on a bot)",
        examples=["colluded with bot 12 on the 1v1 ladder (report 7)"],
    ),
]
ReportText = Annotated[
    str,
    msgspec.Meta(
        max_length=MAX_REPORT_TEXT,
        pattern=r"^[^\x00]*$",
        description="what you saw (up to 1000 characters; read by the admins only)",
    ),
]


class ActionBody(msgspec.Struct, forbid_unknown_fields=True):
    reason: Reason


class NameBody(msgspec.Struct, forbid_unknown_fields=True):
    """Exactly one of ``name`` (the new name) and ``hide: true`` (the name becomes
    ``bot-<id>`` or ``account-<id>``)."""

    reason: Reason
    name: Name | None = None
    hide: bool = False


class ResolveBody(msgspec.Struct, forbid_unknown_fields=True):
    outcome: Annotated[
        ReportOutcome,
        msgspec.Meta(description="actioned (an admin acted on it) or dismissed"),
    ]
    reason: Reason


class LogEntryRead(msgspec.Struct):
    """One line of the audit log: who (an admin's account, or ``server:USER@HOST`` for the
    server's command line), what, on what, why, when, and what it did."""

    id: int
    at: datetime
    actor_id: int | None
    actor: str
    action: Action
    target_kind: TargetKind
    target_id: int
    reason: str
    detail: AuditDetail


class AuditPage(msgspec.Struct):
    items: list[LogEntryRead]
    next_cursor: int | None


class ActionDone(msgspec.Struct):
    """The action's line in the audit log, and the matches it stopped and sent."""

    entry: LogEntryRead
    stopped_matches: list[int]
    sent_matches: list[int]


class Reinstated(msgspec.Struct):
    """The account's new API key: in this response only (hand it to its owner)."""

    entry: LogEntryRead
    api_key: str


class AdminRead(msgspec.Struct):
    account_id: int
    name: str
    granted_at: datetime


class ReportCreate(msgspec.Struct, forbid_unknown_fields=True):
    target: Annotated[ReportTarget, msgspec.Meta(description="a bot, or an account (its name)")]
    target_id: Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1)]
    category: Annotated[
        ReportCategory,
        msgspec.Meta(description="cheating, name (offensive or impersonating), abuse, other"),
    ]
    text: ReportText = ""


class ReportCreated(msgspec.Struct):
    id: int
    status: Literal["open"]


class ReportRead(msgspec.Struct):
    """A report as the admins see it (the reporter's address is an IPv6 /64 or an IPv4
    address, the rate limits' unit)."""

    id: int
    created_at: datetime
    target: ReportTarget
    target_id: int
    target_name: str | None
    category: ReportCategory
    text: str
    reporter_id: int | None
    reporter_address: str
    status: ReportStatus
    resolved_at: datetime | None
    resolved_by: int | None


class ReportPage(msgspec.Struct):
    items: list[ReportRead]
    next_cursor: int | None


class PublicAction(msgspec.Struct):
    """A moderators' action on a bot as its public page shows it: what, why, when."""

    action: Action
    reason: str
    at: datetime


class BotModeration(msgspec.Struct):
    bot_id: int
    disqualified_at: datetime | None
    actions: list[PublicAction]


class FlagParty(msgspec.Struct):
    """A bot (``kind: bot``, with its owner) or an account (``kind: owner``, its own owner)."""

    kind: Literal["bot", "owner"]
    id: int
    name: str
    owner_id: int
    owner_name: str


class LadderFlagRead(msgspec.Struct):
    """A collusion flag (docs/ladder.md "Collusion"): ``bot``'s ladder results against
    ``against`` (a bot, or any bot of an owner) lie far outside what its other results predict.
    ``evidence``: the group's matches and their ids, its score against the prediction from the
    bot's strength estimated from its other results, the point shares, and the distances in
    standard errors (``z``: the larger of ``z_results`` and ``z_points``). A flag is for an
    admin to look at, never a verdict."""

    id: int
    pool: LadderPool
    status: Literal["open", "annulled", "dismissed"]
    bot: FlagParty
    against: FlagParty
    evidence: Evidence
    flagged_at: datetime
    updated_at: datetime
    decided_at: datetime | None
    decided_by: int | None
    note: str | None
    annulled_matches: list[int]


class LadderFlagPage(msgspec.Struct):
    items: list[LadderFlagRead]
    next_cursor: int | None


class FlagDecision(msgspec.Struct):
    """The flag as decided, its line in the audit log, and the matches annulled now (a match a
    disqualification annulled before stays annulled once and is not listed)."""

    flag: LadderFlagRead
    entry: LogEntryRead
    annulled_matches: list[int]
