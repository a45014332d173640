"""A page's journey through the crawl: the one reader and the one way to fetch what a page needs.

* :meth:`Journey.read` turns fetched bytes into a ``Reading`` through the pure reader
  (``core.page.reader.read_body``) for pages, frames, linked documents and archived captures
  alike; a PDF (its parse, a scan's OCR) is read in one worker thread (pdfium is not
  thread-safe), a scan's OCR cached in the content store by the PDF's hash.
* :meth:`Journey.fetch` sends a frame, a linked document, a CDX query or a capture as an
  ordinary request through the engine (``engine.download_async``): the downloader middlewares
  (robots.txt, the target guard, retries and ``Retry-After``) and the paced download handler
  apply as to any page; the answer comes back to the awaiting caller.
* :meth:`Journey.keep_open` runs work that outlives the item that started it (the archive's
  lookups): the spider is kept open until it is done, and it is cancelled if the crawl closes.
  When the last of it ends, or an item ``start()`` yielded leaves the pipelines, the journey asks
  whether the spider is idle then, not on the engine's next heartbeat (up to 5 s later).

The crawler holds the one instance: ``journey_of(crawler)``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import scrapy
from scrapy import signals
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.exceptions import CloseSpider, DontCloseSpider
from scrapy.http.request import NO_CALLBACK
from twisted.python.failure import Failure

from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.ocr import OcrSettings, OcrText, OcrUnavailable, installed_languages, languages_for, ocr_pdf
from sv_scrapy.core.page.pagerecord import FetchFailure
from sv_scrapy.core.page.reader import Reading, ReadLimits, ScanReader, read_body, slow_to_read
from sv_scrapy.core.page.text import raw_hash
from sv_scrapy.extensions.answers import HANDLED_STATUSES, describe_failure
from sv_scrapy.extensions.bodycap import WANTED_CAP
from sv_scrapy.extensions.outcome import is_code_error, report_code_error, stop_for_output
from sv_scrapy.run.state import crawl_config, find_run

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)
# how long after an item's signal the idle question waits: the scraper counts the item done a few loop
# turns (microseconds) after the signal; a turn that misses it leaves the question to the heartbeat
ITEM_SETTLE_S = 0.05

@dataclass(frozen=True)
class Fetch:
    """What one extra request got: a response, or the failure that stood for it."""

    response: Response | None
    failure: FetchFailure | None = None
    attempts: int = 1

    @property
    def status(self) -> int:
        return self.response.status if self.response is not None else 0

    def headers(self) -> dict[str, str]:
        """Lower-case names, first values (as ``core.page.pagerecord.Fetched`` keeps them)."""
        if self.response is None:
            return {}
        return {k.decode("latin-1").lower(): v[0].decode("latin-1") for k, v in self.response.headers.items() if v}


class Journey:
    """The crawl's one reader and one fetcher of what a page needs (an extension: one per crawler)."""

    def __init__(self, crawler: Crawler, limits: ReadLimits, ocr: OcrSettings | None) -> None:
        self.crawler = crawler
        self.limits = limits
        self.ocr = ocr  # None: OCR switched off (pdf.ocr: false)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sv-pdf")
        self._warned = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing: set[asyncio.Task[None]] = set()  # a close this extension started, held until it ends
        self._asking: asyncio.TimerHandle | None = None  # the idle question after an item, pending
        crawler.signals.connect(self._spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)
        for ended in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(self._item_done, signal=ended)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = crawl_config(crawler)
        pdf = config.pdf
        ocr = OcrSettings(
            command=crawler.settings.get("SV_TESSERACT") or "tesseract", languages=pdf.ocr_languages,
            max_pages=pdf.ocr_max_pages, page_timeout_s=pdf.ocr_page_timeout_seconds,
        ) if pdf.ocr else None
        limits = ReadLimits(binary_prefixes=config.fetch.binary_content_prefixes, pdf_enabled=pdf.enabled,
                            pdf_max_pages=pdf.max_pages)
        return cls(crawler, limits, ocr)

    # -- reading ---------------------------------------------------------------------------
    def read_now(self, body: bytes, content_type: str, *, truncated: bool = False, lang: str = "", page: str = "",
                 shell_below: int = 0) -> Reading | None:
        """The reading of a body quick to read, for a caller that cannot wait (the spider's callback,
        which reads a page once for its shell check and its pipelines: ``core.page.reader.read_body``'s
        ``page`` and ``shell_below``); None for a body :meth:`read` takes off the event loop."""
        if slow_to_read(body):
            return None
        return read_body(body, content_type, self.limits, truncated=truncated, lang=lang, page=page,
                         shell_below=shell_below)

    async def read(self, body: bytes, content_type: str, *, truncated: bool = False, lang: str = "",
                   urls: Iterable[str] = (), scopes: Iterable[str] = (), page: str = "") -> Reading:
        """The reading of a body; ``urls`` and ``scopes`` choose a scan's OCR languages."""
        now = self.read_now(body, content_type, truncated=truncated, lang=lang, page=page)
        if now is not None:
            return now
        scan = self._scan_reader([urlsplit(u).hostname or "" for u in urls if u], list(scopes))
        loop = asyncio.get_running_loop()
        try:
            reading = await loop.run_in_executor(self._executor, lambda: read_body(
                body, content_type, self.limits, truncated=truncated, lang=lang, read_scan=scan))
        except OutputError as exc:  # the OCR cache could not be written: the output folder failed
            raise stop_for_output(self.crawler, exc) from None
        if self.limits.pdf_enabled and not truncated:
            self._count("pdf", reading.text_method.removeprefix("pdf:") if reading.text else "no_text")
        return reading

    def _scan_reader(self, hosts: list[str], scopes: list[str]) -> ScanReader | None:
        if self.ocr is None:
            return None
        ocr = self.ocr

        def read_scan(body: bytes) -> tuple[OcrText | None, str]:
            """(reading, note) in the PDF worker thread: the cached reading of these bytes, else OCR."""
            run = find_run(self.crawler)
            store, key = (run.store if run is not None else None), raw_hash(body)
            try:
                languages = languages_for(hosts, scopes, ocr.languages, installed_languages(ocr.command))
                cached = OcrText.from_json(store.ocr_text(key) or {}) if store is not None else None
                if cached is not None and cached.reusable_for(ocr, languages):
                    self._count("ocr", "cache_hit")
                    return cached, _empty_note(cached)
                scanned = ocr_pdf(body, ocr, languages)
            except OcrUnavailable as exc:
                self._count("ocr", "unavailable")
                if not self._warned:
                    self._warned = True
                    logger.warning("OCR unavailable, scans stay PDF_NO_TEXT: %s", exc)
                return None, f"OCR unavailable: {exc}"
            except OutputError:
                raise
            except Exception as exc:  # a hostile or broken file must not stop the crawl
                self._count("ocr", "failed")
                return None, f"OCR failed: {type(exc).__name__}"
            self._count("ocr", "documents")
            self._count("ocr", "pages", scanned.pages_read)
            if scanned.timed_out:
                self._count("ocr", "page_timeouts", scanned.timed_out)
            if store is not None:
                store.save_ocr_text(key, scanned.to_json())
            return scanned, _empty_note(scanned)

        return read_scan

    def _count(self, stage: str, event: str, count: int = 1) -> None:
        # also from the worker thread: Scrapy's stats are a plain dict, one key per event here
        self.crawler.stats.inc_value(f"sv/{stage}/{event}", count)

    # -- fetching --------------------------------------------------------------------------
    async def fetch(self, url: str, purpose: str, *, headers: Mapping[str, str] | None = None,
                    body_cap: int = 0) -> Fetch:
        """``url``'s answer (any status; redirects followed) or the failure that stood for it.

        Sent with ``engine.download_async`` — the path Scrapy's own robots.txt middleware takes —
        not through the scheduler: the request is in the downloader from the start, so a crawl
        that closes (a stop, a full disk) still ends it, and no item waits on a request the
        closing engine would leave in the scheduler."""
        meta = {"sv_url": url, "sv_purpose": purpose, "handle_httpstatus_list": HANDLED_STATUSES,
                "dont_merge_cookies": True}
        if body_cap:  # its own body cap (extensions/bodycap.py): a sitemap may hold 50 MB
            meta[WANTED_CAP] = body_cap
        request = scrapy.Request(url, callback=NO_CALLBACK, dont_filter=True, headers=dict(headers or {}), meta=meta)
        stats, engine = self.crawler.stats, self.crawler.engine
        assert stats is not None and engine is not None
        stats.inc_value(f"sv/{purpose}/requested")
        try:
            response = await engine.download_async(request)
        except Exception as exc:
            if is_code_error(exc):  # a bug of ours on the way, never a fact about the URL
                report_code_error(self.crawler, exc, url)
            failure = describe_failure(exc)
            stats.inc_value(f"sv/{purpose}/{'refused' if failure.kind != 'error' else 'failed'}")
            logger.debug("%(purpose)s %(url)s not fetched: %(why)s",
                         {"purpose": purpose, "url": url, "why": failure.message or failure.exc_name})
            return Fetch(None, failure, self._attempts_given_up(request, exc))
        # the answer's request is the last one sent (a retry's copy): its count is the true one
        return Fetch(response, attempts=response.meta.get("retry_times", 0) + 1)

    def _attempts_given_up(self, request: scrapy.Request, exc: Exception) -> int:
        """How many times a request that ended in ``exc`` was sent: the retry middleware's whole
        allowance for an exception it retries (it gave up), else once."""
        retry = self.crawler.get_downloader_middleware(RetryMiddleware)
        if retry is None or request.meta.get("dont_retry") or not isinstance(exc, retry.exceptions_to_retry):
            return 1
        return int(request.meta.get("max_retry_times", retry.max_retry_times)) + 1

    # -- work that outlives its item -------------------------------------------------------
    def keep_open(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` alongside the crawl; the spider stays open until it is done."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None:
            report_code_error(self.crawler, error, "the page journey")
        if not self._tasks:
            self._idle_now()

    def _item_done(self) -> None:
        """An item left the pipelines. One that ``start()`` yielded (an excluded or held claim's) has no
        request after it to make the engine ask whether the spider is idle: when it is the last work,
        the engine would ask on its next heartbeat. The scraper counts the item done a few loop turns
        after this signal, so the question is asked a moment later, once for the items of that moment."""
        if self._asking is None:
            self._asking = asyncio.get_running_loop().call_later(ITEM_SETTLE_S, self._ask_after_items)

    def _ask_after_items(self) -> None:
        self._asking = None
        self._idle_now()

    def _idle_now(self) -> None:
        """The engine's idle step, taken now: the spider_idle signal, then the close when no handler
        keeps the spider open and it is still idle. Scrapy asks whether the spider is idle when a
        request or an item ends, and else only on its 5-s heartbeat: work that ends off the engine (the
        last archive answer read and kept) would hold an idle audit open until then. Public calls
        only: ``needs_backout`` is true once the engine stops or the spider closes, and then nothing
        is asked; a close already under way is joined by ``close_spider_async``."""
        engine, spider = self.crawler.engine, self.crawler.spider
        if engine is None or spider is None or engine.paused or engine.needs_backout() or not engine.spider_is_idle():
            return  # busy: the engine asks again when a request ends, this extension when its work ends
        answers = self.crawler.signals.send_catch_log(signals.spider_idle, spider=spider,
                                                       dont_log=(DontCloseSpider, CloseSpider))
        raised = [a.value for _, a in answers if isinstance(a, Failure)]
        if any(isinstance(e, DontCloseSpider) for e in raised) or not engine.spider_is_idle():
            return
        reason = next((e.reason for e in raised if isinstance(e, CloseSpider)), "finished")
        task = asyncio.get_running_loop().create_task(engine.close_spider_async(reason=reason))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _spider_idle(self) -> None:
        if self._tasks:
            raise DontCloseSpider

    def _spider_closed(self) -> None:
        if self._asking is not None:
            self._asking.cancel()
        for task in list(self._tasks):
            task.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)


def _empty_note(ocr: OcrText) -> str:
    return "" if ocr.text.strip() else f"OCR read no text ({ocr.note()})"


def journey_of(crawler: Crawler) -> Journey:
    """The crawl's one journey (the ``Journey`` extension)."""
    journey = crawler.get_extension(Journey)
    if journey is None:
        raise RuntimeError("the Journey extension is not enabled")
    return journey
