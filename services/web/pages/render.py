"""What every page shares: the templates in the request's language, the security headers, and
a page's response (``Content-Language``, ``Vary``, the cookie that keeps a chosen language)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

from litestar import Request, Response
from litestar.datastructures import Cookie
from litestar.params import Parameter
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template import TemplateConfig

from services.web import i18n
from services.web.views.causes import fault_tag
from services.web.views.common import (
    canto_name,
    card_name,
    decided_name,
    mode_name,
    reason_name,
    round_status_name,
    status_name,
)
from services.web.views.fault_details import shown_detail
from services.web.views.table_words import table_info

HERE = Path(__file__).resolve().parents[1]
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

# No inline script or style anywhere: scripts and styles come from /static only.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
# Litestar adds "; charset=utf-8" to every text/* media type itself: never spell it here
HTML = "text/html"
Id = Annotated[int, Parameter(ge=1, le=2**63 - 1)]


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    """Jinja2 over ``templates/`` with autoescape on (Litestar's Jinja engine sets it)."""
    return TemplateConfig(directory=TEMPLATES, engine=JinjaTemplateEngine)


@cache
def _engine(lang: i18n.Language) -> JinjaTemplateEngine:
    """The templates in ``lang``: Jinja2's i18n extension over that language's catalogue."""
    engine = template_config().to_engine()
    env = engine.engine
    assert env.autoescape is True
    env.trim_blocks = True
    env.lstrip_blocks = True
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(i18n.translations(lang), newstyle=True)  # type: ignore[attr-defined]
    # a card's accessible name as players say it: "ancho de espadas", "7 de copas"
    env.globals["card_name"] = card_name
    env.globals["status_name"] = status_name
    env.globals["reason_name"] = reason_name
    env.globals["decided_name"] = decided_name
    env.globals["fault_tag"] = fault_tag
    env.globals["shown_detail"] = shown_detail
    env.globals["mode_name"] = mode_name
    env.globals["canto_name"] = canto_name
    env.globals["table_info"] = table_info
    env.globals["round_status_name"] = round_status_name
    # numbers as the page's language writes them: "2.94" / "2,94", "99.9%" / "99,9 %"
    env.globals["decimal"] = i18n.decimal
    env.globals["number"] = i18n.number
    env.globals["signed"] = i18n.signed
    env.globals["percent"] = i18n.percent
    return engine


def use_language(request: Request[Any, Any, Any]) -> i18n.Language:
    """The request's language (``?lang=``, cookie, ``Accept-Language``), made current."""
    lang = i18n.choose(
        request.query_params, request.cookies, request.headers.get("accept-language")
    )
    i18n.activate(lang)
    return lang


async def before_page(request: Request[Any, Any, Any]) -> None:
    use_language(request)


PAGE_QUERY = "page_query"
"""Where a cached page keeps the query it reads (``request.state``): its links repeat only that."""


def page_query(request: Request[Any, Any, Any]) -> list[tuple[str, str]]:
    """The query a page's links repeat: the parameters a cached page reads
    (:func:`services.web.pages.cached.cached_page`), else the request's own, ``lang`` left out."""
    kept = request.state.get(PAGE_QUERY)
    if kept is not None:
        return list(kept)
    return [(k, v) for k, v in parse_qsl(request.url.query) if k != i18n.COOKIE]


def _switch(request: Request[Any, Any, Any]) -> list[tuple[str, str, str, bool]]:
    """The language switch: (code, name, this page's address in it, is current)."""
    query = page_query(request)
    return [
        (
            code,
            i18n.NATIVE_NAMES[code],
            f"{request.url.path}?{urlencode([*query, (i18n.COOKIE, code)])}",
            code == i18n.current(),
        )
        for code in i18n.LANGUAGES
    ]


def render_html(request: Request[Any, Any, Any], name: str, **context: Any) -> str:
    """Template ``name`` rendered with ``context`` in the request's language."""
    lang = use_language(request)
    return (
        _engine(lang)
        .get_template(name)
        .render(html_lang=i18n.HTML_LANG[lang], languages=_switch(request), **context)
    )


def language_of_response(request: Request[Any, Any, Any]) -> tuple[dict[str, str], list[Cookie]]:
    """What a page's response says of its language: ``Content-Language`` and ``Vary``, and,
    when the reader chose one with ``?lang=``, the cookie that keeps the choice."""
    lang = i18n.choose(
        request.query_params, request.cookies, request.headers.get("accept-language")
    )
    cookies = []
    if i18n.language(request.query_params.get(i18n.COOKIE)) == lang:
        cookies.append(
            Cookie(
                key=i18n.COOKIE,
                value=lang,
                max_age=i18n.COOKIE_MAX_AGE,
                path="/",
                samesite="lax",
                httponly=True,
            )
        )
    headers = {"Content-Language": i18n.HTML_LANG[lang], "Vary": "Accept-Language, Cookie"}
    return headers, cookies


def render(
    request: Request[Any, Any, Any],
    name: str,
    status_code: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> Response[str]:
    """A page in the request's language (``?lang=`` also sets the cookie that keeps it)."""
    html = render_html(request, name, **context)
    language_headers, cookies = language_of_response(request)
    return Response(
        html,
        status_code=status_code,
        media_type=HTML,
        headers={
            **SECURITY_HEADERS,
            **language_headers,
            **(headers or {}),
        },
        cookies=cookies,
    )
