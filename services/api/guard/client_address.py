"""The client's address, for rate limits: the peer's, unless the peer is a trusted proxy.

``X-Forwarded-For`` is believed only when the connection comes from an address listed in
``TRUCO_TRUSTED_PROXIES`` (none by default, so out of the box the header is ignored, even
from loopback). Then the header is read from the right, past the trusted proxies, and the
first address that is not one of them is the client; an entry that is not an IP address
stops the walk and the last good hop is used. Whatever is returned is a normalised address
(or ``unknown``): a raw header value never reaches a counter key or a log.

What is returned is the address every per-address limit counts (:func:`counted`): an IPv4
address as it is (an IPv4-mapped IPv6 address as its IPv4 address), and for IPv6 the /64 it
belongs to (``2001:db8:1:2::/64``), since one host or home is given a whole /64 and picks any
address in it (issue 33, 6: seven addresses of one /64 made seven accounts, and 125 page views
from 125 addresses of one /64 got no 429). The rate limits, account creation, page views,
/play, live streams and exports all count through here; the connection caps of
``services.api.guard.address_caps`` use the same :func:`counted`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

from litestar import Request
from litestar.datastructures import State

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
AddressOf = Callable[[Request[object, object, State]], str]
UNKNOWN = "unknown"
IPV6_PREFIX = 64
"""An IPv6 client is counted by the network of this prefix length."""


def counted(ip: IPAddress) -> str:
    """The address a per-address limit counts ``ip`` under: itself for IPv4, its /64 for IPv6
    (an IPv4-mapped IPv6 address is given as its IPv4 address by :func:`parse_ip`)."""
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


def parse_ip(text: str) -> IPAddress | None:
    """An IP address from a peer or a header entry (``[v6]:port`` and a zone accepted; an
    IPv4-mapped IPv6 address as its IPv4 address); None when it is not one."""
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    text = text.split("%", 1)[0]
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

    def trusted(ip: IPAddress) -> bool:
        return any(ip.version == net.version and ip in net for net in networks)

    def address_of(request: Request[object, object, State]) -> str:
        peer = parse_ip(request.client.host) if request.client else None
        if peer is None:
            return UNKNOWN
        if not networks or not trusted(peer):
            return counted(peer)
        client = peer
        hops = [
            h for value in request.headers.getall("x-forwarded-for", []) for h in value.split(",")
        ]
        for hop in reversed(hops):
            ip = parse_ip(hop)
            if ip is None:
                break
            client = ip
            if not trusted(ip):
                break
        return counted(client)

    return address_of
