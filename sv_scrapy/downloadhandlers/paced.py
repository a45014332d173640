"""The one place that decides when a request leaves: per-host gaps, per-host concurrency
and the global cap, applied at the moment the real handler is called.

Why here and not in a middleware or on Scrapy's download slots: a downloader middleware
runs *before* the request waits in its slot, so a gap it reserves can be eaten by the
slot queue; a slot's delay knows nothing of the global cap, a retry's not-before or a
``Retry-After`` hold; AutoThrottle rewrites slot delays behind its back. Every request
Scrapy sends — pages, robots.txt, retries, each redirect hop, browser navigations —
is handed to the download handler of its scheme, and ``SvAddon`` installs this one for
``http`` and ``https``, wrapping the handler that really talks to the network (Scrapy's
HTTP/1.1 handler, or scrapy-playwright's when rendering is on). Slots keep Scrapy's
defaults with no delay, and AutoThrottle is off: the latency rule lives in
:class:`~sv_scrapy.core.politeness.Pacer`, where it can only raise a floor.

A browser navigation leaves when Chromium sends it, not when scrapy-playwright is called
(creating the page takes a while): so for a rendered request the handler only waits until
the host is ready, and the turn itself is taken in the browser's request route — the hook
scrapy-playwright awaits before it lets a request continue — for every navigation
request. The sub-resources a page loads (its scripts and data calls) are the page's own
and are not paced; redirects the browser follows by itself are not routed (Playwright
routes the first URL only). So a rendered page holds its host's place in flight until its
document has answered, as a plain page does, not until its scripts, data calls and the
reading of the page are done; and its host's throttle learns that answer's latency, not
the render's.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object
from w3lib.url import canonicalize_url

from sv_scrapy import signals as sv_signals
from sv_scrapy.core.audit.parts import part_of, shared_liveness
from sv_scrapy.core.politeness import (
    CAP_TOLERANCE,
    HOST_TOLERANCE,
    RETRY_AFTER_CAP_SECONDS,
    HostFloors,
    Pacer,
    parse_retry_after,
)
from sv_scrapy.downloadhandlers.connections import hold_connections
from sv_scrapy.downloadhandlers.render import resolved_here
from sv_scrapy.resolver import resolver_for
from sv_scrapy.run.registry import setting_default
from sv_scrapy.run.state import crawl_config, find_run

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.robotstxt import RobotParser

logger = logging.getLogger(__name__)

NOT_BEFORE = "sv_not_before"  # monotonic time before which a (retried) request must not start
# on the retry of a request refused with Retry-After: monotonic time until which its whole host
# waits; when it has passed, this request is asked again before any other to its host
HOLD_HOST = "sv_hold_host_until"
INNER_HANDLER = "SV_NETWORK_HANDLER"  # the handler that talks to the network (set by the add-on)


# A timer fires only when the event loop gets to it: epoll rounds its timeout up to the next
# millisecond, and a busy loop gets there later still. Past the cap's tolerance
# (``core.politeness.CAP_TOLERANCE``), each start under the global cap is counted from when it
# actually left, so lateness would add up start after start. So a global start waits its last
# stretch by checking the clock once per loop turn: other work runs meanwhile, and the start
# leaves on time. The check is a plain loop callback, not a resumption of the waiting coroutine
# and the downloader's frames above it (at 100 requests/s those resumptions were ~2.5 million a run).
# A host's own gap (half a second or more) is slept plainly: a millisecond late there is 0.2 %.
_SPIN = 0.0015

# A start is booked when its turn comes, but its bytes leave a loop iteration later: Twisted
# connects a new connection from ``reactor.callLater(0)`` and writes on a kept-alive one when
# the socket is next writable. Whatever callbacks the loop runs first (reading a 400 KB page
# takes ~0.15 s on a loaded machine) delay that request's wire start but not the next one's,
# which then reaches the server closer than the cap allows (0.092 s instead of 0.2 s, once in
# CI). So each start is followed to the wire: the next start waits until the previous one has
# left, and counts from when it did, less the tolerances (``CAP_TOLERANCE`` for the global cap,
# ``HOST_TOLERANCE`` for the host's gap), so that a loop that serves each start a turn late does
# not push every later slot back. Counted from each actual start instead, one process at 100
# requests/s, its loop busy two thirds of the time, ran 4.7 % over its bound.
_BROWSER_WAIT = 0.5  # seconds a browser navigation may hold the next start while it is on its way
# A rendered request takes its place this long before its host is ready: opening a page in
# the browser before its navigation reaches the route took 0.13–0.9 s on a loaded machine
# (bench/render.py --heldout), and was added to every gap between two navigations when the
# page was opened only once the host was ready. Short beside the navigation's timeout, which
# runs while the route waits for the host.
_PAGE_LEAD = 1.0


async def _sleep_until(when: float, *, exact: bool = False) -> float:
    """Sleep until the monotonic time ``when``; return how long that was (0 if it had passed).
    ``exact``: do not wake late (the global cap's starts)."""
    delay = when - time.monotonic()
    if delay <= 0:
        return 0.0
    if not exact:
        await asyncio.sleep(delay)
        return delay
    if delay > _SPIN:
        await asyncio.sleep(delay - _SPIN)
    if time.monotonic() < when:
        await _clock_reaches(when)
    return delay


def _clock_reaches(when: float) -> asyncio.Future[None]:
    """A future done in the first loop turn at or after ``when``."""
    loop = asyncio.get_running_loop()
    reached: asyncio.Future[None] = loop.create_future()

    def check() -> None:
        if reached.done():
            return
        if time.monotonic() >= when:
            reached.set_result(None)
        else:
            loop.call_soon(check)

    loop.call_soon(check)
    return reached


class _Place:
    """A rendered request's place in flight to its host: given back once, when its document
    answers (``released``) or, failing that, when the request is done."""

    released = False


class _HostLine:
    """The requests of one host waiting for a turn: in arrival order (``lock``), except that
    the retries of a ``Retry-After`` refusal (``firsts``) go before all of them; at most
    ``concurrency`` in flight. It lives while the host has a request in the handler (``users``):
    kept after the last, a line was ~760 bytes for every host of the run (what a host's next
    start waits for is the pacer's, not the line's)."""

    def __init__(self, concurrency: int) -> None:
        self.lock = asyncio.Lock()
        self.concurrency = max(1, concurrency)
        self.flying = 0
        self.firsts = 0
        # the places of rendered requests whose document has not answered yet, by its URL
        # (canonical: Chromium's spelling of it may differ from Scrapy's)
        self.rendering: dict[str, list[_Place]] = {}
        self.users = 0
        self._changed = asyncio.Event()

    def blocked(self, first: bool) -> bool:
        return self.flying >= self.concurrency or (not first and self.firsts > 0)

    async def changed(self) -> None:
        await self._changed.wait()

    def notify(self) -> None:
        """A request landed or a first one started: wake the waiters to look again."""
        self._changed.set()
        self._changed = asyncio.Event()

    def hold_for_document(self, url: str) -> _Place:
        """A rendered request to ``url`` has taken its place: note it until its document answers."""
        place = _Place()
        self.rendering.setdefault(canonicalize_url(url), []).append(place)
        return place

    def document_answered(self, url: str) -> bool:
        """The browser's navigation to ``url`` has its answer: the place of the rendered request
        that asked for it (the oldest, if several) is given back; False when no request waits
        for that document (a page's own navigation: a script's redirect, a frame)."""
        waiting = self.rendering.get(canonicalize_url(url))
        if not waiting:
            return False
        self.give_back(waiting[0], url)
        return True

    def give_back(self, place: _Place, url: str) -> None:
        """Free ``place``, the place of a request to ``url``, unless it was freed already."""
        if place.released:
            return
        place.released = True
        key = canonicalize_url(url) if self.rendering else ""  # a plain request's place is in none
        waiting = self.rendering.get(key, [])
        if place in waiting:
            waiting.remove(place)
            if not waiting:
                del self.rendering[key]
        self.flying -= 1
        self.notify()


class PacedDownloadHandler:
    lazy = False

    def __init__(self, crawler: Crawler, inner: Any, pacer: Pacer) -> None:
        self.crawler = crawler
        self.inner = inner
        self.pacer = pacer
        self._lines: dict[str, _HostLine] = {}
        self._browser_abort: Any = None
        self._stopped = ""  # why nothing more may be sent (sv_scrapy.signals.stop_sending)
        self._left = asyncio.Event()  # set once the last start's request has been handed to the network
        self._left.set()
        self._cap_line = asyncio.Lock()  # the hosts ready to start, in the order they became ready
        self._notes: set[asyncio.Future[None]] = set()  # the browser's send times being learnt
        self._wire_browser()
        crawler.signals.connect(self._robots_parsed, signal=signals.robots_parsed)
        crawler.signals.connect(self._stop_sending, signal=sv_signals.stop_sending)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        cfg = crawl_config(crawler)
        # a part of N on one address: a Nth of the global cap and of the archive's floor each
        run = find_run(crawler)
        sharing = 1 if run is None or settings.getbool("SV_PARTS_SEPARATE_MACHINES") else part_of(run.params).count
        liveness = shared_liveness(cfg.liveness, sharing)
        rps = settings.getfloat("SV_REQ_PER_SEC", cfg.liveness.req_per_sec) / sharing

        def number(name: str) -> float:
            return settings.getfloat(name, setting_default(name))

        pacer = Pacer(
            HostFloors(liveness, cfg.hosts),
            min_gap=1.0 / rps if rps > 0 else 0.0,
            start_delay=number("AUTOTHROTTLE_START_DELAY"),
            max_delay=number("AUTOTHROTTLE_MAX_DELAY"),
            target_concurrency=number("AUTOTHROTTLE_TARGET_CONCURRENCY"),
        )
        inner = build_from_crawler(load_object(settings[INNER_HANDLER]), crawler)
        hold_connections(inner)  # one TLS context; idle connections let go (downloadhandlers/connections.py)
        return cls(crawler, inner, pacer)

    def _wire_browser(self) -> None:
        """Put the turn-taking in front of scrapy-playwright's own abort check (images,
        fonts, unsafe sub-requests): it is awaited before every browser request leaves."""
        if hasattr(self.inner, "abort_request"):
            self._browser_abort = self.inner.abort_request
            self.inner.abort_request = self._route_gate
            self._resolver = resolver_for(self.crawler)

    async def _route_gate(self, pw_request: Any) -> bool:
        if self._browser_abort is not None:
            verdict = self._browser_abort(pw_request)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            if verdict:
                return True
        if await self._browser_refused(pw_request.url):
            return True
        if pw_request.is_navigation_request():
            try:
                await self._take_turn(urlsplit(pw_request.url).hostname or "", navigation=pw_request)
            except IgnoreRequest:
                # the crawl stopped sending while this navigation waited: refused the way Playwright
                # expects (scrapy-playwright aborts the route); raised here, it escaped Playwright's
                # event listener as a traceback on the console
                return True
        return False

    async def _browser_refused(self, url: str) -> bool:
        """A browser request (a navigation or a page's own) to a name the run's resolver refused
        (where the run resolves for the browser): aborted before Chromium sends it."""
        host = urlsplit(url).hostname or ""
        if not url.startswith(("http:", "https:")) or not resolved_here(host):
            return False
        if await self._resolver.refusal(host):
            self.crawler.stats.inc_value("sv/guard/browser_refused")
            return True
        return False

    def _line(self, host: str) -> _HostLine:
        if host not in self._lines:
            self._lines[host] = _HostLine(self.pacer.floors.policy(host).concurrency)
        return self._lines[host]

    def _stop_sending(self, reason: str) -> None:
        self._stopped = reason

    def _refuse_if_stopped(self) -> None:
        if self._stopped:
            self.crawler.stats.inc_value("sv/pacing/not_sent_after_stop")
            raise IgnoreRequest(f"not sent: {self._stopped}")

    async def download_request(self, request: Request) -> Response:
        host = urlparse_cached(request).hostname or ""
        self._refuse_if_stopped()
        line = self._line(host)
        line.users += 1
        try:
            return await self._download(request, host, line)
        finally:
            line.users -= 1
            if not line.users and self._lines.get(host) is line:
                del self._lines[host]

    async def _download(self, request: Request, host: str, line: _HostLine) -> Response:
        first = HOLD_HOST in request.meta
        if first:
            self.pacer.hold(host, float(request.meta[HOLD_HOST]))
            line.firsts += 1
        rendered = bool(request.meta.get("playwright"))
        try:
            # a retry's backoff is its own: it waits before queueing behind its host
            await _sleep_until(request.meta.get(NOT_BEFORE, 0.0))
            await self._take_turn(host, first, book=not rendered)  # the browser's route takes a render's turn
        finally:
            if first:
                line.firsts -= 1
                line.notify()
        place = line.hold_for_document(request.url) if rendered else _Place()
        try:
            self._refuse_if_stopped()  # the turn may have come after the crawl stopped sending
            started = time.monotonic()
            try:
                response: Response = await self.inner.download_request(request)
            except Exception:
                if not place.released:  # else its document's answer was observed
                    self.pacer.observe(host, time.monotonic() - started, ok=False)
                raise
            if not place.released:  # else its document's answer was heard already
                latency = request.meta.get("download_latency") or (time.monotonic() - started)
                self.pacer.observe(host, float(latency), ok=response.status < 400)
                self._hold_if_asked(host, response.status, response.headers.get(b"Retry-After"))
            return response
        finally:
            if rendered and not place.released:  # its navigation's answer unheard: it had left by now
                self.pacer.left_by(host, time.monotonic())
            line.give_back(place, request.url)

    def _hold_if_asked(self, host: str, status: int, retry_after: str | bytes | None) -> None:
        """A 429 or 503 (``status``) with ``Retry-After`` (the header's value, or None) speaks of
        our rate to the whole server (RFC 6585, RFC 9110 §10.2.3): hold every request to the host
        from the moment it is read, not from when its retry comes back through the scheduler.
        Longer than the limit is not waited for (the retry middleware reports the page
        unavailable). A rendered page's is read when its document answers, as its place is given
        back, and not again when the render is done."""
        if status not in (429, 503):
            return
        asked = parse_retry_after(retry_after)
        if asked is not None and asked <= RETRY_AFTER_CAP_SECONDS:
            self.pacer.hold(host, time.monotonic() + asked)
            self.crawler.stats.inc_value("sv/pacing/retry_after_holds")

    async def _take_turn(self, host: str, first: bool = False, *, book: bool = True, navigation: Any = None) -> None:
        """Wait for a place in flight to ``host`` (unless a browser ``navigation`` has it already)
        and, with ``book``, for the turn to start, which is then booked.

        Ordinary requests wait in arrival order; a ``first`` one (the retry of a ``Retry-After``
        refusal) goes before them. A rendered request takes its place without a start (``book``
        off): the browser's route books it when Chromium sends the ``navigation``, past the
        line, whose head may be waiting for that very place to free up."""
        line = self._line(host)
        if first or navigation is not None:
            await self._wait_turn(host, line, first, book, navigation)
        else:
            async with line.lock:  # one start at a time per host, in arrival order
                await self._wait_turn(host, line, first, book, navigation)

    async def _wait_turn(self, host: str, line: _HostLine, first: bool, book: bool, navigation: Any) -> None:
        placed = navigation is not None

        def blocked() -> bool:
            return not placed and line.blocked(first)

        def ready(now: float) -> bool:  # a Crawl-delay or a hold may have come in meanwhile, or a first one
            return self.pacer.host_ready(host) <= now and not blocked()

        while True:
            # a request queued behind its host when the crawl stopped sending leaves at once,
            # without waiting for (and using up) a turn it will never take
            self._refuse_if_stopped()
            if blocked():
                await line.changed()
                continue
            lead = 0.0 if book else _PAGE_LEAD
            await _sleep_until(self.pacer.host_ready(host) - lead)
            if not book:
                if ready(time.monotonic() + lead):
                    line.flying += 1
                    return
                continue
            # the hosts that are ready queue for the global cap one behind the other (a lock
            # wakes only its next waiter): every host's head woken by every start, each to find
            # the slot taken, was 1.26 million wake-ups for 11,000 requests at 100 requests/s
            async with self._cap_line:
                self._refuse_if_stopped()
                waited = 0.0
                # an earlier start that left late (a busy loop, or its bytes waited behind a
                # long callback) pushes this one back by as much
                while not self._left.is_set() or self.pacer.global_ready() > time.monotonic():
                    await self._left.wait()
                    waited += await _sleep_until(self.pacer.global_ready(), exact=True)
                now = time.monotonic()
                if ready(now):
                    if not placed:
                        line.flying += 1
                    self._start(host, now, waited, navigation)
                    return

    def _start(self, host: str, now: float, waited: float, navigation: Any) -> None:
        if navigation is None:
            self.pacer.started(host, now, forgive=CAP_TOLERANCE)
            self._follow_to_wire(host, now)
        else:
            self.pacer.started(host, now)
            self._follow_navigation(host, now, navigation)
        self.crawler.stats.inc_value("sv/pacing/starts")
        if waited:
            self.crawler.stats.inc_value("sv/pacing/global_cap_waits")

    def _follow_to_wire(self, host: str, booked: float) -> None:
        """Note when the request just started has been handed to the network.

        Called right before the caller hands the request to the real handler, whose first
        step runs in this same loop turn. Measured (a loop-turn counter against the socket
        calls), Twisted connects a new connection in the next turn (``callLater(0)``) and
        writes on a kept-alive TLS connection in the turn after that, among that turn's I/O
        callbacks. A loop runs a turn's due timers after its I/O callbacks, so a timer set now
        that sets another runs after both: by then the request has left, however long the
        callbacks before it took, and the next start has waited two turns at most.
        """
        left = asyncio.Event()
        self._left = left
        loop = asyncio.get_running_loop()

        def on_wire() -> None:
            self.pacer.left(host, booked, time.monotonic(), forgive=CAP_TOLERANCE, host_forgive=HOST_TOLERANCE)
            left.set()

        loop.call_later(0, loop.call_later, 0, on_wire)

    def _follow_navigation(self, host: str, booked: float, navigation: Any) -> None:
        """A browser navigation leaves when Chromium sends it, through Playwright's driver: on a
        loaded machine up to ~0.3 s after the route let it go (measured on the mock web's
        kernel-stamped log). No event says when it was sent, and Chromium's own timing has read
        ~0.09 s earlier than the server saw it; so the navigation is counted as leaving when its
        answer came (it cannot have left later), or after ``_BROWSER_WAIT`` without one — and
        then, for its host, again when its answer comes (a first navigation, Chromium starting
        its connection, reached the server 0.36 s before the host's next one, bench/render.py
        ``--heldout`` under load).

        When the answer comes, the rendered request's place in flight is given back and the
        host's throttle learns the answer's latency: the page's scripts, styles and data calls,
        and the reading of the rendered page, take seconds on a loaded machine, and held the
        host that long (1.3–3.6 s between navigations at a 1 s floor, bench/render.py
        ``--heldout``), through the place and through the throttle alike."""
        left = asyncio.Event()
        self._left = left

        async def note() -> None:
            answer = asyncio.ensure_future(navigation.response())
            try:
                await asyncio.wait_for(asyncio.shield(answer), _BROWSER_WAIT)
            except Exception:  # noqa: BLE001 - failed or slow: counted as leaving now all the same
                pass
            finally:
                self.pacer.left(host, booked, time.monotonic())
                left.set()
            late = not answer.done()
            try:
                response = await answer
            except Exception:  # noqa: BLE001 - failed: the request's end gives the place back
                response = None
            if late:  # counted as leaving at _BROWSER_WAIT, it may have left after: it had by now
                self.pacer.left_by(host, time.monotonic())
            if response is None:
                return
            status, retry_after = int(response.status), (await response.all_headers()).get("retry-after")
            # no await from here on: the place given back, the host's hold and latency are known
            # before another request can take it
            # the line, if its request is still in the handler: asking _line for it would make a
            # new one that no request ever drops (a page's own navigation to a host it never asked)
            line = self._lines.get(host)
            if line is not None and line.document_answered(navigation.url):
                self._hold_if_asked(host, status, retry_after)
                self.pacer.observe(host, time.monotonic() - booked, ok=status < 400)

        task = asyncio.ensure_future(note())
        self._notes.add(task)
        task.add_done_callback(self._notes.discard)

    def _robots_parsed(self, robotparser: RobotParser, request: Request) -> None:
        host = urlparse_cached(request).hostname or ""
        agent = self.crawler.settings.get("ROBOTSTXT_USER_AGENT") or self.crawler.settings["USER_AGENT"]
        delay = robotparser.crawl_delay(agent)
        if delay:
            self.pacer.learn_crawl_delay(host, delay)
            self.crawler.stats.inc_value("sv/pacing/crawl_delay_hosts")
            logger.info("robots.txt of %(host)s asks for Crawl-delay %(delay)s s", {"host": host, "delay": delay})

    async def close(self) -> None:
        for note in list(self._notes):  # a navigation still unanswered when the crawl ends
            note.cancel()
        await self.inner.close()
