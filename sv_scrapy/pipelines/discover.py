"""Where the figure went: for each claim whose cited page does not state its figure, the page of the
same site that does (``core.audit.discover``), proposed as the record's ``proposed_source`` (kept in the
item's ``proposed``: the records are final when this stage sees them).

Asked in order, until a candidate states the figure in the claim's context: the cited page's own links
(as its reading found them), the site's sitemaps (robots.txt's ``Sitemap:`` lines, else
``/sitemap.xml``; indexes and gzip followed: ``sv_scrapy.pipelines.sitemaps``), the site's own search where
``discover.search`` names one. Every request goes through the page journey (``journey``: robots.txt,
the target guard, retries and ``Retry-After``, the paced handler's floors) and every candidate is read
by the one reader; a robots-disallowed candidate is never asked for. A site's sitemaps and search
answers are read once a run and kept in the store with their validators (``core.audit.discover.memory``),
asked conditionally the next month; a claim's proposal is kept until its page or the claim changes.
At most ``discover.max_candidates`` pages are read for a claim and ``discover.max_requests_per_host``
requests sent to a host in a run. Stats: ``sv/discover/*``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote_plus, urlsplit

from sv_scrapy.core.audit.discover.accept import Page, Proposal, judge
from sv_scrapy.core.audit.discover.memory import DiscoverMemory, Kept, KeptProposal, searched_line
from sv_scrapy.core.audit.discover.rank import (
    LINK,
    SEARCH,
    SITEMAP,
    Candidate,
    SiteIndex,
    claim_years,
    ranked,
    same_site,
    search_query,
    site_words,
    terms,
    wants_discovery,
)
from sv_scrapy.core.audit.discover.settings import QUERY
from sv_scrapy.core.audit.store import robots_txt_url
from sv_scrapy.core.digest import sha256_hex
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.context import in_claims_language
from sv_scrapy.core.page.outlinks import page_links
from sv_scrapy.core.page.text import decode_body, html_title
from sv_scrapy.downloadermiddlewares.robotstxt import SvRobotsTxtMiddleware
from sv_scrapy.extensions.journey import journey_of
from sv_scrapy.extensions.outcome import stop_for_output
from sv_scrapy.items import PageItem, page_of
from sv_scrapy.pipelines.archive import ArchivePipeline
from sv_scrapy.pipelines.outlinks import LinkedPipeline
from sv_scrapy.pipelines.sitemaps import MAX_BYTES, read_sitemap, robots_sitemaps
from sv_scrapy.run.runtime import page_rules
from sv_scrapy.run.state import crawl_config, find_run

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from sv_scrapy.core.claims.record import ClaimRecord
    from sv_scrapy.run.config import Config

_T = TypeVar("_T")
PURPOSE = "discover"
MAX_SITEMAP_FILES = 20  # sitemap files (an index's children included) read for one host in a run
SITEMAPS_AT_ONCE = 4  # sitemaps asked and read at once, all hosts together: a 50,000-URL one is ~15 MB in memory
_HTML_LINKS = 400  # links read from a search answer, at most


class DiscoverPipeline:
    def __init__(self, crawler: Crawler, config: Config) -> None:
        self.crawler = crawler
        self.settings = config.discover
        self.rules = page_rules(config)
        self.sent: Counter[str] = Counter()  # host -> discovery requests sent this run
        self._sitemaps: dict[str, asyncio.Future[SiteIndex | None]] = {}  # host -> its sitemaps' URLs, indexed
        self._searches: dict[str, asyncio.Future[list[Candidate]]] = {}  # search URL -> its answer's links
        self._pages: dict[str, asyncio.Future[Page | None]] = {}  # candidate URL -> its reading
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sv-discover")
        self._sitemap_slots = asyncio.Semaphore(SITEMAPS_AT_ONCE)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, crawl_config(crawler))

    def close_spider(self) -> None:
        self._worker.shutdown(wait=False, cancel_futures=True)

    async def _off_loop(self, work: Callable[..., _T], *args: Any) -> _T:
        """``work(*args)`` in the stage's one worker thread: a 50,000-URL sitemap is megabytes of XML
        to parse and of JSON to keep and read back; off the event loop, the crawl's other requests
        leave on time meanwhile, and one at a time, one sitemap's rows are in memory at once."""
        return await asyncio.get_running_loop().run_in_executor(self._worker, lambda: work(*args))

    # -- the stage -----------------------------------------------------------------------------
    async def process_item(self, item: Any) -> Any:
        page = page_of(item)
        outcome = page.outcome
        if not self.settings.enabled or outcome is None or page.from_journal:
            return item
        for record in outcome.records:
            if wants_discovery(record):
                await self._discover(page, record)
        return item

    def _memory(self) -> DiscoverMemory | None:
        run = find_run(self.crawler)
        return DiscoverMemory(run.store.root) if run is not None and run.store is not None else None

    def _today(self) -> str:
        run = find_run(self.crawler)
        return run.runtime.clock.iso() if run is not None else ""

    def _count(self, event: str, n: int = 1) -> None:
        self.crawler.stats.inc_value(f"sv/{PURPOSE}/{event}", n)

    async def _discover(self, page: PageItem, record: ClaimRecord) -> None:
        memory, now = self._memory(), self._today()
        page_hash = str(record.get("content_hash") or "")
        kept = memory.proposal(record, page_hash, now) if memory is not None else None
        if kept is not None:
            still = await self._still_stated(page, record, kept)
            if still is not None and still is not kept and memory is not None:  # its page changed, still stating it
                self._save(lambda: memory.save_proposal(record, page_hash, still, now))
            kept = still
        if kept is not None:
            self._count("kept")
        else:
            self._count("claims")
            kept = await self._search(page, record)
            if kept.proposal is not None:
                self._count("proposals")
                self._count(f"proposals/{kept.proposal['found_via']}")
            if memory is not None:
                self._save(lambda: memory.save_proposal(record, page_hash, kept, now))
        page.proposed[str(record["id"])] = kept  # the item's records() puts it on the claim's record

    async def _still_stated(self, page: PageItem, record: ClaimRecord, kept: KeptProposal) -> KeptProposal | None:
        """A kept proposal whose page still states the figure: asked conditionally (a 304 keeps it, a
        changed page is judged again); None: search again."""
        found = kept.proposal
        if found is None or not kept.conditional():
            return kept
        url = str(found.get("url") or "")
        if not self._may_send(url):
            return kept
        status, body, headers = await self._get(url, kept.conditional())
        if status == 304:
            self._count("proposals_not_modified")
            return kept
        if status != 200 or not body:
            return None
        read = await self._reading(url, body, headers)
        proposal = judge(record, read, self.rules.prefilter, str(found.get("found_via")), str(found.get("lastmod") or ""),
                         self._site_words(page, record))
        return self._kept(proposal, read) if proposal is not None else None

    def _kept(self, proposal: Proposal, read: Page) -> KeptProposal:
        """The proposal to keep; its page's text kept in the store beside frames and linked documents,
        where ``scrapy verify`` reads it to judge the proposed page too."""
        run = find_run(self.crawler)
        if run is not None and run.store is not None:
            self._save(lambda: run.store.save_extra(read.url, read.etag, read.last_modified, read.text))
        return KeptProposal(proposal.as_dict(), "", read.etag, read.last_modified, sha256_hex(read.text))

    async def _search(self, page: PageItem, record: ClaimRecord) -> KeptProposal:
        """The first candidate that states the figure in context, or what was searched."""
        fetched = page.fetched
        final = fetched.final_url or page.url
        host = urlsplit(final).hostname or urlsplit(page.url).hostname or ""
        cited = urlsplit(str(record.get("source_url") or page.url)).hostname or host
        own = self._site_words(page, record)
        budget = self.settings.max_candidates
        skip = {page.url, final}
        searched: list[tuple[str, int]] = []
        for via in (LINK, SITEMAP, SEARCH):
            if budget <= 0:
                break
            found = await self._candidates(via, page, record, host, own)
            if found is None:
                continue
            listed = self._sitemaps[host].result() if via == SITEMAP else None
            searched.append((via, listed.listed if listed is not None else len(found)))
            for candidate in ranked(found, record, own, cited, budget, skip):
                if not self._allowed(candidate.url) or not self._may_send(candidate.url):
                    continue
                skip.add(candidate.url)
                budget -= 1
                read = await self._read(candidate.url)
                if read is None:
                    continue
                proposal = judge(record, read, self.rules.prefilter, candidate.found_via, candidate.lastmod, own)
                if proposal is not None:
                    return self._kept(proposal, read)
                if budget <= 0:
                    break
        return KeptProposal(None, searched_line(searched))

    def _site_words(self, page: PageItem, record: ClaimRecord) -> tuple[str, ...]:
        archive = self.crawler.get_item_pipeline(ArchivePipeline)
        then = archive.results.get(str(record["id"])) if archive is not None else None
        reading = page.reading
        lines = reading.text.split("\n") if reading.shapes else []
        headings = [lines[n] for n, shape in enumerate(reading.shapes[: len(lines)]) if shape.heading_level]
        return site_words(then, page.fetched.title, headings)

    def _foreign(self, page: PageItem, record: ClaimRecord) -> bool:
        """Does the site write another language than the playbook (then its search is asked in its words)?"""
        reading = page.reading
        if reading.text.strip():
            return not in_claims_language(reading.text, reading.lang)
        archive = self.crawler.get_item_pipeline(ArchivePipeline)
        then = archive.results.get(str(record["id"])) if archive is not None else None
        said = " ".join(str(e) for e in (then or {}).get("excerpts") or [])
        return bool(said.strip()) and not in_claims_language(said, "")

    async def _candidates(self, via: str, page: PageItem, record: ClaimRecord, host: str,
                          own: tuple[str, ...]) -> list[Candidate] | None:
        """The candidates one source offers; None when the source is not there for this site."""
        if via == LINK:
            links = page.links()
            found = [Candidate(url, LINK, text) for url, text in links]
            linked = page.linked.get(str(record["id"])) or {}
            if linked.get("url"):  # the one-hop stage found the figure there: first, ranked by what it holds
                said = " ".join(text for url, text in links if url == linked["url"])
                found.insert(0, Candidate(str(linked["url"]), LINK, f"{said} {linked.get('excerpt') or ''}"))
            return found or None
        if via == SITEMAP:
            if host not in self._sitemaps:
                scheme = urlsplit(page.fetched.final_url or page.url).scheme
                self._sitemaps[host] = asyncio.ensure_future(self._sitemap_urls(scheme, host, self._vocabulary(host, own)))
            index = await asyncio.shield(self._sitemaps[host])
            return index.candidates(terms(record, own), claim_years(record)) if index is not None else None
        template = self.settings.search_template(host)
        if not template:
            return None
        url = template.replace(QUERY, quote_plus(search_query(record, own if self._foreign(page, record) else ())))
        if url not in self._searches:
            self._searches[url] = asyncio.ensure_future(self._search_answer(url))
        return await asyncio.shield(self._searches[url])

    # -- robots.txt and the budget -------------------------------------------------------------
    def _robots(self) -> SvRobotsTxtMiddleware | None:
        return self.crawler.get_downloader_middleware(SvRobotsTxtMiddleware)

    def _allowed(self, url: str) -> bool:
        """robots.txt allows ``url`` (as far as its host's rules are known; the middleware refuses the rest)."""
        robots = self._robots()
        allowed = robots.allows(url) if robots is not None else None
        if allowed is False:
            self._count("robots_skipped")
        return allowed is not False

    def _may_send(self, url: str) -> bool:
        host = urlsplit(url).hostname or ""
        if self.sent[host] >= self.settings.max_requests_per_host:
            self._count("budget_spent")
            return False
        self.sent[host] += 1
        return True

    # -- fetching and reading --------------------------------------------------------------------
    async def _get(self, url: str, headers: dict[str, str] | None = None,
                   body_cap: int = 0) -> tuple[int, bytes, dict[str, str]]:
        fetch = await journey_of(self.crawler).fetch(url, PURPOSE, headers=headers, body_cap=body_cap)
        if fetch.response is None:
            return 0, b"", {}
        return fetch.status, fetch.response.body, fetch.headers()

    async def _read(self, url: str) -> Page | None:
        if url not in self._pages:
            self._pages[url] = asyncio.ensure_future(self._read_page(url))
        return await asyncio.shield(self._pages[url])

    async def _read_page(self, url: str) -> Page | None:
        linked = self.crawler.get_item_pipeline(LinkedPipeline)
        if linked is not None and url in linked.read:  # asked this run by the one-hop stage: never twice
            self._count("candidates_linked")
            text = linked.read[url]
            return Page(url, text) if text else None
        self._count("candidates_fetched")
        status, body, headers = await self._get(url)
        if status != 200 or not body:
            return None
        return await self._reading(url, body, headers)

    async def _reading(self, url: str, body: bytes, headers: dict[str, str]) -> Page:
        """A candidate's body read by the one reader."""
        reading = await journey_of(self.crawler).read(body, headers.get("content-type", ""), urls=(url,))
        title = ""
        if reading.kind == "html" and b"<title" in body[:20000].lower():
            title = html_title(body[:20000].decode("utf-8", "replace"))
        return Page(url, reading.text, reading.lang, title, reading.shapes, reading.kind == "pdf",
                    headers.get("last-modified", ""), headers.get("etag", ""))

    def _vocabulary(self, host: str, own: tuple[str, ...]) -> frozenset[str]:
        """The words a sitemap URL of ``host`` must share one of to be kept: every claim the run has on
        the site, its years, and the site's own words for the claim that first asked."""
        run = find_run(self.crawler)
        claims = run.claims.citing(lambda url: same_site(url, host)) if run is not None else []
        words: set[str] = set(terms({}, own))
        for claim in claims:
            words |= terms(claim) | claim_years(claim)
        return frozenset(words)

    async def _sitemap_urls(self, scheme: str, host: str, vocabulary: frozenset[str]) -> SiteIndex | None:
        """The host's sitemaps (indexes and gzip followed), read once a run, indexed by their URLs' words;
        None when the site has none."""
        robots = self._robots()
        body = robots.body_of(host) if robots is not None else None
        queue = robots_sitemaps(body, robots_txt_url(scheme, host)) if body else []
        queue = queue or [f"{scheme}://{host}/sitemap.xml"]
        seen: set[str] = set()
        index: SiteIndex | None = None
        while queue and len(seen) < MAX_SITEMAP_FILES:
            url = queue.pop(0)
            if url in seen or not self._allowed(url):
                continue
            seen.add(url)
            async with self._sitemap_slots:  # a few sitemaps' bodies and rows in memory at once, never fifty
                kept = await self._answer("sitemap", url)
                if kept is None:
                    continue
                if kept.index:
                    queue.extend(row[0] for row in kept.rows)
                    continue
                read = await self._off_loop(SiteIndex, kept.rows, vocabulary)
            self._count("sitemap_urls", read.listed)
            if index is None:
                index = read
            else:
                index.extend(read)
        return index

    async def _answer(self, kind: str, url: str) -> Kept | None:
        """A sitemap or search answer: asked conditionally when the store keeps it; None when none."""
        memory = self._memory()
        kept = await self._off_loop(memory.answer, kind, url) if memory is not None else None
        if not self._may_send(url):
            return kept
        status, body, headers = await self._get(url, kept.conditional() if kept is not None else None,
                                                MAX_BYTES if kind == "sitemap" else 0)
        if status == 304 and kept is not None:
            self._count(f"{kind}s_not_modified")
            return kept
        if status != 200:
            if kind == "search" and memory is not None:
                self._save(lambda: memory.save_failure(url, f"HTTP {status}" if status else "no answer", self._today()))
            return None
        fresh = await self._off_loop(self._parse, kind, url, body, headers)
        if fresh is not None and memory is not None and (fresh.etag or fresh.last_modified):
            try:
                await self._off_loop(memory.save_answer, kind, fresh, self._today())
            except OutputError as exc:
                stop_for_output(self.crawler, exc)
        return fresh

    def _parse(self, kind: str, url: str, body: bytes, headers: dict[str, str]) -> Kept | None:
        etag, modified = headers.get("etag", ""), headers.get("last-modified", "")
        if kind == "sitemap":
            read = read_sitemap(body)
            if read.problem:
                self._count("sitemaps_refused")
                return None
            self._count("sitemaps_read")
            if read.cut:
                self._count("sitemaps_cut")
            return Kept(url, etag, modified, read.rows, read.index)
        html = decode_body(body, headers.get("content-type") or None).text
        self._count("searches_read")
        return Kept(url, etag, modified, page_links(html, url, _HTML_LINKS))

    async def _search_answer(self, url: str) -> list[Candidate]:
        memory = self._memory()
        if memory is not None and memory.failure(url, self._today()) is not None:
            self._count("searches_not_due")
            return []
        kept = await self._answer("search", url)
        return [Candidate(u, SEARCH, t) for u, t in kept.rows] if kept is not None else []

    def _save(self, write: Any) -> None:
        try:
            write()
        except OutputError as exc:
            stop_for_output(self.crawler, exc)
