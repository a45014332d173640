"""``scrapy crawl worklist``: sample the claims (fetch-free), fetch only their URLs, write
``worklist.json`` for the LLM layer and print the ⚠️ ``TOKENS_ABSENT`` count."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import scrapy

from sv_scrapy.core.args import parse_bool, parse_date, parse_int
from sv_scrapy.core.atomic import append_lines
from sv_scrapy.core.audit.past import PagePast, load_past
from sv_scrapy.core.claims.sampling import select_sample
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.run.changedsince import base_runtime, check_changes
from sv_scrapy.run.corpusgit import resolve_revision
from sv_scrapy.run.heldclaims import HeldClaims
from sv_scrapy.run.registry import env
from sv_scrapy.run.runtime import Runtime
from sv_scrapy.run.state import Run
from sv_scrapy.spiders.base import ClaimSpider, Preflight


class WorklistSpider(ClaimSpider):
    name = "worklist"
    # a scalar switch only: a dict here would replace the project's whole dict (settings.py says why)
    custom_settings: dict[str, Any] | None = {"SV_JOB": "worklist"}
    ARGUMENTS = ("country", "section", "sample", "include_secondary", "seed", "as_of", "changed_since", "ci")
    ARGUMENT_DOCS = {  # the docs' reference reads these
        "country": "One scope: an ISO 3166 alpha-2 code or shared/<path>.",
        "section": "Only claims under headings containing this text.",
        "sample": "Claims sampled (default: sampling.default_sample).",
        "include_secondary": "1: keep non-primary citations too.",
        "seed": "The sample's random seed (default 1234): the same seed, the same sample.",
        "as_of": "The day stamp ages are measured at, YYYY-MM-DD (default: today).",
        "changed_since": ("A git revision of the corpus's repository: check only the claims changed since it "
                          "(the pull-request check; exit 3 on failing findings)."),
        "ci": "1 (with changed_since): GitHub annotations, the step summary and $GITHUB_OUTPUT lines.",
    }

    @classmethod
    def parse_arguments(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        cls.check_known(raw)
        if "ci" in raw and "changed_since" not in raw:
            raise ArgumentError("-a ci=: the worklist's CI outputs are the pull-request check's; "
                                "give -a changed_since=REF too")
        return {
            "country": (str(raw["country"]).strip() or None) if "country" in raw else None,
            "section": (str(raw["section"]).strip() or None) if "section" in raw else None,
            "sample": parse_int("-a sample=", raw["sample"]) if "sample" in raw else None,
            "include_secondary": parse_bool("-a include_secondary=", raw.get("include_secondary", "0")),
            "seed": parse_int("-a seed=", raw.get("seed", "1234")),
            # absent: the run's today (open_run), from the clock preflight starts
            "as_of": parse_date("-a as_of=", raw["as_of"]).isoformat() if "as_of" in raw else None,
            # the pull-request check: only the claims changed since this git revision
            "changed_since": str(raw["changed_since"]).strip() if "changed_since" in raw else None,
            "ci": parse_bool("-a ci=", raw.get("ci", "0")),
        }

    @classmethod
    def check_run(cls, rt: Runtime, params: Mapping[str, Any]) -> None:
        if params["changed_since"] is not None:  # a bad revision leaves before the store is touched (exit 2)
            resolve_revision(rt.corpus_root, params["changed_since"])
        if params["ci"]:  # the CI files are appended to at the end: proven appendable now
            for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
                if path := env(name):
                    append_lines(path, [], f"${name}")

    @classmethod
    def judged_by(cls, rt: Runtime, params: Mapping[str, Any]) -> Runtime:
        # the pull-request check: a change never supplies the rules it is judged by (the config
        # folder at REF: extraction, politeness and exclusions; sv_scrapy.run.baserules)
        return rt if params["changed_since"] is None else base_runtime(rt, params["changed_since"])

    def open_run(self, found: Preflight) -> Run:
        rt, p = found.runtime, found.params
        if p["as_of"] is None:
            p["as_of"] = rt.clock.today().isoformat()
        if p["changed_since"] is not None:
            return self.open_change_check(found)
        extraction = self.extraction(found)
        for problem in extraction.skipped:
            self.logger.warning("skipped %(problem)s", {"problem": problem})
        size = rt.config.sampling.default_sample if p["sample"] is None else p["sample"]
        chosen = select_sample(extraction.claims, size, rt.config.sampling.weights, date.fromisoformat(p["as_of"]),
                               p["seed"])
        p["sample"] = size
        p["claims_in_scope"] = len(extraction.claims)
        self.logger.info("selected %(n)d of %(total)d claims", {"n": len(chosen), "total": len(extraction.claims)})
        store, migration = self.open_store(found)
        return Run("worklist", rt, p, HeldClaims(c.as_dict() for c in chosen), store, rt.output_dir, store_format=migration)

    def open_change_check(self, found: Preflight) -> Run:
        """Only the claims the change touched are fetched; moves and removals fetch nothing."""
        rt, p = found.runtime, found.params
        check = check_changes(rt, p)
        p["changed_since_commit"] = check.revision.commit
        self.logger.info("changed since %(ref)s: %(n)d claim(s) to check, %(removed)d removed, %(moved)d moved",
                         {"ref": check.revision.commit[:12], "n": len(check.checked),
                          "removed": len(check.changes.removed), "moved": check.changes.moved})
        store, migration = self.open_store(found)
        run = Run("worklist", rt, p, HeldClaims(c.claim for c in check.checked), store, rt.output_dir, store_format=migration)
        run.change_check = check
        return run

    def past_of(self, url: str) -> PagePast | None:
        # the pull-request check over the monthly store: an unchanged page answers 304 (its stored
        # copy is read); the sampled worklist remembers nothing
        return load_past(self.run.store, url) if self.run.change_check is not None else None

    def request_for(self, url: str, render_reason: str = "", past: PagePast | None = None) -> scrapy.Request:
        request = super().request_for(url, render_reason, past)
        if past is not None and not request.meta.get("playwright"):  # a 304 would abort a browser's navigation
            request.headers.update(past.conditional_headers())
        return request
