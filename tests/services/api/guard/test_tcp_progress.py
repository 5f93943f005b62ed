"""The acknowledged-bytes count the write deadline measures a client's reading by."""

from __future__ import annotations

import socket
import time

import pytest

from services.api.guard.tcp_progress import bytes_acked


def test_acknowledged_bytes_follow_what_the_peer_reads() -> None:
    if not hasattr(socket, "TCP_INFO"):
        pytest.skip("no TCP_INFO on this system")
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(server.getsockname())
        peer, _ = server.accept()
        with client, peer:
            start = bytes_acked(peer)
            assert start is not None
            peer.setblocking(False)
            sent = 0
            try:  # fill every buffer: the client reads nothing
                while True:
                    sent += peer.send(b"x" * 65536)
            except BlockingIOError:
                pass
            # TCP's flow control: a peer acknowledges only what its receive buffer holds, and
            # this client reads nothing, so the count is bounded by the client's buffer at any
            # moment (no quiet while to wait out: how soon the acknowledgements come is speed)
            holds = client.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
            assert holds < sent
            stalled = bytes_acked(peer)
            assert stalled is not None and stalled - start <= holds  # not all of it is taken
            client.settimeout(10)
            read = 0
            while read < 200_000:
                read += len(client.recv(65536))
            deadline = time.monotonic() + 10
            while (now := bytes_acked(peer)) is not None and now - stalled < 100_000:
                assert time.monotonic() < deadline, (stalled, now)
                time.sleep(0.05)


def test_no_count_without_a_tcp_socket() -> None:
    assert bytes_acked(None) is None
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        assert bytes_acked(udp) is None
