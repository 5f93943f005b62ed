"""A bot's moderation as its page shows it: a disqualification, and the moderators' actions on it
(what, why, when; never who, never an old name: docs/moderation.md), and the report form's
categories, in the page's language."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from services.db.moderation import LogEntry
from services.domain.moderation import REPORT_CATEGORIES
from services.web.i18n import N_
from services.web.i18n import gettext as _

ACTION_NAMES = {
    "disqualify_bot": N_("disqualified"),
    "rename_bot": N_("renamed by the moderators"),
    "hide_bot_name": N_("name hidden by the moderators"),
    "annul_pair": N_("ladder results annulled"),
}
CATEGORY_NAMES = {
    "cheating": N_("cheating"),
    "name": N_("an offensive or impersonating name"),
    "abuse": N_("abuse of the platform"),
    "other": N_("something else"),
}


@dataclass(frozen=True, slots=True)
class ActionLine:
    what: str
    why: str
    when: str


@dataclass(frozen=True, slots=True)
class ModerationView:
    disqualified_on: str | None
    actions: list[ActionLine]


def moderation_view(disqualified_at: datetime | None, entries: list[LogEntry]) -> ModerationView:
    return ModerationView(
        disqualified_on=None if disqualified_at is None else f"{disqualified_at:%Y-%m-%d}",
        actions=[
            ActionLine(_(ACTION_NAMES.get(e.action, e.action)), e.reason, f"{e.at:%Y-%m-%d}")
            for e in entries
        ],
    )


def report_categories() -> list[tuple[str, str]]:
    """(value, label) of every category a report may have, in the page's language."""
    return [(c, _(CATEGORY_NAMES[c])) for c in REPORT_CATEGORIES]
