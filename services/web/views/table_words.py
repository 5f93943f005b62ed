"""The words the table's script needs (``static/table.js``), in the page's language: the
narration's sentences (:data:`services.web.views.narration.SENTENCES`), the hand summary's,
the names of the cards, calls, señas and fault kinds, and the table's labels. The same
catalogue entries as the server's own rendering, so the line the script writes reads as the line
a reload would show. Each table page carries them once (``#table-words``)."""

from __future__ import annotations

from engine.actions import SENAS
from engine.cards import DECK
from engine.spoken import NAMED, SAID
from services.web.i18n import gettext as _
from services.web.i18n import ngettext, pgettext
from services.web.views.causes import FAULT_TAGS, fault_tag
from services.web.views.common import canto_name, card_name, sena_name
from services.web.views.hand_summary import TEMPLATES as SUMMARY
from services.web.views.narration import ANSWERS, REASONS, SENTENCES, flor_outcomes
from services.web.views.replay import TableView


def table_info(t: TableView) -> str:
    """The line between the two scores: "hand 3 · round 2 · Retruco"."""
    info = (
        f"{_('hand %(n)d') % {'n': t.hand}} · {pgettext('trick', 'round %(n)d') % {'n': t.round}}"
    )
    return f"{info} · {canto_name(t.truco)}" if t.truco else info


Words = dict[str, str | list[str] | dict[str, str]]
"""A page's words for its script: a sentence, a list of them, or sentences by key."""


def table_words() -> Words:
    """Everything the table's script says (see the module docstring)."""
    return {
        "s": {k: _(v) for k, v in SENTENCES.items()},
        "summary": {k: _(v) for k, v in SUMMARY.items()},
        "cards": {c: card_name(c) for c in DECK},
        "said": {k: _(v) for k, v in SAID.items()},
        "named": {k: _(v) for k, v in NAMED.items()},
        "reasons": {k: _(v) for k, v in REASONS.items()},
        "flor": flor_outcomes(),
        "senas": {k: sena_name(k) for k in SENAS},
        "faults": {k: fault_tag(k) for k in FAULT_TAGS},
        "answers": sorted(ANSWERS),
        "tanto": [ngettext("%(num)d tanto", "%(num)d tantos", n) for n in (1, 2)],
        "not_called": _("not called"),
        "not_wanted": _("%(level)s not wanted"),
        "ended_in_hand": _("the game ended in the hand"),
        "hidden": _("hidden card"),
        "faults_title": _("faults this hand so far"),
        "fault": _("fault:"),
        "sena": _("seña:"),
        "shows": _("shows"),
        "seat_n": _("seat %(n)d"),
        "deals": _("deals"),
        "buenas": _("buenas"),
        "malas": _("malas"),
        "timeline": _("Hand %(n)d: timeline"),
        "hand_n": _("hand %(n)d"),
        "round_n": pgettext("trick", "round %(n)d"),
        "r_n": pgettext("trick", "R%(n)d:"),
        "score": _("Score"),
    }
