"""Write ``worklist.json`` atomically once the crawl closes; print the ⚠️ summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.audit.worklist import summary_lines, worklist_stats
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.pagerecord import unfetched_record
from sv_scrapy.extensions.outcome import record_failure, run_failure
from sv_scrapy.pipelines import JobPipeline
from sv_scrapy.run import run_of

if TYPE_CHECKING:

    from scrapy import Spider
    from scrapy.crawler import Crawler


class WorklistExportPipeline(JobPipeline):
    job = "worklist"

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.records: dict[str, dict[str, Any]] = {}
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    def process_item(self, item: Any) -> Any:
        for record in ItemAdapter(item)["outcome"].records:
            self.records.setdefault(record["id"], record)
        return item

    def spider_closed(self, spider: Spider, reason: str) -> None:
        why = "not fetched" if reason == "finished" else f"not fetched: the crawl ended early ({reason})"
        run = run_of(self.crawler)
        items = [self.records.get(c["id"]) or unfetched_record(c, why) for c in run.claims]
        stats = worklist_stats(items)
        path = run.out_dir / "worklist.json"
        failure = run_failure(self.crawler)
        try:
            write_json(path, {
                "version": 1,
                "generated_at": run.runtime.clock.iso(),
                "params": run.params,
                "complete": not failure,
                "problems": [failure] if failure else [],
                "stats": stats,
                "items": items,
            })
        except OutputError as exc:
            record_failure(self.crawler, str(exc))
            return
        print("\n".join(summary_lines(stats, str(path))), flush=True)
