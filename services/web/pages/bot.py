"""A bot's page: its ratings and their history, its luck so far, faults and latency, tests and
recent matches."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException

from services.api.deps import services_of
from services.api.routes.ladder_tables import ladder_tables
from services.db import luck as db_luck
from services.db import matches as db_matches
from services.db import moderation as db_moderation
from services.db import page_reads as db
from services.db import play_matches as db_play
from services.db import sprt_tests as db_sprt
from services.domain import FINISHED_STATUSES
from services.web.i18n import gettext as _
from services.web.pages.ladder_data import ladders_of_bot
from services.web.pages.render import Id, render
from services.web.pages.replays import replays
from services.web.views.bot import bot_view
from services.web.views.luck import bot_luck_line
from services.web.views.moderation import moderation_view, report_categories


@get("/bots/{bot_id:int}", name="web:bot")
async def bot_page(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool], bot_id: Id
) -> Response[str]:
    bot = await db.bot(pool, bot_id)
    if bot is None:
        raise NotFoundException(_("There is no bot %(id)d.") % {"id": bot_id})
    matches = await db.bot_matches(pool, bot_id)
    stored = await replays(pool, [m.id for m in matches if m.status in FINISHED_STATUSES])
    view = bot_view(
        bot,
        await db.bot_ratings(pool, bot_id),
        await db.rating_history(pool, bot_id),
        matches,
        stored,
    )
    tests = await db_sprt.tests_of_bot(pool, bot_id)
    names = await db_matches.entrant_names(
        pool, sorted({t.bot_a for t in tests} | {t.bot_b for t in tests})
    )
    ladders = await ladders_of_bot(
        ladder_tables(request.app.state),
        pool,
        bot_id,
        services_of(request.app.state).settings.ladder,
    )
    people = await db_play.record_vs_people(pool, bot_id)
    state = await db_moderation.bot_state(pool, bot_id)
    moderation = moderation_view(
        None if state is None else state.disqualified_at,
        await db_moderation.public_bot_entries(pool, bot_id),
    )
    luck = bot_luck_line(await db_luck.bot_luck(pool, bot_id))
    return render(
        request,
        "bot.html",
        b=view,
        tests=tests,
        names=names,
        ladders=ladders,
        people=people,
        moderation=moderation,
        categories=report_categories(),
        luck=luck,
    )
