"""The live feed, for its writer (the bot-calling worker) and its readers (the API and the pages): its keys and items (``feed``), the writer's batches (``publisher``, ``sink``, ``client``)."""
