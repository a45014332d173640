"""``scrapy crawl audit``: every claim of the corpus, every cited page re-read (conditional
requests: an unchanged page answers 304 and is taken from the store), settle-confirmed
change detection, fail streaks, and the triage report. ``-a ci=1`` writes the reports to
``_ci/source-verify/`` and appends ``key=value`` lines to ``$GITHUB_OUTPUT``.

Resumable: each URL's result is journalled in the content store as it completes; a run
killed halfway and started again with the same arguments fetches only what was left.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import scrapy

from sv_scrapy.core.candidates import allowlist_candidates
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.linter import lint_corpus
from sv_scrapy.core.pagerecord import Fetched, journal_outcome
from sv_scrapy.core.store import ContentStore
from sv_scrapy.items import PageItem
from sv_scrapy.runtime import PROJECT_DIR, Runtime
from sv_scrapy.spiders.base import ClaimSpider, now_iso, parse_bool


class AuditSpider(ClaimSpider):
    name = "audit"
    # a scalar switch only: a dict here would replace the project's whole dict (STYLE.md)
    custom_settings: dict[str, Any] | None = {"SV_JOB": "audit"}
    ARGUMENTS = ("country", "ci")

    store: ContentStore
    run_id: str
    linter_rows: list[dict[str, object]]
    allowlist_rows: list[dict[str, object]]
    resumed: bool

    @classmethod
    def parse_arguments(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        cls.check_known(raw)
        return {
            "country": (str(raw["country"]).strip() or None) if "country" in raw else None,
            "ci": parse_bool("ci", raw.get("ci", "0")),
        }

    def select_claims(self) -> list[dict[str, Any]]:
        extraction = self.extract(self.runtime, self.params)
        for problem in extraction.skipped:
            self.logger.warning("skipped %(problem)s", {"problem": problem})
        rt = self.runtime
        # the portal-root linter's backlog rides along in the report (static, no network)
        self.linter_rows = [r.as_dict() for r in lint_corpus(
            rt.corpus_root, rt.config.hosts, rt.extract_options(country=self.params["country"]),
            rt.config.root_url_allowlist)]
        # proposals for the maintainer, never promoted: secondary hosts that look official
        self.allowlist_rows = [r.as_dict() for r in allowlist_candidates(extraction.secondary_cited)]
        self.store = ContentStore(Path(self.output_dir) / "store")
        self.run_id, self.resumed = self.store.begin_run(
            {"country": self.params["country"], "corpus": str(self.runtime.corpus_root)})
        if self.resumed:
            self.logger.info("resuming unfinished audit run %(run)s", {"run": self.run_id})
        return [c.as_dict() for c in extraction.claims]

    @staticmethod
    def report_dir_for(settings: Mapping[str, Any], output_dir: Path, ci: bool) -> Path:
        if ci:
            return Path(settings.get("SV_CI_DIR") or PROJECT_DIR / "_ci" / "source-verify")
        return output_dir / "audit"

    @property
    def report_dir(self) -> Path:
        return self.report_dir_for(self.crawler.settings, Path(self.output_dir), self.params["ci"])

    @classmethod
    def output_folders(cls, settings: Mapping[str, Any], rt: Runtime, params: Mapping[str, Any]) -> list[tuple[Path, str]]:
        folders = [*super().output_folders(settings, rt, params),
                   (rt.output_dir / "store", "the content store"),
                   (cls.report_dir_for(settings, rt.output_dir, params["ci"]),
                    "the CI report folder (SV_CI_DIR)" if params["ci"] else "the report folder")]
        github_output = os.environ.get("GITHUB_OUTPUT")
        if params["ci"] and github_output:
            try:
                with open(github_output, "a", encoding="utf-8"):
                    pass
            except OSError as exc:
                raise OutputError(f"cannot append to $GITHUB_OUTPUT {github_output}: {exc.strerror or exc}") from None
        return folders

    def request_for(self, url: str, render_reason: str = "") -> scrapy.Request:
        entry = self.store.load(url)
        if entry and entry.rendered and not render_reason:
            # a script-built page: its shell answering 304 says nothing about the data its
            # script loads, so it is rendered again, whole, every run
            render_reason = "rendered on the previous run"
        request = super().request_for(url, render_reason)
        if request.meta.get("playwright"):
            return request  # no conditional headers in the browser: a 304 aborts the navigation
        if entry and entry.fetch_status == "OK" and self.store.text(url) is not None:
            if entry.etag:
                request.headers["If-None-Match"] = entry.etag
            if entry.last_modified:
                request.headers["If-Modified-Since"] = entry.last_modified
        return request

    async def start(self) -> AsyncIterator[Any]:
        async for thing in super().start():
            if isinstance(thing, scrapy.Request):
                entry = self.store.load(thing.url)
                if self.resumed and entry is not None and entry.run_id == self.run_id:
                    self.crawler.stats.inc_value("sv/audit/resumed_from_journal")
                    yield PageItem(url=thing.url, claims=self._claims_of(thing.url), from_journal=True,
                                   fetched=Fetched(thing.url, now_iso()), outcome=journal_outcome(entry))
                    continue
            yield thing
