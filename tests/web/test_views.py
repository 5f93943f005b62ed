"""The pure view models on plain data: seat views follow engine.observe, brackets, tables."""

from __future__ import annotations

from datetime import UTC, datetime

from arena.replay import (
    FORMAT,
    Decision,
    EntrantRecord,
    GameRecord,
    MatchResult,
    Replay,
    ReplayEvent,
)
from engine.events import ActionTaken, HandEnded, HandStarted, RoundEnded, Shown
from engine.rules import Rules
from services.db.pages import Entrant, HistoryPoint, LeaderRow, MatchRow
from services.web.views.bot import bot_view, rating_chart
from services.web.views.bracket import bracket_sections
from services.web.views.common import BotLink, knockout_note, outcome
from services.web.views.home import leaderboard_view
from services.web.views.replay import Bubble, ReplayView, SeatView, replay_view
from services.web.views.standings import crosstable_view

NOW = datetime(2025, 5, 1, tzinfo=UTC)
DEAL = (("1E", "2E", "3E"), ("4O", "5O", "6O"), ("7C", "10C", "11C"), ("12B", "1B", "2B"))


def replay_2v2() -> Replay:
    events: list[ReplayEvent] = [
        HandStarted(hand=0, mano=0, deal=DEAL, score=(0, 0)),
        Decision(seat=0, latency_ms=12.5),
        ActionTaken(
            seat=0,
            action="play",
            card="1E",
            say="¡<b>va</b>!",
            sena="ancho_espada",
            sena_seen_by=(2,),
        ),
        Decision(
            seat=1, latency_ms=900.0, fault="timeout", detail="slow", strikes=1, fallback=True
        ),
        ActionTaken(seat=1, action="play", card="4O"),
        ActionTaken(seat=2, action="play", card="7C", sena="tres", sena_seen_by=(0, 1)),
        ActionTaken(seat=3, action="play", card="12B"),
        RoundEnded(
            round=0, plays=((0, "1E"), (1, "4O"), (2, "7C"), (3, "12B")), winner=0, next_leader=0
        ),
        HandEnded(
            hand=0,
            winner=0,
            points=1,
            reason="rounds",
            shown=(Shown(seat=1, cards=("5O", "6O")),),
            score=(1, 0),
        ),
    ]
    game = GameRecord(number=1, game_id="g1", seed=1, teams=(0, 1), events=events, score=(1, 0))
    return Replay(
        format=FORMAT,
        match_id="m1",
        seed=1,
        rules=Rules(players=4),
        deals="independent",
        games_per_match=1,
        timeout_ms=1000,
        time_bank_ms=30000,
        fault_limit=5,
        entrants=(EntrantRecord("Norte", "builtin:a"), EntrantRecord("Sur", "builtin:b")),
        games=[game],
        result=MatchResult(games_won=(1, 0), tantos=(1, 0), winner=0, reason="games"),
    )


SIDES = ([BotLink("Norte", 1)], [BotLink("Sur", 2)])


def seat(view: ReplayView, n: int) -> SeatView:
    return view.table.seats[n]


def bubble(view: ReplayView, n: int) -> Bubble:
    found = view.table.seats[n].bubble
    assert found is not None
    return found


def test_omniscient_view_shows_every_hand_and_every_sena() -> None:
    v = replay_view(replay_2v2(), SIDES, 1, 2, "all", live=False)
    assert v is not None
    assert seat(v, 1).cards == ["5O", "6O"] and seat(v, 3).cards == list(DEAL[3])
    assert bubble(v, 0).sena == "ancho espada"
    assert bubble(v, 0).say == "¡<b>va</b>!"  # plain text; the template escapes it
    assert bubble(v, 1).fault == "timeout"
    assert seat(v, 1).faults == 1
    assert [k for k, _ in v.views] == ["all", "seat0", "seat1", "seat2", "seat3"]


