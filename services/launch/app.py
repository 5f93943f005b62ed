"""The platform as one Litestar app: the REST API (:mod:`services.api`) and the web pages
(:mod:`services.web`). Run it with ``uvicorn --factory services.launch.app:app_from_env``.

This module is the composition root: it may import every room of ``services``, and nothing in
``services`` imports it.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Litestar

from services.api.app import create_api
from services.base.config import Settings
from services.base.environment import load_settings
from services.base.log_format import configure_logging
from services.base.log_levels import quiet_noisy_loggers
from services.web import pages_for_browser_routes, reference_plugins, web_router
from services.worker.app import app as worker_app


def create_app(settings: Settings, **options: Any) -> Litestar:
    """The API with the web pages (and HTML error pages off the API's paths) and the API
    reference (``/schema/reference``); ``options`` are
    :func:`services.api.app.create_api`'s (``pool``, ``bot_client_factory``, ``sender``,
    ``rate_limits``, ``rate_counter``)."""
    return create_api(
        settings,
        pages=[web_router()],
        error_pages=pages_for_browser_routes,
        render_plugins=reference_plugins(),
        **options,
    )


def app_from_env() -> Litestar:
    """``uvicorn --factory services.launch.app:app_from_env``: the process's edge. The settings are
    read here, once, and handed to the Celery app this process sends tasks with."""
    settings = load_settings()
    if not logging.getLogger().handlers:  # not already set up by services.api.serve
        configure_logging(settings.log_format)
    quiet_noisy_loggers()
    worker_app.use_settings(settings)
    return create_app(settings)
