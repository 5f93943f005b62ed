"""Secrets at rest and in logs.

- API keys are stored only as their SHA-256: no column of any table (nor a replay) holds the
  key, as text or as bytes.
- Bots' signing secrets (the current one and one rotated out) are stored only AES-GCM
  encrypted and bound to the bot: the stored bytes do not contain the secret, they decrypt to
  it for that bot only, and not under another master key.
- Neither is ever logged: every log record (root logger at DEBUG, every logger let through,
  messages, arguments and tracebacks formatted) and everything written to stdout/stderr
  (file descriptors, so the in-process bot servers too) during account creation, bot
  registration (the handshake), a challenge match run in process over HTTP against real SDK
  bot servers, a rotation to a chosen secret, and the error paths (a weak chosen secret, bad
  and unknown keys, another owner's key, duplicate names, a failed handshake, an unexpected
  error) is searched for every key and secret.
"""

from __future__ import annotations

import base64
import logging
import zlib
from collections.abc import Iterator

import pytest

from arena.client.bot_client import BotClient
from arena.client.egress import EgressPolicy
from arena.client.signing import new_secret
from arena.sdk import BotServer
from services.api.auth import hash_api_key
from services.base.config import Secret
from services.base.secretbox import SecretBox, SecretBoxError
from services.db.pool import create_pool
from services.launch.app import create_app
from tests.services.helpers.api_helpers import client_for, settings, unique
from tests.services.helpers.api_play_helpers import PlayApi

pytestmark = pytest.mark.anyio


class Everything(logging.Handler):
    """Keeps every record fully formatted: message, arguments and traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def attach(self) -> None:
        """(Again) on the root logger at DEBUG: an app built after the fixture starts may have
        configured logging (Litestar's dictConfig replaces the root logger's handlers)."""
        root = logging.getLogger()
        if self not in root.handlers:
            root.addHandler(self)
        root.setLevel(logging.DEBUG)

    def emit(self, record: logging.LogRecord) -> None:
        text = self.format(record)
        self.lines.append(f"{text} args={record.args!r} extra={record.__dict__!r}")


@pytest.fixture
def all_logs() -> Iterator[Everything]:
    """The root logger at DEBUG, and every logger that has a level of its own reset to let
    everything through, for the test's duration."""
    handler = Everything()
    root = logging.getLogger()
    saved = root.level
    loggers = [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)
    ]
    levels = {logger.name: (logger.level, logger.disabled, logger.propagate) for logger in loggers}
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    for logger in loggers:
        logger.setLevel(logging.NOTSET)
        logger.disabled = False
        logger.propagate = True
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(saved)
        for logger in loggers:
            level, disabled, propagate = levels[logger.name]
            logger.setLevel(level)
            logger.disabled = disabled
            logger.propagate = propagate


def spellings(secret: str) -> list[str]:
    """The secret and the ways it could be spelled in a log or a row: as is, its random part,
    hex and base64 of its bytes."""
    raw = secret.encode()
    body = secret.split("_", 1)[1]
    return [secret, body[:16], raw.hex(), base64.b64encode(raw).decode()[:24]]


def assert_nowhere(haystack: str, secrets_: list[str], where: str) -> None:
    for secret in secrets_:
        for spelled in spellings(secret):
            assert spelled not in haystack, f"a secret ({spelled[:6]}...) appears in {where}"


async def _database_text(api: PlayApi) -> str:
    """Every row of every table as JSON text (bytea as hex), plus the replays decompressed."""
    tables = await api.pool.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    parts: list[str] = []
    for (table,) in tables:
        rows = await api.pool.fetch(f'SELECT row_to_json(t)::text FROM "{table}" t')
        parts.extend(row[0] for row in rows)
    for (data,) in await api.pool.fetch("SELECT data FROM replays"):
        parts.append(zlib.decompress(data).decode(errors="replace"))
    return "\n".join(parts)


