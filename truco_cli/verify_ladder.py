"""``truco verify ladder POOL DAY``: the checks of a ladder day's export (docs/ladder.md).

The day's commitment against its revealed master seed, every match's seed against its
derivation from the day's master seed and the match's identity (pool, day, number, bots),
then, as for a tournament (:mod:`truco_cli.verify_event`), every replay re-simulated, every
stored result (and its luck) recomputed from its replay, and every Elo change recomputed."""

from __future__ import annotations

import hashlib

from services.domain import seeds
from services.tournaments.files.export_document import LadderDayExport
from truco_cli.verify_event import (
    Discrepancy,
    Say,
    Verification,
    check_elo,
    check_luck,
    check_replays,
    check_results,
)


def check_day_commitment(doc: LadderDayExport, out: Verification) -> bytes | None:
    """The master seed once revealed, checked against the day's commitment."""
    if doc.master_seed is None:
        out.skip(
            f"seeds: the {doc.pool} ladder's master seed of {doc.day} is not revealed yet (it "
            "is once the day is over and its matches have stopped)"
        )
        return None
    try:
        master = seeds.parse_master_seed(doc.master_seed)
    except ValueError as exc:
        raise Discrepancy(
            f"seed commitment: the revealed master seed is unreadable: {exc}"
        ) from None
    computed = hashlib.sha256(seeds.COMMITMENT_PREFIX + master).hexdigest()
    if computed != doc.commitment:
        raise Discrepancy(
            f"seed commitment: SHA-256 of the revealed master seed is {computed}, the day "
            f"committed to {doc.commitment}"
        )
    out.ok(f"seed commitment: the revealed master seed of {doc.day} gives {doc.commitment}")
    return master


def check_day_seeds(doc: LadderDayExport, master: bytes | None, out: Verification) -> None:
    numbers = sorted(doc.numbers)
    if len(set(numbers)) != len(numbers):
        raise Discrepancy("match seeds: two matches of the day carry the same number")
    derived = 0
    for number, match in zip(doc.numbers, doc.matches, strict=True):
        if match.seed_scheme != seeds.DERIVED:
            raise Discrepancy(f"match {match.id} seed: marked {match.seed_scheme}, not derived")
        if match.replay is not None and match.replay.seed != match.seed:
            raise Discrepancy(
                f"match {match.id} seed: its replay was played with seed {match.replay.seed}, "
                f"but the match's seed is {match.seed}"
            )
        if master is None or match.seed is None:
            continue
        identity = seeds.ladder_identity(doc.pool, doc.day, number, tuple(match.seats))
        expected = seeds.derive_seed(master, identity)
        if match.seed != expected:
            raise Discrepancy(
                f"match {match.id} seed: {match.seed} is not HMAC-SHA256(master seed, "
                f"{identity!r}), which gives {expected}"
            )
        derived += 1
    if master is not None:
        out.ok(
            f"match seeds: {derived} derived from the day's master seed by HMAC-SHA256 of each "
            "match's pool, day, number and bots, and every replay played with its seed"
        )


def verify_ladder_day(doc: LadderDayExport, *, say: Say = print) -> Verification:
    """Every check, in order; raises :class:`Discrepancy` at the first failure."""
    out = Verification(say)
    master = check_day_commitment(doc, out)
    check_day_seeds(doc, master, out)
    check_replays(doc, out)
    check_results(doc, out)
    check_luck(doc, out)
    check_elo(doc, out, ladder=True)
    return out
