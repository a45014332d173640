"""The pacer's book, clock in hand: host gaps, Crawl-delay, holds, throttle, global cap."""

from __future__ import annotations

import bisect
import random

import pytest

from sv_scrapy.core.policy import HostPolicy
from sv_scrapy.core.politeness import CAP_TOLERANCE, HOST_TOLERANCE, HostFloors, Pacer
from sv_scrapy.run.config import load_config
from sv_scrapy.run.runtime import PROJECT_DIR


def pacer(min_gap: float = 0.0) -> Pacer:
    cfg = load_config(PROJECT_DIR / "config")
    return Pacer(HostFloors(cfg.liveness, cfg.hosts), min_gap=min_gap, start_delay=0.5, max_delay=60.0)


def test_a_host_is_ready_one_floor_after_its_last_start() -> None:
    p = pacer()
    gov, other = "www.impots.gouv.fr", "www.example.org"
    assert p.host_ready(gov) == 0.0
    p.started(gov, 10.0)
    p.started(other, 10.0)
    assert p.host_ready(gov) == 10.0 + p.floors.floor(gov)
    assert p.host_ready(other) == 10.0 + p.floors.floor(other)
    assert p.floors.floor(gov) > p.floors.floor(other)  # the government floor is the higher one here


def test_crawl_delay_and_retry_after_only_ever_push_a_host_out() -> None:
    p = pacer()
    host = "www.example.org"
    p.started(host, 10.0)
    p.learn_crawl_delay(host, 5)
    assert p.host_ready(host) == 15.0
    p.learn_crawl_delay(host, 0.1)  # a lower Crawl-delay never lowers the floor below the policy
    assert p.gap(host) >= HostPolicy(concurrency=1, interval_ms=500).interval_ms / 1000
    p.hold(host, 40.0)
    assert p.host_ready(host) == 40.0


def test_a_slow_host_is_spaced_by_its_latency_never_below_its_floor() -> None:
    p = pacer()
    host = "www.example.org"
    floor = p.floors.floor(host)
    p.observe(host, latency=3.0, ok=True)
    assert p.gap(host) == 3.0
    for _ in range(20):
        p.observe(host, latency=0.001, ok=True)
    assert p.gap(host) == floor


def test_the_global_cap_counts_from_the_last_start() -> None:
    p = pacer(min_gap=0.25)
    assert p.global_ready() == float("-inf")  # nothing started: no wait
    p.started("a.example.org", 1.0)
    p.started("b.example.org", 1.25)
    assert p.global_ready() == 1.5
    p.started("a.example.org", 5.0)
    assert p.global_ready() == 5.25  # an idle spell is not saved up for a burst


def late_loop(start_late: float, note_late: float, tolerance: float, n: int = 1000) -> tuple[list[float], list[float]]:
    """``n`` starts, each served up to ``start_late`` past its slot and followed to the wire, whose
    note comes up to ``note_late`` after the start, as the paced handler does: (starts, notes)."""
    p = pacer(min_gap=0.01)
    rng = random.Random(5)
    starts, notes = [], []
    for i in range(n):
        host = f"h{i % 50}.example.org"
        when = max(p.global_ready(), 100.0) + rng.uniform(0.0, start_late)
        p.started(host, when, forgive=tolerance)
        note = when + rng.uniform(0.0, note_late)
        p.left(host, when, note, forgive=tolerance, host_forgive=HOST_TOLERANCE)
        starts.append(when)
        notes.append(note)
    return starts, notes


def test_a_loop_that_serves_starts_late_keeps_the_rate_and_the_tolerance() -> None:
    """Every start served 0–1.2 ms past its slot and on the wire 0–0.6 ms later (a busy loop):
    the slots keep their grid, so 1,000 starts take 999 gaps and no more; no second holds more
    starts than the cap allows (a second's gaps, and one start more)."""
    starts, _ = late_loop(0.0012, 0.0006, tolerance=CAP_TOLERANCE)
    assert starts[-1] - starts[0] < 999 * 0.01 + 0.002  # counted from each start: ~1,000 × 0.9 ms later
    assert max(bisect.bisect_left(starts, t + 1.0) - i for i, t in enumerate(starts)) <= 100 + 1


def test_the_shipped_tolerance_keeps_the_grid_when_a_turn_reads_a_page() -> None:
    """Starts served 0–2.5 ms late and on the wire 0–2 ms later, as when the loop's turns read
    pages: at the shipped tolerance the slots keep their grid and a second its count; at 2 ms
    the lateness past it adds up, about 0.4 ms a start."""
    starts, _ = late_loop(0.0025, 0.002, tolerance=CAP_TOLERANCE)
    assert starts[-1] - starts[0] < 999 * 0.01 + CAP_TOLERANCE
    assert max(bisect.bisect_left(starts, t + 1.0) - i for i, t in enumerate(starts)) <= 100 + 1
    strict, _ = late_loop(0.0025, 0.002, tolerance=0.002)
    assert strict[-1] - strict[0] > 999 * 0.01 + 0.1  # what the shipped tolerance gives back


@pytest.mark.parametrize("note_late", [0.0019, 0.006])
def test_no_two_requests_reach_the_wire_closer_than_the_gap_less_the_tolerance(note_late: float) -> None:
    """However late the bytes leave, within the tolerance or past it, the next start waits for them."""
    _, notes = late_loop(0.0018, note_late, tolerance=CAP_TOLERANCE)
    assert min(b - a for a, b in zip(notes, notes[1:], strict=False)) >= 0.01 - CAP_TOLERANCE - 1e-9


def test_a_host_gap_forgives_less_than_the_cap() -> None:
    """A late note moves the host's gap by all but ``HOST_TOLERANCE``, whatever the cap forgives."""
    p = pacer(min_gap=0.01)
    host = "www.impots.gouv.fr"
    p.started(host, 10.0, forgive=CAP_TOLERANCE)
    p.left(host, 10.0, 10.004, forgive=CAP_TOLERANCE, host_forgive=HOST_TOLERANCE)
    assert p.host_ready(host) == pytest.approx(10.002 + p.floors.floor(host))
    assert p.global_ready() == pytest.approx(10.004 - CAP_TOLERANCE + 0.01)  # the cap forgave all 4 ms


def test_a_high_cap_never_forgives_more_than_half_its_gap() -> None:
    p = pacer(min_gap=0.001)  # 1,000 requests/s: 2 ms would be two whole gaps
    p.started("a.example.org", 5.0, forgive=0.002)
    assert p.global_ready() == pytest.approx(5.0005)  # half a gap forgiven, never a start banked
