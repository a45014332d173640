"""The page evidence one request carries for one claim: the page's own words where they speak of
the claim, in whole sentences, within ``llm.evidence_chars``.

* The crawl found the claim's figures: each of its excerpts (best context first, as
  ``core.page.context`` ordered them) cut down to the sentences that hold a figure, widened a
  sentence at a time to at least ``MIN_CONTEXT`` characters so a short table row keeps its label.
  The crawl's window (``fetch.excerpt_window_chars``) is a fixed width either side of the figure,
  so it carries half-sentences of whatever stands next to it; the model reads a figure by its
  sentence ("same instrument"), and a quote is checked against the whole stored page anyway.
* The crawl found no figure (the flags ``scrapy verify --from-audit`` sends most): the window of the
  page where it speaks most of the claim's subject (``core.page.subject``), ``evidence_chars`` wide.
  A changed figure usually stands there ("the rate is now 6.45 %"); the page's first characters,
  which this layer used to send, are mostly its navigation.
* The claim's words are nowhere on the page: its start, as before, so the model can say NOT_FOUND.

Pure: no network, no SDK.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.context import REACH
from sv_scrapy.core.page.pagescan import PageIndex
from sv_scrapy.core.page.prefilter import find_value
from sv_scrapy.core.page.subject import page_words

MIN_CONTEXT = 160  # characters a figure's evidence keeps at least: a short sentence or table row gets its neighbours
_SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n")
_ELLIPSIS = "…"


def _sentences(text: str) -> list[tuple[int, int]]:
    """``text`` as consecutive (start, end) spans, each ending after its full stop."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def figure_sentences(excerpt: str, values: Sequence[Mapping[str, Any]], host: str | None = None) -> str:
    """The sentences of ``excerpt`` that hold one of the claim's figures, at least ``MIN_CONTEXT``
    characters of them; ``excerpt`` itself when no figure is in it (a subject excerpt).

    >>> figure_sentences("…to file. Appeals go to the court of the district where the home stands. Fees are set "
    ...     "by decree each year for every kind of sale. The DMTO rate is 5.81 % on resales. Forms are online "
    ...     "at the portal of the tax office. Deadlines vary by case and by the kind of deed sign…",
    ...     [{"type": "pct", "norm": "5.81", "salient": True}])  # doctest: +NORMALIZE_WHITESPACE
    '…Appeals go to the court of the district where the home stands. Fees are set by decree each year for every
     kind of sale. The DMTO rate is 5.81 % on resales. Forms are online at the portal of the tax office.…'
    """
    index = PageIndex(excerpt, host=host)
    hits = [hit for value in values if value.get("salient", True) for hit in find_value(index, value)[0]]
    if not hits:
        return excerpt
    sentences = _sentences(excerpt)
    first = min(h.start for h in hits)
    last = max(h.end for h in hits)
    lo = next(n for n, (s, e) in enumerate(sentences) if e > first)
    hi = next(n for n, (s, e) in enumerate(sentences) if e >= last)
    while sentences[hi][1] - sentences[lo][0] < MIN_CONTEXT and (lo > 0 or hi < len(sentences) - 1):
        if lo > 0:  # the sentence before first: it usually names what the figure is
            lo -= 1
        if sentences[hi][1] - sentences[lo][0] < MIN_CONTEXT and hi < len(sentences) - 1:
            hi += 1
    start = max(sentences[lo][0], first - REACH)  # a run-on (a table read as text) is cut near the figure
    end = min(sentences[hi][1], last + REACH)
    body = excerpt[start:end].strip()
    lead = _ELLIPSIS if start > 0 and not body.startswith(_ELLIPSIS) else ""
    tail = _ELLIPSIS if end < len(excerpt) and not body.endswith(_ELLIPSIS) else ""
    return lead + body + tail


def evidence(item: ClaimRecord, page_text: str | None, budget_chars: int) -> list[str]:
    """The evidence blocks for ``item``: figure sentences, else the subject window, else the page's start."""
    excerpts = [str(e) for e in item.get("excerpts") or []]
    if excerpts:
        values = item.get("values") or []
        out: list[str] = []
        used = 0
        for excerpt in excerpts:
            block = figure_sentences(excerpt, values, item.get("source_host"))
            if block in out:
                continue
            if out and used + len(block) > budget_chars:
                break
            out.append(block)
            used += len(block)
        return out
    if not page_text:
        return []
    subject = page_words(item, page_text, budget_chars).excerpt
    if subject:
        return [subject]
    return [page_text[:budget_chars] + (_ELLIPSIS if len(page_text) > budget_chars else "")]
