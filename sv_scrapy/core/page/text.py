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
from dataclasses import dataclass

import lxml.etree
import lxml.html

from sv_scrapy.core.page.charset import Decoded, decode_page
from sv_scrapy.core.page.shape import PLAIN, LineShape

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
            if lead & 0xE0 == 0xC0:
                need = 2
            elif lead & 0xF0 == 0xE0:
                need = 3
            else:
                need = 4
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
    if not el.attrib:  # most elements: nothing could hide them
        return False
    if el.get("hidden") is not None or el.get("aria-hidden", "").lower() == "true":
        return True
    if el.tag == "input" and el.get("type", "").lower() == "hidden":
        return True
    style = el.get("style")
    return bool(style and _HIDDEN_STYLE_RE.search(style))


_MARK = "\x00"  # a line's shape id follows it in the walk's output (NUL never stays in page text)
_MARK_RE = re.compile(r"\x00(\d+)\x00")
_FOOTNOTE_RE = re.compile(r"foot-?note|\bfn\b|\bnotes?\b", re.IGNORECASE)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _plain(el: lxml.html.HtmlElement) -> str:
    return _SPACES_RE.sub(" ", el.text_content()).strip()


class _Shapes:
    """The shapes met during one walk, and each table's caption and column headers."""

    def __init__(self) -> None:
        self.shapes: list[LineShape] = [PLAIN]
        self._tables: dict[int, tuple[str, tuple[str, ...], object]] = {}

    def add(self, shape: LineShape) -> int:
        self.shapes.append(shape)
        return len(self.shapes) - 1

    def _table(self, table: lxml.html.HtmlElement) -> tuple[str, tuple[str, ...], object]:
        key = id(table)
        if key not in self._tables:
            caption = next((_plain(c) for c in table.iter("caption")), "")
            rows = list(table.iter("tr"))
            head = next((r for r in rows if r.getparent() is not None and r.getparent().tag == "thead"), None)
            if head is None and rows and all(c.tag == "th" for c in _cells(rows[0])) and _cells(rows[0]):
                head = rows[0]
            columns: list[str] = []
            for cell in _cells(head) if head is not None else []:
                columns.extend([_plain(cell)] * _colspan(cell.get("colspan", "1")))
            self._tables[key] = (caption, tuple(columns), head)
        return self._tables[key]

    def shape_of(self, el: lxml.html.HtmlElement, tag: str) -> LineShape | None:
        """The shape ``el`` gives the lines it holds (None: it keeps its parent's)."""
        if tag in _HEADINGS:
            return LineShape(tag)
        if tag == "tr":
            table = next(el.iterancestors("table"), None)
            if table is None:
                return None
            caption, columns, head = self._table(table)
            if el is head:
                return LineShape("head", caption=caption)
            cells = _cells(el)
            named = [_plain(c) for c in cells if c.tag == "th"]
            row_header = ""
            if named:
                row_header = " ".join(named)
            elif cells:
                row_header = _plain(cells[0])
            return LineShape("row", columns, row_header, caption)
        if tag in ("dt", "li", "caption"):
            return LineShape(tag)
        if tag == "dd":
            dt = next((s for s in el.itersiblings(preceding=True) if s.tag == "dt"), None)
            return LineShape("dd", row_header=_plain(dt) if dt is not None else "")
        marks = " ".join(filter(None, (el.get("class"), el.get("id"), el.get("role"))))
        if tag in ("footer", "aside") or (marks and _FOOTNOTE_RE.search(marks)):
            return LineShape("note")
        return None


def _colspan(raw: str) -> int:
    """The columns a header cell spans, 1 to 50: ASCII digits only ("²" is a digit to ``str.isdigit``
    and not to ``int``; 5,000 nines are past ``int``'s digit limit).

    >>> [_colspan(v) for v in ("3", "0", "²", "99999999999", "x")]
    [3, 1, 1, 50, 1]
    """
    if not (raw.isascii() and raw.isdigit()):
        return 1
    return 50 if len(raw) > 2 else max(1, min(int(raw), 50))


