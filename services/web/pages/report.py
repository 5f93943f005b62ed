"""``POST /bots/{id}/report``: the bot page's report form, sent without JavaScript.

The same report as ``POST /v1/reports`` (:func:`services.api.routes.moderation.file_report`:
the same budgets per address and the same queue), answered with a page in the reader's
language: sent, already waiting, too many, or no such bot. The form carries no credentials
(the pages know no account), so another site making a visitor's browser send it gains nothing
the visitor could not do, within the same per-address budget.
"""

from __future__ import annotations

from typing import Annotated, Any

import asyncpg
import msgspec
from litestar import Request, Response, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body

from services.api.problems import ProblemError
from services.api.routes.moderation import file_report
from services.api.schemas.moderation import ReportCreate
from services.web.i18n import gettext as _
from services.web.pages.render import Id, render

Form = Annotated[dict[str, str], Body(media_type=RequestEncodingType.URL_ENCODED)]


@post("/bots/{bot_id:int}/report", name="web:report-bot", status_code=200)
async def report_bot(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    bot_id: Id,
    data: Form,
) -> Response[str]:
    try:
        report = msgspec.convert(
            {
                "target": "bot",
                "target_id": bot_id,
                "category": data.get("category", ""),
                "text": data.get("text", ""),
            },
            ReportCreate,
        )
    except msgspec.ValidationError:
        return _answer(
            request,
            bot_id,
            422,
            _("The report was not sent: choose what is wrong, and write at most 1000 characters."),
        )
    try:
        made = await file_report(request, pool, report)
    except ProblemError as error:
        messages = {
            404: _("There is no bot %(id)d.") % {"id": bot_id},
            409: _("Your report of this bot is already waiting for the moderators."),
            429: _("Too many reports from your address: try again later."),
        }
        headers = error.headers or {}
        return _answer(
            request, bot_id, error.status, messages.get(error.status, error.detail), headers
        )
    return _answer(
        request,
        bot_id,
        200,
        _("Thank you: report %(id)d is waiting for the moderators.") % {"id": made.id},
    )


def _answer(
    request: Request[Any, Any, Any],
    bot_id: int,
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
) -> Response[str]:
    return render(
        request,
        "report_done.html",
        status_code=status,
        headers={"Cache-Control": "no-store", **(headers or {})},
        bot_id=bot_id,
        sent=status == 200,
        message=message,
    )
