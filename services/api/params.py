"""Path parameters shared by several resources."""

from __future__ import annotations

from typing import Annotated

from litestar.params import Parameter

BotIdParam = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the bot's id")]
"""A bot's id in a path (``/v1/bots/{bot_id}``)."""
KeyIdParam = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the API key's id")]
"""An API key's id in a path (``/v1/accounts/me/keys/{key_id}``)."""
