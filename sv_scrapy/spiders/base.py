"""What the worklist and audit spiders share: claims -> one request per URL -> PageItems.

Spiders only fetch and hand pages on; reading, hashing and judging happen in pipelines.
Arguments are validated by ``parse_arguments`` in ``preflight`` (called by ``scrapy crawl``
before the crawler starts, so a bad ``-a`` is one line and exit 2; by ``from_crawler`` for a
crawl started any other way). What preflight found rides to the spider as an argument.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

import scrapy

from sv_scrapy.core.atomic import check_writable
from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.core.audit.runlock import RunLock, acquire
from sv_scrapy.core.audit.store import ContentStore
from sv_scrapy.core.audit.storeformat import Migration, check_format, migrate
from sv_scrapy.core.claims.claims import Extraction, extract_corpus, unknown_scope
from sv_scrapy.core.errors import ArgumentError, SvError
from sv_scrapy.core.page.pagerecord import Fetched, body_to_read
from sv_scrapy.core.page.reader import Reading
from sv_scrapy.core.page.safety import host_listed, refusal_reason
from sv_scrapy.core.page.text import html_title
from sv_scrapy.downloadermiddlewares.robotstxt import ROBOTS_NOTE
from sv_scrapy.extensions.answers import HANDLED_STATUSES, describe_failure, failed_request
from sv_scrapy.extensions.journey import journey_of
from sv_scrapy.extensions.monitor import start_failed
from sv_scrapy.extensions.outcome import is_code_error, report_code_error
from sv_scrapy.items import PageItem
from sv_scrapy.pqueues import in_host_turns, queued
from sv_scrapy.run.registry import setting_default
from sv_scrapy.run.runtime import Runtime, check_settings, ignore_https_errors, page_rules, resolve
from sv_scrapy.run.state import Run, attach, run_of

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

# the spider argument that hands preflight's findings from `scrapy crawl` to the spider ("_": a
# runner's own, never a user's -a)
PREFLIGHT = "_sv_preflight"

# Scrapy's engine reads start() without giving the event loop a turn for as long as the
# downloader is full — at once here, since the paced handler holds each request until its turn
# — so a corpus of 20,000 URLs stood the loop still for 1.8 s after the first three starts. A
# turn every ``START_BATCH`` URLs (~5 ms of reading) lets the starts due meanwhile leave.
START_BATCH = 50

# Requests are built as the scheduler drains, not up front: the engine reads start() for as
# long as it yields (a full downloader stops it sending, not reading), so at 100,000 URLs every
# request, its meta and its URL's past stood in the scheduler from the first minute (1.3 GB).
# start() keeps this many queued, in host turns (``hostqueue.in_host_turns``): far more hosts
# than a global cap of 100 requests/s keeps busy at a host's floor, and a few MB of requests.
START_AHEAD = 1000
START_POLL = 0.05  # seconds between looks at the scheduler while it is full


@dataclass(frozen=True)
class Preflight:
    """What a crawl's checks found, for its ``Run``: the runtime (config, clock), the arguments
    parsed, the output folder's lock, what opening the store found (a migration, if any), and
    the corpus's claims as the checks read them (taken once: ``ClaimSpider.extraction``)."""
    runtime: Runtime
    params: dict[str, Any]
    lock: RunLock
    migration: Migration
    # a box the spider empties: ``scrapy crawl`` keeps its Preflight for the whole crawl, and a
    # corpus of 100,000 claims read once more, or held twice, is seconds and a hundred MB
    extracted: list[Extraction] = field(default_factory=list)


def job_of(spidercls: type[scrapy.Spider]) -> str:
    """The spider's ``SV_JOB`` (its scalar switch in ``custom_settings``), before any crawler has it."""
    return str((spidercls.custom_settings or {}).get("SV_JOB", ""))


def store_root(rt: Runtime) -> Path:
    return (rt.output_dir / "store").resolve()


