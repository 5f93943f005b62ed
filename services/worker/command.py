"""The command line that starts a Celery worker process of the platform.

One place for the flags every worker runs with, whoever starts it: ``make run``
(:mod:`services.launch.local`), the tests' process helpers and the benchmarks.
"""

from __future__ import annotations

from services.worker.names import LADDER, MATCHES

CELERY_APP = "services.worker.celery_app"
"""Every task registered: any worker, and beat."""
BOT_CALLING_APP = "services.worker.matches.celery_app"
"""The bot-calling tasks only: a worker of the ``matches`` and ``ladder`` queues loads nothing of
the trusted worker's (no database code)."""


def celery_app_for(queues: str) -> str:
    """The ``celery -A`` target of a worker consuming ``queues`` (comma-separated)."""
    return BOT_CALLING_APP if set(queues.split(",")) <= {MATCHES, LADDER} else CELERY_APP


def worker_argv(
    python: str,
    queues: str,
    node: str,
    concurrency: int,
    *,
    loglevel: str = "INFO",
    heartbeat: bool = True,
) -> list[str]:
    """``python -m celery ... worker`` on ``queues`` (comma-separated) as node ``node``
    (``name@%h``). The threads pool: a task waits (no CPU) while its match or its database
    work runs on the process's one event loop (:mod:`services.worker.loop_thread`); no mingle
    and no gossip, which a worker of this platform never uses."""
    return [
        python,
        "-m",
        "celery",
        "-A",
        celery_app_for(queues),
        "worker",
        "-Q",
        queues,
        "-n",
        node,
        "--pool=threads",
        f"--concurrency={concurrency}",
        f"--loglevel={loglevel}",
        "--without-mingle",
        "--without-gossip",
        *([] if heartbeat else ["--without-heartbeat"]),
    ]
