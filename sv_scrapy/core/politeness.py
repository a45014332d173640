"""The politeness policy of ``_url-liveness.json``, as numbers for one host or one retry.

Semantics follow the url-liveness tool that owns the file: a host's ``interval_ms`` is the
minimum gap between two request *starts* to it, ``concurrency`` bounds requests in flight.
Per-host overrides match by suffix, then the government floor, then the default. A robots
``Crawl-delay`` can only raise a floor.
"""

from __future__ import annotations

import email.utils
import random
import re
from datetime import UTC, datetime

from sv_scrapy.core.hosts import HostRules
from sv_scrapy.core.policy import HostPolicy, Liveness

RETRY_AFTER_CAP_SECONDS = 60.0  # wait at most this long for a Retry-After; longer gives up
# Lateness a start may have, from its slot under the global cap to its bytes' leaving, and still
# count from its slot (``Pacer.started``, ``Pacer.left``): the rate limiter's tolerance, as GCRA
# has one. A start is late by what the event loop runs before it, and a loop turn that reads a
# page takes a few milliseconds: at 2 ms, 10,000 URLs at 100 requests/s took 1.05–1.09× their
# bound (bench/audit.py, four runs), at 5 ms 1.03. It is never more than half the gap, so a
# second still holds at most the cap's count and one more.
CAP_TOLERANCE = 0.005
# The same for a host's own gap, kept small: a floor is what the host asked for (half a second
# or more), and 2 ms of it is 0.4 % at most.
HOST_TOLERANCE = 0.002
_DELTA_SECONDS = re.compile(r"[0-9]+")  # ASCII digits only: str.isdigit() also takes "²"


def policy_for(host: str, liveness: Liveness, hosts: HostRules) -> HostPolicy:
    """The floor for one host: override (suffix match) > government floor > default."""
    host = host.lower().rstrip(".")
    for name, policy in liveness.per_host.items():
        if host == name or host.endswith("." + name):
            return policy
    if hosts.is_gov(host):
        return liveness.gov_policy
    return liveness.default_policy


def floor_seconds(policy: HostPolicy, crawl_delay: float | None = None) -> float:
    """Seconds between request starts: the policy interval, raised by a Crawl-delay."""
    return max(policy.interval_ms / 1000.0, crawl_delay or 0.0)


def backoff_seconds(attempt: int, liveness: Liveness, rng: random.Random | None = None) -> float:
    """Wait before retry number ``attempt`` (1-based): the configured step, ± jitter."""
    steps = liveness.retry_backoff_seconds or (0.0,)
    base = steps[min(attempt - 1, len(steps) - 1)]
    spread = base * liveness.retry_jitter_pct / 100.0
    return max(0.0, base + (rng or random).uniform(-spread, spread))


