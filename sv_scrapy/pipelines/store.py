"""The content store in the pipeline: each page's texts and next entry
(``core.audit.journal.next_entry``) journalled after its records are made (a 304's reading is
restored from the page's past by ``pipelines.read``).

The writes run in a few worker threads, never on the event loop: every file is written
atomically, with an ``fsync`` that takes milliseconds on a busy disk — three of them a page, at
100 pages a second, were a whole core of the loop's time not spent sending requests
(bench/audit.py --profile). A page's own writes keep their order (texts first, the entry last).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import DropItem

from sv_scrapy.core.audit.journal import next_entry
from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.core.errors import OutputError
from sv_scrapy.extensions.outcome import output_stopped, stop_for_output
from sv_scrapy.items import PageItem, page_of
from sv_scrapy.pipelines import JobPipeline
from sv_scrapy.pipelines.hashes import pdf_bytes_kept
from sv_scrapy.run.state import run_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

# writers at once: enough to keep a busy disk's fsyncs from queueing behind each other
WRITERS = 4


class _StoreWriter(JobPipeline):
    """A pipeline that writes a page's files in the store's worker threads."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self._executor = ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="sv-store")

    def close_spider(self) -> None:
        self._executor.shutdown(wait=True)  # every item awaited its writes: nothing is left but idle threads

    async def _write(self, write: Callable[[], None]) -> None:
        """``write`` in a worker; a failed write stops the run (``extensions.outcome.stop_for_output``)."""
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, write)
        except OutputError as exc:
            raise stop_for_output(self.crawler, exc) from None


class StoreUpdatePipeline(_StoreWriter):
    """The audit's journal: the page's texts, a scan's bytes and its next store entry."""

    job = "audit"

    async def process_item(self, item: Any) -> Any:
        page = page_of(item)
        if page.from_journal:
            return item
        if output_stopped(self.crawler):  # a write failed: nothing more is kept (nor journalled)
            raise DropItem("not kept: the output folder failed earlier", log_level="DEBUG")
        await self._write(lambda: self._journal(page, item))
        if page.judged().changed:
            self.crawler.stats.inc_value("sv/store/content_changed")
        return item

    def _journal(self, page: PageItem, item: Any) -> None:
        """Texts first, the entry last: once the entry is on disk a resumed run skips the URL."""
        run = run_of(self.crawler)
        store, run_id = run.store, run.run_id
        url, outcome, fetched = page.url, page.judged(), page.fetched
        past = page.past or PagePast(url)
        reading = page.reading
        if reading.content_hash and outcome.state is not None:
            if fetched.http_status != 304:
                store.save_text(url, reading.text)
            if outcome.state.stable_hash == reading.content_hash and (outcome.changed or not past.stable_kept):
                store.save_stable_text(url, reading.text)
        if (pdf := pdf_bytes_kept(page)) is not None:
            store.save_pdf(url, pdf)
        # the journal: once this is on disk, a resumed run skips the URL
        store.save(next_entry(fetched, reading, replace(outcome, records=page.records()), past.entry, run_id,
                              page.raw_hash))


class StoreTextPipeline(_StoreWriter):
    """For the worklist: keep each page's text (and a scan's bytes) for ``scrapy verify``,
    without touching the audit's change-detection state."""

    job = "worklist"

    async def process_item(self, item: Any) -> Any:
        page = page_of(item)
        store = run_of(self.crawler).store

        def keep() -> None:
            if page.reading.text:
                store.save_text(page.url, page.reading.text)
            if (pdf := pdf_bytes_kept(page)) is not None:
                store.save_pdf(page.url, pdf)

        await self._write(keep)
        return item
