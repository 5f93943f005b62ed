"""The checks of `truco verify tournament` over an export document, with no network.

In order, each stopping at the first discrepancy with a :class:`Discrepancy` naming it:

1. **commitment**: SHA-256 of the revealed master seed is the published commitment;
2. **match seeds**: every match seed is the HMAC-SHA256 derivation of the master seed and the
   match's place (:mod:`services.domain.seeds`), and every replay was played with its match's seed;
3. **replays**: every replay re-simulates through the engine (:func:`arena.match.verify.verify_replay`);
4. **results**: every stored result is the one its replay gives
   (:func:`services.domain.result.played_result`), byes and matches decided without play agree with
   themselves; then every result's **luck** is recomputed from its replay and the luck model it
   names (:mod:`truco_cli.verify_luck`);
5. **standings**: the platform's standings are what the format ranks from these results
   (:func:`services.tournaments.ranked.standings`, the same function the API calls);
6. **Elo**: every rating change is the Elo rule of :mod:`services.domain.ratings` applied to the
   ratings before it, rated matches (and only they) moved ratings, and a bot's consecutive
   rated matches inside the event chain (one's rating after is the next one's before).

A legacy event (created before seeds were committed) or one whose master seed is not yet
revealed cannot have its seeds checked: :attr:`Verification.complete` is then False and the rest is
checked all the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Protocol

import msgspec

from arena.match.replay import VerifyError
from arena.match.verify import verify_replay
from engine.errors import EngineError, RulesError
from engine.events import HandEnded
from engine.rules import Rules
from services.domain import seeds, side_result
from services.domain.rated import moves_ratings
from services.domain.ratings import k_factor, match_delta, rating_pool
from services.domain.result import StoredResult, played_result, stored_result
from services.tournaments.event import SeededEntrant
from services.tournaments.files.export_document import ExportMatch, TournamentExport
from services.tournaments.ranked import standings
from services.tournaments.records import PlainRecord
from truco_cli.verify_luck import check_match_luck

Say = Callable[[str], None]


class Exported(Protocol):
    """An export with matches: a tournament's, or a ladder day's."""

    @property
    def matches(self) -> list[ExportMatch]: ...


class Discrepancy(Exception):
    """What the export claims and what checking it gives differ; the message names where."""


@dataclass
class Verification:
    """What was checked; ``complete`` is False when the seeds could not be (see ``gaps``).
    ``say`` hears each line as it is found."""

    say: Say = print
    checks: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.gaps

    def ok(self, line: str) -> None:
        self.checks.append(line)
        self.say(f"ok    {line}")

    def skip(self, line: str) -> None:
        self.gaps.append(line)
        self.say(f"skip  {line}")


def check_commitment(
    doc: TournamentExport, recorded: str | None, out: Verification
) -> bytes | None:
    """The master seed (bytes) once its commitment holds; None when it cannot be checked."""
    published = doc.seeds.commitment
    if recorded is not None and (published or "").lower() != recorded.strip().lower():
        raise Discrepancy(
            f"seed commitment: the export publishes {published}, but the commitment you "
            f"recorded is {recorded.strip()}"
        )
    if doc.seeds.scheme == "legacy":
        out.skip(
            "seeds: this event was created before seeds were committed (scheme legacy); "
            "nothing shows how its match seeds were chosen"
        )
        return None
    if doc.seeds.scheme != seeds.SCHEME:
        raise Discrepancy(f"seed scheme: unknown scheme {doc.seeds.scheme!r}")
    if published is None:
        raise Discrepancy("seed commitment: the export publishes none")
    if doc.seeds.master_seed is None:
        out.skip(
            f"seeds: the master seed is revealed once the tournament is finished or cancelled "
            f"and no match of it is still being stopped (it is {doc.tournament.status}); "
            f"commitment {published}"
        )
        return None
    try:
        master = seeds.parse_master_seed(doc.seeds.master_seed)
    except ValueError as exc:
        raise Discrepancy(f"master seed: {exc}") from None
    computed = seeds.commitment(master)
    if computed != published.lower():
        raise Discrepancy(
            f"seed commitment: SHA-256 of the revealed master seed is {computed}, but the "
            f"published commitment is {published}"
        )
    out.ok(
        f"seed commitment: SHA-256({seeds.COMMITMENT_PREFIX.decode()!r} + master seed) = {computed}"
    )
    return master


def check_seeds(doc: TournamentExport, master: bytes | None, out: Verification) -> None:
    derived = 0
    for match in doc.matches:
        _check_derived(doc, master, match)
        derived += match.seed is not None and master is not None
        if match.replay is not None and match.replay.seed != match.seed:
            raise Discrepancy(
                f"match {match.id} seed: its replay was played with seed {match.replay.seed}, "
                f"but the match's seed is {match.seed}"
            )
    if master is not None:
        out.ok(
            f"match seeds: {derived} derived from the master seed by HMAC-SHA256 of each "
            "match's place, and every replay played with its match's seed"
        )


def _check_derived(doc: TournamentExport, master: bytes | None, match: ExportMatch) -> None:
    """The match's seed is marked as its event's scheme says and, once the master seed is
    known, is the derivation of the match's place."""
    if doc.seeds.scheme == "legacy":
        if match.seed_scheme != seeds.LEGACY:
            raise Discrepancy(
                f"match {match.id} seed: marked {match.seed_scheme} in an event without a "
                "master seed"
            )
        return
    if match.seed_scheme != seeds.DERIVED:
        raise Discrepancy(
            f"match {match.id} seed: marked {match.seed_scheme} in an event whose seeds are "
            "all derived from its master seed"
        )
    if master is None or match.seed is None:
        return
    if match.round is None:
        raise Discrepancy(f"match {match.id} seed: the match has no round")
    identity = seeds.match_identity(
        doc.tournament.id, match.round, match.board, match.bracket_match
    )
    expected = seeds.derive_seed(master, identity)
    if match.seed != expected:
        raise Discrepancy(
            f"match {match.id} seed: {match.seed} is not HMAC-SHA256(master seed, "
            f"{identity!r}), which gives {expected}"
        )


