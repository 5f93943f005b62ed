"""Per-address caps on the API server's connections (issue 21, break 1).

uvicorn's ``limit_concurrency`` counts every connection of the process together: 600
half-open requests from ONE address filled its 512 places and every other client got a 503.
These caps count per client address, so that one address's flood stays within its own share:

- **open connections** per address (``TRUCO_CONNECTIONS_PER_ADDRESS``, 32): a connection past
  it is answered ``503`` with ``Retry-After`` and closed before anything is read;
- **unfinished request heads** per address (``TRUCO_UNFINISHED_HEADS_PER_ADDRESS``, 8): a
  connection that has sent part of a request head and not the rest; the connection whose
  partial head would be one too many gets the same 503 and is closed.

The address is the TCP peer's: an IPv4 address (an IPv4-mapped IPv6 address counts as its
IPv4 address), or the /64 network of an IPv6 address (one host holds a whole /64). Peers in
``TRUCO_TRUSTED_PROXIES`` are not capped: a reverse proxy carries many clients and does its
own per-address limiting (``infra/nginx/truco-arena.conf``). Counters hold only addresses
that have a connection open, so their memory is bounded by the open connections.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Iterable

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPV6_PREFIX = 64


def address_key(host: str | None) -> str | None:
    """The counted address of a peer (``None``: not an IP address, e.g. a Unix socket)."""
    if not host:
        return None
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


class AddressCaps:
    """The open connections and unfinished request heads of each address, against caps
    (``None``: that cap is off). One per server: every connection of the process shares it
    (the event loop is single-threaded, so plain counters are enough)."""

    def __init__(
        self,
        connections: int | None,
        heads: int | None,
        exempt: Iterable[str] = (),
    ) -> None:
        self.connections = connections
        self.heads = heads
        self._exempt: tuple[IPNetwork, ...] = tuple(
            ipaddress.ip_network(n, strict=False) for n in exempt
        )
        self.open: Counter[str] = Counter()
        self.unfinished: Counter[str] = Counter()
        self.refused = 0
        """Connections refused by either cap since the server started."""

    def key(self, host: str | None) -> str | None:
        """The address a peer is counted under, or ``None`` when it is not capped."""
        key = address_key(host)
        if key is None or not self._exempt:
            return key
        ip = ipaddress.ip_address(key.split("/", 1)[0])
        if any(ip.version == net.version and ip in net for net in self._exempt):
            return None
        return key

    def admit(self, key: str | None) -> bool:
        """Count a new connection of ``key``; ``False`` (and nothing counted): over its cap."""
        if key is None:
            return True
        if self.connections is not None and self.open[key] >= self.connections:
            self.refused += 1
            return False
        self.open[key] += 1
        return True

    def release(self, key: str | None) -> None:
        """A counted connection of ``key`` has closed."""
        if key is not None:
            _decrement(self.open, key)

    def start_head(self, key: str | None) -> bool:
        """Count an unfinished head of ``key``; ``False`` (nothing counted): over its cap."""
        if key is None:
            return True
        if self.heads is not None and self.unfinished[key] >= self.heads:
            self.refused += 1
            return False
        self.unfinished[key] += 1
        return True

    def end_head(self, key: str | None) -> None:
        """A counted unfinished head of ``key`` is complete, refused or gone."""
        if key is not None:
            _decrement(self.unfinished, key)


def _decrement(counter: Counter[str], key: str) -> None:
    if counter[key] <= 1:
        counter.pop(key, None)
    else:
        counter[key] -= 1
