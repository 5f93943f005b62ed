"""The words of moderation (docs/moderation.md): what an admin may do, to what, and what users
may report; the name a hidden name becomes. Plain data, no I/O.

The rules the workflow applies (:mod:`services.flow.moderation`):

* **Disqualify a bot**: its ladder results are annulled (every ladder match it played counts
  for nobody: the rated pools are refitted without them, Elo from the first match and the
  intervals at the next fit) and it leaves the ladders; it can never play again (it is
  deleted, its row and history kept, marked disqualified). Its **tournament** games are kept
  in finished events (their standings were published and can be verified; its pages say it
  was disqualified) and in running events it forfeits what is left, as a withdrawn bot does;
  it leaves the events still registering. Its open challenges and SPRT tests are cancelled.
* **Suspend an account**: every API key is revoked (and no key of a suspended account works,
  even one made meanwhile); every bot is closed (not open to others' events, challengeable
  by nobody), leaves the ladders, and is withdrawn from every event (forfeiting what is left
  of the running ones); its open challenges and tests are cancelled. Its results stand.
  **Reinstate** lifts the suspension and gives the account one new key (shown once, to the
  admin, who hands it over).
* **Annul a collusion flag's results**: every rated ladder match between the flagged pair counts
  for nobody, by the same rule as a disqualified bot's (``annul_pair``, on the flagged bot);
  **dismiss** the flag: its results stand (``dismiss_flag``, for the admins' eyes only).
* **Rename** a bot's or an account's name, or **hide** it (it becomes ``bot-<id>`` or
  ``account-<id>``): the owner cannot change it back (the name is the admins' now).
"""

from __future__ import annotations

from typing import Final, Literal, TypedDict, get_args

Action = Literal[
    "grant_admin",
    "revoke_admin",
    "disqualify_bot",
    "suspend_account",
    "reinstate_account",
    "rename_bot",
    "hide_bot_name",
    "rename_account",
    "hide_account_name",
    "resolve_report",
    "annul_pair",
    "dismiss_flag",
]
ACTIONS: Final[tuple[Action, ...]] = get_args(Action)
TargetKind = Literal["bot", "account", "report"]
TARGET_KINDS: Final[tuple[TargetKind, ...]] = get_args(TargetKind)
ReportTarget = Literal["bot", "account"]
ReportCategory = Literal["cheating", "name", "abuse", "other"]
REPORT_CATEGORIES: Final[tuple[ReportCategory, ...]] = get_args(ReportCategory)
ReportStatus = Literal["open", "actioned", "dismissed"]
ReportOutcome = Literal["actioned", "dismissed"]
Nameable = Literal["bot", "account"]

MAX_REASON = 1000
"""The longest reason an admin writes (the audit log's column allows as much)."""
MAX_REPORT_TEXT = 1000
SERVER_ACTOR_PREFIX = "server:"
"""Who the audit log names for what the server's own command line did (``truco admin grant``):
``server:USER@HOST``, never an account."""

PUBLIC_ACTIONS: Final[frozenset[Action]] = frozenset(
    {"disqualify_bot", "rename_bot", "hide_bot_name", "annul_pair"}
)
"""The actions on a bot its public page lists (what, why, when; never who, never an old
name)."""


def hidden_name(kind: Nameable, target_id: int) -> str:
    """The name a hidden name becomes: ``bot-17``, ``account-4``."""
    return f"{kind}-{target_id}"


def rename_action(kind: Nameable, hide: bool) -> Action:
    if kind == "bot":
        return "hide_bot_name" if hide else "rename_bot"
    return "hide_account_name" if hide else "rename_account"


class AuditDetail(TypedDict, total=False):
    """What an action did, as its line in the audit log keeps it (``moderation_log.detail``,
    JSON): each action writes the keys that say what it changed."""

    # disqualify a bot, suspend an account: what its bot(s) left (an account: every bot's)
    forfeited_matches: list[int]
    left_registering_events: list[int]
    left_ladders: int | list[int]  # how many ladders a bot left (an account: one per bot)
    cancelled_matches: list[int]
    cancelled_tests: list[int]
    annulled_ladder_matches: list[int]  # disqualify
    revoked_keys: int  # suspend
    closed_bots: list[int]  # suspend
    key_id: int  # reinstate: the new key
    old_name: str  # rename, hide
    new_name: str
    outcome: str  # resolve a report
    target: str
    name: str  # grant or revoke admin: the account's name
    # annul or dismiss a ladder flag: the flag and its pair (its evidence stays on the flag)
    flag_id: int
    pool: str
    against_kind: str
    against_id: int
    z: float
