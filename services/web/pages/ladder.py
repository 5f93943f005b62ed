"""``/ladders/{name}``: a ladder's table (the API's own rows), today's seed commitment; served
through the rendered-page cache, rendered once per read of the table."""

from __future__ import annotations

from typing import Annotated, Any

import asyncpg
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import Parameter

from services.api.deps import services_of
from services.api.routes.ladder_tables import ladder_tables
from services.web.i18n import gettext as _
from services.web.pages.cached import cached_page
from services.web.pages.ladder_data import ladder_named, ladder_table
from services.web.pages.page_cache import Rendered
from services.web.pages.render import render_html
from services.web.views.ladder import LADDER_NAMES, ladder_lines, ladder_name


@get("/ladders/{name:str}", name="web:ladder")
async def ladder_page(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    name: Annotated[str, Parameter(max_length=40)],
) -> Response[bytes]:
    ladder = ladder_named(name)
    if ladder is None:
        raise NotFoundException(
            _("There is no ladder %(name)s: the ladders are %(ladders)s.")
            % {"name": name, "ladders": ", ".join(LADDER_NAMES)}
        )
    settings = services_of(request.app.state).settings.ladder
    table = await ladder_table(ladder_tables(request.app.state), pool, ladder, settings)

    async def produce() -> Rendered:
        html = render_html(
            request,
            "ladder.html",
            pool=ladder,
            title=ladder_name(ladder),
            lines=ladder_lines(table.entries),
            in_flight=table.in_flight,
            today=table.today.isoformat(),
            commitment=table.commitment,
            ladders=[(p, ladder_name(p)) for p in LADDER_NAMES],
        )
        return Rendered(html.encode(), live=True)

    # one rendering per read of the table (issue 33, 4: 12 views a second of the uncached
    # page from 20 addresses took others' p50 to 2.8 s)
    return await cached_page(request, produce, table.version)
