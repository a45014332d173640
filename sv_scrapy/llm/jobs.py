"""What ``scrapy verify`` sends for each item, and which items: a worklist, or an audit's flags.

Per page kind (the README's table):

* HTML, rendered pages, PDFs with a text layer, scans the crawl OCR'd: the claim and the page
  evidence (excerpts, or the start of the stored text) as text; the quote is checked against
  the stored text (for OCR text, with the same normalisation);
* a scan with no OCR text: the PDF's bytes as a ``document`` block, without citations (the
  API cannot cite into page images); a quoted verdict is capped at ``INDETERMINATE``;
* a PDF over the API's 100 pages or 32 MB, or a page never read: no call;
* a claim with a ``proposed_source`` (where the site states its figure now, issue #38) whose page's text
  the store keeps: a second request judging that page (``proposed_key``), checked against that text, so a
  reviewer sees the model's verdict on both pages.

No network, no SDK: the store is read through its public methods.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.store import ContentStore
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.core.page.pdf import pdf_to_text
from sv_scrapy.llm.evidence import evidence
from sv_scrapy.llm.prompts import Shape, build_params

PDF_PRIORS = ("PDF_NO_TEXT", "SOURCE_BINARY")
API_PDF_MAX_PAGES = 100  # the Messages API reads at most 100 PDF pages a request
API_REQUEST_MAX_BYTES = 32_000_000  # and takes at most 32 MB a request
FLAGS = {"TOKENS_ABSENT": "TOKENS_ABSENT", "STALE_CHANGED": "stale_changed", "CONTENT_CHANGED": "CONTENT_CHANGED"}
SCAN_UNCHECKED = "a scanned PDF without OCR text, sent as a document; the API cannot cite into page images"
REQUIRED = ("id", "scope", "line_no", "source_url", "claim_text", "prior")
PROPOSED = "@proposed"  # a job key's suffix: the claim judged against its proposed page


def proposed_key(claim_id: str) -> str:
    return f"{claim_id}{PROPOSED}"


def proposed_item(item: ClaimRecord) -> ClaimRecord | None:
    """The claim as its proposed page would cite it (None when nothing was proposed)."""
    found = item.get("proposed_source") or {}
    url = str(found.get("url") or "")
    if not url:
        return None
    proposed: ClaimRecord = {**item, "source_url": url, "final_url": url, "prior": "TOKENS_PRESENT",
                             "excerpts": [str(found.get("excerpt") or "")], "figure_link": found.get("link")}
    return proposed


def load_items(path: Path, what: str) -> dict[str, Any]:
    """A worklist or an audit document (``{"items": [...]}``); a bad file is one line, exit 2."""
    hint = "run `scrapy crawl worklist` first" if what == "worklist" else "run `scrapy crawl audit` first"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArgumentError(f"{path}: {what} not found ({hint})") from None
    except (OSError, ValueError) as exc:
        raise ArgumentError(f"{path}: not a readable {what} JSON ({str(exc).splitlines()[0][:80]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        raise ArgumentError(f"{path}: not a {what} (no 'items' list)")
    for i, item in enumerate(doc["items"]):
        missing = [k for k in REQUIRED if not isinstance(item, dict) or k not in item]
        if missing:
            raise ArgumentError(f"{path}: items[{i}] lacks {', '.join(missing)}")
    return doc


def parse_only(raw: str | None) -> tuple[str, ...]:
    """``--only TOKENS_ABSENT,stale_changed,CONTENT_CHANGED`` (any case); default all three."""
    if raw is None:
        return tuple(FLAGS.values())
    out = []
    for token in (t.strip() for t in raw.split(",")):
        if token.upper() not in FLAGS:
            raise ArgumentError(f"--only {token!r}: expected TOKENS_ABSENT, stale_changed or CONTENT_CHANGED")
        out.append(FLAGS[token.upper()])
    return tuple(dict.fromkeys(out))


def flagged(item: ClaimRecord, only: Sequence[str]) -> bool:
    """Does the audit flag ``item`` with one of ``only``?"""
    return (("TOKENS_ABSENT" in only and item.get("prior") == "TOKENS_ABSENT")
            or ("stale_changed" in only and bool(item.get("stale_changed")))
            or ("CONTENT_CHANGED" in only and bool(item.get("content_changed"))))


def select(items: Sequence[ClaimRecord], *, only: Sequence[str] | None = None, country: str | None = None,
           count: int | None = None) -> list[ClaimRecord]:
    """Distinct ids in file order, filtered by flag and scope, the first ``count``."""
    out: list[ClaimRecord] = []
    seen: set[str] = set()
    for item in items:
        if item["id"] in seen:
            continue
        if country and str(item["scope"]).lower() != country.lower():
            continue
        if only is not None and not flagged(item, only):
            continue
        seen.add(item["id"])
        out.append(item)
    return out[:count] if count else out


@dataclass
class Plan:
    """The requests to send and what each answer is checked against."""

    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    texts: dict[str, str | None] = field(default_factory=dict)  # text quotes are checked against
    unchecked: dict[str, str] = field(default_factory=dict)  # why a quote cannot be checked
    pdf_pages: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)  # no call: (verdict, note)
    methods: dict[str, str] = field(default_factory=dict)  # what was sent: text, ocr, pdf-scan


def plan_jobs(items: Sequence[ClaimRecord], store: ContentStore, shape: Shape, evidence_chars: int) -> Plan:
    plan = Plan()
    for item in items:
        key, url = item["id"], item["source_url"]
        if item["prior"] == "SOURCE_UNAVAILABLE" or item.get("fetch_status") not in ("OK", "BINARY", None):
            plan.skipped[key] = ("SOURCE_UNAVAILABLE",
                                 f"the page was not read ({item.get('note') or item.get('fetch_status')})")
            continue
        text = store.text(url)
        ocr = item.get("text_method") == "ocr" or (item["prior"] in PDF_PRIORS and bool(text))
        pdf_path = store.pdf_path(url)
        if item["prior"] in PDF_PRIORS and not text and not pdf_path.is_file():
            plan.skipped[key] = ("SOURCE_UNAVAILABLE", "the PDF's bytes are not in the content store: nothing to send")
            continue
        if item["prior"] in PDF_PRIORS and not text:
            data = pdf_path.read_bytes()
            read = pdf_to_text(data)
            if read.has_text:  # a PDF with a text layer: its text is the evidence, checked like a page
                text = read.text
            elif read.pages > API_PDF_MAX_PAGES or len(data) * 4 // 3 > API_REQUEST_MAX_BYTES:
                plan.skipped[key] = ("INDETERMINATE", f"not sent: a {read.pages}-page, {len(data) / 1e6:.1f} MB "
                                     f"scanned PDF is over the API's limits ({API_PDF_MAX_PAGES} pages, 32 MB)")
                continue
            else:
                plan.jobs[key] = build_params(item, shape, pdf=data)
                plan.unchecked[key] = SCAN_UNCHECKED
                plan.pdf_pages[key] = max(1, read.pages)
                plan.methods[key] = "pdf-scan"
                continue
        plan.texts[key] = text if text is not None else "\n".join(item.get("excerpts") or []) or None
        plan.jobs[key] = build_params(item, shape, evidence(item, text, evidence_chars), ocr=ocr)
        plan.methods[key] = "ocr" if ocr else "text"
    for item in items:
        _plan_proposed(plan, item, store, shape, evidence_chars)
    return plan


def _plan_proposed(plan: Plan, item: ClaimRecord, store: ContentStore, shape: Shape, evidence_chars: int) -> None:
    """The proposed page's request, when the store keeps its text (the crawl keeps every proposed page's)."""
    proposed = proposed_item(item)
    kept = store.extra(proposed["source_url"]) if proposed is not None else None
    if proposed is None or kept is None:
        return
    key, text = proposed_key(item["id"]), kept[1]
    plan.texts[key] = text
    plan.jobs[key] = build_params(proposed, shape, evidence(proposed, text, evidence_chars))
    plan.methods[key] = "text"

