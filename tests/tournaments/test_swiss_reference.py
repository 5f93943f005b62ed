"""The Swiss pairing against the FIDE Dutch reference, bbpPairings v6.0.0 (issue 24, item 9).

``data/*.json`` are ``truco pair`` states from simulated events where an earlier version
paired differently; ``data/*.trf`` is the same state as the reference reads it, and
``data/*.bbp`` is the reference's answer (``bbpPairings.exe --dutch FILE.trf -p OUT``: the pair
count, then one ``white black`` line per pair, ``X 0`` for the bye; white is mano).
"""

from __future__ import annotations

from pathlib import Path

from services.tournaments.model import RoundPairing
from services.tournaments.swiss import pair_round
from services.tournaments.trf import export_trf
from tests.tournaments.builders import players

DATA = Path(__file__).parent / "data"


def reference(name: str) -> tuple[set[tuple[int, int]], int | None]:
    """The reference's pairs as ``(mano, other)`` and its bye, from a ``.bbp`` file."""
    lines = (DATA / name).read_text().split("\n")[1:]
    pairs = {(int(w), int(b)) for w, b in (line.split() for line in lines if line)}
    byes = {w for w, b in pairs if b == 0}
    return {p for p in pairs if p[1] != 0}, (byes.pop() if byes else None)


def ours(pairing: RoundPairing) -> tuple[set[tuple[int, int]], int | None]:
    pairs = {(int(p.mano), int(p.b if p.mano == p.a else p.a)) for p in pairing.pairs}
    return pairs, None if pairing.bye is None else int(pairing.bye)


def test_trf_of_a_brand_new_event_names_the_initial_colour() -> None:
    """Without ``XXC`` the reference refuses a first round ("Please configure the initial piece
    colors."); with ``XXC white1`` it pairs round one exactly as the platform does."""
    text = export_trf(players(17), [], total_rounds=6, ratings=False)
    lines = text.splitlines()
    assert lines[4] == "XXC white1"
    assert text == (DATA / "n17_t0_r01_platform_export_withXXC.trf").read_text()
    without = (DATA / "n17_t0_r01_platform_export_noXXC.trf").read_text().splitlines()
    assert [line for line in lines if not line.startswith("XXC")] == without
    assert ours(pair_round(players(17), [])) == reference("n17_t0_r01_platform_export_withXXC.bbp")
