"""The one clock: every date a run writes or compares comes from here.

``SV_NOW`` (an ISO 8601 instant, ``2027-03-01T03:17:00Z``) sets where the clock starts, for tests
and rehearsals: twelve monthly audits are twelve runs with ``SV_NOW`` a month apart. The clock
then runs on at the real pace from that instant (libfaketime's "start at" mode), so the order of
what one run writes (fetched_at, started_at, finished_at) stays true. Unset, it is the real
UTC clock.

Pure: the shell reads the environment once and hands the value to :func:`~sv_scrapy.core.clock.clock_from`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from sv_scrapy.core.errors import ArgumentError


def parse_instant(raw: str, what: str = "SV_NOW") -> datetime:
    """An ISO 8601 instant, made timezone-aware (a value without an offset is UTC).

    >>> parse_instant("2027-03-01T03:17:00Z").isoformat()
    '2027-03-01T03:17:00+00:00'
    >>> parse_instant("2027-03-01").isoformat()
    '2027-03-01T00:00:00+00:00'
    >>> parse_instant("next tuesday")
    Traceback (most recent call last):
    ...
    sv_scrapy.core.errors.ArgumentError: SV_NOW='next tuesday': expected an ISO 8601 instant such as 2027-03-01T03:17:00Z
    """
    try:
        value = datetime.fromisoformat(raw.strip())
    except ValueError:
        raise ArgumentError(f"{what}={raw!r}: expected an ISO 8601 instant such as 2027-03-01T03:17:00Z") from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass(frozen=True)
class Clock:
    """Now, as this run sees it: ``start`` (``SV_NOW``, or None for the real clock) plus the time
    elapsed since the clock was made."""

    start: datetime | None = None
    _origin: float = field(default_factory=time.monotonic, repr=False, compare=False)
    _real: Callable[[], datetime] = field(default=lambda: datetime.now(UTC), repr=False, compare=False)

    def now(self) -> datetime:
        if self.start is None:
            return self._real()
        return self.start + timedelta(seconds=time.monotonic() - self._origin)

    def iso(self) -> str:
        """Now to the second, ``2027-03-01T03:17:00+00:00`` (what the store and documents write)."""
        return self.now().isoformat(timespec="seconds")

    def today(self) -> date:
        return self.now().date()

    def stamp(self) -> str:
        """Now as a file-name stamp, ``20270301-031700``."""
        return self.now().strftime("%Y%m%d-%H%M%S")

    @property
    def pinned(self) -> bool:
        """Set by ``SV_NOW`` (a test or a rehearsal), not the real clock."""
        return self.start is not None


def clock_from(sv_now: str | None) -> Clock:
    """The clock ``SV_NOW`` asks for (empty or unset: the real one); a malformed value is the
    user's mistake (:class:`~sv_scrapy.core.errors.ArgumentError`, exit 2)."""
    if sv_now is None or not sv_now.strip():
        return Clock()
    return Clock(parse_instant(sv_now))
