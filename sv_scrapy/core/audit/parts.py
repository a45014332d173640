"""The audit split into host-partitioned parts (``-a part=I/N``): which part owns a host, and the
budgets every part shares.

Whole sites per part, as Nutch's host partitioning and Heritrix do: a host belongs to the part
its **registrable domain** (``core.hosts.registrable_domain``, the PSL) hashes to, so every host
of one site — and so, nearly always, one server — is fetched by one part, with one per-host
floor. The hash is SHA-256 of the domain, stable across processes, machines and releases
(Python's ``hash()`` is salted per process). Frames are fetched only on the page's own site
(``core.page.outlinks.same_site``), so they stay in the part.

A redirect from one site to another is the one way a part reaches a host it does not own. The
first month it happens, the part that cited the URL follows it (one request chain, through its
own paced handler); the merge then records the two sites as *joined* (``store/sites.json``,
``joined_sites``), and from the next month on a site is owned through its group's first site,
so both sites are fetched by one part and one floor holds for each.

Parts may share one address: the global request cap and the Wayback Machine's floor are each
divided by N unless the parts run on separate machines (``SV_PARTS_SEPARATE_MACHINES``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sv_scrapy.core.audit.archive.cdx import ARCHIVE_HOST
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.core.hosts import registrable_domain
from sv_scrapy.core.policy import HostPolicy, Liveness

MAX_PARTS = 256
_PART = re.compile(r"\s*(\d{1,3})\s*/\s*(\d{1,3})\s*")


@dataclass(frozen=True)
class Part:
    """Part ``index`` of ``count`` (1-based); ``Part(1, 1)`` is the whole audit."""

    index: int = 1
    count: int = 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def whole(self) -> bool:
        return self.count == 1

    def owns(self, host: str, joined: Mapping[str, str] | None = None) -> bool:
        """Whether this part fetches ``host``'s pages."""
        return owner_of(host, self.count, joined) == self.index


def parse_part(raw: str) -> Part:
    """``-a part=I/N`` (1 <= I <= N <= 256).

    >>> parse_part("2/3"), str(parse_part(" 1 / 1 "))
    (Part(index=2, count=3), '1/1')
    >>> parse_part("4/3")
    Traceback (most recent call last):
    ...
    sv_scrapy.core.errors.ArgumentError: -a part='4/3': expected I/N with 1 <= I <= N <= 256
    """
    match = _PART.fullmatch(str(raw))
    if match:
        index, count = int(match[1]), int(match[2])
        if 1 <= index <= count <= MAX_PARTS:
            return Part(index, count)
    raise ArgumentError(f"-a part={raw!r}: expected I/N with 1 <= I <= N <= {MAX_PARTS}")


def part_of(params: Mapping[str, Any]) -> Part:
    """The part a run's parsed params name (``params["part"]``, ``"I/N"`` or None: the whole)."""
    raw = params.get("part")
    return parse_part(raw) if raw else Part()


def owner_of(host: str, count: int, joined: Mapping[str, str] | None = None) -> int:
    """The part (1..count) that owns ``host``: its registrable domain's (or, when ``joined`` joins
    it to others, its group's) SHA-256, modulo ``count``.

    >>> owner_of("www.impots.gouv.fr", 4) == owner_of("impots.gouv.fr", 4) == owner_of("x.impots.gouv.fr", 4)
    True
    >>> owner_of("www.impots.gouv.fr", 1), owner_of("www.impots.gouv.fr", 7)
    (1, 5)
    >>> owner_of("www.impots.gouv.fr", 7, {"impots.gouv.fr": "economie.gouv.fr"}) == owner_of("economie.gouv.fr", 7)
    True
    """
    if count <= 1:
        return 1
    site = registrable_domain(host)
    group = (joined or {}).get(site, site).encode("utf-8")
    return int.from_bytes(hashlib.sha256(group).digest()[:8], "big") % count + 1


def joined_sites(earlier: Mapping[str, str], hops: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Sites that redirects join, each mapped to its group's first site (by name): ``earlier``'s
    groups plus this month's hops (cited host, host the fetch ended on).

    >>> joined_sites({}, [("www.a.gouv.fr", "data.b.gouv.fr"), ("x.c.fr", "x.c.fr")])
    {'a.gouv.fr': 'a.gouv.fr', 'b.gouv.fr': 'a.gouv.fr'}
    >>> joined_sites({"b.fr": "b.fr", "c.fr": "b.fr"}, [("www.a.fr", "www.c.fr")])
    {'a.fr': 'a.fr', 'b.fr': 'a.fr', 'c.fr': 'a.fr'}
    """
    parent: dict[str, str] = {}

    def root(site: str) -> str:
        while parent.setdefault(site, site) != site:
            site = parent[site]
        return site

    def join(a: str, b: str) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for site, group in earlier.items():
        join(site, group)
    for cited, landed in hops:
        a, b = registrable_domain(cited), registrable_domain(landed)
        if a != b:
            join(a, b)
    return {site: root(site) for site in sorted(parent)}


def shared_liveness(liveness: Liveness, parts: int) -> Liveness:
    """The politeness policy one of ``parts`` parts on one address may use: the global cap
    (``req_per_sec``) and the Wayback Machine's floor each a ``parts``-th of the whole, so all
    parts together ask no more than one run would. Every other host belongs to one part and
    keeps its own floor.

    >>> from sv_scrapy.core.policy import HostPolicy as P
    >>> base = Liveness(4, 8.0, P(1, 50), P(1, 100), {"web.archive.org": P(1, 1500)}, 2.0, 1, (0.2,), 0.0, 3,
    ...                 "", 5, {}, frozenset(), (), ())
    >>> shared = shared_liveness(base, 4)
    >>> shared.req_per_sec, shared.per_host["web.archive.org"].interval_ms, shared.default_policy.interval_ms
    (2.0, 6000, 50)
    """
    if parts <= 1:
        return liveness
    per_host = {name: (_slower(policy, parts) if _is_archive(name) else policy)
                for name, policy in liveness.per_host.items()}
    return dataclasses.replace(liveness, req_per_sec=liveness.req_per_sec / parts, per_host=per_host)


def _is_archive(name: str) -> bool:
    return name == ARCHIVE_HOST or ARCHIVE_HOST.endswith("." + name)


def _slower(policy: HostPolicy, parts: int) -> HostPolicy:
    return dataclasses.replace(policy, concurrency=1, interval_ms=policy.interval_ms * parts,
                               reason=f"{policy.reason}; shared by {parts} parts".lstrip("; "))
