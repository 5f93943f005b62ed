"""Log levels of third-party loggers that would flood the platform's logs.

httpx logs every request it sends at INFO ("HTTP Request: POST .../act 200"): a bot-calling
worker at ``--loglevel=INFO`` wrote one line per bot call, about 90 KB a minute with a few
matches running. Those loggers are kept at WARNING in every platform process (the workers and
beat through ``services.worker.celery_app``, the API through ``app_from_env``); a failing call
still shows, as a fault in the match's replay and as warnings.
"""

from __future__ import annotations

import logging

NOISY_LOGGERS = ("httpx", "httpcore")


def quiet_noisy_loggers(level: int = logging.WARNING) -> None:
    """Raise the per-request loggers of the HTTP client libraries to ``level``."""
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(level)
