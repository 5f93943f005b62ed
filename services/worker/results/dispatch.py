"""Sending matches from the database: ``send_matches(pool, match_ids)``.

What the trusted side calls (the trusted worker's tasks, the API's requests, beat's tasks run
by the trusted worker): mark the matches queued and read their orders (``flow.match_specs``,
which decrypts the bots' signing secrets), then send one ``truco.play_match`` per match
(:func:`services.worker.senders.send_orders`). It needs the database, so the bot-calling
worker never imports it.
"""

from __future__ import annotations

import asyncio

import asyncpg

from services import flow
from services.base.secretbox import SecretBox
from services.worker import senders
from services.worker.names import MATCHES


async def send_matches(
    pool: asyncpg.Pool,
    match_ids: list[int],
    *,
    secret_box: SecretBox | None = None,
    queue: str = MATCHES,
) -> None:
    """Mark the matches queued (``flow.match_specs``) and send one play task per match, with
    the bots' signing secrets decrypted by ``secret_box`` (the API's; by default the worker
    app's, from its settings)."""
    if not match_ids:
        return
    box = secret_box if secret_box is not None else senders.worker_secret_box()
    specs = await flow.match_specs(pool, match_ids, secret_box=box)
    await asyncio.to_thread(senders.send_orders, specs, queue)
