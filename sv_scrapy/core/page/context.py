"""Which occurrence of a matched figure speaks of the claim's subject.

A claim "foreign-buyer surcharge 3.5 %" on a page that says "VAT 3.5 % on services. … The
foreign-buyer surcharge is 4 %." matches — the prefilter cannot judge which rate a number is —
but it can show where the claim's own words are. For every matched figure, each occurrence is
scored by the claim's context words (``core.page.subject.context_words``: the claim text without
figures, stamps, links and stop words, compared on a short prefix) standing in the same sentence,
and the excerpts are ordered best context first (``scrapy verify`` reads them in that order).

``context_match`` is True when every matched figure has an occurrence among the claim's words;
False when the page speaks of the claim's words somewhere but no occurrence of some figure stands
among them ("figure found, other context" in the report): then the first excerpt is where the
page speaks of the claim's subject; None when the claim has no context words or the page never
uses them (a page in another language shares only names and acronyms with a playbook).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.pagescan import Hit, PageIndex
from sv_scrapy.core.page.prefilter import PrefilterSettings, Prior, _excerpts, find_value
from sv_scrapy.core.page.subject import _positions, context_words, page_words

REACH = 160  # a sentence is looked at this far either side of the figure, at most
_SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n")


def sentence_span(text: str, hit: Hit) -> tuple[int, int]:
    """The sentence of ``text`` that holds ``hit`` (at most ``REACH`` characters either side of it)."""
    lo = max(0, hit.start - REACH)
    ends = [m.end() for m in _SENTENCE_END.finditer(text, lo, hit.start)]
    start = ends[-1] if ends else lo
    m = _SENTENCE_END.search(text, hit.end, min(len(text), hit.end + REACH))
    return start, m.start() if m else min(len(text), hit.end + REACH)


def _score(hit: Hit, text: str, positions: Sequence[tuple[int, int]]) -> int:
    lo, hi = sentence_span(text, hit)
    return len({n for p, n in positions if lo <= p < hi})


def order_by_context(claim: ClaimRecord, text: str, index: PageIndex, prior: Prior,
                     settings: PrefilterSettings) -> tuple[list[str], bool | None]:
    """(excerpts best context first, context_match) for one matched claim."""
    if not prior.matched_tokens or not text:
        return prior.excerpts, None
    values = [v for v in claim["values"] if v.get("salient") and str(v.get("raw")) in prior.matched_tokens]
    words = context_words(str(claim.get("claim_text", "")), claim["values"])
    positions = _positions(text.lower(), words) if words else []
    if not positions:
        return prior.excerpts, None
    ordered: list[Hit] = []
    every = True
    for value in sorted(values, key=lambda v: str(v.get("raw")) not in prior.strong_matched):
        hits, _ = find_value(index, value)
        if not hits:
            continue
        scored = sorted(((_score(h, text, positions), h) for h in hits), key=lambda sh: (-sh[0], not sh[1].unit,
                                                                                         sh[1].start))
        every = every and scored[0][0] > 0
        ordered.extend(h for _, h in scored[:2])
    excerpts = _excerpts(text, ordered, settings.excerpt_window_chars, settings.max_excerpts)
    if not every:
        subject = page_words(claim, text, settings.excerpt_window_chars).excerpt
        if subject and subject not in excerpts:
            excerpts = [subject, *excerpts][: max(settings.max_excerpts, 2)]
    return excerpts, every
