"""The guarded HTTP client: how the arena calls a bot (egress guard, pinning, signing, HTTP/1.1)."""
