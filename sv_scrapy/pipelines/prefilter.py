"""Per-claim priors: one result record per claim citing the page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from itemadapter import ItemAdapter

from sv_scrapy.core.fetchstatus import BINARY, OK
from sv_scrapy.core.ocr import ocr_digits, ocr_prior
from sv_scrapy.core.pagescan import PageIndex
from sv_scrapy.core.prefilter import (
    PDF_NO_TEXT,
    SOURCE_BINARY,
    SOURCE_UNAVAILABLE,
    PrefilterSettings,
    Prior,
    prior_for_text,
    prior_without_text,
)
from sv_scrapy.runtime import load_cached

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler


def page_prior(page: ItemAdapter, values: list[dict[str, Any]], settings: PrefilterSettings,
               index: PageIndex | None) -> Prior:
    status = page["fetch_status"]
    if status == OK and page["pdf_no_text"]:
        return prior_without_text(values, PDF_NO_TEXT, page["note"])
    if status == OK and (index is not None or page["kind"] in ("html", "text", "pdf")):
        # an empty text is a thin page: prior_for_text says "indeterminate", never absent
        hosts = [urlsplit(page["url"]).hostname or "", urlsplit(page["final_url"] or page["url"]).hostname or ""]
        return prior_for_text(values, page["text"], hosts, settings, index)
    if status == OK:
        return prior_without_text(values, SOURCE_UNAVAILABLE, "page read but no text came out")
    if status == BINARY:
        return prior_without_text(values, SOURCE_BINARY, page["note"])
    return prior_without_text(values, SOURCE_UNAVAILABLE, page["note"])


class PrefilterPipeline:
    def __init__(self, crawler: Crawler, settings: PrefilterSettings, min_ocr_confidence: float = 70.0) -> None:
        self.crawler = crawler
        self.settings = settings
        self.min_ocr_confidence = min_ocr_confidence

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = load_cached(crawler.settings["SV_CONFIG_DIR"])
        fetch = config.fetch
        return cls(crawler, PrefilterSettings(
            excerpt_window_chars=fetch.excerpt_window_chars,
            max_excerpts=fetch.max_excerpts_per_claim,
            min_text_chars=fetch.min_text_chars,
            js_spa_hosts=fetch.js_spa_hosts,
        ), config.pdf.ocr_min_confidence)

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        if page["from_journal"]:
            return item
        text = page["text"] if page["fetch_status"] == OK else ""
        # the page decides the locale: its declared language and its host's country are hints
        host = urlsplit(page["final_url"] or page["url"]).hostname or ""
        index = (PageIndex(ocr_digits(text) if page["ocr"] else text,  # OCR digits: for matching only
                           lang=page["lang"] or None, host=host or None) if text else None)
        results = []
        for claim in page["claims"]:
            prior = page_prior(page, claim["values"], self.settings, index)
            if page["ocr"] and text:
                prior = ocr_prior(prior, page["ocr"], self.min_ocr_confidence)
            self.crawler.stats.inc_value(f"sv/prior/{prior.prior}")
            results.append(claim_record(claim, page, prior))
        page["results"] = results
        self.crawler.stats.inc_value(f"sv/fetch_status/{page['fetch_status']}")
        return item


def claim_record(claim: dict[str, Any], page: ItemAdapter, prior: Prior) -> dict[str, Any]:
    """The worklist item: the seed's fields first, then what a reviewer also wants."""
    record = {k: claim[k] for k in (
        "id", "scope", "section", "line_no", "claim_text", "values", "source_url", "source_host",
        "source_tier", "inline_stamp")}
    record.update({
        "fetch_status": page["fetch_status"],
        "prior": prior.prior,
        "matched_tokens": prior.matched_tokens,
        "strong_matched": prior.strong_matched,
        "missing_tokens": prior.missing_tokens,
        "excerpts": prior.excerpts,
        # extras
        "found_as": prior.found_as,
        "note": prior.note or page["note"],
        "file": claim.get("file", ""),
        "final_url": page["final_url"] or page["url"],
        "http_status": page["http_status"],
        "text_method": page["text_method"],
        "ocr_confidence": page["ocr"]["confidence"] if page["ocr"] else None,
        "content_hash": page["content_hash"],
        "fetched_at": page["fetched_at"],
        "rendered": page["rendered"],
    })
    return record
