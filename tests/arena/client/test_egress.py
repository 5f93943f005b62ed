"""The egress guard: which addresses a bot URL may lead to, however they are spelled.

No test here sends a packet anywhere: names are resolved by injected resolvers, connections go
through backends that fail the test (or record and refuse) when reached.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import httpcore
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.client.bot_client import BotClient, ClientConfig, Fault, TimeBank
from arena.client.egress import (
    BadBotUrl,
    EgressError,
    EgressPolicy,
    EgressRefused,
    UnresolvableHost,
    check_url,
    inet_aton,
    judge_address,
    parse_bot_url,
    parse_host,
    system_resolver,
)
from arena.client.pinning import PinnedBackend
from arena.client.signing import generate_secret
from tests.arena.conftest import ForbiddenBackend, RecordingBackend, forbidden_resolver

pytestmark = pytest.mark.anyio

STRICT = EgressPolicy()
LOCAL = EgressPolicy(allow_loopback=True)
PUBLIC_V4 = "93.184.215.14"
PUBLIC_V6 = "2606:4700:4700::1111"

REFUSED_LITERALS = [
    # IPv4, plainly written
    ("http://127.0.0.1/", "loopback", "127.0.0.1"),
    ("http://127.8.9.10:8080/", "loopback", "127.8.9.10"),
    ("http://10.0.0.5/", "private", "10.0.0.5 is a private address"),
    ("http://172.16.0.1/", "private", "172.16.0.1"),
    ("http://172.31.255.255/", "private", "172.31.255.255"),
    ("http://192.168.1.1/", "private", "192.168.1.1"),
    ("http://100.64.0.1/", "shared", "100.64.0.1"),
    ("http://169.254.1.1/", "link_local", "link-local"),
    ("http://0.0.0.0/", "unspecified", "0.0.0.0"),
    ("http://224.0.0.1/", "multicast", "multicast"),
    ("http://239.255.255.250/", "multicast", "multicast"),
    ("http://240.0.0.1/", "reserved", "reserved"),
    ("http://255.255.255.255/", "broadcast", "broadcast"),
    ("http://198.18.0.1/", "benchmarking", "benchmarking"),
    ("http://198.19.255.255/", "benchmarking", "benchmarking"),
    ("http://192.0.2.1/", "documentation", "documentation"),
    ("http://198.51.100.7/", "documentation", "documentation"),
    ("http://203.0.113.9/", "documentation", "documentation"),
    ("http://192.0.0.8/", "reserved", "192.0.0.8"),
    # cloud metadata
    ("http://169.254.169.254/latest/meta-data", "metadata", "169.254.169.254"),
    ("http://169.254.170.2/v2/credentials", "metadata", "metadata"),
    ("http://100.100.100.200/", "metadata", "Alibaba"),
    ("http://192.0.0.192/", "metadata", "Oracle"),
    ("http://[fd00:ec2::254]/", "metadata", "fd00:ec2::254"),
    # odd spellings of 127.0.0.1, 10.0.0.5 and 169.254.169.254 (libc inet_aton forms)
    ("http://2130706433/", "loopback", "127.0.0.1"),
    ("http://0x7f.1/", "loopback", "127.0.0.1"),
    ("http://0x7F.0.0.1/", "loopback", "127.0.0.1"),
    ("http://0x7f000001/", "loopback", "127.0.0.1"),
    ("http://0177.0.0.1/", "loopback", "127.0.0.1"),
    ("http://0177.1/", "loopback", "127.0.0.1"),
    ("http://017700000001/", "loopback", "127.0.0.1"),
    ("http://127.1/", "loopback", "127.0.0.1"),
    ("http://127.0.1/", "loopback", "127.0.0.1"),
    ("http://127.0.0.1./", "loopback", "127.0.0.1"),
    ("http://0/", "unspecified", "0.0.0.0"),
    ("http://167772165/", "private", "10.0.0.5"),
    ("http://012.0.0.5/", "private", "10.0.0.5"),
    ("http://0xa.0.0.5/", "private", "10.0.0.5"),
    ("http://0xa9fea9fe/", "metadata", "169.254.169.254"),
    ("http://2852039166/", "metadata", "169.254.169.254"),
    ("http://169.254.43518/", "metadata", "169.254.169.254"),
    # IPv6
    ("http://[::1]/", "loopback", "::1"),
    ("http://[0:0:0:0:0:0:0:1]:9000/", "loopback", "::1"),
    ("http://[::]/", "unspecified", "::"),
    ("http://[fc00::1]/", "unique_local", "unique-local"),
    ("http://[fd12:3456::1]/", "unique_local", "unique-local"),
    ("http://[fe80::1]/", "link_local", "link-local"),
    ("http://[fe80::1%25eth0]/", "link_local", "fe80::1"),
    ("http://[fec0::1]/", "site_local", "site-local"),
    ("http://[ff02::1]/", "multicast", "multicast"),
    ("http://[2001:db8::1]/", "documentation", "documentation"),
    ("http://[3fff::1]/", "documentation", "documentation"),
    ("http://[2001:2::1]/", "benchmarking", "benchmarking"),
    ("http://[100::1]/", "reserved", "discard"),
    ("http://[5f00::1]/", "reserved", "reserved"),
    ("http://[::127.0.0.1]/", "reserved", "IPv4-compatible"),
    # IPv6 forms embedding a refused IPv4 address
    ("http://[::ffff:127.0.0.1]/", "loopback", "IPv4-mapped IPv6 address embedding 127.0.0.1"),
    ("http://[::ffff:7f00:1]/", "loopback", "IPv4-mapped"),
    ("http://[::ffff:10.0.0.5]/", "private", "embedding 10.0.0.5"),
    ("http://[::ffff:169.254.169.254]/", "metadata", "169.254.169.254"),
    ("http://[64:ff9b::127.0.0.1]/", "loopback", "NAT64"),
    ("http://[64:ff9b::a00:5]/", "private", "NAT64 address embedding 10.0.0.5"),
    ("http://[64:ff9b:1::1]/", "reserved", "local-use NAT64"),
    ("http://[2002:7f00:1::]/", "loopback", "6to4 address embedding 127.0.0.1"),
    ("http://[2002:a9fe:a9fe::1]/", "metadata", "6to4"),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "loopback", "Teredo"),
]


@pytest.mark.parametrize(("url", "category", "words"), REFUSED_LITERALS)
async def test_refused_addresses_and_spellings(url: str, category: str, words: str) -> None:
    with pytest.raises(EgressRefused) as caught:
        await check_url(url, STRICT, forbidden_resolver)
    assert caught.value.category == category
    assert words in str(caught.value)
    assert str(caught.value).startswith("refused: ")


async def test_refusal_message_reads_well() -> None:
    with pytest.raises(EgressRefused) as caught:
        await check_url("http://10.0.0.5:8080/bot", STRICT, forbidden_resolver)
    assert str(caught.value) == "refused: 10.0.0.5 is a private address"
    assert caught.value.reason == "10.0.0.5 is a private address"
    assert caught.value.address == "10.0.0.5"


@pytest.mark.parametrize(
    ("answers", "category"),
    [
        (["10.0.0.5"], "private"),
        (["127.0.0.1"], "loopback"),
        (["169.254.169.254"], "metadata"),
        (["fd00:ec2::254"], "metadata"),
        (["fd00::5"], "unique_local"),
        (["fe80::1%2"], "link_local"),
        (["::ffff:10.1.2.3"], "private"),
        # one bad answer among good ones refuses the name: the good one is not picked
        ([PUBLIC_V4, "10.0.0.5"], "private"),
        (["10.0.0.5", PUBLIC_V4], "private"),
        ([PUBLIC_V6, PUBLIC_V4, "::1"], "loopback"),
    ],
)
async def test_refused_resolutions(answers: list[str], category: str) -> None:
    asked: list[tuple[str, int]] = []

    async def resolver(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return answers

    with pytest.raises(EgressRefused) as caught:
        await check_url("https://Bot.Example./v1", STRICT, resolver)
    assert caught.value.category == category
    kind = category.replace("_", " ")
    assert caught.value.reason.startswith(f"bot.example resolves to a non-public address ({kind})")
    # the platform's DNS answers never reach the author (finding 8): no address, not even
    # the embedded IPv4 of a mapped form
    for answer in [*answers, "10.1.2.3", "fe80::1"]:
        assert answer.split("%")[0] not in str(caught.value)
    assert asked == [("bot.example", 443)]


@pytest.mark.parametrize(
    ("url", "answers", "ip", "base"),
    [
        ("http://8.8.8.8/", None, "8.8.8.8", "http://8.8.8.8"),
        ("https://1.1.1.1:8443/bot/", None, "1.1.1.1", "https://1.1.1.1:8443/bot"),
        ("http://134744072/", None, "8.8.8.8", "http://8.8.8.8"),
        (f"http://[{PUBLIC_V6}]/", None, PUBLIC_V6, f"http://[{PUBLIC_V6}]"),
        ("http://[::ffff:8.8.8.8]/", None, "8.8.8.8", "http://8.8.8.8"),
        ("http://[64:ff9b::8.8.8.8]/", None, "64:ff9b::808:808", "http://[64:ff9b::808:808]"),
        ("https://bot.example/", [PUBLIC_V4], PUBLIC_V4, "https://bot.example"),
        ("http://bot.example:80/x", [PUBLIC_V6, PUBLIC_V4], PUBLIC_V6, "http://bot.example/x"),
        ("http://127.0.0.1.nip.example/", [PUBLIC_V4], PUBLIC_V4, "http://127.0.0.1.nip.example"),
    ],
)
async def test_public_addresses_are_accepted(
    url: str, answers: list[str] | None, ip: str, base: str
) -> None:
    """Judged only: nothing connects to these."""

    async def resolver(host: str, port: int) -> list[str]:
        assert answers is not None, "an IP literal must not be resolved"
        return answers

    target = await check_url(url, STRICT, resolver)
    assert target.ip == ipaddress.ip_address(ip)
    assert target.url.base == base


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/", "http://127.1/", "http://2130706433/", "http://[::1]:8/"]
)
async def test_allow_loopback_admits_loopback_only(url: str) -> None:
    target = await check_url(url, LOCAL, forbidden_resolver)
    assert target.ip.is_loopback
    with pytest.raises(EgressRefused, match="loopback is allowed only for local play"):
        await check_url(url, STRICT, forbidden_resolver)


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.5/",
        "http://192.168.0.10/",
        "http://169.254.169.254/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fc00::1]/",
        "http://[fe80::1]/",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://[2002:7f00:1::]/",
    ],
)
async def test_allow_loopback_never_admits_anything_else(url: str) -> None:
    with pytest.raises(EgressRefused):
        await check_url(url, LOCAL, forbidden_resolver)


async def test_localhost_name_under_local_policy() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["::1", "127.0.0.1"]

    target = await check_url("http://localhost:8000/", LOCAL, resolver)
    assert target.ip == ipaddress.ip_address("::1")
    with pytest.raises(
        EgressRefused, match=r"localhost resolves to a non-public address \(loopback\)"
    ):
        await check_url("http://localhost:8000/", STRICT, resolver)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://bot.example/", "only http:// and https://"),
        ("file:///etc/passwd", "only http:// and https://"),
        ("javascript:alert(1)", "only http:// and https://"),
        ("http://user:pw@bot.example/", "user:password@"),
        ("http://bot.example@10.0.0.5/", "user:password@"),
        ("http://bot.example/?next=x", "query"),
        ("http://bot.example/#frag", "fragment"),
        ("http:///path", "no host"),
        ("http://[::1/", "Invalid IPv6 URL|unclosed"),
        ("http://::1/", "brackets"),
        ("http://[v1.abc]/", "not a valid IPv6"),
        ("http://[fe80::1%25bad%zone]/", "zone"),
        ("http://1.2.3.4.5/", "looks like an IPv4 address"),
        ("http://example.123/", "looks like an IPv4 address"),
        ("http://0x/", "looks like an IPv4 address"),
        ("http://08.0.0.1/", "looks like an IPv4 address"),
        ("http://256.1.1.1/", "looks like an IPv4 address"),
        ("http://4294967296/", "looks like an IPv4 address"),
        ("http://-1.1/", "looks like an IPv4 address"),
        ("http://1_0.0.0.1/", "looks like an IPv4 address"),
        ("http://0x-1.1/", "looks like an IPv4 address"),
        ("http://%31%32%37.0.0.1/", "characters"),
        ("http://b\u00f6t.example/", "non-ASCII"),
        ("http://bot..example/", "label"),
        ("http://bot.example:99999/", "out of range"),
        ("http://bot.example:0/", "out of range"),
        ("http://bot.example:8o/", "not a number"),
        ("http://bot example/", "spaces"),
        ("http://bot.example\\@10.0.0.5/", "backslashes"),
        ("http://127.0.0.1\t/", "control characters"),
    ],
)
async def test_malformed_urls(url: str, words: str) -> None:
    with pytest.raises(BadBotUrl, match=words):
        await check_url(url, LOCAL, forbidden_resolver)


async def test_metadata_host_names_are_refused_without_lookup() -> None:
    with pytest.raises(EgressRefused) as caught:
        await check_url("http://metadata.google.internal/computeMetadata/v1", STRICT)
    assert caught.value.category == "metadata"


async def test_unresolvable_names() -> None:
    async def nothing(host: str, port: int) -> list[str]:
        return []

    async def failing(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    async def garbage(host: str, port: int) -> list[str]:
        return ["not-an-ip"]

    for resolver in (nothing, failing, garbage):
        with pytest.raises(UnresolvableHost, match=r"bot\.example"):
            await check_url("http://bot.example/", STRICT, resolver)


async def test_system_resolver_on_a_numeric_host_does_no_dns() -> None:
    assert await system_resolver("127.0.0.1", 80) == ["127.0.0.1"]


def test_judge_address_returns_the_ipv4_of_a_mapped_address() -> None:
    mapped = ipaddress.IPv6Address("::ffff:8.8.4.4")
    assert judge_address(mapped, STRICT) == ipaddress.IPv4Address("8.8.4.4")


def test_parse_keeps_base_path_and_effective_port() -> None:
    url = parse_bot_url("HTTPS://Bot.Example:443/teams/x/")
    assert (url.scheme, url.host, url.port, url.path) == ("https", "bot.example", 443, "/teams/x")
    assert url.join("/act") == "https://bot.example/teams/x/act"
    assert parse_bot_url("http://[::1]:8080").join("/") == "http://[::1]:8080/"


# --- inet_aton agrees with libc: no numeric spelling slips through as a "hostname" ------------


@st.composite
def ipv4_spellings(draw: st.DrawFn) -> tuple[int, str]:
    number = draw(st.integers(0, 2**32 - 1))
    count = draw(st.integers(1, 4))
    widths = [1] * (count - 1) + [5 - count]  # bytes per part: a.b.c.d / a.b.(16) / a.(24) / (32)
    parts: list[int] = []
    rest = number
    for width in reversed(widths):
        parts.append(rest % (256**width))
        rest //= 256**width
    parts.reverse()
    texts = []
    for part in parts:
        style = draw(st.sampled_from(["dec", "hex", "HEX", "oct"]))
        zeros = "0" * draw(st.integers(0, 3))
        if style == "dec":
            texts.append(str(part))
        elif style == "oct":
            texts.append("0" + zeros + format(part, "o"))
        else:
            prefix = "0x" if style == "hex" else "0X"
            texts.append(prefix + zeros + format(part, "x" if style == "hex" else "X"))
    return number, ".".join(texts)


@given(ipv4_spellings())
def test_inet_aton_reads_every_spelling_as_libc_does(case: tuple[int, str]) -> None:
    number, text = case
    assert inet_aton(text) == ipaddress.IPv4Address(number)
    assert socket.inet_aton(text) == ipaddress.IPv4Address(number).packed
    assert parse_host(text) == ipaddress.IPv4Address(number)


@given(st.text(alphabet="0123456789abcdefx.-_+ ", min_size=1, max_size=20))
def test_nothing_libc_reads_as_an_address_passes_as_a_name(text: str) -> None:
    try:
        libc: bytes | None = socket.inet_aton(text)
    except OSError:
        libc = None
    ours = inet_aton(text)
    if ours is not None:
        assert libc == ours.packed
    if libc is not None:
        try:
            host = parse_host(text)
        except BadBotUrl:
            return  # refused as malformed: also safe
        assert host == ipaddress.IPv4Address(libc)


# --- pinning: the connection goes to the checked address, never elsewhere ---------------------


class FlipResolver:
    """DNS rebinding: a public address first, a private one on every later lookup."""

    def __init__(self) -> None:
        self.lookups = 0

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups += 1
        return [PUBLIC_V4] if self.lookups == 1 else ["10.0.0.5"]


async def test_rebinding_cannot_reach_the_private_address(
    arena_recording_backend: RecordingBackend,
) -> None:
    resolver = FlipResolver()
    client = BotClient(
        "http://rebind.example:8080/",
        generate_secret(),
        config=ClientConfig(timeout_ms=300),
        resolver=resolver,
        network_backend=arena_recording_backend,
    )
    async with client:
        results = [
            await client.info(),
            await client.act({"n": 1}, TimeBank(5000)),
            await client.act({"n": 2}, TimeBank(5000)),
            await client.end({}),
        ]
    assert resolver.lookups == 1
    assert all(isinstance(r, Fault) and r.kind == "connect" for r in results)
    # every attempt went to the checked public address; the private one was never dialled
    assert set(arena_recording_backend.calls) == {(PUBLIC_V4, 8080)}


async def test_rebound_name_is_refused_before_any_connection(
    arena_forbidden_backend: ForbiddenBackend,
) -> None:
    resolver = FlipResolver()
    await check_url("http://rebind.example/", STRICT, resolver)  # first lookup: public
    client = BotClient(
        "http://rebind.example/",
        generate_secret(),
        resolver=resolver,
        network_backend=arena_forbidden_backend,
    )
    async with client:
        with pytest.raises(
            EgressRefused, match=r"rebind\.example resolves to a non-public address \(private\)"
        ):
            await client.pin()
        result = await client.act({}, TimeBank(1000))
    assert isinstance(result, Fault)
    assert result.kind == "connect"
    assert "non-public address (private)" in result.detail
    assert "10.0.0.5" not in result.detail
    assert arena_forbidden_backend.calls == []
    assert resolver.lookups == 2  # the refusal is final: no further lookups


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/", "http://10.0.0.5/", "http://[::ffff:127.0.0.1]/"]
)
async def test_production_client_refuses_without_connecting(
    url: str, arena_forbidden_backend: ForbiddenBackend
) -> None:
    async with BotClient(
        url, generate_secret(), resolver=forbidden_resolver, network_backend=arena_forbidden_backend
    ) as client:
        assert client.config.policy.allow_loopback is False
        result = await client.info()
    assert isinstance(result, Fault)
    assert result.kind == "connect"
    assert result.detail.startswith("refused: ")
    assert arena_forbidden_backend.calls == []


async def test_pinned_backend_dials_the_pinned_ip_and_nothing_else(
    arena_recording_backend: RecordingBackend,
) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return [PUBLIC_V4]

    target = await check_url("https://bot.example:8443/", STRICT, resolver)
    backend = PinnedBackend(target, STRICT, arena_recording_backend)
    with pytest.raises(httpcore.ConnectError, match="recording backend"):
        await backend.connect_tcp("bot.example", 8443)
    for host, port in [("evil.example", 8443), ("bot.example", 22), ("10.0.0.5", 8443)]:
        with pytest.raises(httpcore.ConnectError, match="not the checked bot address"):
            await backend.connect_tcp(host, port)
    with pytest.raises(httpcore.ConnectError, match="TCP only"):
        await backend.connect_unix_socket("/var/run/docker.sock")
    assert arena_recording_backend.calls == [(PUBLIC_V4, 8443)]


async def test_pinned_backend_rejudges_the_address(
    arena_forbidden_backend: ForbiddenBackend,
) -> None:
    """A target pinned under the local policy cannot be used by a production backend."""
    target = await check_url("http://127.0.0.1:9/", LOCAL, forbidden_resolver)
    backend = PinnedBackend(target, STRICT, arena_forbidden_backend)
    with pytest.raises(httpcore.ConnectError, match="loopback"):
        await backend.connect_tcp("127.0.0.1", 9)
    assert arena_forbidden_backend.calls == []


class _TlsProbeStream(httpcore.AsyncNetworkStream):
    """Stands in for a socket (none is opened) and records the TLS handshake's server name."""

    def __init__(self, seen: list[str | None]) -> None:
        self._seen = seen

    async def start_tls(
        self, ssl_context: object, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        self._seen.append(server_hostname)
        raise httpcore.ConnectError("probe: no TLS here")

    async def aclose(self) -> None:
        return None


class _TlsProbeBackend(RecordingBackend):
    def __init__(self) -> None:
        super().__init__()
        self.server_names: list[str | None] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: object = None,
    ) -> httpcore.AsyncNetworkStream:
        self.calls.append((host, port))
        return _TlsProbeStream(self.server_names)