def check_replays(doc: Exported, out: Verification) -> None:
    games = hands = replays = again = 0
    for match in doc.matches:
        replay = match.replay
        if replay is None:
            if match.status == "done" and not match.bye:
                raise Discrepancy(f"match {match.id} replay: the match was played but has none")
            continue
        if replay.match_id != str(match.id) or replay.deals != match.deals:
            raise Discrepancy(
                f"match {match.id} replay: it is the replay of match {replay.match_id} with "
                f"{replay.deals} deals, not of match {match.id} with {match.deals} deals"
            )
        try:
            rules = Rules.from_dict(match.rules)
        except RulesError as exc:
            raise Discrepancy(f"match {match.id} rules: {exc}") from None
        if (replay.rules, replay.games_per_match) != (rules, match.games_per_match):
            raise Discrepancy(
                f"match {match.id} replay: played under {replay.rules} for "
                f"{replay.games_per_match} games, the match is {rules} for "
                f"{match.games_per_match} games"
            )
        if match.attempt is not None and match.attempt != replay.attempt:
            raise Discrepancy(
                f"match {match.id} attempt: the export says attempt {match.attempt}, its replay "
                f"was dealt as attempt {replay.attempt}"
            )
        try:
            verify_replay(replay)  # its deals derive from its seed and its attempt
        except (VerifyError, EngineError, ValueError, LookupError, TypeError) as exc:
            raise Discrepancy(f"match {match.id} replay: {exc}") from None
        replays += 1
        again += replay.attempt > 0
        games += len(replay.games)
        hands += sum(isinstance(e, HandEnded) for g in replay.games for e in g.events)
    played_again = f", {again} played again and dealt afresh (attempt > 0)" if again else ""
    out.ok(
        f"replays: {replays} re-simulated through the engine ({games} games, {hands} hands)"
        + played_again
    )


def _winner_of(result: StoredResult) -> int | None:
    """The winning side a result decided without play gives (a withdrawal or a give-up)."""
    lost = result.withdrawn
    if lost is not None and len(lost) == 1 and lost[0] in (0, 1):
        return 1 - lost[0]
    return None


def _as_json(value: object) -> object:
    """A result's field as it reads in the export (lists, not tuples)."""
    return msgspec.json.decode(msgspec.json.encode(value))


