"""Turning a bot spec (a base URL or ``builtin:NAME``) into an entrant of a match."""

from __future__ import annotations

from arena.client import BotClient, ClientConfig
from arena.connection import BotConnection, HttpBot, InProcessBot
from arena.egress import EgressPolicy
from arena.replay import EntrantRecord
from arena.sdk import strategy_decider

BUILTIN_PREFIX = "builtin:"


class BadBotSpec(ValueError):
    """A bot spec that is neither an http(s) URL nor ``builtin:NAME`` with a known name."""


def connect(
    spec: str,
    *,
    seed: int,
    secret: str,
    timeout_ms: int,
    allow_loopback: bool,
    label: str | None = None,
) -> tuple[EntrantRecord, BotConnection]:
    """An entrant record and a connection for ``spec``; raises :class:`BadBotSpec`."""
    if spec.startswith(BUILTIN_PREFIX):
        name = spec[len(BUILTIN_PREFIX) :]
        try:
            decide = strategy_decider(name, seed)
        except KeyError as exc:
            raise BadBotSpec(str(exc)) from None
        shown = label or name
        return EntrantRecord(shown, spec), InProcessBot(shown, decide)
    if not spec.startswith(("http://", "https://")):
        raise BadBotSpec(
            f"bad bot {spec!r}: give a base URL such as http://127.0.0.1:8080 "
            "or a built-in bot such as builtin:heuristic"
        )
    config = ClientConfig(
        timeout_ms=float(timeout_ms), policy=EgressPolicy(allow_loopback=allow_loopback)
    )
    shown = label or spec
    return EntrantRecord(shown, spec), HttpBot(shown, BotClient(spec, secret, config=config))
