"""Which addresses the toolkit may ask: public ones, and the private ones configuration allows.

A record, a redirect or a metadata service can name any host. Asking ``169.254.169.254`` (a
cloud's metadata service), ``10.0.0.1`` or ``localhost`` from a CI runner would let a stranger's
pull request probe the runner's network (server-side request forgery). So a host is asked only
when every address it resolves to is global, or lies in a network ``SURVEY_NET_ALLOW`` lists
(comma-separated addresses or CIDR networks, e.g. ``127.0.0.1`` for tests on loopback servers).
The request is then sent to the address that was checked (never resolved a second time), so a
name that resolves differently the second time cannot slip through.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from survey_tools.errors import UsageError
from survey_tools.net.hrefs import normal_host

ENV_ALLOW = "SURVEY_NET_ALLOW"
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
# Names that mean this machine or its local network whatever DNS says (RFC 6761, RFC 6762,
# and the suffixes cloud providers use for their internal names).
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")
# The legacy IPv4 spellings inet_aton accepts (2130706433, 0x7f.1, 127.1): resolvers take them.
_LEGACY_V4 = re.compile(r"^(?:0x[0-9a-f]+|[0-9]+)(?:\.(?:0x[0-9a-f]+|[0-9]+)){0,3}$", re.IGNORECASE)


@dataclass(frozen=True)
class Allowance:
    """The private networks configuration allows (none by default)."""

    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, text: str, origin: str = ENV_ALLOW) -> Allowance:
        nets: list[IPNetwork] = []
        for item in (x.strip() for x in text.split(",")):
            if not item:
                continue
            try:
                nets.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise UsageError(
                    f"{origin}: {item!r} is not an IP address or network (e.g. 127.0.0.1 or 10.0.0.0/8)"
                ) from None
        return cls(tuple(nets))

    @classmethod
    def from_env(cls) -> Allowance:
        return cls.parse(os.environ.get(ENV_ALLOW, ""))

    def allows(self, ip: IPAddress) -> bool:
        return any(ip.version == n.version and ip in n for n in self.networks)


def literal_ip(host: str) -> IPAddress | None:
    """The address a host name spells literally (``[::1]``, ``10.0.0.1``, ``2130706433``), if any."""
    h = host.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(h)
    except ValueError:
        pass
    if _LEGACY_V4.match(h):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(h))
        except (OSError, ValueError):
            return None
    return None


def why_private(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a public address (None when it is one)."""
    if isinstance(ip, ipaddress.IPv6Address):
        # IPv4 inside IPv6: mapped (::ffff:127.0.0.1), NAT64 (64:ff9b::7f00:1), the deprecated
        # compatible form (::127.0.0.1), 6to4 (2002:7f00:1::) all reach the IPv4 address.
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is None and int(ip) >> 32 in (0, 0x64FF9B << 64) and int(ip) & 0xFFFFFFFF > 1:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None:
            ip = inner
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_unspecified:
        return "an unspecified address"
    if not ip.is_global:
        return "a private address"
    return None


@functools.lru_cache(maxsize=4096)
def private_host(host: str) -> str | None:
    """Why a URL's host is local without asking DNS (a local name or a non-public literal).

    Kept per host: a corpus names a few hosts thousands of times, and telling a name from an
    address costs ``ipaddress`` two exceptions each time."""
    h = host.lower().rstrip(".")
    if h in _LOCAL_NAMES or h.endswith(_LOCAL_SUFFIXES):
        return "a name of the local machine or network"
    ip = literal_ip(h)
    return why_private(ip) if ip is not None else None


def private_url(url: str) -> str | None:
    """What ``survey validate`` says about a link to a local host (None for a public one)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    if not host:
        return None
    # As a resolver reads it: fullwidth digits, circled letters and %-escapes are ASCII there.
    shown = normal_host(host) or host
    why = private_host(shown)
    return f"points to {why} ({shown}); links must be public" if why else None


def check_addresses(host: str, addresses: Iterable[IPAddress], allow: Allowance) -> str | None:
    """The refusal for ``host`` resolving to ``addresses``, or None when it may be asked."""
    for ip in addresses:
        why = why_private(ip)
        if why and not allow.allows(ip):
            shown = host if str(ip) == host.strip("[]") else f"{host} = {ip}"
            return f"refused to connect to {why} ({shown}); {ENV_ALLOW} allows it"
    return None
