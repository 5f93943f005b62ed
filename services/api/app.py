"""The REST API as a Litestar application: ``create_api(settings)``.

The platform's app (API and web pages) is :func:`services.launch.app.create_app`, which adds the pages
through ``pages``; this package never imports :mod:`services.web` (the pages sit above it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import asyncpg
from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.logging.config import LoggingConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.types import ControllerRouterHandler, ExceptionHandlersMap

from services.api.auth import security_components
from services.api.deps import (
    BotClientFactory,
    MatchSender,
    Services,
    default_sender,
    default_stopper,
    get_pool,
)
from services.api.guard.client_address import client_address_reader
from services.api.guard.content_type import json_body_hook
from services.api.guard.hooks import first_answer
from services.api.guard.no_store import no_store_credentials
from services.api.guard.ratelimit import PREFIX as RATE_LIMIT_PREFIX
from services.api.guard.ratelimit import STATE_KEY as LIMITER_KEY
from services.api.guard.ratelimit import (
    Counter,
    Limiter,
    MemoryCounter,
    RedisCounter,
    rate_limit_hook,
)
from services.api.guard.read_lane import STATE_KEY as LANE_KEY
from services.api.guard.read_lane import ReadLane, read_lane
from services.api.guard.slow_clients import body_deadline
from services.api.ops.http_observer import observe_http
from services.api.ops.metrics_route import metrics, ops_lifespan
from services.api.problems import exception_handlers
from services.api.routes.accounts import AccountController
from services.api.routes.admin import AdminController
from services.api.routes.admin_flags import LadderFlagController
from services.api.routes.api_keys import ApiKeyController
from services.api.routes.bots import BotController, default_bot_client_factory
from services.api.routes.challenges import ChallengeController
from services.api.routes.health import health, liveness
from services.api.routes.ladders import LadderController
from services.api.routes.leaderboards import LeaderboardController
from services.api.routes.matches import BotMatchController, MatchController
from services.api.routes.moderation import BotModerationController, ReportController
from services.api.routes.play import PlayController, room_of
from services.api.routes.schema_document import KeptJsonDocument
from services.api.routes.sprt_tests import SprtController
from services.api.routes.streams import StreamController, hub_of
from services.api.routes.tournament_export import TournamentExportController
from services.api.routes.tournaments import TournamentController
from services.base.config import RateLimits, Settings
from services.base.secretbox import SecretBox
from services.db.pool import create_pool

MAX_BODY_BYTES = 64 * 1024
API_VERSION = "1.0.0"


def create_api(
    settings: Settings,
    pool: asyncpg.Pool | None = None,
    bot_client_factory: BotClientFactory | None = None,
    sender: MatchSender | None = None,
    rate_limits: RateLimits | None = None,
    rate_counter: Counter | None = None,
    pages: Sequence[ControllerRouterHandler] = (),
    error_pages: Callable[[ExceptionHandlersMap], ExceptionHandlersMap] | None = None,
    render_plugins: Sequence[OpenAPIRenderPlugin] = (),
) -> Litestar:
    """The API. The platform's app (:func:`services.launch.app.create_app`) adds the web pages'
    handlers as ``pages`` and wraps the exception handlers with ``error_pages`` (HTML off the
    API's paths); ``render_plugins`` serve more forms of the OpenAPI document under ``/schema``
    besides ``/schema/openapi.json`` (the pages' API reference). Without ``pool`` the app opens
    one on ``settings.database.url`` at start-up and closes it at shutdown; an injected pool is
    left to its owner.

    ``sender(pool, match_ids)`` hands new matches to the workers (default:
    ``services.worker.results.dispatch.send_matches`` with this app's secret box if importable,
    else a no-op that logs). ``rate_limits`` (default ``settings.rate_limits``) replaces the
    settings' budgets; counters are in Redis when ``settings.redis.url`` is set, else in
    memory (or pass ``rate_counter``).
    """
    if settings.secrets.key is None:
        raise ValueError("settings.secrets.key is required (it encrypts bots' signing secrets)")
    secret_box = SecretBox(settings.secrets.key)
    svc = Services(
        settings=settings,
        secret_box=secret_box,
        bot_client_factory=bot_client_factory or default_bot_client_factory,
        sender=sender or default_sender(secret_box),
        pool=pool,
        stopper=default_stopper(settings),
    )
    limits: RateLimits = rate_limits or settings.rate_limits
    counter: Counter = rate_counter or (
        RedisCounter(settings.redis.url, prefix=settings.redis.prefix + RATE_LIMIT_PREFIX)
        if settings.redis.url
        else MemoryCounter()
    )
    limiter = Limiter(limits, counter, client_address_reader(settings.web.trusted_proxies))
    lane = ReadLane(settings.web.reads_at_once, settings.web.reads_per_address)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        try:
            if svc.pool is not None:
                try:
                    yield
                finally:
                    await room_of(app.state).aclose(svc.pool)
                return
            if settings.database.url is None:
                raise ValueError("settings.database.url is required to open the database pool")
            svc.pool = await create_pool(settings.database.url)
            try:
                yield
            finally:
                await room_of(app.state).aclose(svc.pool)
                own, svc.pool = svc.pool, None
                await own.close()
        finally:
            await hub_of(app.state).aclose()
            if rate_counter is None:
                await counter.aclose()

    app = Litestar(
        route_handlers=[
            AccountController,
            ApiKeyController,
            BotController,
            BotMatchController,
            TournamentController,
            TournamentExportController,
            ChallengeController,
            MatchController,
            LeaderboardController,
            LadderController,
            SprtController,
            StreamController,
            PlayController,
            health,
            liveness,
            metrics,
            AdminController,
            LadderFlagController,
            ReportController,
            BotModerationController,
            *pages,
        ],
        before_request=first_answer(
            rate_limit_hook(limits, counter, address_of=limiter.address_of),
            json_body_hook,
        ),
        middleware=[body_deadline, read_lane(lane, limiter.address_of)],
        after_request=no_store_credentials,
        dependencies={"pool": Provide(get_pool, sync_to_thread=False)},
        exception_handlers=error_pages(exception_handlers) if error_pages else exception_handlers,
        lifespan=[lifespan, ops_lifespan(settings)],
        state=State({"services": svc, LIMITER_KEY: limiter, LANE_KEY: lane}),
        request_max_body_size=MAX_BODY_BYTES,
        # the process's logging is its edge's (services.base.log_format: JSON lines or the
        # human format); Litestar's own logger passes its lines on to it
        logging_config=LoggingConfig(
            configure_root_logger=False,
            loggers={"litestar": {"level": "INFO", "handlers": [], "propagate": True}},
        ),
        openapi_config=OpenAPIConfig(
            title="Truco Arena API",
            version=API_VERSION,
            description="Bots play Argentine Truco. Errors are RFC 9457 problem details.",
            path="/schema",
            # the app's own JSON document (encoded once), unless a plugin serves /openapi.json (the platform:
            # the committed document, services.web.reference)
            render_plugins=[
                *(
                    []
                    if any(p.has_path("/openapi.json") for p in render_plugins)
                    else [KeptJsonDocument()]
                ),
                *render_plugins,
            ],
            components=security_components,
        ),
    )
    observe_http(app)  # every request counted and timed, with a request id (outside routing)
    return app
