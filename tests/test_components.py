"""Scrapy components built from a test crawler: the politeness gate's refusals and pacing."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from sv_scrapy.downloadermiddlewares.politeness import NOT_BEFORE, PolitenessMiddleware, TargetRefused

from .conftest import PROJECT_DIR


@pytest.fixture
def gate() -> PolitenessMiddleware:
    crawler = get_crawler(settings_dict={"SV_CONFIG_DIR": str(PROJECT_DIR / "config"), "SV_REQ_PER_SEC": 1000})
    crawler.stats.open_spider()
    return build_from_crawler(PolitenessMiddleware, crawler)


def run(coro):
    return asyncio.run(coro)


def loopback_alias() -> str | None:
    """A name in /etc/hosts that points at loopback but is not spelled "localhost"."""
    try:
        lines = Path("/etc/hosts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2 and (fields[0].startswith("127.") or fields[0] == "::1"):
            for name in fields[1:]:
                if "localhost" not in name:
                    return name
    return None


def test_name_resolving_to_loopback_is_refused_without_a_proxy(gate: PolitenessMiddleware) -> None:
    alias = loopback_alias()
    if alias is None:
        pytest.skip("no loopback alias in /etc/hosts to resolve")
    with pytest.raises(TargetRefused, match=f"{alias} resolves to a loopback"):
        run(gate.process_request(Request(f"http://{alias}/")))


def test_localhost_with_a_trailing_dot_is_refused(gate: PolitenessMiddleware) -> None:
    with pytest.raises(TargetRefused, match="local name"):
        run(gate.process_request(Request("http://localhost./")))


def test_with_a_proxy_nothing_is_resolved_locally(gate: PolitenessMiddleware) -> None:
    run(gate.process_request(Request("https://www.impots.gouv.fr/x", meta={"proxy": "http://127.0.0.1:9"})))
    assert gate._resolved == {}


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest", "https://www.linkedin.com/in/x", "http://[::1]/"])
def test_refused_targets(gate: PolitenessMiddleware, url: str) -> None:
    with pytest.raises(TargetRefused):
        run(gate.process_request(Request(url, meta={"proxy": "http://127.0.0.1:9"})))
    assert gate.crawler.stats.get_value("sv/politeness/refused") == 1


def test_same_host_starts_wait_the_floor_and_retries_wait_their_backoff(gate: PolitenessMiddleware) -> None:
    proxy = {"proxy": "http://127.0.0.1:9"}

    async def three() -> list[float]:
        stamps = []
        for meta in (proxy, proxy, {**proxy, NOT_BEFORE: time.monotonic() + 1.5}):
            await gate.process_request(Request("https://www.example.org/a", meta=meta))
            stamps.append(time.monotonic())
        return stamps

    first, second, third = run(three())
    assert second - first >= 0.49  # default policy: 500 ms between starts
    assert third - first >= 1.49  # the retry's not-before
