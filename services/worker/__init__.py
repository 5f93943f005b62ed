"""Celery workers: the bot-calling worker plays matches, the trusted worker stores them.

Three processes run this package's code, and its folders say which:

* :mod:`services.worker.matches`: the **bot-calling worker** (queues ``matches`` and
  ``ladder``), which plays matches and probes bots' health against untrusted servers. It holds
  no database credentials and no master key: everything it needs comes in the task message,
  and everything it learns leaves as a task message.
* :mod:`services.worker.results`: the **trusted worker** (queue ``results``), which has the
  database: stores results, sweeps lost matches, fits ratings, ticks the ladder, starts due
  tournaments and records health. It never calls a bot.
* **beat** runs no task code: it sends the periodic messages of :mod:`schedule`.

The modules directly in this package are what the processes share (and what the API uses to
send tasks). They import no database module: the bot-calling worker imports only them and its
own folder, and so does the trusted worker (with the database); ``tests/test_architecture.py``
holds the rooms to it.

==================  ============================================================
module              what
==================  ============================================================
celery_app          the ``celery -A`` target: the app with every task registered
                    (the bot-calling worker's own: :mod:`matches.celery_app`)
app                 the Celery app object with the settings read at boot
task                ``platform_task``: the decorator every task is declared with
schedule            beat's schedule (from the settings)
names               queue and task names (shared by senders and workers)
messages            the wire shapes of task arguments (no database types)
senders             the task senders (no database: a match order is sent as it is)
stops               the per-match stop flags: set by deciders, watched while playing
loop_thread         one event loop per process in a thread; tasks wait on it
wakeup              keeps a threads-pool consumer taking messages as tasks finish
command             the command line that starts a worker process
checks              broker and worker checks for ``GET /health``
live, live_sink     the live feed: written while playing, dropped once stored
live_client         the live feed's Redis client (short timeouts), one per process
==================  ============================================================
"""
