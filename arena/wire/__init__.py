"""The wire of the bot protocol: its own game structs, its messages, fault kinds and OpenAPI."""