async def test_keys_and_secrets_are_stored_hashed_or_encrypted_and_never_logged(
    play_api: PlayApi,
    bot_servers: list[BotServer],
    all_logs: Everything,
    capfd: pytest.CaptureFixture[str],
) -> None:
    api = play_api
    all_logs.attach()
    keys: list[str] = []
    secrets_: list[str] = []

    # account creation
    owner_id, owner = await api.account("secret-owner")
    _, other = await api.account("secret-other")
    keys += [owner["Authorization"].split()[1], other["Authorization"].split()[1]]

    # bot registration: the handshake through the guarded client
    mine = await api.bot(owner, bot_servers[0].url, "sec-a")
    theirs = await api.bot(other, bot_servers[1].url, "sec-b")
    secrets_ += [str(mine["signing_secret"]), str(theirs["signing_secret"])]
    assert all(s.startswith("whsec_") for s in secrets_)

    # a challenge match, played in this process over HTTP, signed with the secrets
    challenge = await api.client.post(
        "/v1/challenges", json={"bot_a": mine["id"], "bot_b": theirs["id"]}, headers=owner
    )
    assert challenge.status_code == 202, challenge.text
    match_id = challenge.json()["match_id"]
    assert api.sender is not None and match_id in api.sender.played
    match = await api.client.get(f"/v1/matches/{match_id}")
    assert match.json()["status"] == "done", match.text
    replay = await api.client.get(f"/v1/matches/{match_id}/replay")
    assert replay.status_code == 200

    # a rotation to a chosen secret (the previous one is kept encrypted), and a weak one refused
    chosen = new_secret()
    rotated = await api.client.post(
        f"/v1/bots/{mine['id']}/secret", json={"signing_secret": chosen}, headers=owner
    )
    assert rotated.status_code == 200 and rotated.json()["signing_secret"] == chosen
    weak = "whsec_" + base64.b64encode(b"w" * 20).decode()
    refused = await api.client.post(
        f"/v1/bots/{mine['id']}/secret", json={"signing_secret": weak}, headers=owner
    )
    assert refused.status_code == 422 and weak[6:] not in refused.text
    secrets_ += [chosen, weak]

    # error paths (each checked to be the error it is meant to be, so the search below looks
    # at the answers and logs of those paths)
    too_long = await api.client.post("/v1/accounts", json={"name": "x" * 65})
    assert too_long.status_code == 422, too_long.text
    unreachable = await api.client.post(
        "/v1/bots", json={"name": "n", "url": "http://127.0.0.1:1/"}, headers=owner
    )
    assert unreachable.status_code == 422, unreachable.text
    assert unreachable.json()["type"] == "/problems/bot-handshake-failed"
    stolen = await api.client.patch(
        f"/v1/bots/{mine['id']}", json={"name": "stolen"}, headers=other
    )
    assert stolen.status_code == 403, stolen.text
    deleted = await api.client.delete(f"/v1/bots/{mine['id']}", headers=other)
    assert deleted.status_code == 403, deleted.text
    taken = await api.client.post(
        "/v1/bots", json={"name": str(mine["name"]), "url": bot_servers[0].url}, headers=owner
    )
    assert taken.status_code == 409, taken.text
    for wrong in (keys[0] + "x", keys[0][:-1], "ta_" + keys[0][3:][::-1], keys[0].upper()):
        response = await api.client.post(
            "/v1/bots",
            json={"name": "x", "url": bot_servers[0].url},
            headers={"Authorization": f"Bearer {wrong}"},
        )
        assert response.status_code == 401
        assert wrong not in response.text
    profile = await api.client.get(f"/v1/bots/{mine['id']}")
    listing = await api.client.get("/v1/bots")
    public = profile.text + listing.text + match.text + replay.text

    # --- at rest ---
    for key in keys:
        stored = await api.pool.fetchval(
            "SELECT key_hash FROM api_keys WHERE key_hash = $1", hash_api_key(key)
        )
        assert stored == hash_api_key(key)
    box = SecretBox(settings("unused").secrets.key or Secret(""))
    stored = [
        (mine["id"], chosen, "signing_secret_enc"),
        (mine["id"], secrets_[0], "previous_secret_enc"),  # rotated out, in its grace period
        (theirs["id"], secrets_[1], "signing_secret_enc"),
    ]
    for bot_id, secret, column in stored:
        row = await api.pool.fetchrow(
            f"SELECT {column} AS enc, signing_key_id FROM bots WHERE id = $1", bot_id
        )
        assert row is not None and row["signing_key_id"] == "aesgcm-v1"
        enc = bytes(row["enc"])
        assert secret.encode() not in enc and secret.encode()[6:] not in enc
        assert box.decrypt(enc, int(str(bot_id))) == secret
        other_bot = int(str(theirs["id"] if bot_id == mine["id"] else mine["id"]))
        with pytest.raises(SecretBoxError):
            box.decrypt(enc, other_bot)  # bound to its bot: a copied ciphertext is useless
        with pytest.raises(SecretBoxError):
            SecretBox(Secret("another-master-key-" + "z" * 32)).decrypt(enc, int(str(bot_id)))
    assert_nowhere(await _database_text(api), keys + secrets_, "the database")
    assert_nowhere(public, keys + secrets_, "public API answers")

    # --- in logs and output ---
    out, err = capfd.readouterr()
    assert all_logs.lines, "the capture saw no log record at all"
    assert any("httpx" in line for line in all_logs.lines), "DEBUG/INFO records were not seen"
    assert_nowhere("\n".join(all_logs.lines), keys + secrets_, "the logs")
    assert_nowhere(out + err, keys + secrets_, "stdout/stderr")
    assert owner_id > 0


async def test_an_unexpected_error_logs_no_secret(
    api_database_url: str, all_logs: Everything, capfd: pytest.CaptureFixture[str]
) -> None:
    """A 500 during registration (the client factory, which holds the new secret, blows up)
    logs a traceback but neither the secret nor the caller's key."""
    seen: list[str] = []

    def exploding(url: str, secret: str, policy: EgressPolicy) -> BotClient:
        seen.append(secret)
        raise RuntimeError("the bot client could not be built")

    pool = await create_pool(api_database_url, min_size=1, max_size=2)
    try:
        app = create_app(settings(api_database_url), pool=pool, bot_client_factory=exploding)
        all_logs.attach()
        async with client_for(app) as client:
            created = await client.post("/v1/accounts", json={"name": unique("boom")})
            key = created.json()["api_key"]
            response = await client.post(
                "/v1/bots",
                json={"name": "boom", "url": "http://127.0.0.1:9/"},
                headers={"Authorization": f"Bearer {key}"},
            )
    finally:
        await pool.close()
    assert response.status_code == 500 and seen
    logged = "\n".join(all_logs.lines)
    assert "unhandled error" in logged and "RuntimeError" in logged
    out, err = capfd.readouterr()
    assert_nowhere(logged + out + err + response.text, [key, *seen], "the 500 path")
