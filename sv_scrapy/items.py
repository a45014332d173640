"""Items: one ``PageItem`` per distinct cited URL, carrying the claims that cite it.

Pipelines fill it stage by stage (text, PDF text, hashes, per-claim priors) and read it
through itemadapter, so they work on any item type that exposes the same fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PageItem:
    url: str  # as cited
    claims: list[dict[str, Any]]  # the claim records citing it
    fetch_status: str = ""  # OK | DEAD | BINARY | EXCLUDED | ROBOTS | UNAVAILABLE
    note: str = ""
    final_url: str = ""
    http_status: int = 0
    content_type: str = ""
    body: bytes | None = None  # dropped once text is extracted (kept for PDFs without text)
    truncated: bool = False
    etag: str = ""
    last_modified: str = ""
    fetched_at: str = ""
    rendered: bool = False
    attempts: int = 1
    kind: str = ""  # html | text | pdf | binary
    title: str = ""
    lang: str = ""  # the page's language as it declares it (Content-Language, <html lang>): a matching hint
    text: str = ""
    text_method: str = ""  # html | text | pdf:pypdfium2 | pdf:pdfminer | ocr
    pdf_no_text: bool = False
    ocr: dict[str, Any] | None = None  # a scan's OCR reading: confidence, pages read (core.ocr.OcrText.summary)
    content_hash: str = ""
    raw_hash: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)  # one claim record + prior each
    not_modified: bool = False  # a 304: the text comes from the content store
    from_journal: bool = False  # done earlier in this (resumed) run: results are final
