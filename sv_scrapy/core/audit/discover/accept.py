"""Whether a candidate page states the claim's figure in the claim's context: the proposal, or None.

A candidate is judged as the cited page is (``core.page.prefilter``, ``core.page.context``): every
salient figure found, at least one as the claim writes it, and

* ``context_match`` True — the figure stands where the page speaks of the claim's subject: accepted;
* False — the figure stands for something else (another instrument, another year's column): refused,
  whatever else the page says (a decoy is never proposed);
* None on a page in another language than the playbook — accepted only where the words around the
  figure (its sentence, its row, the headings above it) are the site's own words for the claim's
  subject, as the then-capture or the cited page wrote them (``SITE_WORDS_NEEDED`` of them); a page in
  the playbook's language that never uses the claim's words is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.context import PageShape, in_claims_language, order_by_context
from sv_scrapy.core.page.pagescan import Hit, PageIndex
from sv_scrapy.core.page.prefilter import TOKENS_PRESENT, PrefilterSettings, find_value, prior_for_text
from sv_scrapy.core.page.shape import LineShape
from sv_scrapy.core.page.subject import _stem
from sv_scrapy.core.page.textfragment import fragment_link

SITE_WORDS_NEEDED = 2  # the site's own words that must stand around the figure on another-language page
_LETTERS = re.compile(r"[^\W\d_]{3,}")


@dataclass(frozen=True)
class Proposal:
    """The claim record's ``proposed_source``: where the site states the figure now."""

    url: str
    excerpt: str
    link: str | None  # the URL with a text fragment at the figure
    found_via: str  # link | sitemap | search
    lastmod: str | None
    context_match: bool | None

    def as_dict(self) -> dict[str, Any]:
        return {"url": self.url, "excerpt": self.excerpt, "link": self.link, "found_via": self.found_via,
                "lastmod": self.lastmod or None, "context_match": self.context_match}


@dataclass(frozen=True)
class Page:
    """A candidate as the one reader read it."""

    url: str
    text: str
    lang: str = ""
    title: str = ""
    shapes: tuple[LineShape, ...] = ()
    pdf: bool = False
    last_modified: str = ""  # its Last-Modified header, when the sitemap gave no <lastmod>
    etag: str = ""  # its ETag (the store asks it conditionally next month)


def _site_words_at(page: PageShape, hit: Hit, stems: frozenset[str]) -> int:
    place = page.place(hit)
    said = f"{place.own} {place.inherited}".lower()
    return len({_stem(w) for w in _LETTERS.findall(said)} & stems)


def judge(claim: ClaimRecord, page: Page, settings: PrefilterSettings, found_via: str, lastmod: str = "",
          own_words: Sequence[str] = ()) -> Proposal | None:
    """The proposal ``page`` makes for ``claim``, or None (the module docstring's rules)."""
    text = page.text
    if not text.strip():
        return None
    host = urlsplit(page.url).hostname or ""
    index = PageIndex(text, lang=page.lang or None, host=host or None)
    prior = prior_for_text(claim["values"], text, [host], settings, index)
    if prior.prior != TOKENS_PRESENT or prior.missing_tokens:
        return None
    excerpts, match, best = order_by_context(claim, text, index, prior, settings, page.shapes, page.lang, page.title)
    if match is False:
        return None
    if match is None:
        best = _in_site_words(claim, page, index, prior.strong_matched, own_words)
        if best is None or in_claims_language(text, page.lang):
            return None
        excerpts = _excerpt_at(text, best, settings.excerpt_window_chars)
    if best is None or not excerpts:
        return None
    link = fragment_link(page.url, text, text[best.start : best.end], best.start, page.pdf)
    return Proposal(page.url, excerpts[0], link, found_via, lastmod or page.last_modified or None, match)


def _in_site_words(claim: Mapping[str, Any], page: Page, index: PageIndex, strong: Sequence[str],
                   own_words: Sequence[str]) -> Hit | None:
    """The occurrence of a strongly matched figure whose context holds the site's own words, if any."""
    stems = frozenset(_stem(w.lower()) for w in own_words)
    if len(stems) < SITE_WORDS_NEEDED:
        return None
    shape = PageShape(page.text, page.shapes, page.title)
    for value in claim["values"]:
        if str(value.get("raw")) not in strong:
            continue
        hits, _ = find_value(index, value)
        for hit in hits:
            if _site_words_at(shape, hit, stems) >= SITE_WORDS_NEEDED:
                return hit
    return None


def _excerpt_at(text: str, hit: Hit, window: int) -> list[str]:
    lo, hi = max(0, hit.start - window // 2), min(len(text), hit.end + window // 2)
    body = " ".join(text[lo:hi].split())
    return [("…" if lo else "") + body + ("…" if hi < len(text) else "")]
