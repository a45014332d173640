"""``scrapy crawl audit``: every claim of the corpus, every cited page re-read (conditional
requests: an unchanged page answers 304 and is taken from the store), settle-confirmed
change detection, fail streaks, and the triage report. ``-a ci=1`` writes the reports to
``_ci/source-verify/`` and appends ``key=value`` lines to ``$GITHUB_OUTPUT``. ``-a part=I/N``
audits only the claims whose cited host part I owns (``core.audit.parts``); ``scrapy merge``
joins the parts into the one audit.

Resumable: each URL's result is journalled in the content store as it completes; a run
killed halfway and started again with the same arguments fetches only what was left.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import scrapy

from sv_scrapy.core.args import parse_bool
from sv_scrapy.core.atomic import append_lines
from sv_scrapy.core.audit import reviewfile
from sv_scrapy.core.audit.journal import journal_outcome
from sv_scrapy.core.audit.parts import parse_part, part_of
from sv_scrapy.core.audit.past import PagePast, load_past
from sv_scrapy.core.claims.candidates import allowlist_candidates
from sv_scrapy.core.claims.linter import lint_corpus
from sv_scrapy.core.page.pagerecord import Fetched
from sv_scrapy.items import PageItem
from sv_scrapy.run.heldclaims import HeldClaims, drained
from sv_scrapy.run.registry import env
from sv_scrapy.run.runtime import PROJECT_DIR, Runtime
from sv_scrapy.run.state import Run
from sv_scrapy.spiders.base import ClaimSpider, Preflight


class AuditSpider(ClaimSpider):
    name = "audit"
    # a scalar switch only: a dict here would replace the project's whole dict (settings.py says why)
    custom_settings: dict[str, Any] | None = {"SV_JOB": "audit"}
    ARGUMENTS = ("country", "ci", "part")
    ARGUMENT_DOCS = {  # the docs' reference reads these
        "country": "One scope: an ISO 3166 alpha-2 code or shared/<path>.",
        "ci": "1: write the reports under SV_CI_DIR and key=value lines to $GITHUB_OUTPUT.",
        "part": ("I/N (1 <= I <= N <= 256): audit only the claims whose cited host's registrable domain "
                 "hashes to part I of N; merge the parts with `scrapy merge`."),
    }

    @classmethod
    def parse_arguments(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        cls.check_known(raw)
        return {
            "country": (str(raw["country"]).strip() or None) if "country" in raw else None,
            "ci": parse_bool("-a ci=", raw.get("ci", "0")),
            # kept as its text: the params travel into the journal and audit.json as they are
            "part": str(parse_part(raw["part"])) if "part" in raw else None,
        }

    def open_run(self, found: Preflight) -> Run:
        rt, params = found.runtime, found.params
        extraction = self.extraction(found)
        for problem in extraction.skipped:
            self.logger.warning("skipped %(problem)s", {"problem": problem})
        store, migration = self.open_store(found)
        part, in_corpus = part_of(params), len(extraction.claims)
        # the whole corpus's claims and hosts, in corpus order: what a merge of the parts needs
        corpus_index = [(c.id, c.source_host) for c in extraction.claims] if params["part"] else []
        # one claim at a time, each let go once encoded: the run holds them as JSON
        # (run.heldclaims), and the start, every claim object alive, is the run's first high-water mark
        dicts = (c.as_dict() for c in drained(extraction.claims))
        if part.whole:
            claims = HeldClaims(dicts)
        else:  # sites a redirect joined last month stay in one part (core.audit.parts)
            joined = store.joined_sites()
            claims = HeldClaims(c for c in dicts if part.owns(c["source_host"], joined))
            self.logger.info("part %(part)s: %(claims)d of %(all)d claim(s)",
                             {"part": part, "claims": len(claims), "all": in_corpus})
        journal_params = {"country": params["country"], "corpus": str(rt.corpus_root)}
        if params["part"]:  # an audit without -a part keeps its journal as it was: an older run still resumes
            journal_params["part"] = params["part"]
        run_id, resumed = store.begin_run(journal_params)
        if resumed:
            self.logger.info("resuming unfinished audit run %(run)s", {"run": run_id})
        return Run(
            "audit", rt, params, claims, store,
            self.report_dir_for(self.crawler.settings, rt.output_dir, params["ci"]), run_id=run_id, resumed=resumed,
            store_format=migration, corpus_index=corpus_index,
            # the portal-root linter's backlog rides along in the report (static, no network)
            linter_rows=[r.as_dict() for r in lint_corpus(rt.corpus_root, rt.config.hosts,
                                                          rt.extract_options(country=params["country"]),
                                                          rt.config.linter.root_url_allowlist)],
            # proposals for the maintainer, never promoted: secondary hosts that look official
            allowlist_rows=[r.as_dict() for r in allowlist_candidates(extraction.secondary_cited)],
            # the maintainer's reviews (checked by preflight): what stays quiet until the page changes
            reviews=reviewfile.load(rt.config.config_dir))

    @classmethod
    def check_run(cls, rt: Runtime, params: Mapping[str, Any]) -> None:
        reviewfile.load(rt.config.config_dir)  # a bad reviewed-findings file: one line, exit 2

    @staticmethod
    def report_dir_for(settings: Mapping[str, Any], output_dir: Path, ci: bool) -> Path:
        if ci:
            return Path(settings.get("SV_CI_DIR") or PROJECT_DIR / "_ci" / "source-verify")
        return output_dir / "audit"

    @classmethod
    def output_folders(cls, settings: Mapping[str, Any], rt: Runtime, params: Mapping[str, Any]) -> list[tuple[Path, str]]:
        folders = [*super().output_folders(settings, rt, params),
                   (rt.output_dir / "store", "the content store"),
                   (cls.report_dir_for(settings, rt.output_dir, params["ci"]),
                    "the CI report folder (SV_CI_DIR)" if params["ci"] else "the report folder")]
        github_output = env("GITHUB_OUTPUT")
        if params["ci"] and github_output:
            append_lines(github_output, [], "$GITHUB_OUTPUT")
        return folders

    def past_of(self, url: str) -> PagePast:
        # the one read of the URL's past this run: it rides on the request, then on the item
        return load_past(self.run.store, url)

    def request_for(self, url: str, render_reason: str = "", past: PagePast | None = None) -> scrapy.Request:
        past = past or PagePast(url)
        if past.rendered and not render_reason:
            # a script-built page: its shell answering 304 says nothing about the data its
            # script loads, so it is rendered again, whole, every run
            render_reason = "rendered on the previous run"
        request = super().request_for(url, render_reason, past)
        if request.meta.get("playwright"):
            return request  # no conditional headers in the browser: a 304 aborts the navigation
        request.headers.update(past.conditional_headers())
        return request

    def done_earlier(self, url: str, past: PagePast | None) -> PageItem | None:
        # only a resumed run has a journal to read
        run, entry = self.run, past.entry if past is not None else None
        if not run.resumed or entry is None or entry.run_id != run.run_id:
            return None
        self.crawler.stats.inc_value("sv/audit/resumed_from_journal")
        run.pages_done["journal"] += 1
        return PageItem(url=url, claims=run.claims_of(url), from_journal=True,
                        fetched=Fetched(url, self.now()), outcome=journal_outcome(entry))
