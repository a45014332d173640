"""Which occurrence of a matched figure speaks of the claim's subject, read as the page structures it.

A claim "foreign-buyer surcharge 3.5 %" on a page that says "VAT 3.5 % on services. … The
foreign-buyer surcharge is 4 %." matches — the prefilter cannot judge which rate a number is —
but the page shows what each occurrence of the figure is about. Each occurrence has a context,
kept at text extraction (``core.page.shape``) and read here in three parts:

* **its own**: its sentence and the sentence before it in its paragraph when that one holds no
  figure; in a table, its row header(s) and its cell; for a ``<dd>``, its ``<dt>``;
* **inherited**: its column header, the table's caption, the headings (h1–h6) of its section,
  a short paragraph just above it holding no figure, the page's title; a text without structure
  (a PDF's text layer, plain text): the heading-like lines above
  it (short, no figure), the nearest first;
* **elsewhere**: another sentence, row or item of the page that states a figure among the claim's words.

The claim's words (``claim_words``: its text without figures, stamps and common words, nor the
words of the cited host, which name the source rather than the subject; a statute's own word,
"Regulation", counts) are compared on a short prefix.

``context_match`` per occurrence, then per claim (False if some figure is False; True if every
figure is True; None otherwise):

* **True** — the claim's words stand in its own context, or in its inherited one unless the
  occurrence carries a label of its own while the claim's words stand in another sentence, row
  or item of the page (then the heading above does not lend it the claim's subject);
* **False** — a real decoy: the figure stands in a column of another year than the claim's, or
  (a page in the claim's language) its context is another instrument's while the claim's words
  stand elsewhere on the page; a footnote inherits nothing;
* **None** — no judgement: a page in another language than the claim, whose words the claim's
  cannot meet (it shares only names, acronyms and numbers with a playbook), or a page that never
  uses the claim's words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.page.pagescan import Hit, PageIndex
from sv_scrapy.core.page.prefilter import PrefilterSettings, Prior, _excerpts, find_value
from sv_scrapy.core.page.shape import CELL_JOIN, PLAIN, LineShape
from sv_scrapy.core.page.subject import STOPWORDS, _positions, _stem, context_words, page_words

REACH = 160  # a sentence is looked at this far either side of the figure, at most
_SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
_FIGURE = re.compile(r"\d")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_FOOTNOTE_MARK = re.compile(r"^\s*(?:[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+|\(\d{1,2}\)|\[\d{1,2}\])\s*\S")
_LABEL_CHARS = 100  # a line this short holding no figure may be the label of the line below it
_HEADING_LINES = 3  # a text without structure: heading-like lines looked at above a figure's line
_ENGLISH_SHARE = 0.08  # a page whose words are this often English function words is in English


def sentence_span(text: str, hit: Hit) -> tuple[int, int]:
    """The sentence of ``text`` that holds ``hit`` (at most ``REACH`` characters either side of it)."""
    lo = max(0, hit.start - REACH)
    ends = [m.end() for m in _SENTENCE_END.finditer(text, lo, hit.start)]
    start = ends[-1] if ends else lo
    m = _SENTENCE_END.search(text, hit.end, min(len(text), hit.end + REACH))
    return start, m.start() if m else min(len(text), hit.end + REACH)


def claim_words(claim: Mapping[str, Any]) -> tuple[str, ...]:
    """The claim's subject words: ``context_words`` without the cited host's names, with a statute's word.

    >>> claim_words({"claim_text": "EU rules, Regulation 650/2012 ([EUR-Lex](https://eur-lex.europa.eu/x))",
    ...              "values": [{"raw": "Regulation 650/2012", "type": "statute"}],
    ...              "source_url": "https://eur-lex.europa.eu/x"})
    ('rules', 'regulation')
    """
    values = claim.get("values") or []
    words = list(context_words(str(claim.get("claim_text", "")), values))
    host = urlsplit(str(claim.get("source_url") or "")).hostname or ""
    names = {part for part in re.split(r"[.\-]", host.lower()) if part}
    words = [w for w in words if w not in names]
    for value in values:
        if value.get("type") == "statute":
            words.extend(w.lower() for w in _LETTERS.findall(str(value.get("raw", ""))) if w.lower() not in words)
    return tuple(words)


def in_claims_language(text: str, lang: str) -> bool:
    """Whether the page is in the playbooks' language (English): its declared language, else its words."""
    if lang:
        return lang.lower().split("-")[0].split("_")[0] == "en"
    return _reads_english(text[:20000])


