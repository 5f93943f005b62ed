"""``/play`` sessions outside any one process (docs/play.md, issue 37): a session's state in
Redis, written by whoever plays its match (the bot-calling worker; the API process itself only
when no Redis is shared with workers), read by every API process."""
