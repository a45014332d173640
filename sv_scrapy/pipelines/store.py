"""The content store in the pipeline: 304s restored from it, then each page's outcome folded
in (settle-confirmed change, fail streak, excerpts before/after) and journalled."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from sv_scrapy.core.changes import changed_lines, fail_streak, settle, stale_changed
from sv_scrapy.core.fetchstatus import BINARY, DEAD, EXCLUDED, OK, ROBOTS, UNAVAILABLE
from sv_scrapy.core.store import Entry
from sv_scrapy.pipelines import require_job
from sv_scrapy.pipelines.hashes import keeps_pdf_bytes
from sv_scrapy.runtime import load_cached

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler


class _CrawlerPipeline:
    """A pipeline of one job that only needs the crawler (its spider holds the content store)."""

    job = "audit"

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        require_job(crawler, cls.job)
        return cls(crawler)


class StoreRestorePipeline(_CrawlerPipeline):
    """A 304 carries no body: take the text and hashes of the stored copy."""

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        if not page["not_modified"]:
            return item
        store = self.crawler.spider.store  # type: ignore[union-attr]
        entry, text = store.load(page["url"]), store.text(page["url"])
        if entry is None or text is None:
            page["fetch_status"], page["note"] = UNAVAILABLE, "304 Not Modified but no stored copy to read"
            return item
        page.update(text=text, content_hash=entry.content_hash, raw_hash=entry.raw_hash,
                    text_method=page["text_method"] or "store (304 Not Modified)", kind=entry.content_kind,
                    etag=page["etag"] or entry.etag, last_modified=page["last_modified"] or entry.last_modified)
        self.crawler.stats.inc_value("sv/store/not_modified")
        return item


class StoreUpdatePipeline:
    def __init__(self, crawler: Crawler, dead_after: int) -> None:
        self.crawler = crawler
        self.dead_after = dead_after

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        require_job(crawler, "audit")
        return cls(crawler, load_cached(crawler.settings["SV_CONFIG_DIR"]).liveness.fail_streak_for_dead)

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        if page["from_journal"]:
            return item
        spider = self.crawler.spider
        store, run_id = spider.store, spider.run_id  # type: ignore[union-attr]
        url = page["url"]
        entry = store.load(url) or Entry(url=url)
        status = page["fetch_status"]
        counts = status not in (EXCLUDED, ROBOTS)  # our choice, not the page's failure
        streak = fail_streak(entry.fail_streak, status in (OK, BINARY)) if counts else 0
        restated = self._streak_status(page, status, streak)

        changed, in_flux = False, False
        previous: dict[str, list[str]] = {}
        diff: list[str] = []
        state = entry.state
        if page["content_hash"]:
            old_stable_text = store.stable_text(url)
            settled = settle(entry.state, page["content_hash"], page["fetched_at"])
            state, changed, in_flux = settled.state, settled.changed, settled.in_flux
            if changed:
                previous = entry.excerpts
                diff = changed_lines(old_stable_text or "", page["text"])
            if not page["not_modified"]:
                store.save_text(url, page["text"])
            if state.stable_hash == page["content_hash"] and (changed or old_stable_text is None):
                store.save_stable_text(url, page["text"])
        if keeps_pdf_bytes(page):
            store.save_pdf(url, page["body"])

        for record in page["results"]:
            if restated:
                record.update(fetch_status=page["fetch_status"], note=page["note"])
            record["content_hash"] = page["content_hash"]
            record["content_changed"] = changed
            record["changed_at"] = state.changed_at if changed else ""
            record["stale_changed"] = changed and stale_changed(state.changed_at, record.get("inline_stamp"))
            record["in_flux"] = in_flux
            record["previous_excerpts"] = previous.get(record["id"], []) if changed else []
            record["change_diff"] = diff
            record["not_modified"] = page["not_modified"]
            record["fail_streak"] = streak

        ok = status in (OK, BINARY)
        entry = Entry(
            url=url, fetched_at=page["fetched_at"], http_status=page["http_status"], fetch_status=page["fetch_status"],
            content_hash=page["content_hash"] or entry.content_hash, raw_hash=page["raw_hash"] or entry.raw_hash,
            etag=page["etag"] if ok else entry.etag, last_modified=page["last_modified"] if ok else entry.last_modified,
            content_kind=page["kind"] or entry.content_kind, state=state, fail_streak=streak,
            excerpts={r["id"]: r["excerpts"] for r in page["results"]}
            if page["content_hash"] and state.stable_hash == page["content_hash"] else entry.excerpts,
            run_id=run_id, results=page["results"], rendered=bool(page["rendered"]) if ok else entry.rendered,
        )
        store.save(entry)  # the journal: once this is on disk, a resumed run skips the URL
        if changed:
            self.crawler.stats.inc_value("sv/store/content_changed")
        return item

    def _streak_status(self, page: ItemAdapter, status: str, streak: int) -> bool:
        """DEAD only after ``fail_streak_for_dead`` failing runs; before that, "failing (k of n)".

        True when the page's status or note was restated."""
        if status == DEAD and streak < self.dead_after:
            page["fetch_status"] = UNAVAILABLE
            page["note"] = f"failing ({streak} of {self.dead_after}): {page['note']}"
            return True
        if status == UNAVAILABLE and streak:
            page["note"] = f"failing ({min(streak, self.dead_after)} of {self.dead_after}): {page['note']}"
            return True
        return False


class StoreTextPipeline(_CrawlerPipeline):
    """For the worklist: keep each page's text (and a scan's bytes) for ``scrapy verify``,
    without touching the audit's change-detection state."""

    job = "worklist"

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        store = self.crawler.spider.store  # type: ignore[union-attr]
        if page["text"]:
            store.save_text(page["url"], page["text"])
        if keeps_pdf_bytes(page):
            store.save_pdf(page["url"], page["body"])
        return item