@lru_cache(maxsize=4)  # each claim of a page asks of the same text in turn: its words are read once
def _reads_english(head: str) -> bool:
    words = [w.lower() for w in _LETTERS.findall(head)]
    return bool(words) and sum(w in STOPWORDS for w in words) >= _ENGLISH_SHARE * len(words)


@dataclass(frozen=True)
class Place:
    """One occurrence's context, in the three parts the module docstring names."""

    own: str
    inherited: str
    line: int  # the line of the text it stands on
    lines: frozenset[int]  # the lines its own and inherited contexts come from
    columns_years: frozenset[str] = frozenset()
    note: bool = False


class PageShape:
    """A page's text split in lines, with the shape of each (``LineShape``; PLAIN where unknown)."""

    def __init__(self, text: str, shapes: Sequence[LineShape] = (), title: str = "") -> None:
        self.text = text
        self.starts: list[int] = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())
        self.lines = text.split("\n")
        self.structured = bool(shapes)
        self.shapes = [shapes[i] if i < len(shapes) else PLAIN for i in range(len(self.lines))]
        self.title = title
        self._sections: list[tuple[int, ...]] | None = None

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def headings_above(self, line: int) -> list[int]:
        """The lines of the headings whose section ``line`` stands in (h1 first)."""
        if not self.structured:
            found: list[int] = []
            for n in range(line - 2, max(-1, line - 2 - _HEADING_LINES), -1):
                if _is_label(self.lines[n]):
                    found.append(n)
            return found
        if self._sections is None:  # the headings in force at each line, worked out once per page
            self._sections = []
            levels: dict[int, int] = {}
            for n, shape in enumerate(self.shapes):
                self._sections.append(tuple(levels[k] for k in sorted(levels)))
                if shape.heading_level:
                    levels = {k: v for k, v in levels.items() if k < shape.heading_level}
                    levels[shape.heading_level] = n
        return list(self._sections[line])

    def place(self, hit: Hit) -> Place:
        line = self.line_of(hit.start)
        shape, text = self.shapes[line], self.lines[line]
        col = hit.start - self.starts[line]
        own_parts: list[str] = []
        inherited = [self.lines[n] for n in self.headings_above(line)]
        years: frozenset[str] = frozenset()
        if shape.kind == "row":
            cell = text[:col].count(CELL_JOIN)
            cells = text.split(CELL_JOIN)
            own_parts += [shape.row_header, cells[cell] if cell < len(cells) else ""]
            column = shape.columns[cell] if cell < len(shape.columns) else ""
            inherited += [column, shape.caption]
            years = frozenset(_YEAR.findall(column))
        else:
            lo, hi = sentence_span(self.text, hit)
            own_parts.append(self.text[lo:hi])
            before = self.text[self.starts[line]:lo]
            previous = _SENTENCE_END.split(before.rstrip())[-2:] if before.strip() else []
            if previous and previous[-1].strip() and not _FIGURE.search(previous[-1]):
                own_parts.append(previous[-1])  # the sentence before it, in its paragraph: its label
            if shape.kind == "dd":
                own_parts.append(shape.row_header)
        label_lines: set[int] = set()
        # a short line above holding no figure labels it as a heading does (a PDF's text layer has no headings)
        if (line and shape.kind not in ("row", "dd") and _is_label(self.lines[line - 1])
                and (not self.structured or self.shapes[line - 1].kind == "p")):
            inherited.append(self.lines[line - 1])
            label_lines.add(line - 1)
        note = shape.kind == "note" or bool(_FOOTNOTE_MARK.match(text))
        if note:
            inherited = []
        inherited.append(self.title)
        return Place(" ".join(own_parts), " ".join(filter(None, inherited)), line,
                     frozenset({line, *label_lines}), years, note)

    def stating_lines(self, positions: Sequence[tuple[int, int]]) -> frozenset[int]:
        """The lines where the claim's words stand in a sentence (a row: the line) that states a figure;
        a heading, a header row or a caption states none: they are inherited context."""
        lines: set[int] = set()
        for offset, _ in positions:
            n = self.line_of(offset)
            shape = self.shapes[n]
            if n in lines or shape.heading_level or shape.kind in ("head", "caption"):
                continue
            if shape.kind == "row":
                said = self.lines[n]
            else:
                lo, hi = sentence_span(self.text, Hit(offset, offset + 1, ""))
                said = self.text[lo:hi]
            if _FIGURE.search(_YEAR.sub("", said)):
                lines.add(n)
        return frozenset(lines)


