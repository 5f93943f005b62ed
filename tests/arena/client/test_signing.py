"""Standard Webhooks signatures: the published vector, an independent computation, rejection."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.client import signing
from arena.client.signing import (
    BadSignature,
    InvalidSecret,
    MissingSignature,
    StaleTimestamp,
    generate_secret,
    sign,
    verify,
)

# The test vector published with the Standard Webhooks reference libraries.
VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_TS = 1614265330
VECTOR_BODY = b'{"test": 2432232314}'
VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

NOW = 1_700_000_000


def test_standard_webhooks_published_vector() -> None:
    headers = sign(VECTOR_SECRET, VECTOR_ID, VECTOR_TS, VECTOR_BODY)
    assert headers == {
        "webhook-id": VECTOR_ID,
        "webhook-timestamp": str(VECTOR_TS),
        "webhook-signature": VECTOR_SIGNATURE,
    }
    verify(VECTOR_SECRET, headers, VECTOR_BODY, now=VECTOR_TS)
    verify(VECTOR_SECRET, headers, VECTOR_BODY.decode(), now=VECTOR_TS + 300)


def test_matches_an_independent_hmac_computation() -> None:
    key = secrets.token_bytes(24)
    secret = "whsec_" + base64.b64encode(key).decode()
    body = b'{"apiversion":"1","seat":0}'
    mac = hmac.new(key, b"msg_abc." + str(NOW).encode() + b"." + body, hashlib.sha256)
    expected = "v1," + base64.b64encode(mac.digest()).decode()
    assert sign(secret, "msg_abc", NOW, body)["webhook-signature"] == expected


def test_generated_secrets_are_whsec_base64_of_32_random_bytes() -> None:
    one, two = generate_secret(), generate_secret()
    assert one.startswith("whsec_") and two.startswith("whsec_")
    assert len(base64.b64decode(one.removeprefix("whsec_"))) == 32
    assert one != two
    assert signing.secret_key(one.removeprefix("whsec_")) == signing.secret_key(one)


@pytest.mark.parametrize("secret", ["whsec_", "whsec_not base64!", "", "whsec_@@@@"])
def test_malformed_secrets_are_rejected(secret: str) -> None:
    with pytest.raises(InvalidSecret):
        sign(secret, "msg_1", NOW, b"{}")


def _signed(body: bytes = b'{"a":1}', secret: str = VECTOR_SECRET) -> dict[str, str]:
    return sign(secret, "msg_1", NOW, body)


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_unsigned_requests_are_rejected(missing: str) -> None:
    headers = _signed()
    del headers[missing]
    with pytest.raises(MissingSignature, match="unsigned"):
        verify(VECTOR_SECRET, headers, b'{"a":1}', now=NOW)


@pytest.mark.parametrize(
    ("now", "ok"),
    [(NOW, True), (NOW + 300, True), (NOW - 300, True), (NOW + 301, False), (NOW - 301, False)],
)
def test_timestamp_tolerance_is_five_minutes_both_ways(now: int, ok: bool) -> None:
    headers = _signed()
    if ok:
        verify(VECTOR_SECRET, headers, b'{"a":1}', now=now)
    else:
        with pytest.raises(StaleTimestamp):
            verify(VECTOR_SECRET, headers, b'{"a":1}', now=now)


@pytest.mark.parametrize("stamp", ["", "abc", "-5", "1.5", "1e9", "\u00b2", " 1700000000"])
def test_non_numeric_timestamps_are_rejected(stamp: str) -> None:
    headers = {**_signed(), "webhook-timestamp": stamp}
    with pytest.raises((StaleTimestamp, MissingSignature)):
        verify(VECTOR_SECRET, headers, b'{"a":1}', now=NOW)


def test_forged_and_altered_requests_are_rejected() -> None:
    headers = _signed()
    with pytest.raises(BadSignature):
        verify(VECTOR_SECRET, headers, b'{"a":2}', now=NOW)  # altered body
    with pytest.raises(BadSignature):
        verify(generate_secret(), headers, b'{"a":1}', now=NOW)  # another key
    with pytest.raises(BadSignature):  # same signature, other id
        verify(VECTOR_SECRET, {**headers, "webhook-id": "msg_2"}, b'{"a":1}', now=NOW)
    with pytest.raises(BadSignature):  # timestamp moved, signature kept
        verify(VECTOR_SECRET, {**headers, "webhook-timestamp": str(NOW + 1)}, b'{"a":1}', now=NOW)


def test_several_signatures_any_v1_match_is_enough() -> None:
    good = _signed()["webhook-signature"]
    other = sign(generate_secret(), "msg_1", NOW, b'{"a":1}')["webhook-signature"]
    for header in (f"{other} {good}", f"v1,bm9wZQ== {good}", f"{good} v1a,xyz"):
        verify(VECTOR_SECRET, {**_signed(), "webhook-signature": header}, b'{"a":1}', now=NOW)
    value = good.removeprefix("v1,")
    for header in (f"v2,{value}", value, f"{other} v1,{value[:-2]}"):
        with pytest.raises(BadSignature):
            verify(VECTOR_SECRET, {**_signed(), "webhook-signature": header}, b'{"a":1}', now=NOW)


def test_header_names_are_case_insensitive() -> None:
    headers = {name.title(): value for name, value in _signed().items()}
    assert "Webhook-Signature" in headers
    verify(VECTOR_SECRET, headers, b'{"a":1}', now=NOW)


def test_comparison_is_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)  # signing looks it up at call time
    verify(VECTOR_SECRET, _signed(), b'{"a":1}', now=NOW)
    assert len(seen) == 1


@given(
    body=st.binary(max_size=300),
    msg_id=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=30),
    flip=st.integers(min_value=0),
)
def test_round_trip_and_any_changed_byte_fails(body: bytes, msg_id: str, flip: int) -> None:
    headers = sign(VECTOR_SECRET, msg_id, NOW, body)
    verify(VECTOR_SECRET, headers, body, now=NOW)
    if body:
        index = flip % len(body)
        changed = body[:index] + bytes([body[index] ^ 0x01]) + body[index + 1 :]
        with pytest.raises(BadSignature):
            verify(VECTOR_SECRET, headers, changed, now=NOW)


def test_new_secret_is_strong_and_accepted_by_check_secret() -> None:
    secret = signing.new_secret()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret[6:], validate=True)) == signing.SECRET_BYTES
    assert signing.check_secret(secret) == secret
    assert signing.new_secret() != secret


@pytest.mark.parametrize(
    ("secret", "says"),
    [
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAAAAAAAAAAAA", "does not start with 'whsec_'"),
        ("whsec_not base64 at all!!", "is not base64"),
        ("whsec_" + base64.b64encode(b"x" * 23).decode(), "holds 23 bytes, too few"),
        ("whsec_", "holds 0 bytes"),
    ],
)
def test_weak_chosen_secrets_are_refused_saying_what_is_needed(secret: str, says: str) -> None:
    with pytest.raises(InvalidSecret) as caught:
        signing.check_secret(secret)
    message = str(caught.value)
    assert says in message and "at least 24 random bytes" in message
    assert secret[6:] not in message or not secret[6:]  # the secret is never repeated


def test_twenty_four_bytes_is_enough() -> None:
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    assert signing.check_secret(secret) == secret


def test_signing_with_a_previous_secret_adds_a_second_signature() -> None:
    old, new = generate_secret(), generate_secret()
    headers = sign(new, "msg_1", NOW, b"{}", also=[old])
    first, second = headers["webhook-signature"].split(" ")
    assert first == signing.signature(new, "msg_1", NOW, b"{}")
    assert second == signing.signature(old, "msg_1", NOW, b"{}")
    # a bot still on the old secret and one already on the new one both accept it
    verify(old, headers, b"{}", now=NOW)
    verify(new, headers, b"{}", now=NOW)
    with pytest.raises(BadSignature):
        verify(generate_secret(), headers, b"{}", now=NOW)


def test_the_prepared_signer_gives_the_published_vector_every_time() -> None:
    signer = signing.Signer(VECTOR_SECRET)
    for _ in range(3):  # the prepared key is copied, never fed: each call starts clean
        assert signer.signature(VECTOR_ID, VECTOR_TS, VECTOR_BODY) == VECTOR_SIGNATURE


def test_the_prepared_signer_signs_with_previous_secrets_as_sign_does() -> None:
    new, old, older = generate_secret(), generate_secret(), generate_secret()
    signer = signing.Signer(new, [old, older])
    body = b'{"apiversion":"1"}'
    expected = sign(new, "msg_7", NOW, body, also=[old, older])["webhook-signature"]
    assert signer.signature("msg_7", NOW, body) == expected
    assert signer.signature("msg_8", NOW, body) != expected


def test_message_ids_are_msg_and_24_url_safe_characters_and_unique() -> None:
    ids = {signing.new_message_id() for _ in range(1000)}
    assert len(ids) == 1000
    for msg_id in ids:
        assert msg_id.startswith("msg_") and len(msg_id) == 28
        assert len(base64.urlsafe_b64decode(msg_id[4:])) == 18
