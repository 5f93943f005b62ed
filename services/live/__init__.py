"""The live feed, one room for its writer (the bot-calling worker) and its readers (the API and
the pages): its keys and items (``feed``), the writer's batches (``publisher``, through the
queued ``sink`` and its ``client``) and the reader (``reader``). It reaches no database."""
