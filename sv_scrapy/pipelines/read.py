"""The page read: its body through the one reader (``journey.Journey.read``), or a
304's reading restored from the past its request carried — the item's one ``Reading``. A page
quick to read arrives read: the spider read it once, for its JavaScript-shell check too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.extensions.journey import journey_of
from sv_scrapy.items import page_of

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from sv_scrapy.core.page.reader import Reading


class ReadPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    async def process_item(self, item: Any) -> Any:
        page = page_of(item)
        fetched, body = page.fetched, page.body
        if fetched.http_status == 304:  # a 304 carries no body: the stored copy's reading
            past = page.past or PagePast(page.url)
            page.reading = self._restored(past)
            page.fetched = past.restored_fetched(fetched)
        elif body is not None and not page.reading.kind:  # nothing to read: a failure, a refusal, a failing
            # answer; read already: a page quick to read, by the spider (its one parse: its shell check too)
            page.reading = await journey_of(self.crawler).read(
                body, fetched.content_type, truncated=fetched.truncated, lang=fetched.declared_lang,
                urls=(page.url, fetched.final_url), scopes=[c.get("scope", "") for c in page.claims],
                page=fetched.final_url or page.url)
        return item

    def _restored(self, past: PagePast) -> Reading:
        reading = past.restored_reading()
        if reading.restored:
            self.crawler.stats.inc_value("sv/store/not_modified")
            if reading.ocr:
                self.crawler.stats.inc_value("sv/ocr/cache_hit")
        return reading
