"""One address of each page type, on the seeded data (``tests/services/web/seed.py``): what the
accessibility test checks and ``make screenshots`` photographs."""

from __future__ import annotations

from services.web.reference import REFERENCE_URL
from tests.services.web.conftest import WebData


def page_types(web: WebData) -> dict[str, str]:
    """One address of each page type (name -> URL), with the seeded data."""
    s = web.seeded
    return {
        "home": "/",
        "tournaments": "/tournaments",
        "bots": "/bots",
        "leaderboards": "/leaderboards",
        "tournament swiss (live)": f"/tournaments/{s.swiss_id}",
        "tournament swiss, one round": f"/tournaments/{s.swiss_id}?round=2",
        "tournament round robin": f"/tournaments/{s.robin_id}",
        "tournament single elimination": f"/tournaments/{s.single_id}",
        "tournament double elimination": f"/tournaments/{s.double_id}",
        "tournament 2v2 individual": f"/tournaments/{s.individual_id}",
        "tournament with walkovers and forfeits": f"/tournaments/{s.faults_id}",
        "bot": f"/bots/{s.bots['El Ancho']}",
        "bot with faults": f"/bots/{s.bots['lento']}",
        "match walkover": f"/matches/{s.lost_by['firma-vieja']}",
        "SPRT test": f"/tests/{s.sprt_id}",
        "play a bot": "/play",
        "play board": "/play/1",
        "play replay (2v2)": f"/play/{s.play_match}/replay?step=30",
        "match finished": f"/matches/{s.replay_match}",
        "match finished, seat view, mid-hand": f"/matches/{s.replay_match}?game=1&step=6&view=seat0",
        "match live": f"/matches/{s.live_match}",
        "error 404": "/no/such/page",
        "error 400": "/matches/1?step=abc",
        "API reference": REFERENCE_URL,
        **ladder_pages(web),
    }


def every_page(web: WebData) -> dict[str, str]:
    """Every page type in every mode, for the screen-size and language tests: each format,
    team and individual 2v2, a bot, the replay at several steps and points of view, a walkover,
    a forfeit, an SPRT test, the index pages and a 404."""
    s = web.seeded
    replay = s.replay_match
    return {
        "home": "/",
        "tournaments": "/tournaments",
        "bots": "/bots",
        "leaderboards": "/leaderboards",
        "swiss (running)": f"/tournaments/{s.swiss_id}",
        "round robin": f"/tournaments/{s.robin_id}",
        "single elimination": f"/tournaments/{s.knockout_id}",
        "double elimination": f"/tournaments/{s.double_id}",
        "2v2 team": f"/tournaments/{s.team_id}",
        "2v2 individual": f"/tournaments/{s.individual_id}",
        "walkovers and forfeits": f"/tournaments/{s.faults_id}",
        "bot": f"/bots/{s.bots['El Ancho']}",
        "bot with faults": f"/bots/{s.bots['lento']}",
        "replay, first step": f"/matches/{replay}",
        "replay, mid-hand": f"/matches/{replay}?game=1&step=6&view=seat0",
        "replay, late": f"/matches/{replay}?game=2&step=40&view=all",
        "replay, 2v2 team": f"/matches/{s.team_match}?game=1&step=12",
        "live match": f"/matches/{s.live_match}",
        "walkover": f"/matches/{s.lost_by['caido']}",
        "forfeit": f"/matches/{s.lost_by['lento']}",
        "SPRT test": f"/tests/{s.sprt_id}",
        "play a bot": "/play",
        "play board": "/play/1",
        "play replay": f"/play/{s.play_match}/replay",
        "play replay, a seat mid-hand": f"/play/{s.play_match}/replay?step=20&view=seat1",
        "error 404": "/no/such/page",
        **ladder_pages(web),
    }


def ladder_pages(web: WebData) -> dict[str, str]:
    """The ladders' pages and the pages of bots on a ladder, in every state."""
    ladder = web.seeded.ladder
    assert ladder is not None
    return {
        "ladder 1v1": "/ladders/1v1",
        "ladder 2v2 individual, one bot waiting": "/ladders/2v2-individual",
        "bot on a ladder, placing": f"/bots/{ladder.bots[0]}",
        "bot on a ladder, long name": f"/bots/{ladder.bots[1]}",
        "bot paused on a ladder": f"/bots/{ladder.paused}",
        "bot waiting on a ladder": f"/bots/{ladder.waiting}",
        "ladder match": f"/matches/{ladder.match}",
    }
