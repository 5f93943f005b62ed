"""The command line that starts a Celery worker process of the platform.

One place for the flags every worker runs with, whoever starts it: ``make run``
(:mod:`services.launch.local`), the tests' process helpers and the benchmarks.
"""

from __future__ import annotations

CELERY_APP = "services.worker.celery_app"


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
        CELERY_APP,
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
