"""The kinds of fault a bot can commit: one Literal type for the whole arena.

A call to a bot fails as a :data:`CallFaultKind` (the guarded client's ``Fault``); an answer
that came back but names no legal action is ``illegal_action`` (judged by :mod:`arena.match.judge`).
``Decision.fault`` in a replay, a walkover's or forfeit's ``Cause.kind`` and a rejected answer
are a :data:`FaultKind`; docs/protocol.md describes each.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

CallFaultKind = Literal["timeout", "connect", "http_status", "bad_body", "too_large"]
FaultKind = Literal[CallFaultKind, "illegal_action"]

CALL_FAULT_KINDS: Final[tuple[CallFaultKind, ...]] = get_args(CallFaultKind)
FAULT_KINDS: Final[tuple[FaultKind, ...]] = get_args(FaultKind)