def check_results(doc: Exported, out: Verification) -> None:
    played = byes = unplayed = 0
    for match in doc.matches:
        if match.status not in ("done", "forfeit"):
            continue
        if match.bye:
            if match.winner_side != 0 or len(match.seats) != 1:
                raise Discrepancy(f"match {match.id} result: a bye is won by its one bot")
            byes += 1
            continue
        if match.result is None:
            raise Discrepancy(f"match {match.id} result: the finished match has none")
        try:
            stored = stored_result(match.result)
        except msgspec.ValidationError as exc:
            raise Discrepancy(f"match {match.id} result: not a result document ({exc})") from None
        if match.replay is None:
            if match.winner_side != _winner_of(stored) or stored.games:
                raise Discrepancy(
                    f"match {match.id} result: decided without play, but side "
                    f"{match.winner_side} is recorded as winner of {stored.reason!r}"
                )
            unplayed += 1
            continue
        expected = played_result(match.replay, luck=False)
        exact = match.seed_scheme == seeds.DERIVED  # older rows may lack newer keys
        for key in expected.__struct_fields__:
            if key == "luck":  # floats, checked with their model and a tolerance: check_luck
                continue
            mine, theirs = getattr(expected, key), getattr(stored, key)
            if theirs is None and mine is not None and not exact:
                continue
            if theirs != mine:
                raise Discrepancy(
                    f"match {match.id} result: {key} recorded {_as_json(theirs)!r}, "
                    f"its replay gives {_as_json(mine)!r}"
                )
        if match.winner_side != match.replay.result.winner:
            raise Discrepancy(
                f"match {match.id} result: winner side {match.winner_side} recorded, its "
                f"replay gives {match.replay.result.winner}"
            )
        played += 1
    out.ok(
        f"results: {played} recomputed from their replays, {byes} byes, {unplayed} decided "
        "without play (withdrawals)"
    )


def check_luck(doc: Exported, out: Verification) -> None:
    """Every played match's luck recomputed from its replay (:mod:`truco_cli.verify_luck`)."""
    found = check_match_luck(doc.matches)
    if found.problem is not None:
        raise Discrepancy(found.problem)
    if found.unknown:
        out.skip(
            f"luck: model {', '.join(sorted(found.unknown))} is unknown to this truco (update "
            "it to check those matches' luck)"
        )
    models = ", ".join(sorted(found.models)) or "none"
    older = f"; {found.without} stored before luck was computed" if found.without else ""
    out.ok(
        f"luck: {found.matches} matches recomputed from their replays with model {models} "
        f"({found.hands} hands){older}"
    )


def _result_of(match: ExportMatch) -> StoredResult | None:
    """The match's stored result, or None (also when it is not one: check_results says so)."""
    try:
        return stored_result(match.result) if match.result is not None else None
    except msgspec.ValidationError:
        return None


def match_record(match: ExportMatch) -> PlainRecord:
    """An exported match as the pure planner reads it, for the format's standings."""
    result = _result_of(match)
    return PlainRecord(
        round_number=match.round,
        bracket_match=match.bracket_match,
        status=match.status,
        bye=match.bye,
        seats=tuple(match.seats),
        winner_side=match.winner_side,
        games_won=result.games_won if result is not None else (0, 0),
        tantos=result.tantos if result is not None else (0, 0),
    )


def _line(rank: int, bot: int, points: float, tiebreaks: dict[str, float]) -> str:
    shown = ", ".join(f"{k} {v:g}" for k, v in tiebreaks.items())
    return f"rank {rank} bot {bot} ({points:g} points{', ' + shown if shown else ''})"


def check_standings(doc: TournamentExport, out: Verification) -> None:
    entrants = [
        SeededEntrant(e.bot_id, e.seed, e.withdrawn, e.owner_id)
        for e in doc.entries
        if e.seed is not None
    ]
    try:
        rows = standings(
            doc.tournament.format,
            entrants,
            [match_record(m) for m in doc.matches],
            third_place=bool(doc.tournament.settings.get("third_place", False)),
            partnership=doc.tournament.partnership,
        )
    except (ValueError, LookupError, TypeError, AssertionError) as exc:
        raise Discrepancy(f"standings: the results cannot be ranked: {exc!r}") from None
    for k in range(max(len(rows), len(doc.standings))):
        if k >= len(rows) or k >= len(doc.standings):
            raise Discrepancy(
                f"standings: the export has {len(doc.standings)} rows, the results give {len(rows)}"
            )
        mine, theirs = rows[k], doc.standings[k]
        computed = (mine.rank, mine.bot_id, mine.points, mine.withdrawn)
        tiebreaks = {str(key): float(value) for key, value in mine.tiebreaks.items()}
        if computed != (theirs.rank, theirs.bot_id, theirs.points, theirs.withdrawn) or (
            tiebreaks != theirs.tiebreaks
        ):
            raise Discrepancy(
                f"standings: line {k + 1} of the export is "
                f"{_line(theirs.rank, theirs.bot_id, theirs.points, theirs.tiebreaks)}, the "
                f"results give {_line(mine.rank, mine.bot_id, mine.points, tiebreaks)}"
            )
    out.ok(f"standings: {len(rows)} rows, as the {doc.tournament.format} format ranks the results")


