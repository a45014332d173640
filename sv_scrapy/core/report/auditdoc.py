"""Everything the audit adds to its claim records before the reports are drawn, pure: the
transition since the previous audit, the page's own words for absent or changed claims, the
link to the playbook line, the reading method, and a triage priority."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.news import Transitions
from sv_scrapy.core.audit.outcomes import KeptOutcomes
from sv_scrapy.core.claims.claims import Claim
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.claims.sampling import score
from sv_scrapy.core.report.sourcelinks import SourceLinks

TEXT_METHODS = ("html", "pdf", "ocr", "rendered")


def text_method(detail: str, kind: str = "", rendered: bool = False) -> str | None:
    """How the text was read, in the contract's words; None when no text was read.

    >>> [text_method(d) for d in ("html", "text", "pdf:pypdfium2", "pdf:pdfminer", "ocr:tesseract", "")]
    ['html', 'html', 'pdf', 'pdf', 'ocr', None]
    >>> text_method("store (304 Not Modified)", kind="pdf"), text_method("html", rendered=True)
    ('pdf', 'rendered')
    """
    low = detail.lower()
    if "ocr" in low or "tesseract" in low:
        return "ocr"
    if rendered:
        return "rendered"
    if low.startswith("pdf"):
        return "pdf"
    if low in ("html", "text"):
        return "html"
    if low.startswith("store"):  # a 304: read as it was when stored
        return "pdf" if kind == "pdf" else "html" if kind in ("html", "text") else None
    return None


def priority(item: ClaimRecord, weights: Mapping[str, float], as_of: date) -> float:
    """The sampling score (stale marker, never verified, stamp age, statute/money): one rule
    for what a reviewer looks at first, in the worklist and in the report's backlog."""
    claim = Claim(id=item.get("id", ""), scope=item.get("scope", ""), section=item.get("section", ""),
                  line_no=item.get("line_no", 0), claim_text=item.get("claim_text", ""), values=item.get("values", []),
                  source_url=item.get("source_url", ""), source_host=item.get("source_host", ""),
                  source_tier=item.get("source_tier", ""), inline_stamp=item.get("inline_stamp"),
                  file=item.get("file", ""))
    return round(score(claim, weights, as_of, seed=0), 3)


class Enricher:
    """``enrich`` one claim at a time, in corpus order (the audit's finish streams its claims);
    ``ids`` are every claim id of the audit."""

    def __init__(self, *, previous: Mapping[str, Mapping[str, Any]], audited_scopes: Iterable[str],
                 ids: Collection[str], links: SourceLinks, pages: Mapping[str, Mapping[str, Any]],
                 weights: Mapping[str, float], as_of: date, spool_dir: Path | None = None) -> None:
        self.transitions = Transitions(previous, audited_scopes, ids, spool_dir)
        # url -> what the counts keep of its page (its kind read when a claim asks: no copy a URL)
        self.links, self.pages, self.weights, self.as_of = links, pages, weights, as_of

    def apply(self, item: ClaimRecord) -> None:
        self.transitions.apply(item)
        detail = str(item.get("text_method") or "")
        item["text_method_detail"] = detail
        kind = str((self.pages.get(item["source_url"]) or {}).get("kind") or "")
        item["text_method"] = text_method(detail, kind, bool(item.get("rendered")))
        item["source_line_url"] = self.links.url(str(item.get("file") or ""), int(item["line_no"]))
        item["priority"] = priority(item, self.weights, self.as_of)
        # after priority, where the document has always had them
        item["page_excerpt"], item["page_hint"] = item.pop("page_excerpt", ""), item.pop("page_hint", "")

    def kept(self) -> KeptOutcomes:
        """The per-claim outcomes to keep for the next audit (``core.audit.news.Transitions.kept``)."""
        return self.transitions.kept()

