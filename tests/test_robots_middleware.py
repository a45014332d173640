"""The robots.txt middleware on its own: a crawler from Scrapy's ``get_crawler`` and an engine that
answers robots.txt when the test says so. The crawls over the mock web (tests/test_hostile_web.py,
tests/test_robots_refusal.py) judge the same rules from what was sent."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import TextResponse
from scrapy.utils.test import get_crawler

from sv_scrapy.core.audit.store import ContentStore
from sv_scrapy.downloadermiddlewares.robotstxt import SvRobotsTxtMiddleware
from sv_scrapy.run.state import Run, attach

HOST = "https://x.gouv.fr"


class Engine:
    """Answers a robots.txt request with ``answer`` once ``release`` is set."""

    def __init__(self, answer: Callable[[Request], TextResponse]) -> None:
        self.answer = answer
        self.asked: list[str] = []
        self.release = asyncio.Event()

    async def download_async(self, request: Request) -> TextResponse:
        self.asked.append(request.url)
        await self.release.wait()
        return self.answer(request)


def status(code: int, body: str = "") -> Callable[[Request], TextResponse]:
    return lambda request: TextResponse(request.url, status=code, body=body.encode(), request=request)


def failing(exc: Exception) -> Callable[[Request], TextResponse]:
    def answer(request: Request) -> TextResponse:
        raise exc
    return answer


@dataclass
class Rig:
    mw: SvRobotsTxtMiddleware
    crawler: Crawler
    engine: Engine
    signalled: list[dict[str, Any]]  # the robots_parsed signals sent, their arguments


def middleware(answer: Callable[[Request], TextResponse], **settings: Any) -> Rig:
    crawler = get_crawler(settings_dict={"ROBOTSTXT_OBEY": True, "USER_AGENT": "sv-test", **settings})
    crawler.engine = engine = Engine(answer)
    signalled: list[dict[str, Any]] = []

    async def signal(signal: object, **kwargs: Any) -> list[Any]:
        signalled.append(kwargs)
        return []

    crawler.signals.send_catch_log_async = signal
    return Rig(SvRobotsTxtMiddleware.from_crawler(crawler), crawler, engine, signalled)


def outcomes(rig: Rig, urls: list[str], headers: dict[str, str] | None = None) -> list[str]:
    """Each request's fate ("sent" or its refusal), all of them waiting while robots.txt is in flight."""
    mw = rig.mw

    async def one(request: Request) -> str:
        try:
            await mw.process_request(request)
        except IgnoreRequest as exc:
            return f"{type(exc).__name__}: {exc}"
        return "sent"

    async def run() -> list[str]:
        waiting: list[Awaitable[str]] = [asyncio.ensure_future(one(Request(url, headers=headers))) for url in urls]
        for _ in range(5):
            await asyncio.sleep(0)  # every request reaches the middleware before robots.txt answers
        rig.engine.release.set()
        return list(await asyncio.gather(*waiting))

    return asyncio.run(run())


def stats(rig: Rig) -> dict[str, Any]:
    assert rig.crawler.stats is not None
    return {k: v for k, v in rig.crawler.stats.get_stats().items() if "robots" in k}


def test_requests_waiting_while_robots_txt_is_in_flight_all_get_its_rules() -> None:
    """Scrapy 2.19's shared Deferred gave the first waiter the rules and every later one None."""
    rig = middleware(status(503, "busy"))
    got = outcomes(rig, [f"{HOST}/p{i}" for i in range(5)])
    assert got == ["RobotsDisallowed: robots.txt unavailable (503): not fetched (RFC 9309)"] * 5
    assert rig.engine.asked == [f"{HOST}/robots.txt"]
    assert stats(rig) == {"robotstxt/request_count": 1, "robotstxt/response_count": 1,
                          "robotstxt/response_status_count/503": 1, "sv/robots/unreachable": 1,
                          "robotstxt/forbidden": 5}


def test_rules_judge_each_request_and_the_rest_of_the_crawl_reads_them() -> None:
    robots = "User-agent: *\nDisallow: /private/\nSitemap: /sm.xml\n"
    rig = middleware(status(200, robots))
    assert rig.mw.allows(f"{HOST}/private/a") is None and rig.mw.body_of("x.gouv.fr") is None  # not known yet
    assert outcomes(rig, [f"{HOST}/public", f"{HOST}/private/a"]) == [
        "sent", "RobotsDisallowed: robots.txt disallows this URL"]
    assert (rig.mw.allows(f"{HOST}/public"), rig.mw.allows(f"{HOST}/private/b")) == (True, False)
    assert rig.mw.body_of("x.gouv.fr") == robots.encode()
    [parsed] = rig.signalled  # robots_parsed, once, with the parser and the request that asked first
    assert parsed["robotparser"].allowed(f"{HOST}/public", "sv-test") and parsed["request"].url == f"{HOST}/public"
    assert stats(rig)["robotstxt/response_status_count/200"] == 1