def _rated(match: ExportMatch, ladder: bool) -> bool:
    """Whether the match moved ratings: rated, played, and not a walkover, except on a ladder,
    where a walkover with a winner is a rated loss (the platform's own rule,
    :func:`services.domain.rated.moves_ratings`)."""
    result = _result_of(match)
    if not match.rated or match.status != "done" or match.bye:
        return False
    if result is None:
        return True
    return moves_ratings(
        rated=True, reason=result.reason, winner_side=match.winner_side, ladder=ladder
    )


def check_elo(doc: Exported, out: Verification, *, ladder: bool = False) -> None:
    """Every Elo change recomputed (``ladder``: the export is a ladder day's)."""
    changes = 0
    history: dict[tuple[int, str], list[tuple[int, int, int, int]]] = {}
    annulled = set(getattr(doc, "annulled", ()))  # a ladder day's: moderators annulled them
    for match in doc.matches:
        if match.id in annulled or not _rated(match, ladder):
            if match.rating_changes:
                raise Discrepancy(
                    f"match {match.id} Elo: the match moved no rating, yet the "
                    "export shows rating changes"
                )
            continue
        pool = rating_pool(match.mode, match.partnership)
        by_bot = {c.bot_id: c for c in match.rating_changes}
        if sorted(by_bot) != sorted(match.seats) or len(by_bot) != len(match.rating_changes):
            raise Discrepancy(
                f"match {match.id} Elo: rating changes for bots {sorted(by_bot)}, but the "
                f"match's bots are {sorted(match.seats)}"
            )
        sides = [match.seats[0::2], match.seats[1::2]]
        result = side_result(match.winner_side)
        delta = match_delta(
            [by_bot[b].before for b in sides[0]],
            [by_bot[b].before for b in sides[1]],
            [k_factor(by_bot[b].rated_matches_before) for b in match.seats],
            result,
        )
        for side, sign in ((0, 1), (1, -1)):
            for bot in sides[side]:
                change = by_bot[bot]
                if change.pool != pool:
                    raise Discrepancy(
                        f"match {match.id} Elo: bot {bot} changed in pool {change.pool}, the "
                        f"match rates in {pool}"
                    )
                if change.after - change.before != sign * delta:
                    raise Discrepancy(
                        f"match {match.id} Elo: bot {bot} moved {change.after - change.before:+d}"
                        f" ({change.before} -> {change.after}), the Elo rule gives "
                        f"{sign * delta:+d}"
                    )
                history.setdefault((bot, pool), []).append(
                    (change.rated_matches_before, change.before, change.after, match.id)
                )
                changes += 1
    _check_chains(history)
    out.ok(
        f"Elo: {changes} rating changes recomputed with the Elo rule (services/domain/ratings.py); "
        "unrated matches changed nothing"
        + (
            f"; {len(annulled)} annulled matches (docs/moderation.md) changed nothing"
            if annulled
            else ""
        )
    )


def _check_chains(history: dict[tuple[int, str], list[tuple[int, int, int, int]]]) -> None:
    """A bot's rated matches in the event, in order: consecutive ones (by how many rated
    matches came before) hand their rating on."""
    for (bot, pool), items in history.items():
        items.sort()
        for (n, _, after, first), (m, before, _, second) in pairwise(items):
            if m == n:
                raise Discrepancy(
                    f"match {second} Elo: bot {bot} had {n} rated {pool} matches before it "
                    f"and before match {first} too"
                )
            if m == n + 1 and before != after:
                raise Discrepancy(
                    f"match {second} Elo: bot {bot} starts at {before}, but its previous rated "
                    f"match {first} left it at {after}"
                )


def verify_export(
    doc: TournamentExport, *, recorded_commitment: str | None = None, say: Say = print
) -> Verification:
    """Every check, in order; raises :class:`Discrepancy` at the first failure. ``say`` gets
    one line per check passed (and per check that could not be made)."""
    out = Verification(say)
    master = check_commitment(doc, recorded_commitment, out)
    check_seeds(doc, master, out)
    check_replays(doc, out)
    check_results(doc, out)
    check_luck(doc, out)
    check_standings(doc, out)
    check_elo(doc, out)
    return out
