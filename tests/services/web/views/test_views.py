"""The pure view models on plain data: seat views follow engine.observe, brackets, tables."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import msgspec

from arena.match.replay import (
    FORMAT,
    Decision,
    EntrantRecord,
    GameRecord,
    MatchResult,
    Replay,
    ReplayEvent,
)
from engine.events import (
    ActionTaken,
    FlorSettled,
    GameEnded,
    HandEnded,
    HandStarted,
    RoundEnded,
    Shown,
)
from engine.rules import Rules
from services.db.page_reads import Entrant, EntryRow, HistoryPoint, LeaderRow, MatchRow
from services.domain.result import ResultReason, StoredResult
from services.tournaments.event import Played, SeededEntrant
from services.tournaments.formats import bracket_format
from services.web.views.bot import bot_view, rating_chart
from services.web.views.bracket import bracket_view
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
    assert bubble(v, 0).sena == "ancho de espadas"
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
    assert bubble(v, 2).sena == "un tres"
    # the timeline stops at the present for a seat: nothing from the future
    assert max(item.step for item in v.timeline) == 5
    partner = replay_view(replay_2v2(), SIDES, 1, 5, "seat2", live=False)
    assert partner is not None and seat(partner, 0).bubble is not None
    assert bubble(partner, 0).sena == "ancho de espadas"


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
        result=StoredResult(
            games=(),
            games_won=(2, 0) if winner == 0 else (0, 2),
            tantos=(30, 12),
            reason="games",
            forfeit=None,
            walkover=(),
            faults=(0, 0),
        ),
    )
    m.entrants = [Entrant(a, f"bot{a}", 0, 0), Entrant(b, f"bot{b}", 1, 1)]
    return m


def _played(format: str, n: int, results: dict[str, int], third_place: bool = False) -> Played:
    return Played(
        tuple(SeededEntrant(k + 1, k + 1) for k in range(n)),
        bracket_results=results,
        third_place=third_place,
    )


def _entries(n: int) -> list[EntryRow]:
    return [EntryRow(k + 1, f"bot{k + 1}", k + 1, 1500.0, False) for k in range(n)]


def test_a_five_bot_bracket_names_rounds_shows_byes_and_the_third_place() -> None:
    fmt = bracket_format("single_elimination")
    (section,) = bracket_view(fmt, _played("single", 5, {}, True), _entries(5), [], {})[0]
    assert section.title == "Bracket"
    assert [label for _, label in section.columns] == ["Quarter-finals", "Semi-finals", "Final"]
    boxes = {b.code: b for b in section.boxes}
    assert len(boxes) == 8  # 4 quarter-finals (3 of them byes), 2 semi-finals, final, 3rd
    assert sum(b.bye for b in boxes.values()) == 3
    assert all("bye" in (b.top, b.bottom) and b.winner is not None for b in boxes.values() if b.bye)
    assert boxes["3P"].tag == "Third place" and boxes["W3-1"].tag == ""
    assert boxes["W2-1"].label == "Semi-final 1" and boxes["W3-1"].label == "Final"
    # a slot not known yet says whose winner (or loser) fills it
    assert (boxes["W3-1"].top, boxes["3P"].bottom) == (
        "winner of Semi-final 1",
        "loser of Semi-final 2",
    )
    # the third-place box sits under the final, apart from it, and no line reaches it
    assert boxes["3P"].x == boxes["W3-1"].x and boxes["3P"].y > boxes["W3-1"].y + 46
    ends = {tuple(int(v) for v in d.rsplit("V", 1)[1].split(" H")) for d in section.lines}
    into_last = [y for y, x in ends if x == boxes["3P"].x]
    assert len(into_last) == 2 and all(
        boxes["W3-1"].y <= y <= boxes["W3-1"].y + 46 for y in into_last
    )
    assert len(section.lines) == 6  # 4 quarter-finals into 2 semi-finals into the final


def test_each_line_joins_a_match_to_the_one_its_winner_plays_next() -> None:
    fmt = bracket_format("double_elimination")
    sections, top = bracket_view(fmt, _played("double", 6, {}), _entries(6), [], {})
    assert [s.title for s in sections] == ["Winners bracket", "Losers bracket", "Final"]
    assert [label for _, label in sections[2].columns] == ["Grand final", "Grand final reset"]
    assert top is None  # no champion yet
    bracket = fmt.make_bracket(6)
    for section in sections:
        at = {b.code: b for b in section.boxes}
        for m in bracket.matches:
            if m.id not in at:
                continue
            for k, slot in enumerate((m.a, m.b)):
                if slot.winner_of not in at:
                    continue
                src, dst = at[slot.winner_of], at[m.id]
                path = f"M{src.x + 190},{src.y + 23} H{dst.x - 25} V{dst.y + (11 if k == 0 else 34)} H{dst.x}"
                assert any(_same_path(path, d) for d in section.lines), (m.id, path)


def _same_path(a: str, b: str) -> bool:
    nums = [[float(x) for x in re.findall(r"-?[0-9.]+", p)] for p in (a, b)]
    return len(nums[0]) == len(nums[1]) and all(
        abs(x - y) <= 1.5 for x, y in zip(*nums, strict=True)
    )


def test_the_podium_is_named_once_there_is_a_champion() -> None:
    fmt = bracket_format("single_elimination")
    results = {"W1-1": 1, "W1-2": 2}  # 1 beats 4, 2 beats 3; the final 1 v 2
    played = _played("single", 4, {**results, "W2-1": 2})
    rows = fmt.standings(played)
    _, top = bracket_view(fmt, played, _entries(4), [], {}, rows)
    assert top is not None
    assert [(place, who.name) for place, who in top.places][:2] == [(1, "bot2"), (2, "bot1")]


def test_crosstable_and_chart() -> None:
    from services.db.page_reads import EntryRow

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
    from arena.match.replay import Cause
    from services.db.page_reads import BotRow

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
    assert first.cause is not None and first.cause.summary == "signature rejected (401) on /start"
    assert first.cause.raw == "HTTP 401, expected 2xx"  # the client's words, apart, as data
    assert (second.match_id, second.kinds, second.cause) == (8, [("timeout", 1)], None)


def _result(games: tuple[int, int], tantos: tuple[int, int], reason: ResultReason) -> StoredResult:
    return StoredResult((), games, tantos, reason, None, (), (0, 0))


def test_a_bracket_match_level_on_games_says_how_it_went_through() -> None:
    m = match(1, 1, 1, 1, 2, 1)
    m.bracket_match = "W1-1"
    m.result = _result((1, 1), (38, 45), "tantos")
    assert knockout_note(m, outcome(m)) == "1-1, through on tantos 45-38"
    (section,) = bracket_view(
        bracket_format("single_elimination"),
        _played("single", 2, {"W1-1": 2}),
        _entries(2),
        [m],
        {},
    )[0]
    assert section.boxes[0].note == "1-1, through on tantos 45-38"
    assert section.boxes[0].winner == 1 and section.boxes[0].match_id == 1
    m.result = _result((1, 1), (40, 40), "draw")
    assert knockout_note(m, outcome(m)) == "1-1, through on seed"
    m.result = _result((2, 0), (30, 12), "games")
    assert knockout_note(m, outcome(m)) == ""
    swiss = match(2, 1, 1, 1, 2, 0)
    swiss.result = _result((1, 1), (45, 38), "tantos")
    assert knockout_note(swiss, outcome(swiss)) == ""


def test_a_flor_that_ends_the_game_mid_hand_is_its_hand_s_winner_and_points() -> None:
    """The 2v2 game went from 27-28 to 30-28 on a flor: its row says so (it read "— | 0")."""
    events: list[ReplayEvent] = [
        HandStarted(hand=6, mano=1, deal=DEAL, score=(27, 28)),
        FlorSettled(
            sung=(0,),
            bet="flor",
            outcome="alone",
            winner=0,
            points=3,
            declarations=(),
            score=(30, 28),
        ),
        HandEnded(hand=6, winner=None, points=0, reason="game_over", shown=(), score=(30, 28)),
        GameEnded(winner=0, score=(30, 28)),
    ]
    replay = msgspec.structs.replace(
        replay_2v2(),
        games=[GameRecord(1, "g1", 1, (0, 1), events, (30, 28))],
    )
    v = replay_view(replay, SIDES, 1, 3, "all", live=False)
    assert v is not None
    (row,) = v.hands
    assert (row.winner, row.points, row.score) == ("Norte", 3, (30, 28))
    assert row.summary == "flor: Norte, 3 tantos · the game ended in the hand"


def test_the_hands_table_and_timeline_stop_at_the_step_unless_the_whole_game_is_asked() -> None:
    replay = replay_2v2()
    at_start = replay_view(replay, SIDES, 1, 0, "all", live=False)
    whole = replay_view(replay, SIDES, 1, 0, "all", live=False, whole=True)
    seat = replay_view(replay, SIDES, 1, 0, "seat1", live=False, whole=True)
    assert at_start is not None and whole is not None and seat is not None
    assert at_start.hands == [] and not any(t.future for t in at_start.timeline)
    assert [h.hand for h in whole.hands] == [1] and any(t.future for t in whole.timeline)
    assert whole.hands[0].summary.startswith("truco: Norte, 1 tanto (not called)")
    assert seat.hands == [] and not seat.whole  # a seat never sees ahead


def test_a_forfeit_says_which_fault_in_which_game_from_the_replay() -> None:
    from arena.match.replay import Cause
    from services.web.views.causes import cause_view

    game = GameRecord(
        1, "9-g1", 2, (0, 1),
        [Decision(1, 1000.0, "timeout", "no complete answer within 1000 ms", 5, True)],
        (15, 0), 0, forfeit=1,
    )  # fmt: skip
    replay = Replay(
        FORMAT, "9", 1, Rules(), "independent", 1, 1000, 30000, 5,
        (EntrantRecord("a", "bot:a"), EntrantRecord("b", "bot:b")), [game],
        MatchResult((1, 0), (0, 0), 0, "forfeit", forfeit=1),
    )  # fmt: skip
    cause = Cause(1, "act", "timeout", None, "fault 5 in game 1: no complete answer within 1000 ms")
    view = cause_view(cause, replay)
    assert (view.summary, view.where) == ("no answer in time on /act", "fault 5 in game 1")
    assert view.raw == "no complete answer within 1000 ms" and view.side == 1
    walkover = cause_view(Cause(0, "info", "connect", None, "connection refused"), None)
    assert (walkover.summary, walkover.where, walkover.raw) == (
        "could not connect on GET /",
        "",
        "connection refused",
    )


def test_a_cause_names_the_bot_that_lost_it_in_individual_2v2() -> None:
    from arena.match.replay import Cause
    from services.web.views.causes import match_causes

    m = match(10, 1, 1, 1, 2, winner=0)
    m.entrants = [Entrant(k + 1, f"bot{k + 1}", k % 2, k) for k in range(4)]  # a bot a seat
    m.result = StoredResult(
        (), (0, 0), (0, 0), "walkover", 1, (3,), (0, 0),
        causes=(Cause(3, "info", "connect", None, "connection refused"),),
    )  # fmt: skip
    (cause,) = match_causes(m, None)
    assert [b.name for b in cause.who] == ["bot4"] and cause.side == 1  # not its partner too
    m.entrants = m.entrants[:2]  # one bot a side: the side
    m.result = StoredResult(
        (), (0, 0), (0, 0), "walkover", 1, (1,), (0, 0),
        causes=(Cause(1, "start", "http_status", 401, ""),),
    )  # fmt: skip
    (cause,) = match_causes(m, None)
    assert [b.name for b in cause.who] == ["bot2"]
    assert cause.summary == "signature rejected (401) on /start" and cause.raw == ""
