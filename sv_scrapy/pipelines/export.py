"""The job's documents, written once the crawl closes: one base (``ExportPipeline``: the claim
records collected by id, the close signal, a failed write as the run's failure) and the
worklist's shell over it. The audit's is ``pipelines/auditexport.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import signals

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.pagerecord import unfetched_record
from sv_scrapy.core.report.worklistsummary import summary_lines, worklist_stats
from sv_scrapy.extensions.outcome import record_failure, run_failure
from sv_scrapy.items import page_of
from sv_scrapy.pipelines import JobPipeline
from sv_scrapy.pipelines.prcheck import export_changes
from sv_scrapy.run.state import Run, run_of

if TYPE_CHECKING:

    from scrapy import Spider
    from scrapy.crawler import Crawler


class ExportPipeline(JobPipeline):
    """Collects each claim's record; at the close, ``export`` writes the documents. A write that
    fails is the run's failure (its one line); ``failure_suffix`` says what that leaves behind."""

    failure_suffix = ""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.records: dict[str, ClaimRecord] = {}
        # spider_closed carries the finish reason; a pipeline's close_spider does not
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    def process_item(self, item: Any) -> Any:
        for record in page_of(item).records():
            self.records.setdefault(record["id"], record)
        return item

    def spider_closed(self, spider: Spider, reason: str) -> None:
        try:
            self.export(spider, run_of(self.crawler), reason)
        except OutputError as exc:
            record_failure(self.crawler, f"{exc}{self.failure_suffix}")

    def export(self, spider: Spider, run: Run, reason: str) -> None:  # pragma: no cover
        raise NotImplementedError


class WorklistExportPipeline(ExportPipeline):
    """``worklist.json`` and the ⚠️ summary."""

    job = "worklist"

    def export(self, spider: Spider, run: Run, reason: str) -> None:
        why = "not fetched" if reason == "finished" else f"not fetched: the crawl ended early ({reason})"
        items = [self.records.get(c["id"]) or unfetched_record(c, why) for c in run.claims]
        if run.change_check is not None:
            export_changes(run, run.change_check, items, run_failure(self.crawler))
            return
        stats, path, failure = worklist_stats(items), run.out_dir / "worklist.json", run_failure(self.crawler)
        write_json(path, {"version": 1, "generated_at": run.runtime.clock.iso(), "params": run.params,
                          "complete": not failure, "problems": [failure] if failure else [], "stats": stats,
                          "items": items})
        print("\n".join(summary_lines(stats, str(path))), flush=True)
