"""`truco check`: probe a bot for protocol v1 conformance and report pass/fail per check.

The probe calls ``GET /`` (apiversion "1" and a name), ``POST /start``, then one ``POST /act``
per kind of decision, each a real engine position (:func:`probes`): a card in each round, the
answer to every truco, envido and flor question, a forced flor, 2v2 seats. Then at least
``decisions`` more ``POST /act`` from random seeded games steered to reach every family of
decision (:mod:`arena.conformance.exploration`), stopping at the first bad answer with the position, the
answer and the arena's error. Every answer is judged by :func:`arena.match.judge.judge`, the code the
match runner uses, so the check fails exactly what a match would count as a fault. Then
``POST /end`` and one request signed with a wrong key (the bot should refuse it). Calls go
through the arena's own :class:`arena.client.bot_client.BotClient` (no redirects, 64 KiB limit, signed),
with loopback allowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from arena.client import signing
from arena.client.bot_client import BotClient, ClientConfig, Fault, Reply, TimeBank
from arena.client.connection import answer_from
from arena.client.egress import EgressPolicy
from arena.conformance.exploration import FAMILIES, describe, explore
from arena.game.truco import TRUCO
from arena.match.judge import Accepted, Rejected, judge
from arena.wire.protocol import (
    ActRequest,
    BotInfo,
    EndRequest,
    StartRequest,
    act_request,
    end_request,
    start_request,
)
from engine import Action, Rules, State, new_game
from engine.start import with_deal

Status = Literal["pass", "fail", "warn"]
MATCH_ID = "truco-check"
RANDOM_DECISIONS = 200  # the least number of decisions from random games


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str

    def line(self) -> str:
        first, *rest = self.detail.splitlines() or [""]
        return "\n".join(
            [f"{self.status.upper():<5} {self.name}: {first}"] + ["      " + x for x in rest]
        )


@dataclass
class Report:
    url: str
    checks: list[Check] = field(default_factory=list)

    def add(self, name: str, status: Status, detail: str) -> Check:
        check = Check(name, status, detail)
        self.checks.append(check)
        return check

    def count(self, status: Status) -> int:
        return sum(1 for check in self.checks if check.status == status)

    @property
    def ok(self) -> bool:
        return self.count("fail") == 0 and bool(self.checks)

    def summary(self) -> str:
        verdict = "PASS" if self.ok else "FAIL"
        return (
            f"{verdict}: {self.count('pass')} passed, {self.count('fail')} failed, "
            f"{self.count('warn')} warnings ({self.url})"
        )

    def lines(self) -> list[str]:
        return [check.line() for check in self.checks] + [self.summary()]


# --- positions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """A position and the seat asked to decide in it."""

    name: str
    state: State

    @property
    def seat(self) -> int:
        return TRUCO.to_act(self.state)

    @property
    def legal(self) -> list[Action]:
        return TRUCO.legal_actions(self.state)


def _walk(
    rules: Rules, deal: Sequence[Sequence[str]], moves: str = "", score: tuple[int, int] = (0, 0)
) -> State:
    """A position: a new game with this deal (seat 0 mano) after ``moves`` (e.g. "1E truco")."""
    state = with_deal(new_game(rules, seed=1, score=score), deal)
    for move in moves.split():
        action = Action("play", move) if move[0].isdigit() else Action(move)
        state, _ = TRUCO.apply(state, action, TRUCO.to_act(state))
    return state


PLAIN = (("1E", "4C", "5O"), ("3B", "7C", "6O"))  # seat 0 wins round 1, seat 1 round 2
FLORES = (("1E", "5E", "7E"), ("4C", "5C", "6C"))  # both seats hold a flor
ONE_FLOR = (("1E", "4C", "5O"), ("4B", "5B", "6B"))  # only seat 1 holds a flor
FOUR = (("1E", "4C", "5O"), ("3B", "7C", "6O"), ("2E", "12C", "11O"), ("10B", "10E", "6E"))


def probes() -> list[Probe]:
    """One position per kind of decision a bot faces."""
    off = Rules(flor=False)
    on = Rules(flor=True)
    four = Rules(players=4, flor=False)
    return [
        Probe("lead round 1 (mano)", _walk(off, PLAIN)),
        Probe("answer a card in round 1", _walk(off, PLAIN, "1E")),
        Probe("lead round 2", _walk(off, PLAIN, "1E 7C")),
        Probe("answer a card in round 2", _walk(off, PLAIN, "1E 7C 4C")),
        Probe("play the last card, round 3", _walk(off, PLAIN, "1E 7C 4C 3B")),
        Probe("answer a truco", _walk(off, PLAIN, "truco")),
        Probe("answer a retruco", _walk(off, PLAIN, "truco retruco")),
        Probe("answer a vale cuatro", _walk(off, PLAIN, "1E 7C truco retruco vale_cuatro")),
        Probe("raise a truco you accepted", _walk(off, PLAIN, "truco quiero 1E")),
        Probe("answer an envido", _walk(off, PLAIN, "envido")),
        Probe("answer an envido envido", _walk(off, PLAIN, "envido envido")),
        Probe("answer a real envido", _walk(off, PLAIN, "real_envido")),
        Probe("answer a falta envido", _walk(off, PLAIN, "falta_envido", score=(14, 27))),
        Probe("answer an envido sung over a truco", _walk(off, PLAIN, "truco envido")),
        Probe("sing a forced flor", _walk(on, FLORES)),
        Probe("sing a flor when answering an envido", _walk(on, ONE_FLOR, "envido")),
        Probe("answer a flor with flor or contraflor", _walk(on, FLORES, "flor")),
        Probe("answer a contraflor", _walk(on, FLORES, "flor contraflor")),
        Probe("answer a contraflor al resto", _walk(on, FLORES, "flor contraflor_al_resto")),
        Probe("2v2: lead round 1", _walk(four, FOUR)),
        Probe("2v2: play after partner and opponent", _walk(four, FOUR, "1E 3B")),
        Probe("2v2: answer a truco", _walk(four, FOUR, "1E truco")),
    ]


def finished_game() -> State:
    """A short finished game (the first legal action every time), for ``/end``."""
    state = TRUCO.new_game(Rules(points_to_win=15), seed=1)
    while not TRUCO.over(state):
        state, _ = TRUCO.apply(state, TRUCO.legal_actions(state)[0], TRUCO.to_act(state))
    return state


# --- the probe -------------------------------------------------------------------------------


def _fault_text(fault: Fault, secret_given: bool) -> str:
    return _rejection_text(Rejected(fault.kind, fault.detail), [], secret_given)


def _act_request(state: State, game_id: str, timeout_ms: int) -> ActRequest:
    seat = TRUCO.to_act(state)
    return act_request(
        MATCH_ID,
        game_id,
        seat,
        TRUCO.observe(state, seat),
        TRUCO.legal_actions(state),
        timeout_ms=timeout_ms,
        time_bank_ms=timeout_ms * 10,
        last_latency_ms=None,
    )


async def _act(
    client: BotClient, state: State, game_id: str, timeout_ms: int
) -> tuple[Reply | Fault, Accepted | Rejected]:
    """Ask the bot to decide in ``state``; the raw result and the arena's verdict on it."""
    result = await client.act(_act_request(state, game_id, timeout_ms), TimeBank(timeout_ms))
    seat = TRUCO.to_act(state)
    verdict = judge(TRUCO, state, seat, TRUCO.legal_actions(state), answer_from(result))
    return result, verdict


