"""The arena: the platform's side of the bot protocol (egress guard, signing, bot client)."""
