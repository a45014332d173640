"""The audit's documents when it finishes: the store's memory read, ``core.report.finish`` run
over it, and what it returns written — ``audit.json``, ``report.md``, ``report.html``,
``issue.md``, ``$GITHUB_OUTPUT`` — then each claim's outcome and the audit's counts kept in the
store for next month. The claim records are read back from the run's journal as the finish
asks for them (``core.audit.journal.JournalRecords``), never all held: what the crawl keeps of
each page until its end is the little the counts need (``urls``). Only a crawl that finished
writes reports and closes its run in the journal; one that was interrupted leaves the run open, so the next ``scrapy crawl audit``
resumes it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from sv_scrapy.core.audit.clockcheck import clock_behind
from sv_scrapy.core.audit.journal import JournalRecords
from sv_scrapy.core.audit.partfile import PART_FILE, write_part
from sv_scrapy.core.audit.spool import spool_dir
from sv_scrapy.core.audit.verdicts import read_verdicts, reports_dir
from sv_scrapy.core.report.finish import AuditInputs, finish_audit
from sv_scrapy.core.report.outputs import write_documents
from sv_scrapy.core.report.sourcelinks import corpus_commit, resolve_links
from sv_scrapy.extensions.outcome import run_failure
from sv_scrapy.items import page_of
from sv_scrapy.pipelines.archive import archive_inputs
from sv_scrapy.pipelines.export import ExportPipeline
from sv_scrapy.run.registry import LINK_VARIABLES, env, env_values

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from sv_scrapy.run.state import Run

logger = logging.getLogger(__name__)


class AuditExportPipeline(ExportPipeline):
    job = "audit"
    failure_suffix = "; the run stays open and the next one resumes it"

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.urls: dict[str, dict[str, Any]] = {}  # what the counts need of each page
        # equal ones are one shared dict (a few hundred distinct among 100,000 pages): held for the
        # whole crawl, a dict a page was ~185 bytes (~18 MB at 100,000); never changed once made
        self._shared: dict[tuple[Any, ...], dict[str, Any]] = {}

    def process_item(self, item: Any) -> Any:
        page = page_of(item)
        outcome = page.judged()
        counted = {"fetch_status": outcome.fetch_status, "kind": page.reading.kind, "note": outcome.note,
                   "not_modified": page.fetched.http_status == 304 or any(r.get("not_modified") for r in outcome.records)}
        self.urls[page.url] = self._shared.setdefault(tuple(counted.values()), counted)
        return item  # its records are in the journal (pipelines.store), read back at the finish

    def export(self, spider: Spider, run: Run, reason: str) -> None:
        if reason == "output_failed":
            return  # the run's one error line says it (extensions.outcome.stop_for_output)
        if reason != "finished":
            spider.logger.warning("audit interrupted (%(reason)s): no report written; the next run resumes",
                                  {"reason": reason})
            return
        store, config = run.store, run.runtime.config
        verdicts, warnings = read_verdicts(config.report.verify_reports or reports_dir(run.output_dir))
        for warning in warnings:
            logger.warning(warning)
        previous, scopes = store.claim_outcomes()
        archive_results, archive_enabled, archive_counts = archive_inputs(self.crawler)
        # the crawl's side of the finish's inputs (a part also hands them to its merge: core.audit.partfile)
        crawled: dict[str, Any] = {
            "records": JournalRecords(store, run.run_id, run.claims), "urls": self.urls, "failure": run_failure(self.crawler),
            "archive_results": archive_results, "archive_enabled": archive_enabled, "archive_counts": archive_counts,
            "quarantined": store.quarantined, "store_format": run.store_format.as_dict() if run.store_format else {},
            "allowlist_rows": run.allowlist_rows, "linter_rows": run.linter_rows}
        # one instant and one reading of the environment for the part file, the finish and the store
        generated_at, link_env = run.runtime.clock.iso(), env_values(LINK_VARIABLES)
        part, commit = run.params.get("part"), corpus_commit(link_env, run.runtime.corpus_root)
        if part:  # first, before the finish enriches the records: what `scrapy merge` joins
            write_part(run.output_dir / PART_FILE, part=part, corpus_index=run.corpus_index, inputs={
                **crawled, "claims": run.claims, "params": run.params, "run_id": run.run_id,
                "generated_at": generated_at, "corpus_commit": commit, "joined": store.joined_sites()})
        done = finish_audit(AuditInputs(
            claims=run.claims, params=run.params, run_id=run.run_id,
            resumed=run.resumed, generated_at=generated_at,
            links=resolve_links(link_env, config.report.source_url_template, run.runtime.corpus_root),
            weights=config.sampling.weights, backlog_top_n=config.report.backlog_top_n, out_dir=run.out_dir,
            journal=store.run_info(), previous=previous, scopes=scopes, history=store.history(),
            reviews=run.reviews, verdicts=verdicts, log_file=self.crawler.settings.get("LOG_FILE") or "",
            corpus_commit=commit, spool_dir=spool_dir(run.out_dir), **crawled))
        for verdict, count in done.doc["stats"]["archive"]["by_verdict"].items():
            self.crawler.stats.inc_value(f"sv/archive/verdict/{verdict}", count)
        if behind := clock_behind(done.doc):
            logger.warning(behind)
        write_documents(done, run.out_dir, env("GITHUB_OUTPUT") if run.params["ci"] else None)
        # next month's news compares with this audit: kept only once every output is written,
        # and the run is closed last (until then the next run resumes it). A part keeps neither:
        # its merge does, over the union (the store's memory stays the last whole audit's)
        if not part:
            store.save_claim_outcomes(done.kept, done.scopes)
            store.save_history(done.history)
        store.finish_run(run.run_id, done.doc["generated_at"])
        run.document_stats = done.doc["stats"]
        print(done.summary, flush=True)