def _rejection_text(verdict: Rejected, legal: list[Action], secret_given: bool) -> str:
    text = f"{verdict.kind}: {verdict.detail}"
    if verdict.kind == "illegal_action":
        text += f"; legal: {', '.join(str(option) for option in legal)}"
    if verdict.kind == "http_status" and "HTTP 401" in verdict.detail and not secret_given:
        text += " (the bot checks signatures: pass its secret with --secret)"
    return text


async def _check_acts(client: BotClient, report: Report, timeout_ms: int, secret: bool) -> None:
    for index, probe in enumerate(probes(), start=1):
        name = f"act: {probe.name}"
        result, verdict = await _act(client, probe.state, f"check-{index}", timeout_ms)
        if isinstance(verdict, Rejected):
            report.add(name, "fail", _rejection_text(verdict, probe.legal, secret))
        else:
            report.add(name, "pass", f"{verdict.action} ({result.latency_ms:.0f} ms)")


def _shown_answer(result: Reply | Fault) -> str:
    if isinstance(result, Fault):
        return f"no answer ({result.kind}, {result.latency_ms:.0f} ms)"
    body = result.body.decode("utf-8", "replace")
    body = body if len(body) <= 300 else body[:297] + "..."
    return f"{body} (HTTP {result.status}, {result.latency_ms:.0f} ms)"


async def _check_random(
    client: BotClient, report: Report, timeout_ms: int, secret: bool, seed: int, decisions: int
) -> None:
    """Positions from random games; stop at the first answer the arena would not play."""
    exploration = explore(seed, decisions)
    total = len(exploration.positions)
    name = "random games"
    for position in exploration.positions:
        game_id = f"check-r{seed}-g{position.game}-d{position.number}"
        result, verdict = await _act(client, position.state, game_id, timeout_ms)
        if isinstance(verdict, Rejected):
            legal = TRUCO.legal_actions(position.state)
            lines = [
                f"decision {position.number} of {total} (game {position.game}, seed {seed}): "
                + _rejection_text(verdict, legal, secret),
                *("position: " + line for line in describe(position.state)),
                f"legal: {', '.join(str(option) for option in legal)}",
                f"answer: {_shown_answer(result)}",
                f"families: {', '.join(sorted(position.families)) or 'none'}",
                f"again: the same games come with --seed {seed}",
            ]
            report.add(name, "fail", "\n".join(lines))
            return
    games = exploration.games
    report.add(
        name,
        "pass",
        f"{total} decisions from {games} random games (seed {seed}): every answer legal",
    )
    if exploration.missing:
        report.add(
            f"{name}: coverage",
            "fail",
            f"never reached: {', '.join(exploration.missing)} (a bug in truco check: report it)",
        )
    else:
        rare = sorted(exploration.reached.items(), key=lambda item: item[1])[:3]
        report.add(
            f"{name}: coverage",
            "pass",
            f"all {len(FAMILIES)} families of decision reached (rarest: "
            + ", ".join(f"{family} x{count}" for family, count in rare)
            + ")",
        )


