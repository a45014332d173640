"""Bytes of an HTML page -> the text a reader sees.

* **Encoding**: BOM, then the ``Content-Type`` charset, then ``<meta charset>``, then a
  strict UTF-8 attempt, then cp1252 — so a Windows-1252 page without any charset still
  reads "€ 1 500"; a declared charset the bytes do not decode in is not believed
  (``core.page.charset``). A body cut at the size cap loses its incomplete last character instead
  of failing UTF-8 detection.
* **Visible text, high recall**: tables, lists and definition lists are kept (cells joined
  with `` | ``, one row or item per line); ``script``, ``style``, ``template``,
  ``noscript``, ``svg``, comments and hidden elements (``hidden``, ``aria-hidden="true"``,
  ``display:none``, ``visibility:hidden``, ``<input type=hidden>``) are dropped.
* **Normalised hash input**: whitespace collapsed and NFC applied, so a re-indented page
  hashes the same.

Page text is untrusted data: nothing here evaluates it, and callers escape it where they
render it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import lxml.etree
import lxml.html

from sv_scrapy.core.page.charset import Decoded, decode_page

_DROP_TAGS = frozenset(
    {"script", "style", "template", "noscript", "svg", "head", "iframe", "object", "embed", "canvas", "math"}
)
_BLOCK_TAGS = frozenset(
    {
        "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "li", "ul", "ol",
        "dl", "dt", "dd", "table", "tr", "thead", "tbody", "tfoot", "caption", "h1", "h2", "h3", "h4",
        "h5", "h6", "pre", "blockquote", "figure", "figcaption", "address", "form", "fieldset",
        "details", "summary", "hr", "body", "html", "legend", "option",
    }
)
_CELL_TAGS = frozenset({"td", "th"})
_HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_SPACES_RE = re.compile(r"[ \t\r\n\f\v]+")
_XML_DECL_RE = re.compile(rb"^\s*<\?xml[^>]*\?>")
_TITLE_RE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def _trim_partial_utf8(body: bytes) -> bytes:
    """Drop an incomplete UTF-8 sequence at the very end (a body cut at the cap)."""
    for cut in range(1, 4):
        if len(body) < cut:
            break
        lead = body[-cut]
        if lead & 0xC0 == 0xC0:  # a lead byte: is its sequence complete?
            need = 2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0 else 4
            return body[:-cut] if need > cut else body
        if lead & 0xC0 != 0x80:
            return body
    return body


def decode_html(body: bytes, content_type: str | None, truncated: bool = False) -> tuple[str, str]:
    """(encoding, text) of an HTML or plain-text body.

    >>> decode_html("Droit: € 1 500".encode("cp1252"), "text/html")[1]
    'Droit: € 1 500'
    >>> decode_html("€".encode("utf-8"), "text/html; charset=utf-8")
    ('utf-8', '€')
    """
    decoded = decode_body(body, content_type, truncated)
    return decoded.encoding, decoded.text


def decode_body(body: bytes, content_type: str | None, truncated: bool = False) -> Decoded:
    """The text, its encoding and where that came from (``core.page.charset``)."""
    return decode_page(_trim_partial_utf8(body) if truncated else body, content_type)


def _is_hidden(el: lxml.html.HtmlElement) -> bool:
    if el.get("hidden") is not None or el.get("aria-hidden", "").lower() == "true":
        return True
    if el.tag == "input" and el.get("type", "").lower() == "hidden":
        return True
    style = el.get("style")
    return bool(style and _HIDDEN_STYLE_RE.search(style))


def _walk(el: lxml.html.HtmlElement, out: list[str]) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""
    if not tag or tag in _DROP_TAGS or _is_hidden(el):  # comments/PIs have a non-str tag
        if el.tail:
            out.append(el.tail)
        return
    if tag in _BLOCK_TAGS or tag == "br":
        out.append("\n")
    elif tag in _CELL_TAGS:
        out.append(" | ")
    if el.text:
        out.append(el.text)
    for child in el:
        _walk(child, out)
    if tag in _BLOCK_TAGS:
        out.append("\n")
    if el.tail:
        out.append(el.tail)


def html_to_text(html: str) -> str:
    """Visible text, one block per line, inner whitespace collapsed (NBSP kept as written).

    >>> html_to_text("<p>Taux&nbsp;: <b>5,81 %</b></p><script>x=1</script><table><tr><th>A</th><td>B</td></tr></table>")
    'Taux\\xa0: 5,81 %\\nA | B'
    """
    data = _XML_DECL_RE.sub(b"", html.encode("utf-8", "surrogatepass"))
    if not data.strip():
        return ""
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return ""
    parts: list[str] = []
    _walk(root, parts)
    lines = []
    for raw_line in "".join(parts).split("\n"):
        line = _SPACES_RE.sub(" ", raw_line).strip(" |")
        if line.strip():
            lines.append(line.strip())
    return "\n".join(lines)


def html_title(html: str) -> str:
    """The ``<title>``, whitespace collapsed ("" when there is none)."""
    m = _TITLE_RE.search(html[:20000])
    return _SPACES_RE.sub(" ", lxml.html.fromstring(f"<p>{m.group(1)}</p>").text_content()).strip() if m else ""


_LANG_RE = re.compile(r"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*)", re.IGNORECASE)


def html_lang(html: str) -> str:
    """The language an HTML page declares on its root element ("" when none).

    >>> html_lang('<!doctype html><html class="x" lang="pl-PL"><body>'), html_lang("<p>no root</p>")
    ('pl-PL', '')
    """
    m = _LANG_RE.search(html[:5000])
    return m.group(1) if m else ""


def normalize_for_hash(text: str) -> str:
    """NFC, every whitespace run (NBSP included) one space: cosmetic reflows hash the same."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def content_hash(text: str) -> str:
    """sha256 of the normalised text, 16 hex digits (the seed's width)."""
    return hashlib.sha256(normalize_for_hash(text).encode("utf-8")).hexdigest()[:16]


def raw_hash(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:16]
