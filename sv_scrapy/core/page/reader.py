"""The one reader: fetched bytes and their Content-Type -> a :class:`Reading`.

Pages, their frames, the documents they link to and archived captures are all read here, the
same way: the kind by magic bytes then the declared type, HTML/XHTML/plain text through the
charset fallback (``core.page.charset``), a PDF's text layer, a scan through OCR, the caps.
What a body could not give is named (``pdf``, ``note``); ``core.page.pagerecord`` says what that
makes the page. Pure but for the scan: OCR needs the content store's cache and its languages,
so the caller hands in ``read_scan`` (None: OCR off). PDF parsing and OCR are slow; a caller on
an event loop runs :func:`read_body` in a worker when :func:`slow_to_read` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sv_scrapy.core.page.ocr import OcrText, needs_ocr
from sv_scrapy.core.page.outlinks import tree_frames, tree_links
from sv_scrapy.core.page.pdf import is_pdf, pdf_to_text
from sv_scrapy.core.page.shape import LineShape
from sv_scrapy.core.page.shell import shell_signs
from sv_scrapy.core.page.text import decode_body, html_lang, html_tree, tree_reading

_TEXTUAL = ("text/", "application/xhtml", "application/xml", "application/json", "application/ld+json")

# the bytes of a scan -> (its OCR reading, or None when OCR could not run; a note on what happened)
ScanReader = Callable[[bytes], tuple[OcrText | None, str]]


@dataclass(frozen=True)
class Reading:
    """What was read out of a body (or the store, for a 304): the item's one record of it."""

    kind: str = ""  # html | text | pdf | binary; "" when nothing was read
    text: str = ""
    text_method: str = ""  # html | text | pdf:pypdfium2 | pdf:pdfminer | ocr | store (304 Not Modified)
    lang: str = ""
    pdf: str = ""  # "" | disabled | cut | no_text
    note: str = ""  # the reader's own note (OCR, a PDF without text)
    ocr: Mapping[str, Any] | None = None
    content_hash: str = ""
    restored: bool | None = None  # a 304: True when the store had a copy; None when no store was asked
    charset: str = ""  # the encoding the body was read in ("" when it was not read as text)
    charset_source: str = ""  # who said so (core.page.charset.Decoded.source)
    frames: tuple[tuple[str, str], ...] = ()  # (URL, text) of the frames whose text follows the page's
    shapes: tuple[LineShape, ...] = ()  # an HTML page: where each line of its own text stands (core.page.shape)
    # a page's own HTML (read_body's ``page``), from the same parse as its text:
    links: tuple[tuple[str, str], ...] = ()  # (URL, link text) of its same-host links (one hop, discovery)
    frame_urls: tuple[str, ...] = ()  # its same-site frames (core.page.outlinks.FRAME_LIMIT at most)
    shell: tuple[str, ...] = ()  # why it looks like a JavaScript shell (read_body's ``shell_below``)


@dataclass(frozen=True)
class ReadLimits:
    """The config the reader needs (built from ``config.py`` by ``runtime.read_limits``)."""

    binary_prefixes: tuple[str, ...] = ()
    pdf_enabled: bool = True
    pdf_max_pages: int = 0


def classify(body: bytes, content_type: str, binary_prefixes: tuple[str, ...] = ()) -> str:
    """``pdf`` | ``binary`` | ``html`` | ``text``: magic bytes first, then the declared type.

    HTML served at a ``.pdf`` URL is HTML; a PDF served as octet-stream is a PDF.

    >>> classify(b"%PDF-1.7 ...", "application/octet-stream"), classify(b"<p>x</p>", "text/html; charset=utf-8")
    ('pdf', 'html')
    >>> classify(b"a,b", "text/csv"), classify(b"PK..", "application/zip"), classify(b"<p>", "")
    ('text', 'binary', 'html')
    """
    ctype = content_type.split(";", 1)[0].strip().lower()
    if is_pdf(body):
        return "pdf"
    if "html" in ctype or "xml" in ctype or not ctype:
        return "html"
    if ctype.startswith(_TEXTUAL):
        return "text"
    if any(ctype.startswith(p) for p in binary_prefixes) or ctype.startswith("application/"):
        return "binary"
    return "html" if body.lstrip()[:1] == b"<" else "binary"