@pytest.mark.parametrize(("settings", "headers", "refused"), [
    ({}, None, True),  # USER_AGENT
    ({}, {"User-Agent": "other"}, False),  # the request's own
    ({"ROBOTSTXT_USER_AGENT": "sv-test"}, {"User-Agent": "other"}, True),  # ROBOTSTXT_USER_AGENT first
])
def test_the_user_agent_the_rules_are_read_for(settings: dict[str, str], headers: dict[str, str] | None,
                                               refused: bool) -> None:
    rig = middleware(status(200, "User-agent: sv-test\nDisallow: /\n"), **settings)
    assert (outcomes(rig, [f"{HOST}/p"], headers)[0] != "sent") is refused


def test_a_host_read_holds_its_rules_not_its_task() -> None:
    """A finished task is ~0.8 KB a host (8 MB at 10,000 hosts): once read, only the rules stay, and
    a later request is judged by them without asking again."""
    rig = middleware(status(200, "User-agent: *\nDisallow: /private/\n"))
    assert outcomes(rig, [f"{HOST}/p"]) == ["sent"]
    held = [v for table in vars(rig.mw).values() if isinstance(table, dict) for v in table.values()]
    assert held and not any(isinstance(v, asyncio.Future) for v in held)
    assert outcomes(rig, [f"{HOST}/private/a"]) == ["RobotsDisallowed: robots.txt disallows this URL"]
    assert rig.engine.asked == [f"{HOST}/robots.txt"]


def test_a_copy_stored_after_a_redirect_stands_in_for_the_next_run(tmp_path: Path) -> None:
    """Stored under the URL asked (http), not the one a redirect answered from (https): the next run
    asks the same URL, finds robots.txt unreachable, and its pages are judged by that copy."""
    store, site = ContentStore(tmp_path / "store"), "http://x.gouv.fr"

    def redirected(request: Request) -> TextResponse:  # as Scrapy's redirect middleware hands it back
        return TextResponse(request.url.replace("http://", "https://"), status=200, request=request,
                            body=b"User-agent: *\nDisallow: /private/\n")

    for answer in (redirected, status(503)):  # this month's run, then next month's
        rig = middleware(answer)
        attach(rig.crawler, cast(Run, SimpleNamespace(store=store)))  # a run that holds only its store
        got = outcomes(rig, [f"{site}/p", f"{site}/private/a"])
    assert rig.engine.asked == [f"{site}/robots.txt"]
    assert got[0] == "sent" and got[1].startswith("RobotsDisallowed: robots.txt unavailable (503): the copy stored ")


def test_a_failed_download_is_one_warning_and_disallows(caplog: pytest.LogCaptureFixture) -> None:
    """Not an ERROR with a traceback: an unattended run must not read like a crash."""
    rig = middleware(failing(TimeoutError("slow")))
    with caplog.at_level(logging.DEBUG):
        got = outcomes(rig, [f"{HOST}/p"])
    assert got == ["RobotsDisallowed: robots.txt unavailable (network error: TimeoutError): not fetched (RFC 9309)"]
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING] == [
        ("WARNING", "robots.txt of x.gouv.fr unavailable (network error: TimeoutError): "
                    "its pages are not fetched this run (RFC 9309)")]
    assert not [r for r in caplog.records if r.exc_info]
    assert stats(rig)["robotstxt/exception_count/<class 'TimeoutError'>"] == 1


def test_a_refused_robots_txt_leaves_the_page_to_meet_the_refusal_itself() -> None:
    rig = middleware(failing(IgnoreRequest("target refused")))
    assert outcomes(rig, [f"{HOST}/p"]) == ["sent"]
    assert rig.mw.allows(f"{HOST}/p") is None
    assert stats(rig) == {"robotstxt/request_count": 1}


def test_requests_that_do_not_obey_are_not_held() -> None:
    rig = middleware(status(503))
    assert outcomes(rig, ["data:text/plain,x", "file:///tmp/x"]) == ["sent", "sent"]
    asyncio.run(rig.mw.process_request(Request(f"{HOST}/robots.txt", meta={"dont_obey_robotstxt": True})))
    assert rig.engine.asked == []


def test_off_unless_robotstxt_obey() -> None:
    with pytest.raises(NotConfigured):
        SvRobotsTxtMiddleware(get_crawler(settings_dict={"ROBOTSTXT_OBEY": False}))
