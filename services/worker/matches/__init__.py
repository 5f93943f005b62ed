"""The bot-calling worker (queues ``matches`` and ``ladder``): it plays matches and probes bots.

It calls strangers' servers, so it holds no database credentials and no master key (the app
refuses to start it with them in production): a match order carries the bots' URLs and
signing secrets, and the replay leaves as a ``truco.store_result`` message.

==================  =========  ============================================================
module              queue      what
==================  =========  ============================================================
play                matches    ``truco.play_match``: runs one match, sends the replay back
probe               matches    ``truco.probe_bots``: ``GET {url}/`` of each bot (health)
admission           -          the gate before a match starts: as many as the loop keeps up
active_cap          -          the cap that gate follows (pure arithmetic on the loop's lag)
slots               -          per-bot cap on concurrent matches (a Redis semaphore)
attempts            -          which attempt at a match this is (a Redis counter)
boot                -          the garbage collector tuned when the worker is up
celery_app          -          this worker's ``celery -A`` target: only the tasks above
==================  =========  ============================================================
"""