class ClaimSpider(scrapy.Spider):
    """Base: the run's claims (``open_run``) decide which URLs are fetched."""

    ARGUMENTS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse_arguments(cls, raw: Mapping[str, Any]) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def check_known(cls, raw: Mapping[str, Any]) -> None:
        # scrapyd adds its own "_job" argument; names starting with "_" are the runner's
        unknown = sorted(k for k in set(raw) - set(cls.ARGUMENTS) if not k.startswith("_"))
        if unknown:
            raise ArgumentError(
                f"unknown spider argument -a {unknown[0]} (known: {', '.join(cls.ARGUMENTS) or 'none'})"
            )

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        found: Preflight | None = kwargs.pop(PREFLIGHT, None)
        if found is None:  # started by scrapyd, a script, a test: the checks run here
            try:
                found = cls.preflight(crawler.settings, kwargs)
            except SvError as exc:
                start_failed(crawler.settings, cls.name, job_of(cls), exc.exit_code, str(exc))
                raise
        try:
            spider = super().from_crawler(crawler, *args, **kwargs)
            run = spider.open_run(found)
        except BaseException:
            found.lock.release()  # no crawl: nothing of it will write
            raise
        finally:
            found.extracted.clear()  # a run that did not take it (a pull-request check) leaves nothing held
        run.lock = found.lock  # the run holds it from here (run.state.finish lets it go)
        attach(crawler, run)
        return spider

    def open_run(self, found: Preflight) -> Run:  # pragma: no cover
        """The crawl's ``Run``: its claims selected, its store opened (once, from ``from_crawler``)."""
        raise NotImplementedError

    @property
    def run(self) -> Run:
        return run_of(self.crawler)

    def now(self) -> str:
        """Now, from the run's one clock (``SV_NOW`` in tests and rehearsals)."""
        return self.run.runtime.clock.iso()

    @classmethod
    def extract(cls, rt: Runtime, params: Mapping[str, Any]) -> Extraction:
        """The claims in scope; a ``country`` that matches no scope is the user's mistake."""
        opts = rt.extract_options(include_secondary=params.get("include_secondary", False),
                                  country=params.get("country"), section=params.get("section"))
        extraction = extract_corpus(rt.corpus_root, rt.config.hosts, opts)
        error = unknown_scope(extraction, params.get("country"), "-a country=")
        if error:
            raise error
        return extraction

    @classmethod
    def preflight(cls, settings: Mapping[str, Any], raw: Mapping[str, Any]) -> Preflight:
        """Everything that can be wrong with the arguments, config, corpus or outputs, checked
        before the crawler starts; raises an ``SvError`` with one line. Then takes the output
        folder's lock (one writer at a time) and migrates an older store, for the run to hold."""
        rt = resolve(settings)  # the run's config and clock, from here on
        params = cls.parse_arguments(raw)
        check_settings(settings)
        cls.check_run(rt, params)
        rt = cls.judged_by(rt, params)
        # the lock first: a run that finds it taken leaves at once and touches nothing
        lock = acquire(rt.output_dir, f"scrapy crawl {cls.name}", rt.clock.iso())
        try:
            check_format(store_root(rt))  # a newer release's store: refused before anything is written
            for folder, what in cls.output_folders(settings, rt, params):
                check_writable(folder, what)
            for warning in rt.config.warnings:
                print(f"scrapy crawl {cls.name}: warning: {warning}", file=sys.stderr)
            extraction = cls.extract(rt, params)
            # under the lock, once everything else is known to be right: an older store is migrated
            return Preflight(rt, params, lock, migrate(store_root(rt), rt.clock), [extraction])
        except BaseException:
            lock.release()  # refused: the folder stays free
            raise

    def extraction(self, found: Preflight) -> Extraction:
        """The claims in scope, as preflight read them (read again only if it was taken already)."""
        return found.extracted.pop() if found.extracted else self.extract(found.runtime, found.params)

    @classmethod
    def check_run(cls, rt: Runtime, params: Mapping[str, Any]) -> None:
        """A spider's own checks of its arguments and inputs, before the lock: nothing is written yet."""

    @classmethod
    def judged_by(cls, rt: Runtime, params: Mapping[str, Any]) -> Runtime:
        """The runtime whose config judges the run (its extraction, politeness and exclusions):
        ``rt``, the one ``SV_CONFIG_DIR`` gives, unless the spider says otherwise."""
        return rt

    def open_store(self, found: Preflight) -> tuple[ContentStore, Migration]:
        """The run's content store, in the current format (``preflight`` migrated it), and what
        opening it found."""
        rt, migration = found.runtime, found.migration
        root = store_root(rt)
        store = ContentStore(root, rt.clock)
        store.quarantined.extend(migration.quarantined)
        if migration.migrated:
            self.logger.info(migration.summary())
        return store, migration

    @classmethod
    def output_folders(cls, settings: Mapping[str, Any], rt: Runtime, params: Mapping[str, Any]) -> list[tuple[Path, str]]:
        """The folders this spider writes into, checked before it starts."""
        return [(rt.output_dir, "the output folder (SV_OUTPUT_DIR)")]

    def request_for(self, url: str, render_reason: str = "", past: PagePast | None = None) -> scrapy.Request:
        """The URL's request; ``past`` (the audit's) rides on it to the item (``meta["sv_past"]``)."""
        meta: dict[str, Any] = {"sv_url": url, "handle_httpstatus_list": HANDLED_STATUSES, "dont_merge_cookies": True,
                                "sv_past": past}
        host = urlsplit(url).hostname or ""
        if not render_reason and host_listed(host, self.run.runtime.config.fetch.js_spa_hosts):
            render_reason = "host listed in js_spa_hosts"
        if render_reason and self.render_enabled:
            meta.update(playwright=True, sv_render_reason=render_reason, playwright_context="sv",
                        playwright_context_kwargs={"ignore_https_errors": ignore_https_errors(),
                                                   # every request the page makes says who we are too
                                                   "user_agent": self.crawler.settings["USER_AGENT"]})
        return scrapy.Request(url, callback=self.parse_page, errback=self.on_error, dont_filter=True, meta=meta)

    @property
    def render_enabled(self) -> bool:
        return self.crawler.settings.getbool("SV_RENDER_ENABLED", setting_default("SV_RENDER_ENABLED"))

    def _may_be_shell(self, response: Response, content_type: str) -> bool:
        """Is this an answer whose page may be a client-rendered shell (to be checked for its signs)?"""
        return ("playwright" not in response.flags and response.status == 200 and len(response.body) <= 300_000
                and ("html" in content_type.lower() or not content_type))

    def _shell_retry(self, url: str, signs: tuple[str, ...], response: Response) -> scrapy.Request | None:
        """A thin HTML page that looks client-rendered: fetch it once more, through the browser."""
        self.crawler.stats.inc_value("sv/render/shell_detected")
        if not self.render_enabled:
            return None
        return self.request_for(url, render_reason="looks client-rendered: " + ", ".join(signs),
                                past=response.meta.get("sv_past"))

    async def start(self) -> AsyncIterator[Any]:
        for n, url in enumerate(in_host_turns(self.run.claims.urls()), start=1):
            if n % START_BATCH == 0:
                await asyncio.sleep(0)
            while queued(self.crawler) >= START_AHEAD:
                await asyncio.sleep(START_POLL)
            reason = refusal_reason(url, self.run.runtime.config.liveness.excluded_hosts)
            if reason:  # its claims decoded here only: a page fetched has them decoded with its item
                self.crawler.stats.inc_value("sv/spider/excluded")
                yield PageItem(url=url, claims=self.run.claims_of(url), fetched=Fetched(url, self.now(), refused=reason))
                continue
            past = self.past_of(url)
            earlier = self.done_earlier(url, past)
            yield earlier if earlier is not None else self.request_for(url, past=past)

    def past_of(self, url: str) -> PagePast | None:
        """What this job remembers of the URL, loaded once (the worklist remembers nothing)."""
        return None

    def done_earlier(self, url: str, past: PagePast | None) -> PageItem | None:
        """The item of a page this (resumed) run already finished; None to fetch it."""
        return None

    def parse_page(self, response: Response) -> Any:
        url = response.meta["sv_url"]
        headers = {k.decode("latin-1").lower(): v[0].decode("latin-1") for k, v in response.headers.items() if v}
        body = response.body
        title = html_title(body[:20000].decode("utf-8", "replace")) if b"<title" in body[:20000].lower() else ""
        stopped = response.meta.get("sv_stopped", "")
        fetched = Fetched(
            url, self.now(), final_url=response.url, http_status=response.status, headers=headers, title=title,
            rendered="playwright" in response.flags, via_browser=bool(response.meta.get("playwright")),
            render_reason=response.meta.get("sv_render_reason", ""), attempts=response.meta.get("retry_times", 0) + 1,
            truncated="download_stopped" in response.flags and not stopped.startswith("binary"), stopped=stopped,
            retry_after_refused=response.meta.get("sv_retry_after_refused") or 0.0,
            robots_note=response.meta.get(ROBOTS_NOTE, ""),
        )
        to_read = body_to_read(fetched, body, page_rules(self.run.runtime.config))
        # the page read here, once: for its pipelines (to_read) and, for one that may be a shell, the signs
        # of one (a challenge page too); None for nothing to read or a PDF (ReadPipeline reads it off the loop)
        shell = self._may_be_shell(response, fetched.content_type)
        source = body if shell else to_read
        reading = None
        if source is not None:
            shell_below = self.run.runtime.config.fetch.min_text_chars if shell else 0
            reading = journey_of(self.crawler).read_now(source, fetched.content_type, truncated=fetched.truncated,
                                                        lang=fetched.declared_lang, page=response.url,
                                                        shell_below=shell_below)
        if reading is not None and reading.shell:
            retry = self._shell_retry(url, reading.shell, response)
            if retry is not None:
                yield retry
                return
            fetched = replace(fetched, shell=", ".join(reading.shell))
        kept = reading if reading is not None and source is to_read else Reading()  # else ReadPipeline reads it
        yield PageItem(url=url, claims=self.run.claims_of(url), fetched=fetched, past=response.meta.get("sv_past"),
                       body=to_read, reading=kept)

    def on_error(self, failure: Failure) -> Any:
        request = failed_request(failure)
        url = request.meta["sv_url"]
        self.crawler.stats.inc_value(f"sv/spider/failure/{type(failure.value).__name__}")
        if is_code_error(failure.value):  # a bug of ours on the way, never a fact about the page
            report_code_error(self.crawler, failure, url)
            return
        fetched = Fetched(url, self.now(), final_url=request.url, attempts=request.meta.get("retry_times", 0) + 1,
                          via_browser=bool(request.meta.get("playwright")), failure=describe_failure(failure))
        yield PageItem(url=url, claims=self.run.claims_of(url), fetched=fetched, past=request.meta.get("sv_past"))
