"""The scheduler's queue: Scrapy's downloader-aware choice of the next request, in turns.

Scrapy's ``DownloaderAwarePriorityQueue`` hands out next a request of the host (download slot)
with the fewest requests in the downloader, taking hosts in turn among equals: what a polite
crawl of many hosts wants, since the paced handler holds a host's second request for its floor
anyway. But it finds that host by counting the downloader's requests for *every* host with
queued requests, for every request it hands out: at 2,000 hosts that was 44 million counts in
an audit of 20,000 URLs. This queue keeps the hosts in a line instead: the next request is the
first host's in the line that has nothing in the downloader (only the busy ones, a few, are
passed over), and that host goes to the back. When every queued host is busy it falls back to
the fewest. Each host's own requests keep their priority order (one ``ScrapyPriorityQueue``
each, Scrapy's), so the archive's most urgent lookup still goes first on its host.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sized
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy.pqueues import DownloaderAwarePriorityQueue

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler


class HostTurnQueue(DownloaderAwarePriorityQueue):
    def __init__(self, crawler: Crawler, *args: Any, **kwargs: Any) -> None:
        super().__init__(crawler, *args, **kwargs)
        self._downloader = crawler.engine.downloader  # its public slots and slot keys: Scrapy's own count
        self._turns: deque[str] = deque(self.pqueues)  # the hosts with queued requests, in turn
        self._queued = sum(len(q) for q in self.pqueues.values())

    def _next(self) -> int | None:
        """The place in the line of the host whose request goes next."""
        fewest: tuple[int, int] | None = None
        for place, slot in enumerate(self._turns):
            active = self._active(slot)
            if active == 0:
                return place
            if fewest is None or active < fewest[0]:
                fewest = (active, place)
        return fewest[1] if fewest is not None else None

    def _active(self, slot: str) -> int:
        """Requests of this host in the downloader now, as Scrapy's own queue counts them."""
        found = self._downloader.slots.get(slot)
        return len(found.active) if found is not None else 0

    def push(self, request: Request) -> None:
        slot = self._downloader.get_slot_key(request)
        if slot not in self.pqueues:
            self._turns.append(slot)
        super().push(request)
        self._queued += 1

    def pop(self) -> Request | None:
        place = self._next()
        if place is None:
            return None
        slot = self._turns[place]
        queue = self.pqueues[slot]
        request = queue.pop()  # first: were it to fail, the host keeps its place and its requests
        del self._turns[place]
        if len(queue):
            self._turns.append(slot)
        else:  # as Scrapy's: the host's queue goes when it is empty (no JOBDIR here: no folder to remove)
            del self.pqueues[slot]
            queue.close()
        if request is not None:
            self._queued -= 1
        return request

    def peek(self) -> Request | None:
        place = self._next()
        return None if place is None else self.pqueues[self._turns[place]].peek()

    def close(self) -> dict[str, list[int]]:
        self._turns.clear()
        self._queued = 0
        return super().close()

    def __len__(self) -> int:
        return self._queued


# The connections the pool keeps idle (``downloadhandlers.connections.IDLE_MOST``, which this
# layer may not import; tests/test_hostqueue.py holds them equal), 60 s each. Up to that many
# hosts, start()'s order takes every host in turn, as it always did: each host's connection is
# kept until its next turn. Above, every host in turn came back to a host only after all the
# others, past both limits (~50 s at 5,000 hosts and 100 requests/s), so each request but
# robots.txt's opened a connection (a CONNECT and a TLS handshake, ~1-2 ms of the crawl's CPU
# each). There at most ``HOSTS_AT_ONCE`` hosts take turns, the next joining as one runs out of
# URLs: a host's next URL comes a few hundred requests after its last one (this many, and the
# other hosts' in ``spiders.base.START_AHEAD``'s window), seconds at 100 requests/s, past any
# host's floor, while its last connection is still kept.
KEPT_CONNECTIONS = 1000
HOSTS_AT_ONCE = 250


def in_host_turns(urls: Iterable[str], at_once: int = HOSTS_AT_ONCE, kept: int = KEPT_CONNECTIONS) -> Iterator[str]:
    """The URLs one host at a time, in turn (hosts in the order first cited, each host's URLs in
    theirs; above ``kept`` hosts, among at most ``at_once`` at a time): the order this queue
    hands them out had they all been queued at once. A spider that queues a window of them at
    a time (``spiders.base.START_AHEAD``) keeps as many hosts busy as the window holds, even
    where a corpus cites one host a thousand times in a row."""
    by_host: dict[str, deque[str]] = {}
    for url in urls:
        by_host.setdefault(urlsplit(url).hostname or "", deque()).append(url)
    joining = deque(by_host.values())
    at_once = at_once if len(by_host) > kept else len(by_host)
    turns: deque[deque[str]] = deque()
    while turns or joining:
        while joining and len(turns) < at_once:
            turns.append(joining.popleft())
        waiting = turns.popleft()
        yield waiting.popleft()
        if waiting:
            turns.append(waiting)


def queued(crawler: Crawler) -> int:
    """The requests waiting in the crawl's scheduler (0 before the engine has one)."""
    engine = getattr(crawler, "engine", None)
    scheduler = engine.scheduler if engine is not None else None
    return len(scheduler) if isinstance(scheduler, Sized) else 0
