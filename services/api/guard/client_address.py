"""The client's address, for rate limits: the peer's, unless the peer is a trusted proxy.

``X-Forwarded-For`` is believed only when the connection comes from an address listed in
``TRUCO_TRUSTED_PROXIES`` (none by default, so out of the box the header is ignored, even
from loopback). Then the header is read from the right, past the trusted proxies, and the
first address that is not one of them is the client; an entry that is not an IP address
stops the walk and the last good hop is used. Whatever is returned is a normalised IP
address (or ``unknown``): a raw header value never reaches a counter key or a log.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

from litestar import Request
from litestar.datastructures import State

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
AddressOf = Callable[[Request[object, object, State]], str]
UNKNOWN = "unknown"


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def client_address_reader(trusted_proxies: Iterable[str] = ()) -> AddressOf:
    """A function giving a request's client address under this proxy configuration."""
    networks: tuple[IPNetwork, ...] = tuple(
        ipaddress.ip_network(n, strict=False) for n in trusted_proxies
    )

    def trusted(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(ip.version == net.version and ip in net for net in networks)

    def address_of(request: Request[object, object, State]) -> str:
        peer = _ip(request.client.host) if request.client else None
        if peer is None:
            return UNKNOWN
        if not networks or not trusted(peer):
            return str(peer)
        client = peer
        hops = [
            h for value in request.headers.getall("x-forwarded-for", []) for h in value.split(",")
        ]
        for hop in reversed(hops):
            ip = _ip(hop)
            if ip is None:
                break
            client = ip
            if not trusted(ip):
                break
        return str(client)

    return address_of
