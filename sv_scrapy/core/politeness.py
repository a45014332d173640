"""The politeness policy of ``_url-liveness.json``, as numbers for one host or one retry.

Semantics follow the url-liveness tool that owns the file: a host's ``interval_ms`` is the
minimum gap between two request *starts* to it, ``concurrency`` bounds requests in flight.
Per-host overrides match by suffix, then the government floor, then the default. A robots
``Crawl-delay`` can only raise a floor.
"""

from __future__ import annotations

import email.utils
import random
from datetime import UTC, datetime

from sv_scrapy.config import HostPolicy, Liveness
from sv_scrapy.core.hosts import HostRules

RETRY_AFTER_CAP_SECONDS = 60.0  # wait at most this long for a Retry-After; longer gives up


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
    """Seconds asked for by a ``Retry-After`` header: delta-seconds or an HTTP-date.

    >>> parse_retry_after("3"), parse_retry_after(b"garbage")
    (3.0, None)
    >>> parse_retry_after("Wed, 02 Dec 2026 12:00:10 GMT", datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC))
    10.0
    """
    if value is None:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


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
