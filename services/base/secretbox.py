"""Encrypting bots' signing secrets at rest with AES-256-GCM (``cryptography``).

The platform signs its requests to a bot with the bot's secret, so it needs the secret itself,
not a hash. The key is derived from ``TRUCO_SECRET_KEY``:
``key = HMAC-SHA256(TRUCO_SECRET_KEY, "bot-signing-secret")``. Each secret gets a random 12-byte
nonce, and the key id and the bot id are bound in as associated data, so a ciphertext copied to
another bot's row does not decrypt. Stored bytes: ``nonce || ciphertext-with-tag``; the key id
goes in ``bots.signing_key_id`` so keys can be rotated.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from services.base.config import Secret

KEY_ID = "aesgcm-v1"
_NONCE = 12


class SecretBoxError(ValueError):
    """The stored secret does not decrypt (wrong key, wrong bot or tampered)."""


class SecretBox:
    """Encrypts and decrypts signing secrets bound to a bot id."""

    key_id = KEY_ID

    def __init__(self, master: Secret) -> None:
        key = hmac.new(master.reveal().encode(), b"bot-signing-secret", hashlib.sha256).digest()
        self._aead = AESGCM(key)

    @staticmethod
    def _associated(bot_id: int) -> bytes:
        return KEY_ID.encode() + bot_id.to_bytes(8, "big", signed=True)

    def encrypt(self, plaintext: str, bot_id: int) -> bytes:
        nonce = secrets.token_bytes(_NONCE)
        return nonce + self._aead.encrypt(nonce, plaintext.encode(), self._associated(bot_id))

    def decrypt(self, stored: bytes, bot_id: int) -> str:
        if len(stored) < _NONCE + 16:
            raise SecretBoxError("stored secret is too short")
        nonce, sealed = stored[:_NONCE], stored[_NONCE:]
        try:
            return self._aead.decrypt(nonce, sealed, self._associated(bot_id)).decode()
        except InvalidTag:
            raise SecretBoxError("stored secret does not authenticate") from None
