"""Celery workers: the bot-calling worker plays matches, the trusted worker stores them.

==================  =========  ============================================================
module              queue      what
==================  =========  ============================================================
celery_app          -          the ``celery -A`` target: the app with every task registered
app                 -          the Celery app object with the settings read at boot
task                -          ``platform_task``: the decorator every task is declared with
schedule            -          beat's schedule (from the settings)
names               -          queue and task names (shared by senders and workers)
messages            -          the wire shapes of task arguments (no database types)
slots               -          per-bot cap on concurrent matches (a Redis semaphore)
senders             -          ``send_matches(pool, match_ids)`` and the other task senders
tasks_play          matches    ``truco.play_match``: runs one match, sends the replay back
tasks_probe         matches    ``truco.probe_bots``: ``GET {url}/`` of each bot (health)
tasks_store         results    ``truco.store_result``: stores a result, queues what follows;
                               ``truco.match_started``
tasks_sweep         results    ``truco.requeue_stale_matches``: the recovery sweeper
beat                results    the schedule; ``truco.start_due_tournaments``,
                               ``truco.check_bot_health``, ``truco.record_bot_health``
loop_thread         -          one event loop per process in a thread; tasks wait on it
live_sink           -          the live feed's Redis writes, queued and batched off that loop
db                  -          the trusted worker's per-process event loop and pool
checks              -          broker and worker checks for ``GET /health``
==================  =========  ============================================================

The bot-calling worker (queue ``matches``) holds no database credentials: everything it needs
comes in the task message, and everything it learns leaves as a task message.
"""
