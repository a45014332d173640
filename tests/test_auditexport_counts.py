"""What the audit's export keeps of each page for the whole crawl (issue #42): the few fields the
counts need, one shared dict for equal pages, not a dict a page."""

from __future__ import annotations

from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome
from sv_scrapy.core.page.reader import Reading
from sv_scrapy.items import PageItem
from sv_scrapy.pipelines.auditexport import AuditExportPipeline


def page(i: int, status: int = 200) -> PageItem:
    url = f"https://h{i % 7}.example.gouv.fr/page/{i}"
    return PageItem(url=url, claims=[], fetched=Fetched(url=url, fetched_at="2027-02-01T03:17:00+00:00", http_status=status),
                    reading=Reading(kind="html"), outcome=PageOutcome("OK", "", [], "OK"))


def test_equal_pages_share_one_counted_dict() -> None:
    pipeline = build_from_crawler(AuditExportPipeline, get_crawler(settings_dict={"SV_JOB": "audit"}))
    for i in range(1_000):
        pipeline.process_item(page(i, 304 if i % 10 == 0 else 200))
    assert len(pipeline.urls) == 1_000
    assert len({id(counted) for counted in pipeline.urls.values()}) == 2  # 200 and 304
    assert pipeline.urls["https://h0.example.gouv.fr/page/70"] == {"fetch_status": "OK", "kind": "html", "note": "",
                                                                   "not_modified": True}
