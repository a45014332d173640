"""The page's own words for a claim whose figure is missing or whose page changed: the excerpt
where the page now speaks of the claim's subject, and — when a figure of the same kind stands
there — a hint such as "page now says 6.45 %". A hint, never a verdict: the figure near the
claim's words may be another rate altogether.

The subject is the claim's context words (its text without figures, stamps, link targets and
common words). Words are compared on a short prefix, so "rates" finds "rate" and "taxes"
finds "tax"; a page in another language than the playbook often shares only names and
acronyms with it (DMTO, KRW, Cap. 117), so an excerpt may be missing: the report says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sv_scrapy.core.claims.markdown import plain
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT, WEAK_MATCH

_WORD = re.compile(r"[^\W\d_]{3,}")
_STAMP = re.compile(r"\((?:[^()]*\b(?:verified|stale|as of|as researched)\b[^()]*)\)", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
# words that say nothing about a claim's subject (English playbook prose, and the stamps)
_STOP = """
about above after again against also among and any are around been before being below between both but
can could did does doing down during each either else every few for from further had has have having her
here hers his how into its itself just least less many more most much must near neither nor not now off
once only other our out over own per same see set shall she should since some such than that the their
them then there these they this those through too under until upon very was were what when where which
while who whom why will with within without would you your yes via new old current currently approx
verified stale marker researched source sources official page see link note notes applies apply
"""
STOPWORDS = frozenset(_STOP.split())


@dataclass(frozen=True)
class PageWords:
    excerpt: str  # where the page speaks of the claim's subject ("" when nowhere)
    hint: str  # a figure of the claim's kind in that excerpt, as the page writes it ("" when none)
    words: tuple[str, ...]  # the context words looked for


def context_words(claim_text: str, values: Sequence[Mapping[str, Any]], limit: int = 12) -> tuple[str, ...]:
    """The claim's subject words, in order, without figures, stamps and common words.

    >>> context_words("- DMTO (2020-01-01 verified): 5.81 % on resale ([impots](https://x.gouv.fr/dmto))",
    ...               [{"raw": "5.81 %"}])
    ('dmto', 'resale', 'impots')
    """
    text = _STAMP.sub(" ", plain(claim_text))
    for value in values:
        text = text.replace(str(value.get("raw", "")), " ")
    out: list[str] = []
    for word in _WORD.findall(text):
        low = word.lower()
        if low not in STOPWORDS and low not in out:
            out.append(low)
    return tuple(out[:limit])


def _stem(word: str) -> str:
    """A short prefix, so plural and singular meet.

    >>> [_stem(w) for w in ("dmto", "rates", "property", "tax")]
    ['dmto', 'rate', 'prope', 'tax']
    """
    if len(word) <= 4:
        return word
    return word[:-1] if len(word) <= 6 else word[:5]


def _positions(low_text: str, words: Sequence[str]) -> list[tuple[int, int]]:
    """(offset, word index) of every word-start occurrence of each word's stem."""
    hits: list[tuple[int, int]] = []
    for n, word in enumerate(words):
        for m in re.finditer(r"(?<![^\W\d_])" + re.escape(_stem(word)), low_text):
            hits.append((m.start(), n))
    return sorted(hits)


def subject_window(text: str, words: Sequence[str], window: int = 240) -> tuple[int, int] | None:
    """The ``window``-wide span of ``text`` holding the most distinct context words."""
    hits = _positions(text.lower(), words)
    if not hits:
        return None
    best: tuple[int, int, int] = (0, 0, 0)  # (distinct words, -start, start)
    lo = 0
    for hi in range(len(hits)):
        while hits[hi][0] - hits[lo][0] > window * 2 // 3:
            lo += 1
        distinct = len({n for _, n in hits[lo : hi + 1]})
        if distinct > best[0]:
            best = (distinct, -hits[lo][0], hits[lo][0])
    first = best[2]
    last = max(p for p, _ in hits if first <= p <= first + window * 2 // 3)
    centre = (first + last) // 2
    start = max(0, centre - window // 2)
    return start, min(len(text), start + window)


def figure_hint(excerpt: str, values: Sequence[Mapping[str, Any]], centre: int | None = None) -> str:
    """A figure of the claim's kind in ``excerpt`` that is not the claim's own, nearest ``centre``.

    >>> figure_hint("Le taux des DMTO est de 6,45 % depuis le 1er mars 2026.", [{"type": "pct", "norm": "5.81"}])
    '6,45 %'
    >>> figure_hint("Le taux des DMTO est fixé par le département.", [{"type": "pct", "norm": "5.81"}])
    ''
    """
    kinds = {str(v.get("type")) for v in values if v.get("salient", True)}
    claimed = {str(v.get("norm")) for v in values}
    found = [v for v in extract_values(excerpt) if v.type in kinds and v.salient and v.norm not in claimed]
    if not found:
        return ""
    mid = len(excerpt) // 2 if centre is None else centre
    return min(found, key=lambda v: abs((v.pos + v.end) // 2 - mid)).raw


def needs_words(item: ClaimRecord) -> bool:
    """Absent or changed: the report shows where the page now speaks of the claim's subject."""
    return item.get("prior") in (TOKENS_ABSENT, WEAK_MATCH) or bool(item.get("content_changed"))


def page_words(item: ClaimRecord, text: str, window: int = 240) -> PageWords:
    """The excerpt where ``text`` (the page now) speaks of the claim's subject, and the hint."""
    values = item.get("values") or []
    words = context_words(str(item.get("claim_text", "")), values)
    span = subject_window(text, words, window) if text and words else None
    if span is None:
        return PageWords("", "", words)
    lo, hi = span
    # widen to word boundaries so the excerpt neither starts nor ends mid-word
    while lo > 0 and not text[lo - 1].isspace() and span[0] - lo < 30:
        lo -= 1
    while hi < len(text) and not text[hi].isspace() and hi - span[1] < 30:
        hi += 1
    snippet = _SPACES.sub(" ", text[lo:hi]).strip()
    excerpt = ("…" if lo else "") + snippet + ("…" if hi < len(text) else "")
    return PageWords(excerpt, figure_hint(snippet, values), words)
