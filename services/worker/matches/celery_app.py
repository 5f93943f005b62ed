"""The bot-calling worker's ``celery -A`` target: the app with the bot-calling tasks only.

``celery -A services.worker.matches.celery_app worker -Q matches,ladder``. The process loads what
the workers share and this folder, and nothing of the trusted worker's: no asyncpg, no database
or workflow module, no task that would need them (``tests/services/worker/test_bot_worker_guard.py``
imports it in a fresh interpreter and checks). :mod:`services.worker.celery_app`, with every
task, serves any queue (``make run``'s workers, the trusted worker, beat);
:func:`services.worker.command.worker_argv` picks this one for a worker of the bot-calling
queues only.
"""

from __future__ import annotations

from services.worker import observe, wakeup
from services.worker.app import app
from services.worker.matches import boot, play_match, play_person, probe

# Importing the modules above registers the tasks on ``app`` and connects the boot's handlers
# (``observe``: the logs' format and the metrics port).
__all__ = ["app", "boot", "observe", "play_match", "play_person", "probe", "wakeup"]
