"""Egress guard: decide whether the arena may open a connection to a bot's URL.

The guard parses the URL itself (no hostname reaches a resolver before it has been normalised
the way libc ``inet_aton`` would read it), resolves the host through an injectable resolver,
judges EVERY resolved address and returns a :class:`PinnedTarget`: the one checked address the
caller must connect to. Nothing here opens a socket.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``async (host, port) -> [ip, ...]``: how a hostname becomes addresses."""

DEFAULT_PORTS = {"http": 80, "https": 443}
RESOLVE_TIMEOUT_S = 5.0


class EgressError(Exception):
    """Base class: the arena will not call this URL."""


class BadBotUrl(EgressError):
    """The URL is malformed or uses something the protocol does not allow."""


class EgressRefused(EgressError):
    """The URL is well formed but its address is not one the arena may connect to.

    ``reason`` is a sentence for the bot author ("10.0.0.5 is a private address"),
    ``category`` a stable code ("private", "loopback", "metadata", ...), ``address`` the
    offending address when there is one (for the platform's own use: when a host NAME
    resolved to it, ``reason`` does not show it).
    """

    def __init__(self, reason: str, *, category: str, address: str | None = None) -> None:
        super().__init__(f"refused: {reason}")
        self.reason = reason
        self.category = category
        self.address = address


class UnresolvableHost(EgressError):
    """The host name did not resolve to any address."""


@dataclass(frozen=True, slots=True)
class EgressPolicy:
    """``allow_loopback`` admits 127.0.0.0/8 and ::1 only (local play, tests); never private."""

    allow_loopback: bool = False


