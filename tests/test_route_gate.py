"""The browser's route gate (the paced handler's hook that scrapy-playwright awaits before each
browser request): it answers "abort" or "continue", and never raises inside Playwright's event
listener — a stopped crawl (a full disk) printed "[playwright] ERROR: Error occurred in event
listener" and a traceback before its one line (issue #41). A name the run's resolver refused is
aborted before Chromium resolves and connects it itself."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from scrapy.settings import Settings
from scrapy.signalmanager import SignalManager
from scrapy.statscollectors import MemoryStatsCollector

from sv_scrapy.core.politeness import HostFloors, Pacer
from sv_scrapy.downloadhandlers.paced import PacedDownloadHandler
from sv_scrapy.run.config import load_config
from sv_scrapy.run.runtime import PROJECT_DIR

from .test_pinned_addresses import LOOPBACK, PUBLIC, SCRIPT, ScriptedResolver, fresh_dns  # noqa: F401 - a fixture


class BrowserHandler:
    """Stands for scrapy-playwright's handler: the gate is wired in front of its abort check."""

    def __init__(self) -> None:
        self.abort_request = lambda request: False

    async def close(self) -> None:
        pass


def paced() -> PacedDownloadHandler:
    cfg = load_config(PROJECT_DIR / "config")
    crawler: Any = SimpleNamespace(signals=SignalManager(), settings=Settings(), stats=None, spider=None)
    crawler.stats = MemoryStatsCollector(crawler)
    handler = PacedDownloadHandler(crawler, BrowserHandler(), Pacer(HostFloors(cfg.liveness, cfg.hosts), min_gap=0))
    handler._resolver = ScriptedResolver(None, 5.0)
    return handler


def browser_request(url: str, navigation: bool = True) -> Any:
    return SimpleNamespace(url=url, resource_type="document" if navigation else "fetch",
                           is_navigation_request=lambda: navigation, response=asyncio.sleep)


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)


def test_a_navigation_waiting_when_the_crawl_stops_is_aborted_not_raised() -> None:
    SCRIPT["www.douane.gouv.fr"] = [[PUBLIC]]
    handler = paced()
    handler._stop_sending("cannot write /out/store: No space left on device")
    gate = handler.inner.abort_request
    verdict = asyncio.run(gate(browser_request("https://www.douane.gouv.fr/tarif/1")))
    assert verdict is True  # scrapy-playwright calls route.abort()
    assert handler.crawler.stats.get_value("sv/pacing/not_sent_after_stop") == 1


def test_a_browser_request_to_a_refused_name_is_aborted_before_chromium_resolves_it() -> None:
    SCRIPT["both.test"] = [[PUBLIC, LOOPBACK]]
    SCRIPT["page.test"] = [[PUBLIC]]
    handler = paced()
    gate = handler.inner.abort_request

    async def run() -> list[bool]:
        return [await gate(browser_request("http://both.test/data", navigation=False)),
                await gate(browser_request("http://page.test/data", navigation=False))]

    assert asyncio.run(run()) == [True, False]
    assert handler.crawler.stats.get_value("sv/guard/browser_refused") == 1


def test_through_a_proxy_the_browser_resolves_nothing_and_nothing_is_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    handler = paced()
    gate = handler.inner.abort_request
    assert asyncio.run(gate(browser_request("http://anything.test/data", navigation=False))) is False
    assert ScriptedResolver.lookups == {}
