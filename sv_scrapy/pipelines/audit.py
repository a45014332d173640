"""Write ``audit/audit.json``, ``report.md`` and ``report.html`` when the audit finishes.

Only a crawl that finished writes reports and closes its run in the journal; one that was
interrupted leaves the run open, so the next ``scrapy crawl audit`` resumes it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals

from sv_scrapy.core.atomic import write_json, write_text
from sv_scrapy.core.audit import audit_stats
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.report_html import render_html
from sv_scrapy.core.report_md import render_markdown
from sv_scrapy.extensions.outcome import record_failure, run_failure
from sv_scrapy.pipelines import require_job
from sv_scrapy.pipelines.export import unfetched_record

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from sv_scrapy.spiders.audit import AuditSpider


class AuditExportPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.records: dict[str, dict[str, Any]] = {}
        self.urls: dict[str, dict[str, Any]] = {}
        # spider_closed carries the finish reason; a pipeline's close_spider does not
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        require_job(crawler, "audit")
        return cls(crawler)

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        results = page["results"]
        for record in results:
            self.records.setdefault(record["id"], record)
        not_modified = page["not_modified"] or any(r.get("not_modified") for r in results)
        self.urls[page["url"]] = {"fetch_status": page["fetch_status"], "not_modified": not_modified}
        return item

    def spider_closed(self, spider: AuditSpider, reason: str) -> None:
        if reason != "finished":
            spider.logger.warning("audit interrupted (%(reason)s): no report written; the next run resumes",
                                  {"reason": reason})
            return
        try:
            self._write(spider)
        except OutputError as exc:
            record_failure(self.crawler, f"{exc}; the run stays open and the next one resumes it")

    def _write(self, spider: AuditSpider) -> None:
        failure = run_failure(self.crawler)
        items = [self.records.get(c["id"]) or unfetched_record(c, "not fetched") for c in spider.claims]
        run = spider.store.run_info()
        stats = audit_stats(items, self.urls)
        doc: dict[str, Any] = {
            "version": 1,
            "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "params": spider.params,
            "run": {"run_id": spider.run_id, "resumed": spider.resumed,
                    "previous_finished_at": run.get("previous_finished_at", "")},
            "complete": not failure,
            "problems": [failure] if failure else [],
            # store entries or texts that failed their check this run: set aside, fetched fresh
            "store_quarantined": spider.store.quarantined,
            "stats": stats,
            "items": items,
        }
        linter_rows = spider.linter_rows
        out = spider.report_dir
        write_json(out / "audit.json", doc)
        write_text(out / "report.md", render_markdown(doc, linter_rows))
        write_text(out / "report.html", render_html(doc, linter_rows))
        if spider.params["ci"] and os.environ.get("GITHUB_OUTPUT"):
            flagged = stats["tokens_absent"] + stats["content_changed"]
            lines = [f"{key}={stats[key]}" for key in ("tokens_absent", "stale_changed", "content_changed",
                                                        "unavailable", "dead")]
            lines += [f"flagged={flagged}", f"has_flags={'true' if flagged else 'false'}", f"report={out / 'report.md'}"]
            try:
                with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as fh:
                    fh.write("\n".join(lines) + "\n")
            except OSError as exc:
                raise OutputError(f"cannot append to $GITHUB_OUTPUT {os.environ['GITHUB_OUTPUT']}: "
                                  f"{exc.strerror or exc}") from None
        # the run is closed only once everything it promised is written
        spider.store.finish_run(spider.run_id)
        print(
            f"audit: {stats['claims']} claim(s) over {stats['urls']} URL(s); "
            f"⚠️ stale_changed {stats['stale_changed']}, TOKENS_ABSENT {stats['tokens_absent']}, "
            f"CONTENT_CHANGED {stats['content_changed']}, unavailable {stats['unavailable']}, "
            f"304 {stats['not_modified_urls']} ({stats['not_modified_pct']:g} %)\n"
            f"report: {out / 'report.md'}\n        {out / 'report.html'}",
            flush=True,
        )
