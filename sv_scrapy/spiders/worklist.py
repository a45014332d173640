"""``scrapy crawl worklist``: sample the claims (fetch-free), fetch only their URLs, write
``worklist.json`` for the LLM layer and print the ⚠️ ``TOKENS_ABSENT`` count."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sv_scrapy.core.sampling import select_sample
from sv_scrapy.core.store import ContentStore
from sv_scrapy.spiders.base import ClaimSpider, parse_bool, parse_date, parse_int


class WorklistSpider(ClaimSpider):
    name = "worklist"
    # a scalar switch only: a dict here would replace the project's whole dict (STYLE.md)
    custom_settings: dict[str, Any] | None = {"SV_JOB": "worklist"}
    ARGUMENTS = ("country", "section", "sample", "include_secondary", "seed", "as_of")

    @classmethod
    def parse_arguments(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        cls.check_known(raw)
        return {
            "country": (str(raw["country"]).strip() or None) if "country" in raw else None,
            "section": (str(raw["section"]).strip() or None) if "section" in raw else None,
            "sample": parse_int("sample", raw["sample"]) if "sample" in raw else None,
            "include_secondary": parse_bool("include_secondary", raw.get("include_secondary", "0")),
            "seed": parse_int("seed", raw.get("seed", "1234")),
            "as_of": (parse_date("as_of", raw["as_of"]) if "as_of" in raw
                      else datetime.now(UTC).date()).isoformat(),
        }

    def select_claims(self) -> list[dict[str, Any]]:
        rt, p = self.runtime, self.params
        extraction = self.extract(rt, p)
        self.store = ContentStore(Path(self.output_dir) / "store")
        for problem in extraction.skipped:
            self.logger.warning("skipped %(problem)s", {"problem": problem})
        size = rt.config.sampling.default_sample if p["sample"] is None else p["sample"]
        chosen = select_sample(extraction.claims, size, rt.config.sampling.weights, date.fromisoformat(p["as_of"]),
                               p["seed"])
        p["sample"] = size
        p["claims_in_scope"] = len(extraction.claims)
        self.logger.info("selected %(n)d of %(total)d claims", {"n": len(chosen), "total": len(extraction.claims)})
        return [c.as_dict() for c in chosen]
