"""Standard Webhooks signatures, as every arena request to a bot carries them.

``webhook-signature`` is ``v1,`` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")), where
the secret is ``whsec_`` + base64(key). The header may hold several space-separated signatures
(key rotation: during a rotation's grace period the arena signs with the new and the previous
secret); a request is genuine when any ``v1`` one matches.

A secret an author chooses must be strong (:func:`check_secret`): ``whsec_`` + base64 of at
least :data:`MIN_SECRET_BYTES` random bytes; :func:`new_secret` makes one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Mapping, Sequence

SECRET_PREFIX = "whsec_"
MIN_SECRET_BYTES = 24
SECRET_BYTES = 32
DEFAULT_TOLERANCE_S = 300
ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"


class InvalidSecret(ValueError):
    """The secret is not ``whsec_`` + base64 (a configuration error, not a forged request)."""


class SignatureError(Exception):
    """Base class: the request must be rejected."""


class MissingSignature(SignatureError):
    """A ``webhook-*`` header is missing or empty: the request is unsigned."""


class StaleTimestamp(SignatureError):
    """The timestamp is not a number or is too far from now (replayed or badly delayed)."""


class BadSignature(SignatureError):
    """No signature in the header matches the body: forged, altered or signed with another key."""


def generate_secret(nbytes: int = SECRET_BYTES) -> str:
    """A fresh random secret, ``whsec_`` + base64 of ``nbytes`` random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(nbytes)).decode("ascii")


def new_secret() -> str:
    """A fresh signing secret for a bot author (``whsec_`` + base64 of 32 random bytes): what
    ``truco bot secret`` prints and what ``POST /v1/bots`` accepts as ``signing_secret``."""
    return generate_secret(SECRET_BYTES)


SECRET_RULE = (
    f"a signing secret must be '{SECRET_PREFIX}' followed by the standard base64 of at least "
    f"{MIN_SECRET_BYTES} random bytes (for example the output of `truco bot secret`)"
)


def check_secret(secret: str) -> str:
    """Return ``secret`` if it is strong enough to be chosen by an author, else raise
    :class:`InvalidSecret` saying what is needed (the message never repeats the secret)."""
    if not secret.startswith(SECRET_PREFIX):
        raise InvalidSecret(f"the secret does not start with '{SECRET_PREFIX}': {SECRET_RULE}")
    encoded = secret[len(SECRET_PREFIX) :]
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidSecret(
            f"the text after '{SECRET_PREFIX}' is not base64: {SECRET_RULE}"
        ) from None
    if len(key) < MIN_SECRET_BYTES:
        raise InvalidSecret(f"the secret holds {len(key)} bytes, too few: {SECRET_RULE}")
    return secret


def secret_key(secret: str) -> bytes:
    """The raw key bytes of a ``whsec_...`` secret (the prefix is optional)."""
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidSecret("a signing secret must be 'whsec_' followed by base64") from None
    if not key:
        raise InvalidSecret("the signing secret is empty")
    return key


def new_message_id() -> str:
    """A unique ``webhook-id`` for one request: ``msg_`` + 24 URL-safe base64 characters (18
    random bytes, as ``secrets.token_urlsafe(18)`` gives them, without its call layers)."""
    return "msg_" + base64.urlsafe_b64encode(os.urandom(18)).decode("ascii")


def _as_bytes(body: bytes | str) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else body


def _keyed(secret: str) -> hmac.HMAC:
    """An HMAC-SHA256 object keyed with ``secret``, nothing fed yet."""
    return hmac.new(secret_key(secret), digestmod=hashlib.sha256)


def _digest(keyed: hmac.HMAC, msg_id: str, timestamp: int, body: bytes) -> str:
    """The base64 HMAC of ``msg_id.timestamp.body``, from a copy of ``keyed`` (left unfed)."""
    mac = keyed.copy()
    mac.update(f"{msg_id}.{timestamp}.".encode())
    mac.update(body)
    return binascii.b2a_base64(mac.digest(), newline=False).decode("ascii")


class Signer:
    """Signs with one secret, and the ``also`` secrets of a rotation's grace period after it.

    The arena signs every call to a bot, so each key is decoded and keyed into an HMAC-SHA256
    object once; a signature copies that prepared object (the key's two padded blocks are
    already hashed) and feeds it the signed content, with no copy of the body.
    """

    __slots__ = ("_keys",)

    def __init__(self, secret: str, also: Sequence[str] = ()) -> None:
        self._keys = tuple(_keyed(key) for key in (secret, *also))

    def signature(self, msg_id: str, timestamp: int, body: bytes) -> str:
        """The ``webhook-signature`` value, as :func:`sign` gives it."""
        return " ".join("v1," + _digest(keyed, msg_id, timestamp, body) for keyed in self._keys)


def signature(secret: str, msg_id: str, timestamp: int, body: bytes | str) -> str:
    """The ``webhook-signature`` value: ``v1,<base64>``."""
    return "v1," + _digest(_keyed(secret), msg_id, timestamp, _as_bytes(body))


def sign(
    secret: str,
    msg_id: str,
    timestamp: int,
    body: bytes | str,
    *,
    also: Sequence[str] = (),
) -> dict[str, str]:
    """The three Standard Webhooks headers for one request.

    ``also``: more secrets to sign with (a rotated-out secret in its grace period); their
    signatures follow the first one, space-separated, in ``webhook-signature``.
    """
    values = [signature(key, msg_id, timestamp, body) for key in (secret, *also)]
    return {
        ID_HEADER: msg_id,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: " ".join(values),
    }


def verify(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    now: float | None = None,
    tolerance: int = DEFAULT_TOLERANCE_S,
) -> None:
    """Return if the request is genuine and fresh, else raise a :class:`SignatureError`.

    ``headers`` may be any mapping (header names are matched case-insensitively); ``body``
    must be the raw bytes received, before any JSON parsing. ``now`` defaults to the clock.
    """
    lower = {name.lower(): value for name, value in headers.items()}
    msg_id = lower.get(ID_HEADER, "")
    stamp = lower.get(TIMESTAMP_HEADER, "")
    signatures = lower.get(SIGNATURE_HEADER, "")
    if not (msg_id and stamp and signatures):
        raise MissingSignature(
            f"unsigned request: {ID_HEADER}, {TIMESTAMP_HEADER} and {SIGNATURE_HEADER} "
            "headers are all required"
        )
    if not (stamp.isascii() and stamp.isdigit()):
        raise StaleTimestamp(f"{TIMESTAMP_HEADER} {stamp!r} is not a Unix time in seconds")
    timestamp = int(stamp)
    current = time.time() if now is None else now
    if timestamp < current - tolerance:
        raise StaleTimestamp(f"request is too old ({int(current - timestamp)} s > {tolerance} s)")
    if timestamp > current + tolerance:
        raise StaleTimestamp(f"request timestamp is {int(timestamp - current)} s in the future")
    expected = _digest(_keyed(secret), msg_id, timestamp, _as_bytes(body)).encode("ascii")
    found = False
    for entry in signatures.split():
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(expected, value.encode("ascii", "replace")):
            found = True  # keep looping: time taken does not depend on which entry matched
    if not found:
        raise BadSignature("no signature matches: the request is forged or the secret is wrong")
