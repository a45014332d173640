"""``scrapy crawl worklist``: sample the claims (fetch-free), fetch only their URLs, write
``worklist.json`` for the LLM layer and print the ⚠️ ``TOKENS_ABSENT`` count."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from sv_scrapy.core.args import parse_bool, parse_date, parse_int
from sv_scrapy.core.claims.sampling import select_sample
from sv_scrapy.crawlstate import Run
from sv_scrapy.runtime import Runtime, process_clock
from sv_scrapy.spiders.base import ClaimSpider


class WorklistSpider(ClaimSpider):
    name = "worklist"
    # a scalar switch only: a dict here would replace the project's whole dict (settings.py says why)
    custom_settings: dict[str, Any] | None = {"SV_JOB": "worklist"}
    ARGUMENTS = ("country", "section", "sample", "include_secondary", "seed", "as_of")
    ARGUMENT_DOCS = {  # the docs' reference reads these
        "country": "One scope: an ISO 3166 alpha-2 code or shared/<path>.",
        "section": "Only claims under headings containing this text.",
        "sample": "Claims sampled (default: sampling.default_sample).",
        "include_secondary": "1: keep non-primary citations too.",
        "seed": "The sample's random seed (default 1234): the same seed, the same sample.",
        "as_of": "The day stamp ages are measured at, YYYY-MM-DD (default: today).",
    }

    @classmethod
    def parse_arguments(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        cls.check_known(raw)
        return {
            "country": (str(raw["country"]).strip() or None) if "country" in raw else None,
            "section": (str(raw["section"]).strip() or None) if "section" in raw else None,
            "sample": parse_int("-a sample=", raw["sample"]) if "sample" in raw else None,
            "include_secondary": parse_bool("-a include_secondary=", raw.get("include_secondary", "0")),
            "seed": parse_int("-a seed=", raw.get("seed", "1234")),
            "as_of": (parse_date("-a as_of=", raw["as_of"]) if "as_of" in raw
                      else process_clock().today()).isoformat(),
        }

    def open_run(self, rt: Runtime, params: dict[str, Any]) -> Run:
        p = params
        extraction = self.extract(rt, p)
        for problem in extraction.skipped:
            self.logger.warning("skipped %(problem)s", {"problem": problem})
        size = rt.config.sampling.default_sample if p["sample"] is None else p["sample"]
        chosen = select_sample(extraction.claims, size, rt.config.sampling.weights, date.fromisoformat(p["as_of"]),
                               p["seed"])
        p["sample"] = size
        p["claims_in_scope"] = len(extraction.claims)
        self.logger.info("selected %(n)d of %(total)d claims", {"n": len(chosen), "total": len(extraction.claims)})
        store, migration = self.open_store(rt)
        return Run("worklist", rt, p, [c.as_dict() for c in chosen], store, rt.output_dir, store_format=migration)
