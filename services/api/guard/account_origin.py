"""Where an account was made from, kept as a keyed digest so the ladder can link one person's
accounts (issue 33, item 2; :mod:`services.ladder.links`).

The digest is HMAC-SHA256, under the platform's secret key, of the client's address group: the
IPv4 address, or the /64 network of an IPv6 address (one host holds a whole /64, as the
connection caps count it: :func:`services.api.guard.address_caps.address_key`). The address
itself is never stored. Only a global address is kept: loopback, private and link-local ones
say nothing about who made the account (every account of a local ``make run`` comes from
127.0.0.1), so such accounts are linked to nobody.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from litestar import Request
from litestar.datastructures import State

from services.api.guard.address_caps import address_key
from services.api.guard.client_address import client_address_reader
from services.base.config import Settings


def origin_digest(address: str, secret_key: str | None) -> bytes | None:
    """The digest of ``address``'s group, or None (no key, or not a global address)."""
    if secret_key is None:
        return None
    try:  # an address, or the /64 an IPv6 client is counted under (client_address.counted)
        ip = ipaddress.ip_network(address, strict=False).network_address
    except ValueError:
        return None
    if not ip.is_global:
        return None
    group = address_key(str(ip))
    if group is None:
        return None
    return hmac.new(
        secret_key.encode(), b"truco-arena/account-origin/v1:" + group.encode(), hashlib.sha256
    ).digest()


def request_origin(request: Request[object, object, State], settings: Settings) -> bytes | None:
    """The digest of the address a request came from (behind ``TRUCO_TRUSTED_PROXIES``, the
    client's as they report it)."""
    address = client_address_reader(settings.web.trusted_proxies)(request)
    key = settings.secrets.key
    return origin_digest(address, None if key is None else key.reveal())
