"""How far a client has read a connection: the bytes its TCP acknowledged (Linux ``TCP_INFO``).

A receiver acknowledges data only while its receive window is open, and the window stays shut
while its application reads nothing (and, against silly-window syndrome, until a good part of
the buffer is free again). So the acknowledged count moves as the client reads, whatever the
kernels buffer in between: what the write deadline of :mod:`services.api.serve` measures
progress by. None where ``TCP_INFO`` or its ``tcpi_bytes_acked`` (Linux 4.1) is missing.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

_BYTES_ACKED = 120  # offset of the u64 tcpi_bytes_acked in struct tcp_info (linux/tcp.h)
_SIZE = _BYTES_ACKED + 8


def bytes_acked(sock: Any) -> int | None:
    """The bytes the peer acknowledged on ``sock`` (a socket, or asyncio's wrapper of one)."""
    option = getattr(socket, "TCP_INFO", None)
    if sock is None or option is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, option, _SIZE)
    except OSError:
        return None
    if len(info) < _SIZE:
        return None
    return int(struct.unpack_from("=Q", info, _BYTES_ACKED)[0])
