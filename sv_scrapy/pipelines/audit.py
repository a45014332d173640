"""Write ``audit/audit.json``, ``report.md``, ``report.html`` and ``issue.md`` when the audit
finishes; keep each claim's outcome and the audit's counts in the store for next month's news.

Only a crawl that finished writes reports and closes its run in the journal; one that was
interrupted leaves the run open, so the next ``scrapy crawl audit`` resumes it.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals

from sv_scrapy.core.atomic import append_lines, write_json, write_text
from sv_scrapy.core.audit import history
from sv_scrapy.core.audit.news import new_findings, news
from sv_scrapy.core.audit.stats import audit_stats
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.pagerecord import unfetched_record
from sv_scrapy.core.report.auditdoc import enrich
from sv_scrapy.core.report.report_html import render_html
from sv_scrapy.core.report.report_md import issue_markdown, render_markdown
from sv_scrapy.core.report.sourcelinks import resolve_links
from sv_scrapy.extensions.outcome import record_failure, run_failure
from sv_scrapy.pipelines import JobPipeline
from sv_scrapy.pipelines.archive import archive_document
from sv_scrapy.run import run_of

if TYPE_CHECKING:

    from scrapy import Spider
    from scrapy.crawler import Crawler

    from sv_scrapy.run import Run


class AuditExportPipeline(JobPipeline):
    job = "audit"

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.records: dict[str, dict[str, Any]] = {}
        self.urls: dict[str, dict[str, Any]] = {}
        # spider_closed carries the finish reason; a pipeline's close_spider does not
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        outcome = page["outcome"]
        for record in outcome.records:
            self.records.setdefault(record["id"], record)
        not_modified = page["fetched"].http_status == 304 or any(r.get("not_modified") for r in outcome.records)
        self.urls[page["url"]] = {"fetch_status": outcome.fetch_status, "not_modified": not_modified,
                                  "kind": page["kind"]}
        return item

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if reason == "output_failed":
            return  # the run's one error line says it (extensions.outcome.stop_for_output)
        if reason != "finished":
            spider.logger.warning("audit interrupted (%(reason)s): no report written; the next run resumes",
                                  {"reason": reason})
            return
        try:
            self._write(run_of(self.crawler))
        except OutputError as exc:
            record_failure(self.crawler, f"{exc}; the run stays open and the next one resumes it")

    def _write(self, run: Run) -> None:
        failure = run_failure(self.crawler)
        items = [self.records.get(c["id"]) or unfetched_record(c, "not fetched") for c in run.claims]
        store, config = run.store, run.runtime.config
        journal = store.run_info()
        generated_at = run.runtime.clock.iso()
        previous, scopes = store.claim_outcomes()
        kept = enrich(items, previous=previous, audited_scopes=scopes, page_text=store.text,
                      links=resolve_links(os.environ, config.report.source_url_template, run.runtime.corpus_root),
                      kinds={u: str(v.get("kind") or "") for u, v in self.urls.items()},
                      weights=config.sampling.weights, as_of=datetime.fromisoformat(generated_at).date())
        stats = audit_stats(items, self.urls)
        stats["archive"] = archive_document(self.crawler, items)  # then and now (pipelines.archive)
        stats["new_findings"] = new_findings(news(items))
        doc: dict[str, Any] = {
            "version": 1,
            "generated_at": generated_at,
            "params": run.params,
            "run": {"run_id": run.run_id, "resumed": run.resumed,
                    "previous_finished_at": journal.get("previous_finished_at", "")},
            "news_since": str(journal.get("previous_finished_at") or "") if scopes else "",
            "complete": not failure,
            "problems": [failure] if failure else [],
            # store entries or texts that failed their check this run: set aside, fetched fresh
            "store_quarantined": store.quarantined,
            # the store's format, and what the first run of a new release migrated
            "store": run.store_format.as_dict() if run.store_format else {},
            "stats": stats,
            "allowlist_candidates": run.allowlist_rows,
            "items": items,
        }
        line = history.entry(doc)
        past = history.appended(store.history(), line)
        doc["history"] = {"previous": history.previous(past, line), "current": line,
                          "trend": [{k: e[k] for k in ("at", "signals")} for e in past if e.get("country") == line["country"]]}
        linter_rows = run.linter_rows
        out = run.out_dir
        top_n = config.report.backlog_top_n
        write_json(out / "audit.json", doc)
        write_text(out / "report.md", render_markdown(doc, linter_rows, top_n))
        write_text(out / "report.html", render_html(doc, linter_rows))
        write_text(out / "issue.md", issue_markdown(doc, linter_rows, top_n))
        if run.params["ci"] and os.environ.get("GITHUB_OUTPUT"):
            # a claim both absent and changed is one flag, not two
            flagged = sum(1 for i in items if i["prior"] == "TOKENS_ABSENT" or i.get("content_changed"))
            lines = [f"{key}={stats[key]}" for key in ("tokens_absent", "stale_changed", "content_changed",
                                                        "unavailable", "dead", "new_findings")]
            lines += [f"flagged={flagged}", f"has_flags={'true' if flagged else 'false'}",
                      f"report={out / 'report.md'}", f"issue={out / 'issue.md'}"]
            append_lines(os.environ["GITHUB_OUTPUT"], lines, "$GITHUB_OUTPUT")
        # next month's news compares with this audit: kept only once every output is written,
        # and the run is closed last (until then the next run resumes it)
        store.save_claim_outcomes(kept, {**scopes, **{str(i["scope"]): generated_at for i in items}})
        store.save_history(past)
        store.finish_run(run.run_id)
        run.document_stats = stats
        since = doc["news_since"][:10]
        print(
            f"audit: {stats['claims']} claim(s) over {stats['urls']} URL(s); "
            + (f"new since {since}: {stats['new_findings']} finding(s); " if since else "first audit (baseline); ")
            + f"⚠️ stale_changed {stats['stale_changed']}, TOKENS_ABSENT {stats['tokens_absent']}, "
            f"unavailable {stats['unavailable']}, DEAD {stats['dead']}, "
            f"304 {stats['not_modified_urls']} ({stats['not_modified_pct']:g} %)\n"
            f"report: {out / 'report.md'}\n        {out / 'report.html'}\n        {out / 'issue.md'}"
            + (f"\nlog:    {log}" if (log := self.crawler.settings.get("LOG_FILE")) else ""),
            flush=True,
        )
