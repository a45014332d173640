"""The one clock: SV_NOW pins where it starts; it runs on at the real pace from there."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from sv_scrapy.core.clock import Clock, clock_from, parse_instant
from sv_scrapy.core.errors import ArgumentError


def test_sv_now_pins_the_start_and_the_clock_runs_on() -> None:
    clock = clock_from("2027-03-01T03:17:00Z")
    first = clock.now()
    assert first.isoformat(timespec="seconds") == "2027-03-01T03:17:00+00:00"
    time.sleep(0.02)
    assert clock.now() > first  # the order of what one run writes stays true
    assert clock.today().isoformat() == "2027-03-01"
    assert clock.stamp().startswith("20270301-0317")
    assert clock.pinned


@pytest.mark.parametrize("raw", ["2027-03-01T04:17:00+01:00", "2027-03-01T03:17:00", "2027-03-01T03:17:00.000Z"])
def test_every_iso_spelling_of_one_instant_is_that_instant_in_utc(raw: str) -> None:
    assert parse_instant(raw) == datetime(2027, 3, 1, 3, 17, tzinfo=UTC)


@pytest.mark.parametrize("raw", ["yesterday", "2027-13-01", "01/03/2027", "2027-03-01T25:00Z"])
def test_a_malformed_sv_now_is_the_users_mistake_named_in_one_line(raw: str) -> None:
    with pytest.raises(ArgumentError) as err:
        clock_from(raw)
    assert err.value.exit_code == 2 and f"SV_NOW={raw!r}" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("raw", [None, "", "  "])
def test_unset_is_the_real_clock(raw: str | None) -> None:
    clock = clock_from(raw)
    assert not clock.pinned and abs((clock.now() - datetime.now(UTC)).total_seconds()) < 5
    assert clock == Clock()