def test_seat_view_hides_other_hands_and_senas_not_addressed_to_it() -> None:
    v = replay_view(replay_2v2(), SIDES, 1, 5, "seat1", live=False)
    assert v is not None
    assert seat(v, 1).cards == ["5O", "6O"]
    assert seat(v, 0).cards == [None, None] and seat(v, 2).cards == [None, None]
    assert seat(v, 3).cards == [None, None]
    # seat 0's seña went to seat 2 only; seat 2's was seen by seat 1 (R-9, engine.observe)
    assert bubble(v, 0).sena is None
    assert bubble(v, 2).sena == "tres"
    # the timeline stops at the present for a seat: nothing from the future
    assert max(item.step for item in v.timeline) == 5
    partner = replay_view(replay_2v2(), SIDES, 1, 5, "seat2", live=False)
    assert partner is not None and seat(partner, 0).bubble is not None
    assert bubble(partner, 0).sena == "ancho espada"


def test_live_match_is_always_the_spectator_view() -> None:
    v = replay_view(replay_2v2(), SIDES, 1, None, "all", live=True)
    assert (
        v is not None and v.view == "spectator" and v.views == [("spectator", "Spectator (live)")]
    )
    assert v.step == v.last  # a live match opens at its latest event
    assert all(c is None for s in v.table.seats for c in s.cards)
    assert all(s.bubble is None or s.bubble.sena is None for s in v.table.seats)
    # the proof cards shown at the hand's end are public
    assert seat(v, 1).shown == ["5O", "6O"]
    assert v.table.score == (1, 0)
    assert [h.points for h in v.hands] == [1]


def test_bad_view_and_step_are_clamped() -> None:
    v = replay_view(replay_2v2(), SIDES, 9, 999, "seat9", live=False)
    assert v is not None and v.game == 1 and v.step == v.last and v.view == "all"


def test_leaderboard_marks_provisional_and_trend() -> None:
    rows = [
        LeaderRow(1, "a", 1612.4, 12, 9, 3, 0, 31.6),
        LeaderRow(2, "b", 1490.0, 3, 1, 2, 0, -8.0),
    ]
    out = leaderboard_view(rows)
    assert [(r.rank, r.rating, r.provisional, r.trend) for r in out] == [
        (1, 1612, False, 32),
        (2, 1490, True, -8),
    ]


def match(
    mid: int, rnd: int, board: int, a: int, b: int, winner: int | None, bracket: str = "main"
) -> MatchRow:
    m = MatchRow(
        id=mid,
        tournament_id=1,
        round_id=rnd,
        round_number=rnd,
        bracket=bracket,
        board=board,
        mode="1v1",
        status="done",
        winner_side=winner,
        created_at=NOW,
        finished_at=NOW,
        result={"games_won": [2, 0] if winner == 0 else [0, 2], "tantos": [30, 12]},
    )
    m.entrants = [Entrant(a, f"bot{a}", 0, 0), Entrant(b, f"bot{b}", 1, 1)]
    return m


def test_bracket_columns_boxes_and_connectors() -> None:
    ms = [
        match(1, 1, 1, 1, 4, 0),
        match(2, 1, 2, 2, 3, 1),
        match(3, 1, 3, 5, 8, 0),
        match(4, 1, 4, 6, 7, 0),
        match(5, 2, 1, 1, 3, 0),
        match(6, 2, 2, 5, 6, 1),
        match(7, 3, 1, 1, 6, 0),
    ]
    (section,) = bracket_sections(ms, {})
    assert section.title == "Bracket" and [label for _, label in section.columns] == [
        "Round 1",
        "Round 2",
        "Round 3",
    ]
    assert len(section.boxes) == 7 and len(section.lines) == 6
    by_id = {b.match_id: b for b in section.boxes}
    # a round-2 box sits halfway between the two round-1 boxes that feed it
    mid = (by_id[1].y + by_id[2].y) / 2
    assert abs(by_id[5].y - mid) <= 1
    assert by_id[7].winner == 0 and (by_id[7].top_score, by_id[7].bottom_score) == ("2", "0")
    sides = bracket_sections(
        [*ms[:2], match(9, 2, 1, 4, 2, 0, "losers"), match(10, 3, 1, 1, 4, 0, "final")], {}
    )
    assert [s.title for s in sides] == ["Winners bracket", "Losers bracket", "Final"]