def parse_retry_after(value: str | bytes | None, now: datetime | None = None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header: delta-seconds or an HTTP-date (RFC 9110
    §10.2.3). A date in the past is 0; a number too large to hold is infinite (and so above any
    limit); anything else — a negative number, a fraction, another script's digits, a date
    that does not exist — is no ``Retry-After`` at all (None): never an exception.

    >>> parse_retry_after("3"), parse_retry_after(b"garbage"), parse_retry_after("\u00b2")
    (3.0, None, None)
    >>> parse_retry_after("Wed, 02 Dec 2026 12:00:10 GMT", datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC))
    10.0
    >>> parse_retry_after("9" * 400)
    inf
    """
    if value is None:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if _DELTA_SECONDS.fullmatch(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
    except (TypeError, ValueError, OverflowError, IndexError):
        return None


class HostFloors:
    """Per-host floor (seconds between starts) and concurrency, with Crawl-delays learnt."""

    def __init__(self, liveness: Liveness, hosts: HostRules) -> None:
        self._liveness = liveness
        self._hosts = hosts
        self._crawl_delay: dict[str, float] = {}

    def policy(self, host: str) -> HostPolicy:
        return policy_for(host, self._liveness, self._hosts)

    def learn_crawl_delay(self, host: str, seconds: float | None) -> None:
        if seconds and seconds > 0:
            self._crawl_delay[host.lower()] = float(seconds)

    def floor(self, host: str) -> float:
        return floor_seconds(self.policy(host), self._crawl_delay.get(host.lower()))


def throttled_delay(current: float, latency: float, target_concurrency: float, max_delay: float,
                    ok: bool) -> float:
    """AutoThrottle's rule for one host (Scrapy's ``extensions/throttle.py``), as a number.

    The delay moves half-way toward ``latency / target_concurrency``, never below that
    target, never above ``max_delay``; an error answer may slow a host down, never speed
    it up. The caller takes ``max(floor, delay)``: this may only ever raise a floor.

    >>> throttled_delay(0.5, 1.5, 1.0, 60.0, True)
    1.5
    >>> throttled_delay(2.0, 0.2, 1.0, 60.0, True)
    1.1
    >>> throttled_delay(2.0, 0.2, 1.0, 60.0, False)
    2.0
    """
    target = latency / max(target_concurrency, 0.01)
    new = min(max(target, (current + target) / 2.0), max_delay)
    if not ok and new <= current:
        return current
    return new


class Pacer:
    """The one book of when a request may start: per-host gaps and the global cap.

    Pure bookkeeping on a monotonic clock; the caller sleeps and serialises the starts of
    one host (so a reservation can never be overtaken). A host is ready ``gap`` seconds
    after its last start — the floor, raised by a robots ``Crawl-delay`` and by a slow
    host's latency (AutoThrottle's rule) — and not before a ``Retry-After`` hold ends;
    then ``global_ready`` gives the next slot of the global cap, ``min_gap`` after the last
    start as counted (``started``, ``left``), across all hosts.
    """

    def __init__(self, floors: HostFloors, min_gap: float, start_delay: float = 0.0, max_delay: float = 60.0,
                 target_concurrency: float = 1.0) -> None:
        self.floors = floors
        self.min_gap = min_gap
        self.start_delay = start_delay
        self.max_delay = max_delay
        self.target_concurrency = target_concurrency
        self._last_start: dict[str, float] = {}
        self._held_until: dict[str, float] = {}
        self._throttle: dict[str, float] = {}
        self._last_global = float("-inf")

    def gap(self, host: str) -> float:
        """Seconds between two starts to ``host``: its floor, or more if it answers slowly."""
        return max(self.floors.floor(host), self._throttle.get(host, 0.0))

    def host_ready(self, host: str) -> float:
        """The earliest moment the next request to ``host`` may start."""
        last = self._last_start.get(host)
        ready = last + self.gap(host) if last is not None else 0.0
        return max(ready, self._held_until.get(host, 0.0))

    def global_ready(self) -> float:
        """The earliest next start under the global cap: ``min_gap`` after the last start as
        counted (its slot, or when it left; see ``started`` and ``left``)."""
        return self._last_global + self.min_gap

    def started(self, host: str, when: float, forgive: float = 0.0) -> None:
        """A request to ``host`` started at ``when``. The global cap counts from its slot
        (``global_ready``) if it started at most ``forgive`` seconds past it, else from
        ``forgive`` before ``when``: a busy event loop that serves each start a little late does
        not push every later slot back, and no two starts are closer than ``min_gap − forgive``
        (a rate limiter with a tolerance, like GCRA's). ``forgive`` is at most half the gap, so
        that a high cap never lets an idle spell bank a burst. The host's gap counts from ``when``.

        >>> p = Pacer(HostFloors.__new__(HostFloors), min_gap=0.25)
        >>> p.started("a", 1.0); p.started("b", 1.2515, forgive=0.002); p.global_ready()
        1.5
        >>> p.started("a", 1.51, forgive=0.002); round(p.global_ready(), 6)  # 10 ms late: 2 ms forgiven
        1.758
        """
        self._last_start[host] = when
        forgive = min(forgive, self.min_gap / 2)
        counted = min(when, max(self.global_ready(), when - forgive))
        self._last_global = max(self._last_global, counted)

    def left(self, host: str, booked: float, when: float, forgive: float = 0.0, host_forgive: float = 0.0) -> None:
        """The request started at ``booked`` reached the network only at ``when``: the global
        cap counts from then less ``forgive`` (the tolerance ``started`` allows), its host's gap
        from then less ``host_forgive`` (each at most half the cap's gap), so the next start
        keeps its distance on the wire, not only in this book. An earlier ``when`` changes nothing.

        >>> p = Pacer(HostFloors.__new__(HostFloors), min_gap=0.2)
        >>> p.started("a", 10.0); p.left("a", 10.0, 10.15); p.global_ready()
        10.35
        >>> p.left("a", 10.0, 10.2, forgive=0.005, host_forgive=0.002)
        >>> round(p.global_ready(), 6), round(p._last_start["a"], 6)
        (10.395, 10.198)
        """
        host_when = when - min(host_forgive, self.min_gap / 2)
        if host_when > booked:
            self._last_start[host] = max(self._last_start.get(host, host_when), host_when)
        self._last_global = max(self._last_global, when - min(forgive, self.min_gap / 2))

    def left_by(self, host: str, when: float) -> None:
        """A request to ``host`` counted as leaving before it was known to have (a browser
        navigation: Chromium's sending is not seen) is known to have left by ``when`` (its
        answer came): the host's gap counts from then at the latest. The global cap, which
        counted it already, is left as it is.

        >>> p = Pacer(HostFloors.__new__(HostFloors), min_gap=0.2)
        >>> p.started("a", 10.0); p.left("a", 10.0, 10.5); p.left_by("a", 11.2); p._last_start["a"], p.global_ready()
        (11.2, 10.7)
        """
        self._last_start[host] = max(self._last_start.get(host, when), when)

    def hold(self, host: str, until: float) -> None:
        """A ``Retry-After``: nothing starts to ``host`` before ``until``."""
        self._held_until[host] = max(self._held_until.get(host, 0.0), until)

    def learn_crawl_delay(self, host: str, seconds: float | None) -> None:
        self.floors.learn_crawl_delay(host, seconds)

    def observe(self, host: str, latency: float, ok: bool) -> None:
        """Feed one answer's latency to the throttle (it may only raise the gap)."""
        current = self._throttle.get(host, self.start_delay)
        self._throttle[host] = throttled_delay(current, latency, self.target_concurrency, self.max_delay, ok)
