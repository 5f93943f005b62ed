"""Turning a bot spec (a base URL or ``builtin:NAME``) into an entrant of a match."""

from __future__ import annotations

from arena.client.bot_client import BotClient, ClientConfig
from arena.client.connection import BotConnection, HttpBot, InProcessBot
from arena.client.egress import EgressPolicy
from arena.match.replay import EntrantRecord
from arena.sdk import strategy_decider

BUILTIN_PREFIX = "builtin:"


class BadBotSpec(ValueError):
    """A bot spec that is neither an http(s) URL nor ``builtin:NAME`` with a known name."""


def builtin_name(spec: str) -> str | None:
    """The strategy named by a ``builtin:NAME`` spec, or None for anything else (a URL)."""
    return spec[len(BUILTIN_PREFIX) :] if spec.startswith(BUILTIN_PREFIX) else None


def builtin_bot(spec: str, *, seed: int, label: str | None = None) -> InProcessBot:
    """The in-process bot for ``builtin:NAME``; raises :class:`BadBotSpec` for another spec or
    an unknown name. No network, no egress guard: the strategy runs in this process."""
    name = builtin_name(spec)
    if name is None:
        raise BadBotSpec(f"{spec!r} is not a built-in bot (builtin:NAME)")
    try:
        decide = strategy_decider(name, seed)
    except KeyError as exc:
        raise BadBotSpec(str(exc)) from None
    return InProcessBot(label or name, decide)


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
    if builtin_name(spec) is not None:
        bot = builtin_bot(spec, seed=seed, label=label)
        return EntrantRecord(bot.name, spec), bot
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
