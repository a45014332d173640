"""The browser's route gate (the paced handler's hook that scrapy-playwright awaits before each
browser request): it answers "abort" or "continue", and never raises inside Playwright's event
listener — a stopped crawl (a full disk) printed "[playwright] ERROR: Error occurred in event
listener" and a traceback before its one line (issue #41). A name the run's resolver refused is
aborted before Chromium resolves and connects it itself."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.settings import Settings
from scrapy.signalmanager import SignalManager
from scrapy.statscollectors import MemoryStatsCollector

from sv_scrapy.core.politeness import HostFloors, Pacer
from sv_scrapy.downloadhandlers.paced import PacedDownloadHandler
from sv_scrapy.run.config import load_config
from sv_scrapy.run.runtime import PROJECT_DIR
from testing.crawl import FAST_LIVENESS, make_config

from .test_pinned_addresses import LOOPBACK, PUBLIC, SCRIPT, ScriptedResolver, fresh_dns  # noqa: F401 - a fixture


class BrowserHandler:
    """Stands for scrapy-playwright's handler: the gate is wired in front of its abort check."""

    def __init__(self) -> None:
        self.abort_request: Callable[[Any], Any] = lambda request: False

    async def close(self) -> None:
        pass


def paced(config: Path = PROJECT_DIR / "config", browser: BrowserHandler | None = None) -> PacedDownloadHandler:
    cfg = load_config(config)
    crawler: Any = SimpleNamespace(signals=SignalManager(), settings=Settings(), stats=None, spider=None)
    crawler.stats = MemoryStatsCollector(crawler)
    handler = PacedDownloadHandler(crawler, browser or BrowserHandler(),
                                   Pacer(HostFloors(cfg.liveness, cfg.hosts), min_gap=0))
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


RENDER_S = 0.6  # a page's scripts, styles and data calls, and reading the rendered page


class RenderingBrowser(BrowserHandler):
    """Stands for scrapy-playwright rendering a page: its navigation passes the route gate and its
    document answers ``answer_s`` later (the first page's; the others' at once); the rest of the
    render takes ``render_s``."""

    def __init__(self, answer_s: float = 0.0, render_s: float = RENDER_S) -> None:
        super().__init__()
        self.sent: list[float] = []
        self.answer_s, self.render_s = answer_s, render_s

    async def download_request(self, request: Request) -> HtmlResponse:
        answer_s = 0.0 if self.sent else self.answer_s

        async def headers() -> dict[str, str]:
            return {}

        async def answered() -> Any:
            await asyncio.sleep(answer_s)
            return SimpleNamespace(status=200, all_headers=headers)

        navigation = SimpleNamespace(url=request.url, resource_type="document", is_navigation_request=lambda: True,
                                     response=answered)
        verdict: Any = self.abort_request(navigation)  # the paced handler's gate, wired in its place
        if await verdict:
            raise IgnoreRequest(request.url)
        self.sent.append(time.monotonic())
        await asyncio.sleep(answer_s + self.render_s)
        request.meta["download_latency"] = answer_s + self.render_s
        return HtmlResponse(request.url, body=b"<p>Fee HK$ 400.</p>", request=request)


def two_rendered_pages(config: Path, browser: RenderingBrowser, host: str, throttled: bool = True
                       ) -> PacedDownloadHandler:
    """Two rendered pages of ``host`` (one at a time, 0.1 s apart) through a paced handler (not
    ``throttled``: a host's latency never raises its gap)."""
    SCRIPT[host] = [[PUBLIC]]
    handler = paced(make_config(config, liveness=FAST_LIVENESS), browser)
    if not throttled:
        handler.pacer.target_concurrency = 1000.0
    requests = [Request(f"https://{host}/p{i}", meta={"playwright": True}) for i in range(2)]

    async def run() -> None:
        await asyncio.gather(*(handler.download_request(r) for r in requests))

    asyncio.run(run())
    assert handler._line(host).flying == 0 and not handler._line(host).rendering
    return handler


def test_a_rendered_page_gives_its_host_back_when_its_document_answers(tmp_path: Path) -> None:
    """The next navigation goes a floor after the document's answer, not after the page's render
    (which held the host 1.3–3.6 s at a 1 s floor), and the host's throttle learns the document's
    latency, not the render's."""
    browser = RenderingBrowser()
    handler = two_rendered_pages(tmp_path / "config", browser, "app.case.gouv.fr")
    first, second = browser.sent
    assert 0.1 - 0.01 <= second - first < RENDER_S / 2, second - first  # the floor kept, the render not waited
    assert handler.pacer.gap("app.case.gouv.fr") < RENDER_S / 2


def test_a_navigation_answered_late_counts_its_host_floor_from_its_answer(tmp_path: Path) -> None:
    """Counted as leaving after half a second without an answer, a navigation may reach the
    server later still (Chromium opening its first connection): its host's floor counts from its
    answer, which it cannot have come after."""
    browser = RenderingBrowser(answer_s=0.9, render_s=0.3)
    two_rendered_pages(tmp_path / "config", browser, "late.case.gouv.fr", throttled=False)
    first, second = browser.sent
    assert second - first >= 0.9 + 0.1 - 0.01, second - first