def _is_label(line: str) -> bool:
    return bool(line.strip()) and len(line) <= _LABEL_CHARS and not _FIGURE.search(_YEAR.sub("", line))


@lru_cache(maxsize=64)
def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for every word's stem at a word start (``subject._positions``' comparison), a group each."""
    return re.compile(r"(?<![^\W\d_])(?:" + "|".join(f"({re.escape(_stem(w))})" for w in words) + ")")


def _found(words: Sequence[str], text: str) -> set[int]:
    """The indexes of the claim's words that ``text`` holds."""
    if not text or not words:
        return set()
    return {m.lastindex - 1 for m in _words_pattern(tuple(words)).finditer(text.lower()) if m.lastindex}


def _own_label(own: str, words: Sequence[str]) -> bool:
    """Whether a context names something with words of its own: not the claim's, not function words,
    not a figure's own words (a currency code, a month: "KRW 10,320", "January 1, 2026")."""
    stems = tuple(w[:4] for w in words)
    for value in reversed(extract_values(own)):
        own = own[: value.pos] + " " + own[value.end :]
    return any(w.lower() not in STOPWORDS and not w.lower().startswith(stems) for w in _LETTERS.findall(own))


@dataclass(frozen=True)
class Judged:
    match: bool | None
    score: int  # how many of the claim's words stand in its context (own ones count thrice)


def judge(place: Place, words: Sequence[str], claim_years: frozenset[str], same_language: bool,
          numeric: bool, elsewhere: bool, on_page: bool) -> Judged:
    """One occurrence's ``context_match`` (the module docstring's rules)."""
    if place.columns_years and claim_years and not place.columns_years & claim_years:
        return Judged(False, -1)  # another year's column
    own, inherited = _found(words, place.own), _found(words, place.inherited)
    if own:
        return Judged(True, 3 * len(own) + len(inherited - own))
    decoy = same_language and numeric and elsewhere and _own_label(place.own, words)
    if inherited and not decoy:
        return Judged(True, len(inherited))
    if same_language and on_page:
        return Judged(False, -1)
    return Judged(None, 0)


def _best(judged: Sequence[Judged]) -> bool | None:
    """One value's context: True when any occurrence is in the claim's, None when one cannot be told, else False."""
    matches = {j.match for j in judged}
    if True in matches:
        return True
    if None in matches:
        return None
    return False


def _every(per_value: Sequence[bool | None]) -> bool | None:
    """The claim's context: False when one value's is wrong, True when every value's is right, else None."""
    if False in per_value:
        return False
    if per_value and all(per_value):
        return True
    return None


def order_by_context(claim: ClaimRecord, text: str, index: PageIndex, prior: Prior, settings: PrefilterSettings,
                     shapes: Sequence[LineShape] = (), lang: str = "", title: str = "",
                     ) -> tuple[list[str], bool | None, Hit | None]:
    """(excerpts best context first, context_match, the figure's occurrence in the best context) for
    one matched claim."""
    if not prior.matched_tokens or not text:
        return prior.excerpts, None, None
    values = [v for v in claim["values"] if v.get("salient") and str(v.get("raw")) in prior.matched_tokens]
    words = claim_words(claim)
    if not words:
        return prior.excerpts, None, None
    page = PageShape(text, shapes, title)
    positions = _positions(text.lower(), words)
    stating = page.stating_lines(positions)
    same_language = in_claims_language(text, lang)
    claim_years = frozenset(_YEAR.findall(str(claim.get("claim_text", ""))))
    ordered: list[Hit] = []
    per_value: list[bool | None] = []
    for value in sorted(values, key=lambda v: str(v.get("raw")) not in prior.strong_matched):
        hits, _ = find_value(index, value)
        if not hits:
            continue
        numeric = value.get("type") in ("pct", "money")
        judged = []
        for hit in hits:
            place = page.place(hit)
            judged.append((judge(place, words, claim_years, same_language, numeric, bool(stating - place.lines),
                                 bool(positions)), hit))
        judged.sort(key=lambda jh: (-jh[0].score, not jh[1].unit, jh[1].start))
        per_value.append(_best([j for j, _ in judged]))
        ordered.extend(h for _, h in judged[:2])
    every = _every(per_value)
    excerpts = _excerpts(text, ordered, settings.excerpt_window_chars, settings.max_excerpts)
    if every is False:
        subject = page_words(claim, text, settings.excerpt_window_chars).excerpt
        if subject and subject not in excerpts:
            excerpts = [subject, *excerpts][: max(settings.max_excerpts, 2)]
    return excerpts, every, ordered[0] if ordered else None