def _cells(row: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    return [c for c in row if isinstance(c.tag, str) and c.tag in _CELL_TAGS]


def _walk(el: lxml.html.HtmlElement, out: list[str], shapes: _Shapes | None = None, current: int = 0) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""
    if not tag or tag in _DROP_TAGS or _is_hidden(el):  # comments/PIs have a non-str tag
        if el.tail:
            out.append(el.tail.replace(_MARK, ""))
        return
    inner = current
    if tag in _BLOCK_TAGS or tag == "br":
        out.append("\n")
        if shapes is not None and tag != "br":
            shape = shapes.shape_of(el, tag)
            inner = shapes.add(shape) if shape is not None else current
            out.append(f"{_MARK}{inner}{_MARK}")
    elif tag in _CELL_TAGS:
        out.append(" | ")
    if el.text:
        out.append(el.text.replace(_MARK, ""))
    for child in el:
        _walk(child, out, shapes, inner)
    if tag in _BLOCK_TAGS:
        out.append("\n")
        if shapes is not None:
            out.append(f"{_MARK}{current}{_MARK}")
    if el.tail:
        out.append(el.tail.replace(_MARK, ""))


@dataclass(frozen=True)
class ShapedText:
    """A page's visible text and, line by line, where each line stands (``core.page.shape``)."""

    text: str
    shapes: tuple[LineShape, ...] = ()


def html_to_text(html: str) -> str:
    """Visible text, one block per line, inner whitespace collapsed (NBSP kept as written).

    >>> html_to_text("<p>Taux&nbsp;: <b>5,81 %</b></p><script>x=1</script><table><tr><th>A</th><td>B</td></tr></table>")
    'Taux\\xa0: 5,81 %\\nA | B'
    """
    return _read(html_tree(html), None).text


def html_reading(html: str) -> ShapedText:
    """``html_to_text``'s text with one ``LineShape`` per line of it.

    >>> got = html_reading("<h1>Wage</h1><dl><dt>Hourly</dt><dd>KRW 10,320</dd></dl>")
    >>> got.text, [(s.kind, s.row_header) for s in got.shapes]
    ('Wage\\nHourly\\nKRW 10,320', [('h1', ''), ('dt', ''), ('dd', 'Hourly')])
    """
    return tree_reading(html_tree(html))


def html_tree(html: str) -> lxml.html.HtmlElement | None:
    """The page's one parse (comments and processing instructions left out): its text, its links
    and its frames are all read from this tree; None when there is nothing to parse."""
    data = _XML_DECL_RE.sub(b"", html.encode("utf-8", "surrogatepass"))
    if not data.strip():
        return None
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        return lxml.html.document_fromstring(data, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return None


def tree_reading(root: lxml.html.HtmlElement | None) -> ShapedText:
    """``html_reading`` of a page already parsed (``html_tree``)."""
    return _read(root, _Shapes())


def _read(root: lxml.html.HtmlElement | None, shapes: _Shapes | None) -> ShapedText:
    if root is None:
        return ShapedText("")
    parts: list[str] = []
    _walk(root, parts, shapes)
    lines: list[str] = []
    kept: list[LineShape] = []
    current = 0
    for raw_line in "".join(parts).split("\n"):
        # most lines of the walk are empty or only a mark (a block's edges): nothing kept, no regex run
        if not raw_line:
            continue
        if _MARK in raw_line and (marks := _MARK_RE.findall(raw_line)):
            current = int(marks[-1])
            raw_line = _MARK_RE.sub("", raw_line)
            if not raw_line:
                continue
        line = _SPACES_RE.sub(" ", raw_line).strip(" |")
        if line.strip():
            lines.append(line.strip())
            if shapes is not None:
                kept.append(shapes.shapes[current])
    return ShapedText("\n".join(lines), tuple(kept))


def html_title(html: str) -> str:
    """The ``<title>``, whitespace collapsed ("" when there is none)."""
    m = _TITLE_RE.search(html[:20000])
    if m is None:
        return ""
    return _SPACES_RE.sub(" ", lxml.html.fromstring(f"<p>{m.group(1)}</p>").text_content()).strip()


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
