"""Then and now in the audit: the flagged claims' archived pages, looked up during the crawl.

The pipeline sees each page's claim records once they are final (after the one-hop documents)
and hands the flagged ones (``core.audit.archive.thennow.is_flagged``) to the lookup plan
(``core.audit.archive.plan``): a lookup starts as soon as its claim is sure to be among the
``archive.max_lookups`` most urgent — for an audit with fewer flagged claims than that, as soon
as its page is judged, so the archive's requests overlap the crawl instead of following it. A
lookup asks the Wayback CDX API about the (URL, stamp date) pair, then reads the chosen capture
raw; both go through the page journey (``journey``): ordinary Scrapy requests under
robots.txt, the retry middleware (``Retry-After``), the target guard and the paced download
handler, and the capture is read by the one reader (HTML, PDF, OCR) and judged by
``core.page.pagerecord.page_records`` like today's page. The answers are kept in the store
(``core.audit.archive.cache``); a failed lookup is asked again on the cache's schedule.

What the reviewer gets is set on the records by the audit's finish (``core.report.finish``), from
:func:`archive_inputs` (this pipeline's ``results``, found with ``crawler.get_item_pipeline``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider

from sv_scrapy.core.audit.archive.cache import ArchiveCache
from sv_scrapy.core.audit.archive.cdx import CdxError, Choice, cdx_query, choose, parse_cdx
from sv_scrapy.core.audit.archive.filedates import file_days
from sv_scrapy.core.audit.archive.plan import LookupPlan
from sv_scrapy.core.audit.archive.thennow import (
    ARCHIVE_UNAVAILABLE,
    NO_CAPTURE,
    NO_DATE,
    UNREADABLE,
    is_flagged,
    problem,
    stamp_date,
)
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome, body_to_read, failure_outcome, page_records
from sv_scrapy.core.page.reader import Reading
from sv_scrapy.core.page.text import content_hash
from sv_scrapy.core.report.auditdoc import priority
from sv_scrapy.extensions.journey import Fetch, Journey, journey_of
from sv_scrapy.extensions.outcome import stop_for_output
from sv_scrapy.items import page_of
from sv_scrapy.pipelines import JobPipeline
from sv_scrapy.run.runtime import page_rules
from sv_scrapy.run.state import crawl_config, run_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

# lookups under way at once: one waits its turn at the archive host while another's answer is
# read, so the host's floor, not our reading, sets the pace
WORKERS = 2
_READING_KEYS = ("kind", "text", "text_method", "lang", "pdf", "note", "ocr", "content_hash")


@dataclass
class Lookup:
    url: str
    day: str
    date_from: str  # stamp | file
    claims: list[ClaimRecord]  # the claims (as the page's records were made from)
    choice: Choice = field(default_factory=lambda: Choice(None))


def archive_inputs(crawler: Crawler) -> tuple[dict[str, dict[str, Any]], bool, dict[str, Any]]:
    """What the audit's finish needs of then and now (``core.report.finish``): each looked-up
    claim's capture outcome, whether the archive is on, and the archive's counts so far."""
    cfg = crawl_config(crawler).archive
    stats = crawler.stats
    counts: dict[str, Any] = {"enabled": cfg.enabled, "max_lookups": cfg.max_lookups}
    for key in ("lookups", "cdx_requests", "cdx_cached", "captures_read", "captures_cached", "errors", "skipped"):
        counts[key] = int(stats.get_value(f"sv/archive/{key}", 0) or 0) if stats else 0
    pipeline = crawler.get_item_pipeline(ArchivePipeline)
    return dict(pipeline.results if pipeline is not None else {}), cfg.enabled, counts


class ArchivePipeline(JobPipeline):
    job = "audit"

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        config = crawl_config(crawler)
        self.settings = config.archive
        self.rules = page_rules(config)
        self.weights = config.sampling.weights
        self.results: dict[str, dict[str, Any]] = {}  # claim id -> then (read by the export)
        self._plan: LookupPlan | None = None
        self._ready: list[ClaimRecord] = []  # sure to be looked up, not started yet
        self._workers = 0
        self._days: dict[str, str] = {}  # corpus file -> its commit day (claims without a stamp)
        self._claims: dict[str, ClaimRecord] = {}
        if self.settings.enabled:
            crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)

    @property
    def plan(self) -> LookupPlan:
        if self._plan is None:  # the run's claims are known once the spider is open
            run = run_of(self.crawler)
            as_of = date.fromisoformat(run.runtime.clock.iso()[:10])
            self._claims = {str(c["id"]): c for c in run.claims}
            self._plan = LookupPlan({cid: priority(c, self.weights, as_of) for cid, c in self._claims.items()},
                                    self.settings.max_lookups)
        return self._plan

    @property
    def cache(self) -> ArchiveCache:
        return ArchiveCache(run_of(self.crawler).store.root)

    @property
    def journey(self) -> Journey:
        return journey_of(self.crawler)

    def _keep(self, write: Callable[[], None]) -> None:
        """A write to the store's archive/ that fails is the output folder failing: the run stops
        sending, as for a page (``extensions.outcome.stop_for_output``)."""
        try:
            write()
        except OutputError as exc:
            stop_for_output(self.crawler, exc)

    def _count(self, event: str, n: int = 1) -> None:
        self.crawler.stats.inc_value(f"sv/archive/{event}", n)

    # -- planning, page by page ------------------------------------------------------------
    def process_item(self, item: Any) -> Any:
        if self.settings.enabled:
            records = page_of(item).judged().records
            self._start(self.plan.judged(records, [r for r in records if is_flagged(r)]))
        return item

    def spider_idle(self) -> None:
        """Every page is judged (one that made no item too): the last of the bound starts."""
        self._start(self.plan.all_judged())
        self.crawler.stats.set_value("sv/archive/skipped", self.plan.skipped)
        if self._workers:
            raise DontCloseSpider

    def _start(self, ready: list[ClaimRecord]) -> None:
        self._ready.extend(ready)
        while self._ready and self._workers < WORKERS:
            self._workers += 1
            self.journey.keep_open(self._work())

    async def _work(self) -> None:
        try:
            while self._ready:
                # the claims of one page ready together: one lookup per stamp date
                url = self._ready[0]["source_url"]
                batch = [r for r in self._ready if r["source_url"] == url]
                self._ready = [r for r in self._ready if r["source_url"] != url]
                for lookup in await self._lookups(batch):
                    await self._choose(lookup)
        finally:
            self._workers -= 1

    async def _lookups(self, records: list[ClaimRecord]) -> list[Lookup]:
        """The records' lookups, one per (URL, stamp date); a claim with no date is said so."""
        lookups: dict[str, Lookup] = {}
        for record in records:
            self._count("lookups")
            claim = self._claims.get(str(record["id"])) or record
            file = str(claim.get("file") or "")
            if not (claim.get("inline_stamp") or {}).get("date") and file and file not in self._days:
                root = run_of(self.crawler).runtime.corpus_root
                self._days[file] = (await asyncio.to_thread(file_days, root, [file])).get(file, "")
            day, origin = stamp_date(claim, self._days)
            if not day:
                self.results[str(record["id"])] = problem(NO_DATE, "no date to compare with: the claim has no "
                                                                   "Last verified stamp and its file no commit date")
                continue
            lookups.setdefault(day, Lookup(str(record["source_url"]), day, origin, [])).claims.append(claim)
        return list(lookups.values())

    # -- the CDX answers -------------------------------------------------------------------
    async def _choose(self, lookup: Lookup) -> None:
        today = run_of(self.crawler).runtime.clock.iso()
        failed = self.cache.failure(lookup.url, lookup.day, today)
        if failed is not None:  # asked and failed lately: not asked again before its date
            self._count("failures_cached")
            return self._settle(lookup, problem(ARCHIVE_UNAVAILABLE, f"archive unavailable: {failed['reason']} "
                                                                     f"(asked {str(failed['asked_at'])[:10]}; "
                                                                     f"asked again from {failed['retry_from']})"))
        cached = self.cache.cdx(lookup.url, lookup.day)
        if cached is not None:
            self._count("cdx_cached")
            lookup.choice = choose(*cached)
            return await self._capture_step(lookup)
        sides = []
        for side in ("before", "after"):
            self._count("cdx_requests")
            fetch = await self._fetch(cdx_query(lookup.url, lookup.day, side))
            if fetch.status != 200:
                return self._fail(lookup, fetch, "cdx", "the CDX API")
            try:
                sides.append(parse_cdx(fetch.response.body if fetch.response is not None else b""))
            except CdxError as exc:
                return self._fail_with(lookup, "cdx_malformed", str(exc))
        before, after = sides
        self._keep(lambda: self.cache.save_cdx(lookup.url, lookup.day, before, after, today))
        lookup.choice = choose(before, after)
        return await self._capture_step(lookup)

    async def _fetch(self, url: str) -> Fetch:
        # redirects are followed (the Wayback redirects a capture to its nearest timestamp)
        return await self.journey.fetch(url, "archive")

    def _fail(self, lookup: Lookup, fetch: Fetch, step: str, what: str) -> None:
        if fetch.failure is not None:
            _, note = failure_outcome(fetch.failure, fetch.attempts)
            return self._fail_with(lookup, fetch.failure.exc_name or fetch.failure.kind, note)
        return self._fail_with(lookup, f"{step}_http_{fetch.status}", f"{what} answered HTTP {fetch.status}")

    def _fail_with(self, lookup: Lookup, kind: str, reason: str) -> None:
        self._count("errors")
        self._count(f"error/{kind}")
        clock = run_of(self.crawler).runtime.clock
        self._keep(lambda: self.cache.save_failure(lookup.url, lookup.day, reason, clock.iso()))
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

    async def _capture_step(self, lookup: Lookup) -> None:
        capture = lookup.choice.capture
        if capture is None:
            return self._settle(lookup, problem(NO_CAPTURE, "no capture in the Wayback Machine to compare with"))
        now = run_of(self.crawler).runtime.clock.iso()
        cached = self.cache.capture(lookup.url, capture.timestamp)
        if cached is not None:
            self._count("captures_cached")
            fetched = Fetched(lookup.url, now, final_url=lookup.url, http_status=200,
                              headers={"content-type": str(cached.get("content_type") or "")})
            return self._judge(lookup, fetched, _kept_reading(cached))
        fetch = await self._fetch(capture.raw_url())
        if fetch.response is None or fetch.status != 200:
            return self._fail(lookup, fetch, "capture", "the capture")
        self._count("captures_read")
        fetched, body = _capture_fetched(lookup.url, now, fetch), fetch.response.body
        to_read = body_to_read(fetched, body, self.rules)
        reading = Reading()
        if to_read is not None:
            reading = await self.journey.read(to_read, fetched.content_type, truncated=fetched.truncated,
                                              lang=fetched.declared_lang,
                                              urls=(lookup.url,), scopes=[c.get("scope", "") for c in lookup.claims])
            if reading.text:
                reading = replace(reading, content_hash=content_hash(reading.text))
        kept = {k: getattr(reading, k) for k in _READING_KEYS}
        kept["read_note"] = kept.pop("note")
        kept["content_type"] = fetched.content_type
        self._keep(lambda: self.cache.save_capture(lookup.url, capture.timestamp, kept))
        self._judge(lookup, fetched, reading)

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


def _capture_fetched(url: str, now: str, fetch: Fetch) -> Fetched:
    """The capture's answer as facts, under the cited URL (the capture is that page, as it was)."""
    assert fetch.response is not None
    stopped = fetch.response.meta.get("sv_stopped", "")
    return Fetched(url, now, final_url=url, http_status=200, headers=fetch.headers(), stopped=stopped,
                   truncated="download_stopped" in fetch.response.flags and not stopped.startswith("binary"))


def _kept_reading(cached: dict[str, Any]) -> Reading:
    """A capture's reading as the store kept it."""
    text = {k: str(cached.get(k) or "") for k in ("kind", "text", "text_method", "lang", "pdf", "read_note",
                                                   "content_hash")}
    return Reading(kind=text["kind"], text=text["text"], text_method=text["text_method"], lang=text["lang"],
                   pdf=text["pdf"], note=text["read_note"], ocr=cached.get("ocr") or None,
                   content_hash=text["content_hash"])
