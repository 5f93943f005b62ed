"""One address of each page type, on the seeded data (``tests/web/seed.py``): what the
accessibility test checks and ``make screenshots`` photographs."""

from __future__ import annotations

from services.web.reference import REFERENCE_URL
from tests.web.conftest import WebData


def page_types(web: WebData) -> dict[str, str]:
    """One address of each page type (name -> URL), with the seeded data."""
    s = web.seeded
    return {
        "home": "/",
        "tournament swiss (live)": f"/tournaments/{s.swiss_id}",
        "tournament swiss, one round": f"/tournaments/{s.swiss_id}?round=2",
        "tournament round robin": f"/tournaments/{s.robin_id}",
        "tournament single elimination": f"/tournaments/{s.single_id}",
        "tournament double elimination": f"/tournaments/{s.double_id}",
        "bot": f"/bots/{s.bots['El Ancho']}",
        "match finished": f"/matches/{s.replay_match}",
        "match finished, seat view, mid-hand": f"/matches/{s.replay_match}?game=1&step=6&view=seat0",
        "match live": f"/matches/{s.live_match}",
        "error 404": "/no/such/page",
        "error 400": "/matches/1?step=abc",
        "API reference": REFERENCE_URL,
    }
