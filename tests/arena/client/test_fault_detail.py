"""Abuse finding 11: a fault's detail goes into a PUBLIC replay, so it never carries the bot's
host name (shown to its owner only); a TLS failure is described by its reason code.

A real TLS handshake with a self-signed certificate on 127.0.0.1, and a hostname mismatch as
the client's sockets raise it (a certificate for another name cannot be made trusted without changing the
client's trust store, which the guarded client does not allow).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import random
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import httpcore
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from arena.client.bot_client import BotClient, ClientConfig, Fault, TimeBank
from arena.client.egress import EgressPolicy
from arena.client.fault_detail import HOST_PLACEHOLDER, public_detail
from arena.client.signing import generate_secret
from arena.client.streams import AsyncioBackend

pytestmark = pytest.mark.anyio
LOCAL = EgressPolicy(allow_loopback=True)
SECRET_HOST = "bot-7.internal.example"


async def _resolve(host: str, port: int) -> list[str]:
    assert host == SECRET_HOST, f"unexpected lookup of {host!r}"
    return ["127.0.0.1"]


def _self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, SECRET_HOST)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(SECRET_HOST), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@contextlib.contextmanager
def tls_server(folder: Path) -> Iterator[int]:
    """A TLS listener on 127.0.0.1 with a self-signed certificate; handshakes only."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*_self_signed(folder))
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn, contextlib.suppress(OSError):
                conn.settimeout(2)
                context.wrap_socket(conn, server_side=True).close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        listener.close()


async def test_a_real_tls_failure_is_described_by_its_reason(tmp_path: Path) -> None:
    with tls_server(tmp_path) as port:
        client = BotClient(
            f"https://{SECRET_HOST}:{port}",
            generate_secret(),
            config=ClientConfig(timeout_ms=3000, policy=LOCAL),
            resolver=_resolve,
        )
        async with client:
            result = await client.info()
    assert isinstance(result, Fault)
    assert result.kind == "connect"
    assert result.detail.startswith("TLS handshake failed (CERTIFICATE_VERIFY_FAILED)")
    assert SECRET_HOST not in result.detail


class _MismatchStream(httpcore.AsyncNetworkStream):
    """Fails the TLS handshake the way the client's sockets do on a certificate for another
    name (no socket is opened)."""

    async def start_tls(
        self, ssl_context: object, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        error = ssl.SSLCertVerificationError(
            1,
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, "
            f"certificate is not valid for '{server_hostname}'. (_ssl.c:1000)",
        )
        error.reason = "CERTIFICATE_VERIFY_FAILED"
        error.verify_code = 62
        error.verify_message = (
            f"Hostname mismatch, certificate is not valid for '{server_hostname}'."
        )
        raise httpcore.ConnectError(str(error)) from error

    async def aclose(self) -> None:
        return None


class _MismatchBackend(httpcore.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: object = None,
    ) -> httpcore.AsyncNetworkStream:
        return _MismatchStream()


async def test_a_hostname_mismatch_never_names_the_host() -> None:
    client = BotClient(
        f"https://{SECRET_HOST}:8443/bot",
        generate_secret(),
        config=ClientConfig(timeout_ms=1000, policy=LOCAL),
        resolver=_resolve,
        network_backend=_MismatchBackend(),
    )
    async with client:
        result = await client.act({}, TimeBank(1000))
    assert isinstance(result, Fault)
    assert result.kind == "connect"
    assert SECRET_HOST not in result.detail
    assert "bot-7" not in result.detail
    assert result.detail == (
        "TLS handshake failed (CERTIFICATE_VERIFY_FAILED): Hostname mismatch, certificate is "
        "not valid for the bot's host name"
    )


def test_other_details_lose_the_host_in_any_case() -> None:
    detail = f"ConnectError: cannot reach BOT-7.Internal.Example. ({SECRET_HOST})"
    scrubbed = public_detail(detail, SECRET_HOST)
    assert "internal" not in scrubbed.lower()
    assert scrubbed.count(HOST_PLACEHOLDER) == 2


def test_a_short_host_name_is_replaced_as_a_whole_name_only() -> None:
    detail = "ConnectError: bot refused the robot's call to bot:8080 (Bot)"
    assert public_detail(detail, "bot") == (
        "ConnectError: <bot host> refused the robot's call to <bot host>:8080 (<bot host>)"
    )


async def test_a_tls_answer_arrives_whole_through_the_client_sockets(tmp_path: Path) -> None:
    """Over TLS the client's buffered protocol is fed by asyncio's TLS layer: a large answer
    (several receives into the kept buffer) comes back byte for byte."""
    cert_path, key_path = _self_signed(tmp_path)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert_path, key_path)
    payload = random.Random(11).randbytes(200_000)  # no repeating stretch: a mix-up would show

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readexactly(5)
        writer.write(payload)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=server_context)
    port = server.sockets[0].getsockname()[1]
    client_context = ssl.create_default_context(cafile=str(cert_path))
    async with server:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port)
        stream = await stream.start_tls(client_context, server_hostname=SECRET_HOST)
        await stream.write(b"hello")
        await asyncio.sleep(0.3)  # the whole answer comes in, several receives, before a read
        received = b""
        while chunk := await stream.read(64 * 1024):
            received += chunk
        await stream.aclose()
    assert received == payload