def test_crosstable_and_chart() -> None:
    from services.db.pages import EntryRow

    entries = [
        EntryRow(1, "a", 1, 1500, False),
        EntryRow(2, "b", 2, 1500, False),
        EntryRow(3, "c", 3, 1500, False),
    ]
    rows = crosstable_view(entries, [match(1, 1, 1, 1, 2, 0), match(2, 2, 1, 3, 1, 1)], {})
    assert [r.points for r in rows] == ["2", "0", "0"]
    assert rows[0].cells[1].kind == "win" and rows[1].cells[0].text == "0 (0-2)"
    history = [HistoryPoint("1v1", k + 1, 1500 + 10 * k, 1510 + 10 * k, NOW) for k in range(3)]
    chart = rating_chart("1v1", history)
    assert chart is not None and len(chart.points) == 3 and chart.path.count("L") == 3
    assert chart.points[-1].rating == 1530 and chart.points[0].y > chart.points[-1].y
    assert rating_chart("2v2", history) is None


def test_bot_page_lists_recent_faults_with_kinds_and_the_cause_of_a_loss() -> None:
    from arena.replay import Cause
    from services.db.pages import BotRow

    walkover = match(7, 1, 1, 5, 6, winner=1)
    played = match(8, 1, 1, 6, 5, winner=1)  # bot 5 on side 1: it won
    causes = (Cause(0, "start", "http_status", 401, "HTTP 401, expected 2xx"),)
    replays = {
        7: Replay(
            format=FORMAT,
            match_id="7",
            seed=1,
            rules=Rules(),
            deals="independent",
            games_per_match=2,
            timeout_ms=1000,
            time_bank_ms=30000,
            fault_limit=5,
            entrants=(EntrantRecord("bot5", "bot:5"), EntrantRecord("bot6", "bot:6")),
            games=[],
            result=MatchResult((0, 0), (0, 0), 1, "walkover", walkover=(0,), causes=causes),
        ),
        8: Replay(
            format=FORMAT,
            match_id="8",
            seed=2,
            rules=Rules(),
            deals="independent",
            games_per_match=1,
            timeout_ms=1000,
            time_bank_ms=30000,
            fault_limit=5,
            entrants=(EntrantRecord("bot6", "bot:6"), EntrantRecord("bot5", "bot:5")),
            games=[
                GameRecord(
                    1,
                    "8-g1",
                    2,
                    (0, 1),
                    [Decision(1, 1000.0, "timeout", "slow", 1, True)],
                    (0, 15),
                    1,
                )
            ],
            result=MatchResult((0, 1), (0, 15), 1, "games"),
        ),
    }
    bot = BotRow(5, "bot5", "owner", "active", NOW, None)
    view = bot_view(bot, [], [], [walkover, played], replays)
    assert view.faults == [("http_status", 1), ("timeout", 1)]
    first, second = view.recent_faults
    assert (first.match_id, first.kinds, first.lost_by) == (7, [("http_status", 1)], "walkover")
    assert first.cause == "signature rejected (401) on /start"
    assert first.detail == "HTTP 401, expected 2xx"
    assert (second.match_id, second.kinds, second.cause) == (8, [("timeout", 1)], None)


def test_a_bracket_match_level_on_games_says_how_it_went_through() -> None:
    m = match(1, 1, 1, 1, 2, 1)
    m.bracket_match = "W1-1"
    m.result = {"games_won": [1, 1], "tantos": [38, 45], "reason": "tantos"}
    assert knockout_note(m, outcome(m)) == "1-1, through on tantos 45-38"
    (section,) = bracket_sections([m], {})
    assert section.boxes[0].note == "1-1, through on tantos 45-38"
    m.result = {"games_won": [1, 1], "tantos": [40, 40], "reason": "draw"}
    assert knockout_note(m, outcome(m)) == "1-1, through on seed"
    m.result = {"games_won": [2, 0], "tantos": [30, 12], "reason": "games"}
    assert knockout_note(m, outcome(m)) == ""
    swiss = match(2, 1, 1, 1, 2, 0)
    swiss.result = {"games_won": [1, 1], "tantos": [45, 38], "reason": "tantos"}
    assert knockout_note(swiss, outcome(swiss)) == ""
