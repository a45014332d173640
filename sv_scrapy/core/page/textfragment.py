"""Links that land on the figure: a URL text fragment (``#:~:text=…``) or a PDF's ``#page=N``.

The text fragment follows the WICG Text Fragments syntax every current browser reads
(``#:~:text=[prefix-,]start[,end][,-suffix]``). Its text is the page's own words around the
figure, as few as make it occur once in the text given (the whole page at record time; an
excerpt in a report made from an older ``audit.json``), never across a line or a table cell
(a browser matches the start text within one block). The text is percent-encoded as the spec
requires: everything but ASCII letters, digits and ``._~`` — so the directive's own ``-``, ``&``
and ``,`` are always encoded inside the text — UTF-8 for the rest.

A URL that already carries a fragment directive (``:~:``) gets none; a plain fragment is kept
and the directive follows it (``#top:~:text=…``). A PDF gets ``#page=N`` when its text marks
pages (a form feed between them), never a text fragment (PDF viewers do not read one).
Page text is untrusted: it only ever leaves here percent-encoded.
"""

from __future__ import annotations

import re
from urllib.parse import quote

_UNRESERVED = "._~"  # quote() keeps letters, digits and "_.-~"; "-" is encoded by hand below
_BOUNDARY = re.compile(r"\n|\f| \| |(?<=[.!?;])\s")  # a line, a page, a table cell, a sentence
_WORD = re.compile(r"\S+")
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009]+")
MAX_WORDS = 12  # a start text longer than this is not worth a link


def encode_text(text: str) -> str:
    """One text directive parameter, percent-encoded (the spec's delimiters included).

    >>> encode_text("an example text fragment"), encode_text("foo-bar, & baz"), encode_text("5,81 %")
    ('an%20example%20text%20fragment', 'foo%2Dbar%2C%20%26%20baz', '5%2C81%20%25')
    """
    return quote(text, safe=_UNRESERVED).replace("-", "%2D")


def find_figure(text: str, figure: str, at: int | None) -> int:
    if at is not None and text[at : at + len(figure)] == figure:
        return at
    pos = text.find(figure)
    if pos < 0:  # written with other spaces (an excerpt collapses them)
        m = re.search(r"\s+".join(re.escape(p) for p in figure.split()), text)
        return m.start() if m else -1
    return pos


def _segment(text: str, pos: int, end: int) -> tuple[int, int]:
    """The block piece of ``text`` that holds ``pos``–``end``: not across a line, a page or a cell."""
    lo = max((m.end() for m in _BOUNDARY.finditer(text, 0, pos)), default=0)
    m = _BOUNDARY.search(text, end)
    return lo, m.start() if m else len(text)


def _flat(text: str) -> str:
    """``text`` as candidates are counted in: spaces collapsed, case folded."""
    return _SPACES.sub(" ", text).casefold()


def _occurrences(flat: str, candidate: str) -> int:
    """How often ``candidate`` stands as words of ``flat`` (the page's ``_flat`` text)."""
    return len(re.findall(rf"(?<!\w){re.escape(candidate.casefold())}(?!\w)", flat))


def start_text(text: str, figure: str, at: int | None = None) -> str | None:
    """The fewest of the page's words around ``figure`` (at ``at``) that occur once in ``text``.

    >>> start_text("VAT | 3.5 %\\nForeign-buyer surcharge | 3.5 % of the price", "3.5 %", 38)
    '3.5 % of'
    >>> start_text("The policy rate stays at 2.50%.", "2.50", 25)
    '2.50%'
    """
    pos = find_figure(text, figure, at)
    if pos < 0:
        return None
    end = pos + len(figure)
    lo, hi = _segment(text, pos, end)
    before = [m for m in _WORD.finditer(text, lo, pos)]
    after = [m for m in _WORD.finditer(text, end, hi)]
    left, right = pos, end
    flat = _flat(text)  # once: each candidate is counted in the whole page (a long page's text, many times)
    if text[lo:pos].rstrip() and not text[pos - 1 : pos].isspace() and before:
        left = before.pop().start()  # the figure's word starts before it ("€500", "(3.5")
    if after and not text[end : end + 1].isspace():
        right = after.pop(0).end()
    while True:
        candidate = _SPACES.sub(" ", text[left:right]).strip()
        if _occurrences(flat, candidate) <= 1 or not (before or after):
            break
        if len(candidate.split()) >= MAX_WORDS:
            return None
        if after:  # the words after a figure say what it is of ("3.5 % of the price") …
            right = after.pop(0).end()
        if before and _occurrences(flat, _SPACES.sub(" ", text[left:right]).strip()) > 1:
            left = before.pop().start()  # … the words before it what it is ("surcharge: 3.5 %")
    # a sentence's last word keeps no full stop or comma of its own: "2.50 %." is found as "2.50 %"
    return candidate.strip(" |").rstrip(".,;:") or None


def fragment_link(url: str, text: str, figure: str, at: int | None = None, pdf: bool = False) -> str | None:
    """``url`` with a directive landing on ``figure`` as ``text`` (the page's, or an excerpt) writes it.

    >>> fragment_link("https://x.gov/rates", "Standard rate | 5,81 %\\nRaised rate | 6,32 %", "5,81 %")
    'https://x.gov/rates#:~:text=5%2C81%20%25'
    >>> fragment_link("https://x.gov/a#top:~:text=old", "Rate 5 %", "5 %") is None
    True
    >>> fragment_link("https://x.gov/a.pdf", "Page one\\n\\fRate 5 %", "5 %", pdf=True)
    'https://x.gov/a.pdf#page=2'
    """
    if not url or not figure or not text:
        return None
    base, hash_mark, fragment = url.partition("#")
    if ":~:" in fragment:
        return None
    if pdf:
        pos = find_figure(text, figure, at)
        if fragment or pos < 0 or "\f" not in text:
            return None
        return f"{base}#page={text.count(chr(12), 0, pos) + 1}"
    start = start_text(text, figure, at)
    if not start:
        return None
    return f"{base}#{fragment}:~:text={encode_text(start)}"