def slow_to_read(body: bytes) -> bool:
    """A PDF (its parse, perhaps OCR) takes long enough to be read off the event loop."""
    return is_pdf(body)


def read_body(body: bytes, content_type: str, limits: ReadLimits, *, truncated: bool = False, lang: str = "",
              read_scan: ScanReader | None = None, page: str = "", shell_below: int = 0) -> Reading:
    """The reading of one fetched body; ``lang`` is what the response's headers declared.

    A page's own body (``page``: its URL after redirects) is decoded and parsed once for all its
    reader needs: its text and line shapes, its links and frames, and with ``shell_below`` (the
    characters of text a page has at least, ``fetch.min_text_chars``) the signs of a JavaScript shell.

    >>> r = read_body("<html lang='fr'><p>Droit : 1 500 €</p></html>".encode("cp1252"), "text/html", ReadLimits())
    >>> (r.kind, r.text, r.text_method, r.lang, r.charset_source)
    ('html', 'Droit : 1 500 €', 'html', 'fr', 'default')
    >>> read_body(b"%PDF-1.4 cut", "application/pdf", ReadLimits(), truncated=True).pdf
    'cut'
    """
    kind = classify(body, content_type, limits.binary_prefixes)
    if kind == "pdf":
        return _read_pdf(body, limits, truncated, lang, read_scan)
    if kind not in ("html", "text"):
        return Reading(kind=kind, lang=lang)
    decoded = decode_body(body, content_type or None, truncated=truncated)
    if kind == "text":
        return Reading(kind=kind, text=decoded.text, text_method=kind, lang=lang, charset=decoded.encoding,
                       charset_source=decoded.source)
    root = html_tree(decoded.text)
    shaped = tree_reading(root)  # the text and where each line stands (a figure's context: core.page.context)
    reading = Reading(kind=kind, text=shaped.text, text_method=kind, lang=lang or html_lang(decoded.text),
                      charset=decoded.encoding, charset_source=decoded.source, shapes=shaped.shapes)
    if not page:  # a frame, a linked document, a capture: its text is all
        return reading
    shell = shell_signs(decoded.text, shaped.text, shell_below, page) if shell_below else []
    return replace(reading, links=tuple(tree_links(root, page)), frame_urls=tuple(tree_frames(root, page)),
                   shell=tuple(shell))


def _read_pdf(body: bytes, limits: ReadLimits, truncated: bool, lang: str, read_scan: ScanReader | None) -> Reading:
    # what is not read is named here; core.page.pagerecord says what that makes the page
    if not limits.pdf_enabled:
        return Reading(kind="pdf", lang=lang, pdf="disabled")
    if truncated:
        return Reading(kind="pdf", lang=lang, pdf="cut")
    result = pdf_to_text(body, limits.pdf_max_pages)
    ocr_note = ""
    if read_scan is not None and not result.error and needs_ocr(result.text, result.pages):
        ocr, ocr_note = read_scan(body)
        # the OCR reading wins only when it clearly says more than the thin text layer
        if ocr is not None and len(ocr.text.split()) > 2 * len(result.text.split()):
            return Reading(kind="pdf", text=ocr.text, text_method="ocr", lang=lang, note=ocr.note(), ocr=ocr.summary())
    if result.has_text:
        return Reading(kind="pdf", text=result.text, text_method=f"pdf:{result.method}", lang=lang)
    if result.error:
        note = f"PDF could not be parsed ({result.error})"
    else:
        note = f"PDF with no text layer ({result.pages} page(s)): a scan?"
    if ocr_note:
        note += f" {ocr_note}"
    return Reading(kind="pdf", lang=lang, pdf="no_text", note=note)


def pdf_method(reading: Reading) -> str:
    """The stats' name of how a PDF was read (``no_text`` when it gave none)."""
    return reading.text_method.removeprefix("pdf:") if reading.text else "no_text"
