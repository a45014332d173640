"""The scheduler's queue (sv_scrapy/pqueues.py): Scrapy's downloader-aware choice, in turns."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import scrapy
from scrapy.squeues import FifoMemoryQueue
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.test import get_crawler

from sv_scrapy.downloadhandlers.connections import IDLE_MOST, IDLE_SECONDS
from sv_scrapy.pqueues import HOSTS_AT_ONCE, KEPT_CONNECTIONS, HostTurnQueue, in_host_turns


def queue(busy: dict[str, int] | None = None) -> HostTurnQueue:
    """A queue over a downloader whose hosts have ``busy[host]`` requests in flight."""
    slots = {host: SimpleNamespace(active=set(range(n))) for host, n in (busy or {}).items()}
    downloader = SimpleNamespace(slots=slots, get_slot_key=lambda r: urlparse_cached(r).hostname)
    crawler: Any = get_crawler(scrapy.Spider)
    crawler.engine = SimpleNamespace(downloader=downloader)
    return HostTurnQueue.from_crawler(crawler, FifoMemoryQueue, "")


def names(q: HostTurnQueue) -> list[str]:
    out = []
    while (request := q.pop()) is not None:
        out.append(request.url.split("//")[1])
    return out


def test_hosts_take_turns() -> None:
    q = queue()
    for url in ("a.org/1", "a.org/2", "a.org/3", "b.org/1", "b.org/2", "c.org/1"):
        q.push(scrapy.Request(f"https://{url}"))
    assert len(q) == 6
    assert names(q) == ["a.org/1", "b.org/1", "c.org/1", "a.org/2", "b.org/2", "a.org/3"]
    assert len(q) == 0


def test_a_host_with_requests_in_the_downloader_is_passed_over_until_all_are_busy() -> None:
    q = queue(busy={"a.org": 1, "c.org": 2})
    for url in ("a.org/1", "b.org/1", "c.org/1", "b.org/2"):
        q.push(scrapy.Request(f"https://{url}"))
    # b is idle: its two go first; then a (1 in flight) before c (2)
    assert names(q) == ["b.org/1", "b.org/2", "a.org/1", "c.org/1"]


def test_a_hosts_own_requests_keep_their_priority() -> None:
    q = queue()
    q.push(scrapy.Request("https://a.org/late", priority=0))
    q.push(scrapy.Request("https://a.org/urgent", priority=10))
    assert q.peek().url == "https://a.org/urgent"
    assert names(q) == ["a.org/urgent", "a.org/late"]


def test_the_project_uses_it() -> None:
    from scrapy.utils.project import get_project_settings

    assert get_project_settings()["SCHEDULER_PRIORITY_QUEUE"] == "sv_scrapy.pqueues.HostTurnQueue"


def test_start_urls_come_in_host_turns() -> None:
    urls = ["https://a.org/1", "https://a.org/2", "https://a.org/3", "https://b.org/1", "https://c.org/1",
            "https://b.org/2"]
    assert list(in_host_turns(urls)) == ["https://a.org/1", "https://b.org/1", "https://c.org/1",
                                         "https://a.org/2", "https://b.org/2", "https://a.org/3"]


def test_at_most_so_many_hosts_take_turns_a_host_joining_as_one_runs_out() -> None:
    urls = ["https://a.org/1", "https://a.org/2", "https://a.org/3", "https://b.org/1", "https://c.org/1",
            "https://c.org/2"]
    assert list(in_host_turns(urls, at_once=2, kept=2)) == ["https://a.org/1", "https://b.org/1", "https://a.org/2",
                                                    "https://c.org/1", "https://a.org/3", "https://c.org/2"]
    # no more hosts than the pool keeps connections for: every host in turn, as always
    assert list(in_host_turns(urls, at_once=2, kept=3)) == ["https://a.org/1", "https://b.org/1", "https://c.org/1",
                                                            "https://a.org/2", "https://c.org/2", "https://a.org/3"]


def test_a_host_comes_back_while_its_last_connection_is_still_kept() -> None:
    """Its next URL ~HOSTS_AT_ONCE requests later: fewer hosts than the pool keeps idle
    connections, and within IDLE_SECONDS at a global cap of 100 requests/s. (Up to as many
    hosts as it keeps, every host in turn: test_start_urls_come_in_host_turns.)"""
    assert KEPT_CONNECTIONS == IDLE_MOST
    urls = [f"https://h{h}.org/{i}" for i in range(3) for h in range(5000)]
    place = {url: n for n, url in enumerate(in_host_turns(urls))}
    gaps = [place[f"https://h{h}.org/1"] - place[f"https://h{h}.org/0"] for h in range(5000)]
    assert max(gaps) <= HOSTS_AT_ONCE < IDLE_MOST
    assert HOSTS_AT_ONCE / 100 < IDLE_SECONDS
