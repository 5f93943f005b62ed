"""The trusted worker (queue ``results``): it has the database and never calls a bot.

==================  =========  ============================================================
module              queue      what
==================  =========  ============================================================
store               results    ``truco.store_result``: stores a result, queues what follows;
                               ``truco.match_started``, ``truco.match_stopped``
refused             results    ``truco.match_refused``: a match a worker can never play is
                               decided as the platform's fault (nothing rated)
sweep               results    ``truco.requeue_stale_matches``: the recovery sweeper
fit                 results    ``truco.fit_ratings``: the ratings' intervals
ladder              results    ``truco.ladder_tick``: the ladders' matchmaker
periodic            results    ``truco.start_due_tournaments``, ``truco.check_bot_health``,
                               ``truco.record_bot_health``
db                  -          the per-process event loop and asyncpg pool the tasks use
dispatch            -          ``send_matches(pool, match_ids)``: matches sent from the
                               database (the trusted worker and the API call it)
==================  =========  ============================================================
"""
