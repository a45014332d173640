"""Then and now in the audit: once every cited page is judged, the flagged claims' archived pages.

The pipeline sees each page's claim records as they are made and keeps the flagged ones
(``core.audit.archive.thennow.is_flagged``). When the crawl would go idle it asks the Wayback CDX API
about the most urgent (URL, stamp date) pairs, then reads the chosen capture raw: the capture
is a :class:`CaptureItem` that goes through the same reading pipelines (HTML, PDF, OCR) and
``RecordsPipeline``'s matcher as today's page, comes back here and is dropped before the
store's journal and the export. Archive requests are ordinary Scrapy requests: robots.txt, the
retry middleware (``Retry-After``), the target guard and the paced download handler apply to
them as to any page. The answers are kept in the store (``core.audit.archive.cache``).

What the reviewer gets is set on the records by the audit's finish (``core.report.finish``), from :func:`archive_inputs`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, ClassVar
from weakref import WeakKeyDictionary

import scrapy
from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import DontCloseSpider, DropItem

from sv_scrapy.core.audit.archive.cache import ArchiveCache
from sv_scrapy.core.audit.archive.cdx import Capture, CdxError, Choice, cdx_query, choose, parse_cdx
from sv_scrapy.core.audit.archive.filedates import file_days
from sv_scrapy.core.audit.archive.thennow import (
    ARCHIVE_UNAVAILABLE,
    NO_CAPTURE,
    NO_DATE,
    UNREADABLE,
    is_flagged,
    problem,
    select,
    stamp_date,
)
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome, Reading, body_to_read, failure_outcome, page_records
from sv_scrapy.core.report.auditdoc import priority
from sv_scrapy.crawlstate import run_of
from sv_scrapy.extensions.outcome import stop_for_output
from sv_scrapy.items import PageItem
from sv_scrapy.pipelines import JobPipeline
from sv_scrapy.runtime import config_of, page_rules
from sv_scrapy.spiders.base import HANDLED_STATUSES, describe_failure, failed_request

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure


_READING_KEYS = ("kind", "text", "text_method", "lang", "pdf", "read_note", "ocr", "content_hash")
_RESULTS: WeakKeyDictionary[Crawler, dict[str, dict[str, Any]]] = WeakKeyDictionary()


@dataclass
class CaptureItem(PageItem):
    """An archived capture of a cited page, read like the page itself (``url`` is the cited URL)."""

    is_capture: ClassVar[bool] = True  # no past, no page count, no frames or links; dropped here, before the journal
    lookup: tuple[str, str] = ("", "")  # (cited URL, stamp date)


@dataclass
class Lookup:
    url: str
    day: str
    date_from: str  # stamp | file
    claims: list[ClaimRecord]  # the claims (as the page's records were made from)
    before: list[Capture] | None = None
    choice: Choice = field(default_factory=lambda: Choice(None))


def archive_inputs(crawler: Crawler) -> tuple[dict[str, dict[str, Any]], bool, dict[str, Any]]:
    """What the audit's finish needs of then and now (``core.report.finish``): each looked-up
    claim's capture outcome, whether the archive is on, and the archive's counts so far."""
    cfg = config_of(crawler.settings).archive
    stats = crawler.stats
    counts: dict[str, Any] = {"enabled": cfg.enabled, "max_lookups": cfg.max_lookups}
    for key in ("lookups", "cdx_requests", "cdx_cached", "captures_read", "captures_cached", "errors", "skipped"):
        counts[key] = int(stats.get_value(f"sv/archive/{key}", 0) or 0) if stats else 0
    return dict(_RESULTS.get(crawler, {})), cfg.enabled, counts


class ArchivePipeline(JobPipeline):
    job = "audit"

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        config = config_of(crawler.settings)
        self.settings = config.archive
        self.rules = page_rules(config)
        self.weights = config.sampling.weights
        self.flagged: list[ClaimRecord] = []
        self.results: dict[str, dict[str, Any]] = _RESULTS.setdefault(crawler, {})
        self.lookups: dict[tuple[str, str], Lookup] = {}
        self.started = False
        if self.settings.enabled:
            crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)

    @property
    def cache(self) -> ArchiveCache:
        return ArchiveCache(run_of(self.crawler).store.root)

    def _keep(self, write: Callable[[], None]) -> None:
        """A write to the store's archive/ that fails is the output folder failing: the run stops
        sending, as for a page (``extensions.outcome.stop_for_output``)."""
        try:
            write()
        except OutputError as exc:
            stop_for_output(self.crawler, exc)

    def _count(self, event: str, n: int = 1) -> None:
        self.crawler.stats.inc_value(f"sv/archive/{event}", n)

    # -- items ---------------------------------------------------------------------------
    def process_item(self, item: Any) -> Any:
        if item.is_capture:
            self._capture_read(item)
            raise DropItem("an archived capture: read for then-and-now, not a page of this audit", log_level="DEBUG")
        if self.settings.enabled and not self.started:
            outcome = ItemAdapter(item)["outcome"]
            if outcome is not None:
                self.flagged.extend(r for r in outcome.records if is_flagged(r))
        return item

    # -- planning, when the pages are done -------------------------------------------------
    def spider_idle(self) -> None:
        if self.started:
            return
        self.started = True
        run = run_of(self.crawler)
        as_of = date.fromisoformat(run.runtime.clock.iso()[:10])
        records = [r.copy() for r in self.flagged]
        for record in records:
            record["priority"] = priority(record, self.weights, as_of)
        chosen = select(records, self.settings.max_lookups)
        self._count("skipped", len(records) - len(chosen))
        unstamped = {str(r.get("file") or "") for r in chosen if not (r.get("inline_stamp") or {}).get("date")}
        days = file_days(run.runtime.corpus_root, unstamped) if unstamped else {}
        by_id = {str(c["id"]): c for c in run.claims}
        requests = []
        for record in chosen:
            self._count("lookups")
            day, origin = stamp_date(record, days)
            if not day:
                self.results[str(record["id"])] = problem(NO_DATE, "no date to compare with: the claim has no "
                                                                   "Last verified stamp and its file no commit date")
                continue
            key = (str(record["source_url"]), day)
            lookup = self.lookups.setdefault(key, Lookup(key[0], day, origin, []))
            lookup.claims.append(by_id.get(str(record["id"])) or record)
        for lookup in self.lookups.values():
            request = self._start(lookup)
            if request is not None:
                requests.append(request)
        for request in requests:
            self.crawler.engine.crawl(request)
        if requests:
            raise DontCloseSpider

    def _request(self, url: str, lookup: Lookup, step: str, callback: Any, errback: Any) -> scrapy.Request:
        return scrapy.Request(url, callback=callback, errback=errback, dont_filter=True,
                              # redirects are followed (the Wayback redirects a capture to its nearest timestamp)
                              meta={"sv_archive": (lookup.url, lookup.day), "sv_archive_step": step,
                                    "handle_httpstatus_list": HANDLED_STATUSES, "dont_merge_cookies": True})

    def _start(self, lookup: Lookup) -> scrapy.Request | None:
        cached = self.cache.cdx(lookup.url, lookup.day)
        if cached is not None:
            self._count("cdx_cached")
            lookup.choice = choose(*cached)
            return self._capture_step(lookup)
        self._count("cdx_requests")
        return self._request(cdx_query(lookup.url, lookup.day, "before"), lookup, "before", self.on_cdx, self.on_error)

    # -- the CDX answers -------------------------------------------------------------------
    def on_cdx(self, response: Response) -> Any:
        lookup = self.lookups[response.meta["sv_archive"]]
        step = response.meta["sv_archive_step"]
        if response.status != 200:
            return self._fail(lookup, f"cdx_http_{response.status}", f"the CDX API answered HTTP {response.status}")
        try:
            rows = parse_cdx(response.body)
        except CdxError as exc:
            return self._fail(lookup, "cdx_malformed", str(exc))
        if step == "before":
            lookup.before = rows
            self._count("cdx_requests")
            return self._request(cdx_query(lookup.url, lookup.day, "after"), lookup, "after", self.on_cdx, self.on_error)
        before = lookup.before or []
        self._keep(lambda: self.cache.save_cdx(lookup.url, lookup.day, before, rows,
                                               run_of(self.crawler).runtime.clock.iso()))
        lookup.choice = choose(before, rows)
        return self._capture_step(lookup)

    def on_error(self, failure: Failure) -> None:
        request = failed_request(failure)
        lookup = self.lookups[request.meta["sv_archive"]]
        facts = describe_failure(failure)
        _, note = failure_outcome(facts, request.meta.get("retry_times", 0) + 1)
        self._fail(lookup, facts.exc_name or facts.kind, note)

    def _fail(self, lookup: Lookup, kind: str, reason: str) -> None:
        self._count("errors")
        self._count(f"error/{kind}")
        self._settle(lookup, problem(ARCHIVE_UNAVAILABLE, f"archive unavailable: {reason}"))

    def _settle(self, lookup: Lookup, then: dict[str, Any]) -> None:
        """Every claim of the lookup gets the same said-so outcome (with the date it compared with)."""
        for claim in lookup.claims:
            self.results[str(claim["id"])] = {"date": lookup.day, "date_from": lookup.date_from, **then}

    # -- the capture -----------------------------------------------------------------------
    def _capture_fields(self, lookup: Lookup) -> dict[str, Any]:
        capture = lookup.choice.capture
        assert capture is not None
        return {"date": lookup.day, "date_from": lookup.date_from, "timestamp": capture.timestamp,
                "archive_url": capture.page_url(), "raw_url": capture.raw_url(), "digest": capture.digest,
                "after": lookup.choice.after, "changed_after": lookup.choice.changed_after}

    def _capture_step(self, lookup: Lookup) -> scrapy.Request | None:
        capture = lookup.choice.capture
        if capture is None:
            self._settle(lookup, problem(NO_CAPTURE, "no capture in the Wayback Machine to compare with"))
            return None
        cached = self.cache.capture(lookup.url, capture.timestamp)
        if cached is not None:
            self._count("captures_cached")
            text = {k: str(cached.get(k) or "") for k in ("kind", "text", "text_method", "lang", "pdf", "read_note",
                                                           "content_hash")}
            reading = Reading(kind=text["kind"], text=text["text"], text_method=text["text_method"], lang=text["lang"],
                              pdf=text["pdf"], note=text["read_note"], ocr=cached.get("ocr") or None,
                              content_hash=text["content_hash"])
            fetched = Fetched(lookup.url, run_of(self.crawler).runtime.clock.iso(), final_url=lookup.url,
                              http_status=200, headers={"content-type": str(cached.get("content_type") or "")})
            self._judge(lookup, fetched, reading)
            return None
        return self._request(capture.raw_url(), lookup, "capture", self.on_capture, self.on_error)

    def on_capture(self, response: Response) -> Any:
        lookup = self.lookups[response.meta["sv_archive"]]
        if response.status != 200:
            return self._fail(lookup, f"capture_http_{response.status}", f"the capture answered HTTP {response.status}")
        self._count("captures_read")
        headers = {k.decode("latin-1").lower(): v[0].decode("latin-1") for k, v in response.headers.items() if v}
        stopped = response.meta.get("sv_stopped", "")
        fetched = Fetched(lookup.url, run_of(self.crawler).runtime.clock.iso(), final_url=lookup.url,
                          http_status=200, headers=headers, stopped=stopped,
                          truncated="download_stopped" in response.flags and not stopped.startswith("binary"))
        return CaptureItem(url=lookup.url, claims=lookup.claims, fetched=fetched, lookup=(lookup.url, lookup.day),
                           body=body_to_read(fetched, response.body, self.rules),
                           lang=headers.get("content-language", "").split(",")[0].strip())

    def _capture_read(self, item: CaptureItem) -> None:
        """A capture back from the reading stages and the matcher: kept, and judged."""
        lookup = self.lookups[item.lookup]
        page = ItemAdapter(item)
        capture = lookup.choice.capture
        assert capture is not None
        kept = {k: page[k] for k in _READING_KEYS}
        kept["content_type"] = item.fetched.content_type
        self._keep(lambda: self.cache.save_capture(lookup.url, capture.timestamp, kept))
        self._results_from(lookup, page["outcome"])

    def _judge(self, lookup: Lookup, fetched: Fetched, reading: Reading) -> None:
        self._results_from(lookup, page_records(fetched, reading, lookup.claims, self.rules, None))

    def _results_from(self, lookup: Lookup, outcome: PageOutcome) -> None:
        base = self._capture_fields(lookup)
        for record in outcome.records:
            excerpts = record.get("excerpts") or []
            then = {**base, "prior": record["prior"], "excerpt": excerpts[0] if excerpts else "",
                    "matched_tokens": record.get("matched_tokens") or [], "found_as": record.get("found_as") or {},
                    "text_method": record.get("text_method") or "", "fetch_status": record.get("fetch_status")}
            if record.get("fetch_status") != "OK" or record["prior"] in ("SOURCE_UNAVAILABLE", "SOURCE_BINARY",
                                                                         "PDF_NO_TEXT"):
                then.update(problem(UNREADABLE, f"capture unreadable: the archived page of {lookup.day} gave "
                                                f"{record['prior']} ({record.get('note') or record.get('fetch_status')})"))
            self.results[str(record["id"])] = then