async def _check_info(client: BotClient, report: Report, secret: bool) -> bool:
    result = await client.info()
    if isinstance(result, Fault):
        report.add("info (GET /)", "fail", _fault_text(result, secret))
        return result.kind not in ("connect", "timeout")
    info = result.decode(BotInfo)
    if isinstance(info, Fault):
        report.add("info (GET /)", "fail", f"not a bot info document: {info.detail}")
    elif info.apiversion != "1":
        report.add("info (GET /)", "fail", f'apiversion is {info.apiversion!r}; it must be "1"')
    else:
        report.add("info (GET /)", "pass", f'apiversion "1", name {info.name!r}')
    return True


async def _check_signature(
    url: str, config: ClientConfig, report: Report, secret_given: bool
) -> None:
    name = "signature: a request signed with a wrong key"
    async with BotClient(url, signing.generate_secret(), config=config) as forger:
        request = _act_request(probes()[0].state, "check-forged", int(config.timeout_ms))
        result = await forger.act(request, TimeBank(config.timeout_ms))
    if isinstance(result, Fault) and result.kind == "http_status" and "HTTP 4" in result.detail:
        report.add(name, "pass", f"rejected ({result.detail.split(',')[0]})")
    elif isinstance(result, Fault):
        report.add(name, "fail" if secret_given else "warn", _fault_text(result, secret_given))
    elif secret_given:
        report.add(name, "fail", f"accepted (HTTP {result.status}): the bot must answer 401")
    else:
        report.add(
            name,
            "warn",
            f"accepted (HTTP {result.status}): the bot does not check signatures "
            "(give it a secret, then run truco check with --secret)",
        )


def _start_request(timeout_ms: int) -> StartRequest:
    return start_request(
        MATCH_ID,
        "check-0",
        0,
        Rules(),
        game_number=1,
        games_in_match=1,
        team=0,
        entrants=["bot under test", "truco check"],
        timeout_ms=timeout_ms,
        time_bank_ms=timeout_ms * 10,
    )


def _end_request() -> EndRequest:
    final = finished_game()
    return end_request(
        MATCH_ID,
        "check-0",
        0,
        TRUCO.observe(final, 0),
        score=TRUCO.score(final),
        winner=TRUCO.winner(final),
    )


async def check_bot_async(
    url: str,
    secret: str | None = None,
    timeout_ms: int = 1000,
    policy: EgressPolicy | None = None,
    seed: int = 1,
    decisions: int = RANDOM_DECISIONS,
) -> Report:
    """Probe the bot at ``url``; every check is a line of the returned :class:`Report`.

    ``decisions`` from random games seeded by ``seed`` follow the fixed positions (0: none)."""
    report = Report(url)
    policy = policy or EgressPolicy(allow_loopback=True)
    config = ClientConfig(timeout_ms=float(timeout_ms), policy=policy, max_connections=1)
    given = bool(secret)
    key = secret or signing.generate_secret()
    async with BotClient(url, key, config=config) as client:
        if not await _check_info(client, report, given):
            report.add("stopped", "fail", "the bot cannot be reached; nothing else was checked")
            return report
        started = await client.start(_start_request(timeout_ms))
        if isinstance(started, Fault):
            report.add("start (POST /start)", "fail", _fault_text(started, given))
            if "HTTP 401" in started.detail and not given:
                report.add("stopped", "fail", "every call would be refused: nothing else checked")
                return report
        else:
            report.add("start (POST /start)", "pass", f"HTTP {started.status}")
        await _check_acts(client, report, timeout_ms, given)
        if decisions > 0:
            await _check_random(client, report, timeout_ms, given, seed, decisions)
        ended = await client.end(_end_request())
        if isinstance(ended, Fault):
            report.add("end (POST /end)", "fail", _fault_text(ended, given))
        else:
            report.add("end (POST /end)", "pass", f"HTTP {ended.status}")
    await _check_signature(url, config, report, given)
    return report


def check_bot(
    url: str,
    secret: str | None = None,
    timeout_ms: int = 1000,
    policy: EgressPolicy | None = None,
    seed: int = 1,
    decisions: int = RANDOM_DECISIONS,
) -> Report:
    """Synchronous :func:`check_bot_async`."""
    return asyncio.run(check_bot_async(url, secret, timeout_ms, policy, seed, decisions))
