"""Targets never fetched, fetch-status mapping, politeness numbers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sv_scrapy.core.page.fetchstatus import challenge_reason, status_outcome
from sv_scrapy.core.page.safety import host_listed, unsafe_target_reason
from sv_scrapy.core.policy import HostPolicy
from sv_scrapy.core.politeness import backoff_seconds, floor_seconds, parse_retry_after, policy_for
from sv_scrapy.run.config import load_config

from ..conftest import PROJECT_DIR


# Pure string checks: nothing here is ever requested. Hosts are given bare and put into a
# URL by the test, which is all unsafe_target_reason reads.
@pytest.mark.parametrize(
    "host",
    [
        "169.254.169.254", "127.0.0.1", "127.1", "2130706433", "0x7f000001", "[::1]", "[::ffff:127.0.0.1]",
        "10.0.0.8", "192.168.1.1", "172.16.0.1", "[fd00::1]", "[fe80::1]", "0.0.0.0", "localhost:8080",
        "api.localhost",
    ],
)
def test_unsafe_hosts(host: str) -> None:
    assert unsafe_target_reason(f"http://{host}/") is not None


@pytest.mark.parametrize("url", ["ftp://www.impots.gouv.fr/x", "file:///etc/passwd", "javascript:alert(1)"])
def test_non_http_schemes(url: str) -> None:
    assert unsafe_target_reason(url) is not None


@pytest.mark.parametrize("host", ["www.impots.gouv.fr", "8.8.8.8", "gov.ky"])
def test_safe_hosts(host: str) -> None:
    assert unsafe_target_reason(f"https://{host}/x") is None


def test_excluded_hosts_match_by_label_suffix() -> None:
    listed = {"linkedin.com": "bot-block"}
    assert host_listed("www.linkedin.com", listed) == "linkedin.com"
    assert host_listed("notlinkedin.com", listed) is None


@pytest.mark.parametrize(
    ("status", "expected"),
    [(200, None), (404, "DEAD"), (410, "DEAD"), (403, "UNAVAILABLE"), (429, "UNAVAILABLE"), (503, "UNAVAILABLE"),
     (500, "UNAVAILABLE"), (401, "UNAVAILABLE"), (999, "UNAVAILABLE"), (400, "UNAVAILABLE")],
)
def test_status_outcome(status: int, expected: str | None) -> None:
    outcome = status_outcome(status, frozenset({403, 429, 503, 999}))
    assert (outcome[0] if outcome else None) == expected


def test_challenges_are_detected_without_flagging_every_cloudflare_page() -> None:
    blocking = frozenset({403, 429, 503, 999})
    args = (("cf-ray", "cf-mitigated"), ("Just a moment",), blocking)
    assert challenge_reason(200, {"cf-ray": "x"}, "Impots", *args) is None
    assert challenge_reason(403, {"cf-ray": "x"}, "", *args)
    assert challenge_reason(200, {"cf-mitigated": "challenge"}, "", *args)
    assert challenge_reason(200, {}, "Just a moment...", *args)


def test_policies_from_the_shipped_config() -> None:
    cfg = load_config(PROJECT_DIR / "config")
    lv, hosts = cfg.liveness, cfg.hosts
    assert policy_for("eur-lex.europa.eu", lv, hosts).interval_ms == 10000
    assert policy_for("www.legifrance.gouv.fr", lv, hosts).interval_ms == 2000  # suffix match
    assert policy_for("www.impots.gouv.fr", lv, hosts).interval_ms == 1000
    assert policy_for("www.example.org", lv, hosts) == lv.default_policy
    assert floor_seconds(HostPolicy(1, 500), crawl_delay=2) == 2.0
    assert floor_seconds(HostPolicy(1, 5000), crawl_delay=2) == 5.0
    for attempt, base in ((1, 1.0), (2, 2.0), (3, 4.0), (9, 4.0)):  # ±25 % jitter; the last step repeats
        assert base * 0.75 <= backoff_seconds(attempt, lv) <= base * 1.25


def test_retry_after_forms() -> None:
    now = datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Wed, 02 Dec 2026 12:01:00 GMT", now) == 60.0
    assert parse_retry_after("Wed, 02 Dec 2026 11:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon") is None