async def test_tls_uses_the_host_name_while_the_socket_uses_the_pinned_ip() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return [PUBLIC_V4]

    backend = _TlsProbeBackend()
    async with BotClient(
        "https://bot.example:8443/", generate_secret(), resolver=resolver, network_backend=backend
    ) as client:
        result = await client.info()
    assert isinstance(result, Fault) and result.kind == "connect"
    assert backend.calls == [(PUBLIC_V4, 8443)]
    assert backend.server_names == ["bot.example"]  # SNI and certificate check use the name


_URL_TEXT = st.one_of(
    st.text(max_size=40),
    st.builds(
        "{}://{}{}".format,
        st.sampled_from(["http", "https", "HTTP", "ftp", ""]),
        st.text(alphabet="0123456789abcdefx.:[]%@-_+/?#\\ \t", max_size=30),
        st.sampled_from(["", "/", "/act", ":80/"]),
    ),
)


@given(_URL_TEXT)
def test_any_text_gives_a_target_or_an_egress_error(url: str) -> None:
    """Whatever a bot author types, the guard answers with a typed error, never a crash."""

    async def resolver(host: str, port: int) -> list[str]:
        return [PUBLIC_V4]

    async def run() -> None:
        try:
            target = await check_url(url, LOCAL, resolver)
        except EgressError:
            return
        assert target.url.scheme in ("http", "https")
        judge_address(target.ip, LOCAL)  # what was pinned passes the guard

    asyncio.run(run())
