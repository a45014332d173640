"""The content store in the pipeline: 304s restored from it before the records are made; each
page's texts and next entry (``core.page.pagerecord.next_entry``) journalled after."""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.pagerecord import next_entry
from sv_scrapy.extensions.outcome import output_stopped, stop_for_output
from sv_scrapy.pipelines import JobPipeline
from sv_scrapy.pipelines.hashes import keeps_pdf_bytes
from sv_scrapy.run import run_of


class StoreRestorePipeline(JobPipeline):
    """A 304 carries no body: take the text and hashes of the stored copy."""

    job = "audit"

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        if page["fetched"].http_status != 304:
            return item
        store = run_of(self.crawler).store
        entry, text = store.load(page["url"]), store.text(page["url"])
        page["restored"] = entry is not None and text is not None
        if entry is None or text is None:
            return item
        page.update(text=text, content_hash=entry.content_hash, raw_hash=entry.raw_hash,
                    text_method=page["text_method"] or "store (304 Not Modified)", kind=entry.content_kind,
                    # an unchanged page links where it linked: its one-hop findings stand (pipelines/outlinks.py)
                    linked_before={r["id"]: r["found_linked"] for r in entry.results if r.get("found_linked")})
        self.crawler.stats.inc_value("sv/store/not_modified")
        return item


class StoreUpdatePipeline(JobPipeline):
    """The audit's journal: the page's texts, a scan's bytes and its next store entry."""

    job = "audit"

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        if page["from_journal"]:
            return item
        if output_stopped(self.crawler):  # a write failed: nothing more is kept (nor journalled)
            raise DropItem("not kept: the output folder failed earlier", log_level="DEBUG")
        try:
            self._journal(page, item)
        except OutputError as exc:
            raise stop_for_output(self.crawler, exc) from None
        if page["outcome"].changed:
            self.crawler.stats.inc_value("sv/store/content_changed")
        return item

    def _journal(self, page: ItemAdapter, item: Any) -> None:
        """Texts first, the entry last: once the entry is on disk a resumed run skips the URL."""
        run = run_of(self.crawler)
        store, run_id = run.store, run.run_id
        url, outcome, fetched = page["url"], page["outcome"], page["fetched"]
        previous = store.load(url)
        if page["content_hash"] and outcome.state is not None:
            if fetched.http_status != 304:
                store.save_text(url, page["text"])
            if outcome.state.stable_hash == page["content_hash"] and (outcome.changed or store.stable_text(url) is None):
                store.save_stable_text(url, page["text"])
        if keeps_pdf_bytes(page):
            store.save_pdf(url, page["body"])
        # the journal: once this is on disk, a resumed run skips the URL
        store.save(next_entry(fetched, item.reading(), outcome, previous, run_id, page["raw_hash"]))


class StoreTextPipeline(JobPipeline):
    """For the worklist: keep each page's text (and a scan's bytes) for ``scrapy verify``,
    without touching the audit's change-detection state."""

    job = "worklist"

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        store = run_of(self.crawler).store
        try:
            if page["text"]:
                store.save_text(page["url"], page["text"])
            if keeps_pdf_bytes(page):
                store.save_pdf(page["url"], page["body"])
        except OutputError as exc:
            raise stop_for_output(self.crawler, exc) from None
        return item