@dataclass(frozen=True, slots=True)
class BotUrl:
    """A parsed, normalised bot base URL. ``host`` is a lower-case name or a canonical IP."""

    scheme: str
    host: str
    port: int
    path: str
    literal: IPAddress | None

    @property
    def authority(self) -> str:
        """``host[:port]`` as the ``Host`` header carries it (the port only if not default)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if DEFAULT_PORTS[self.scheme] == self.port else f":{self.port}"
        return host + port

    @property
    def base(self) -> str:
        return f"{self.scheme}://{self.authority}{self.path}"

    def join(self, endpoint: str) -> str:
        """``endpoint`` is ``"/"``, ``"/act"`` ...; the base path is kept as a prefix."""
        return self.base + endpoint


@dataclass(frozen=True, slots=True)
class PinnedTarget:
    """A checked URL and the one address it must be reached at."""

    url: BotUrl
    ip: IPAddress


# --- address judgement ------------------------------------------------------------------------

_N4 = ipaddress.IPv4Network
_N6 = ipaddress.IPv6Network

_METADATA: dict[IPAddress, str] = {
    ipaddress.ip_address("169.254.169.254"): "the cloud metadata service (AWS, GCP, Azure, OCI)",
    ipaddress.ip_address("169.254.169.253"): "a cloud metadata service (AWS DNS)",
    ipaddress.ip_address("169.254.169.123"): "a cloud metadata service (AWS time)",
    ipaddress.ip_address("169.254.170.2"): "a cloud metadata service (AWS ECS)",
    ipaddress.ip_address("100.100.100.200"): "a cloud metadata service (Alibaba Cloud)",
    ipaddress.ip_address("192.0.0.192"): "a cloud metadata service (Oracle Cloud)",
    ipaddress.ip_address("fd00:ec2::254"): "the cloud metadata service (AWS, IPv6)",
    ipaddress.ip_address("fd00:ec2::253"): "a cloud metadata service (AWS DNS, IPv6)",
    ipaddress.ip_address("fd00:ec2::23"): "a cloud metadata service (AWS DNS, IPv6)",
    ipaddress.ip_address("fd00:ec2::123"): "a cloud metadata service (AWS time, IPv6)",
}
_METADATA_NAMES = frozenset(
    {"metadata", "metadata.google.internal", "metadata.azure.internal", "instance-data"}
)

_V4_RULES: tuple[tuple[ipaddress.IPv4Network, str, str], ...] = (
    (_N4("0.0.0.0/8"), "unspecified", "an unspecified ('this network') address"),
    (_N4("10.0.0.0/8"), "private", "a private address"),
    (_N4("100.64.0.0/10"), "shared", "a shared address (carrier-grade NAT, 100.64.0.0/10)"),
    (_N4("127.0.0.0/8"), "loopback", "a loopback address"),
    (_N4("169.254.0.0/16"), "link_local", "a link-local address"),
    (_N4("172.16.0.0/12"), "private", "a private address"),
    (_N4("192.0.0.0/24"), "reserved", "a reserved address (IETF protocol assignments)"),
    (_N4("192.0.2.0/24"), "documentation", "a documentation address"),
    (_N4("192.88.99.0/24"), "reserved", "a reserved address (6to4 relay anycast)"),
    (_N4("192.168.0.0/16"), "private", "a private address"),
    (_N4("198.18.0.0/15"), "benchmarking", "a benchmarking address"),
    (_N4("198.51.100.0/24"), "documentation", "a documentation address"),
    (_N4("203.0.113.0/24"), "documentation", "a documentation address"),
    (_N4("224.0.0.0/4"), "multicast", "a multicast address"),
    (_N4("255.255.255.255/32"), "broadcast", "the broadcast address"),
    (_N4("240.0.0.0/4"), "reserved", "a reserved address"),
)

_V6_RULES: tuple[tuple[ipaddress.IPv6Network, str, str], ...] = (
    (_N6("::/128"), "unspecified", "the unspecified address"),
    (_N6("::1/128"), "loopback", "a loopback address"),
    (_N6("::/96"), "reserved", "an IPv4-compatible IPv6 address (deprecated)"),
    (_N6("64:ff9b:1::/48"), "reserved", "a local-use NAT64 address"),
    (_N6("100::/64"), "reserved", "a discard-only address"),
    (_N6("2001::/32"), "teredo", "a Teredo tunnel address"),
    (_N6("2001:2::/48"), "benchmarking", "a benchmarking address"),
    (_N6("2001:db8::/32"), "documentation", "a documentation address"),
    (_N6("3fff::/20"), "documentation", "a documentation address"),
    (_N6("2001:10::/28"), "reserved", "a reserved address (ORCHID)"),
    (_N6("fc00::/7"), "unique_local", "a unique-local address (fc00::/7)"),
    (_N6("fe80::/10"), "link_local", "a link-local address"),
    (_N6("fec0::/10"), "site_local", "a site-local address (deprecated)"),
    (_N6("ff00::/8"), "multicast", "a multicast address"),
)
_GLOBAL_UNICAST = _N6("2000::/3")
_NAT64 = _N6("64:ff9b::/96")


class _Refusal(Exception):
    def __init__(self, ip: IPAddress, category: str, description: str) -> None:
        super().__init__(description)
        self.ip = ip
        self.category = category
        self.description = description


def _embedded(ip: ipaddress.IPv6Address) -> tuple[str, list[ipaddress.IPv4Address]] | None:
    """The IPv4 address(es) an IPv6 transition form carries, with the form's name."""
    if ip.ipv4_mapped is not None:
        return "an IPv4-mapped IPv6 address", [ip.ipv4_mapped]
    if ip in _NAT64:
        return "a NAT64 address", [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip.sixtofour is not None:
        return "a 6to4 address", [ip.sixtofour]
    if ip.teredo is not None:
        server, client = ip.teredo
        return "a Teredo tunnel address", [server, client]
    return None


def _judge(ip: IPAddress, allow_loopback: bool) -> IPAddress:
    if ip in _METADATA:
        raise _Refusal(ip, "metadata", _METADATA[ip])
    if isinstance(ip, ipaddress.IPv6Address):
        form = _embedded(ip)
        if form is not None:
            name, inner = form
            for v4 in inner:
                try:
                    _judge(v4, allow_loopback=False)
                except _Refusal as exc:
                    detail = f"{name} embedding {v4}, which is {exc.description}"
                    raise _Refusal(ip, exc.category, detail) from None
            if ip.teredo is not None:
                raise _Refusal(ip, "teredo", "a Teredo tunnel address")
            return ip if ip.ipv4_mapped is None else ip.ipv4_mapped
    if ip.is_loopback and allow_loopback:
        return ip
    rules = _V4_RULES if isinstance(ip, ipaddress.IPv4Address) else _V6_RULES
    for network, category, description in rules:
        if ip in network:
            raise _Refusal(ip, category, description)
    if isinstance(ip, ipaddress.IPv6Address) and ip not in _GLOBAL_UNICAST:
        raise _Refusal(ip, "reserved", "a reserved address (outside global unicast 2000::/3)")
    if not ip.is_global:
        raise _Refusal(ip, "not_global", "not a globally routable address")
    return ip


def _unscoped(ip: IPAddress) -> IPAddress:
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id is not None:
        return ipaddress.IPv6Address(ip.compressed.split("%", 1)[0])
    return ip


def judge_address(ip: IPAddress, policy: EgressPolicy, *, host: str | None = None) -> IPAddress:
    """Return the address to connect to, or raise :class:`EgressRefused` saying why not.

    IPv4-mapped IPv6 addresses come back as their IPv4 address. Forms that embed an IPv4
    address (mapped, NAT64, 6to4, Teredo) are judged by it, with loopback never allowed
    there. With ``host`` (the name that resolved to ``ip``) the message names the host and the
    kind of address but never the address: the platform's DNS answers are not the author's.
    """
    ip = _unscoped(ip)
    try:
        return _judge(ip, policy.allow_loopback)
    except _Refusal as exc:
        description = exc.description
        if exc.category == "loopback" and exc.ip.is_loopback:
            description += " (loopback is allowed only for local play)"
        if host is None:  # the author wrote the address: naming it tells nothing new
            reason = f"{ip} is {description}"
        else:  # never echo what the platform's resolver answered (internal DNS)
            kind = exc.category.replace("_", " ")
            reason = f"{host} resolves to a non-public address ({kind})"
            if exc.category == "loopback" and exc.ip.is_loopback:
                reason += "; loopback is allowed only for local play"
        raise EgressRefused(reason, category=exc.category, address=str(ip)) from None


# --- host and URL parsing ---------------------------------------------------------------------

_HOST_CHARS = re.compile(r"[a-z0-9._-]+")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
_ZONE = re.compile(r"[A-Za-z0-9._~-]+")


_ATON_DIGITS = {16: re.compile(r"[0-9a-f]+"), 8: re.compile(r"[0-7]+"), 10: re.compile(r"[0-9]+")}


def _aton_part(text: str) -> int | None:
    if text.startswith("0x"):
        digits, base = text[2:], 16
    elif len(text) > 1 and text.startswith("0"):
        digits, base = text[1:], 8
    else:
        digits, base = text, 10
    # strict digit sets: int() alone would also take "-1", "+1", "1_0" and spaces
    if not _ATON_DIGITS[base].fullmatch(digits):
        return None
    return int(digits, base)


def inet_aton(text: str) -> ipaddress.IPv4Address | None:
    """Read ``text`` as libc ``inet_aton`` does (``127.1``, ``0x7f.1``, ``0177.0.0.1``, ...)."""
    parts = text.lower().split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        value = _aton_part(part)
        if value is None:
            return None
        values.append(value)
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for v in head:
        number = number * 256 + v
    return ipaddress.IPv4Address((number << (8 * (4 - len(head)))) | last)


def _parse_ipv6_literal(inner: str) -> ipaddress.IPv6Address:
    address, sep, zone = inner.partition("%")
    if sep:
        zone = zone.removeprefix("25")
        if not _ZONE.fullmatch(zone):
            raise BadBotUrl(f"bad IPv6 zone id in [{inner}]")
    try:
        return ipaddress.IPv6Address(address)
    except ValueError:
        raise BadBotUrl(f"[{inner}] is not a valid IPv6 address") from None


def parse_host(host: str) -> str | IPAddress:
    """A lower-case host name, or the IP address a numeric spelling stands for."""
    if host.startswith("["):
        if not host.endswith("]"):
            raise BadBotUrl(f"unclosed '[' in host {host!r}")
        return _parse_ipv6_literal(host[1:-1])
    if ":" in host:
        raise BadBotUrl(f"an IPv6 address must be written in brackets: [{host}]")
    if not host.isascii():
        raise BadBotUrl(f"host {host!r} is not ASCII; write it in its punycode (xn--) form")
    name = host.lower()
    name = name.removesuffix(".")
    if not name or not _HOST_CHARS.fullmatch(name):
        raise BadBotUrl(f"host {host!r} contains characters a host name cannot have")
    labels = name.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        ip = inet_aton(name)
        if ip is None:
            raise BadBotUrl(f"host {host!r} looks like an IPv4 address but is not a valid one")
        return ip
    if len(name) > 253 or any(not 0 < len(label) <= 63 for label in labels):
        raise BadBotUrl(f"host {host!r} is not a valid host name (empty or overlong label)")
    return name


def _split_netloc(netloc: str) -> tuple[str, str]:
    if netloc.startswith("["):
        end = netloc.find("]")
        if end < 0:
            raise BadBotUrl(f"unclosed '[' in {netloc!r}")
        host, rest = netloc[: end + 1], netloc[end + 1 :]
        if rest and not rest.startswith(":"):
            raise BadBotUrl(f"unexpected text after the IPv6 address in {netloc!r}")
        return host, rest[1:]
    if netloc.count(":") > 1:
        raise BadBotUrl(f"an IPv6 address must be written in brackets in {netloc!r}")
    host, _, port = netloc.partition(":")
    return host, port


def parse_bot_url(url: str) -> BotUrl:
    """Parse and normalise a bot base URL, or raise :class:`BadBotUrl`."""
    if not url.isascii() or any(ord(c) <= 0x20 or ord(c) == 0x7F or c == "\\" for c in url):
        raise BadBotUrl("the URL contains spaces, control characters, backslashes or non-ASCII")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise BadBotUrl(f"malformed URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise BadBotUrl(f"only http:// and https:// bot URLs are allowed, not {scheme or url!r}")
    if "@" in parts.netloc:
        raise BadBotUrl("a bot URL must not contain user:password@")
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise BadBotUrl("a bot base URL must not have a query (?...) or fragment (#...)")
    raw_host, raw_port = _split_netloc(parts.netloc)
    if not raw_host:
        raise BadBotUrl("the URL has no host")
    if raw_port and not raw_port.isdigit():
        raise BadBotUrl(f"port {raw_port!r} is not a number")
    port = int(raw_port) if raw_port else DEFAULT_PORTS[scheme]
    if not 0 < port < 65536:
        raise BadBotUrl(f"port {port} is out of range (1-65535)")
    host = parse_host(raw_host)
    literal = None if isinstance(host, str) else host
    return BotUrl(scheme, str(host), port, parts.path.rstrip("/"), literal)


# --- resolution -------------------------------------------------------------------------------


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the event loop's ``getaddrinfo`` (the production default)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _as_ip(text: str, host: str) -> IPAddress:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        raise UnresolvableHost(f"{host} resolved to something that is not an address") from None


async def check_url(
    url: str,
    policy: EgressPolicy,
    resolver: Resolver | None = None,
    *,
    resolve_timeout: float = RESOLVE_TIMEOUT_S,
) -> PinnedTarget:
    """Parse, resolve and judge ``url``; the result names the single address to connect to.

    If ANY resolved address is refused the whole URL is refused (an attacker controlling DNS
    must not be able to mix a private address in and hope it is the one picked).
    """
    bot = parse_bot_url(url)
    if bot.literal is not None:
        ip = judge_address(bot.literal, policy)
        return PinnedTarget(replace(bot, host=str(ip), literal=ip), ip)
    if bot.host in _METADATA_NAMES:
        raise EgressRefused(f"{bot.host} is a cloud metadata service name", category="metadata")
    resolve = resolver or system_resolver
    try:
        async with asyncio.timeout(resolve_timeout):
            answers = await resolve(bot.host, bot.port)
    except TimeoutError:
        raise UnresolvableHost(f"resolving {bot.host} timed out") from None
    except OSError as exc:
        raise UnresolvableHost(f"could not resolve {bot.host}: {exc}") from None
    if not answers:
        raise UnresolvableHost(f"{bot.host} did not resolve to any address")
    pinned: list[IPAddress] = []
    for answer in answers:
        pinned.append(judge_address(_as_ip(answer, bot.host), policy, host=bot.host))
    return PinnedTarget(bot, pinned[0])
