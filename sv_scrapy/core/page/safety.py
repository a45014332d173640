"""Targets a playbook line must never make the crawler fetch.

A citation is text anyone can edit: ``http://169.254.169.254/latest/meta-data`` in a
playbook must not make a CI runner read its cloud credentials. Refused before any request
(and again on every redirect hop): IP literals in loopback, private, link-local,
unique-local, multicast, reserved, unspecified or other non-global ranges — in any spelling the resolver
accepts (``127.1``, ``0x7f000001``, ``2130706433``, ``[::ffff:127.0.0.1]``) — ``localhost``
names, and non-HTTP schemes. When no proxy stands between us and the target, resolved
addresses are checked too (``answers_reason``, asked by the run's resolver, ``sv_scrapy/resolver.py``).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _literal(host: str) -> IPAddress | None:
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:  # legacy IPv4 spellings that resolvers still accept
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def address_reason(addr: IPAddress) -> str | None:
    """Why an address is off limits, or None for a public one."""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped:
        addr = addr.ipv4_mapped
    for label, flag in (
        ("loopback", addr.is_loopback),
        ("link-local", addr.is_link_local),
        ("private", addr.is_private),
        ("multicast", addr.is_multicast),
        ("unspecified", addr.is_unspecified),
        ("reserved", addr.is_reserved),
        # the rest of IANA's special-purpose ranges: shared address space (100.64.0.0/10, where
        # one cloud keeps its metadata service), benchmarking, documentation, …
        ("non-global", not addr.is_global),
    ):
        if flag:
            return f"{label} address {addr}"
    return None


def answers_reason(host: str, addresses: Iterable[str]) -> str | None:
    """Why a name whose DNS answers are ``addresses`` must never be connected: one unsafe
    answer refuses the name (a name that answers both public and loopback addresses may be
    connected on either); None when every answer is public.

    >>> answers_reason("both.example", ["198.41.0.4", "127.0.0.1"])
    'unsafe target: both.example resolves to a loopback address 127.0.0.1'
    >>> answers_reason("shared.example", ["100.100.100.200"])
    'unsafe target: shared.example resolves to a non-global address 100.100.100.200'
    """
    for answer in addresses:
        unsafe = address_reason(ipaddress.ip_address(answer.split("%", 1)[0]))
        if unsafe:
            return f"unsafe target: {host} resolves to a {unsafe}"
    return None


def unsafe_target_reason(url: str) -> str | None:
    """Why ``url`` must never be requested, judged from the URL alone; None when fine.

    >>> unsafe_target_reason("http://169.254.169.254/latest/meta-data/")
    'unsafe target: link-local address 169.254.169.254'
    >>> unsafe_target_reason("http://127.1/") , unsafe_target_reason("https://www.impots.gouv.fr/x")
    ('unsafe target: loopback address 127.0.0.1', None)
    """
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").rstrip(".")  # "localhost." is localhost
    except ValueError:
        return "unsafe target: unparsable URL"
    if parts.scheme not in ("http", "https"):
        return f"unsafe target: scheme {parts.scheme or '(none)'} is not http(s)"
    if not host:
        return "unsafe target: no host"
    if host == "localhost" or host.endswith(".localhost") or host.endswith(".local"):
        return f"unsafe target: local name {host}"
    addr = _literal(host)
    if addr is not None:
        reason = address_reason(addr)
        if reason:
            return f"unsafe target: {reason}"
    return None


def refusal_reason(url: str, excluded: dict[str, str]) -> str | None:
    """Why ``url`` is never requested: an unsafe target, or a host in ``excluded_hosts``."""
    reason = unsafe_target_reason(url)
    if reason:
        return reason
    listed = host_listed(urlsplit(url).hostname or "", excluded)
    return f"excluded host {listed}: {excluded[listed] or 'excluded_hosts'}" if listed else None


def host_listed(host: str, listed: dict[str, str] | frozenset[str] | tuple[str, ...]) -> str | None:
    """The listed entry ``host`` is (a subdomain of), suffix-matched on labels; else None."""
    host = host.lower().rstrip(".")
    for entry in listed:
        if host == entry or host.endswith("." + entry):
            return entry
    return None
