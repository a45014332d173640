"""A claim as a reader sees it: the playbook line's Markdown rendered down to text, with the
claimed figures marked, ready for either report to escape and highlight.

>>> segments("**DMTO** 5.81 % ([impots.gouv.fr](https://www.impots.gouv.fr/x))", [{"raw": "5.81 %"}])
[('DMTO ', False), ('5.81 %', True), (' (impots.gouv.fr)', False)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.claims.markdown import plain
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.escape import h, md_inline, md_lead, one_line


def figure_spans(text: str, values: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """Where the claim's salient figures stand in ``text`` (first occurrence each, no overlap)."""
    spans: list[tuple[int, int]] = []
    low = text.lower()
    for value in values:
        if not value.get("salient", True):
            continue
        raw = one_line(str(value.get("raw", ""))).lower()
        if not raw:
            continue
        start = low.find(raw)
        while start >= 0 and any(start < e and s < start + len(raw) for s, e in spans):
            start = low.find(raw, start + 1)
        if start >= 0:
            spans.append((start, start + len(raw)))
    return sorted(spans)


def segments(text: str, values: Sequence[Mapping[str, Any]], limit: int = 0) -> list[tuple[str, bool]]:
    """``(piece, is_figure)`` pieces of the claim as text, cut at ``limit`` characters."""
    flat = plain(text)
    if limit and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    out: list[tuple[str, bool]] = []
    pos = 0
    for start, end in figure_spans(flat, values):
        if start > pos:
            out.append((flat[pos:start], False))
        out.append((flat[start:end], True))
        pos = end
    if pos < len(flat):
        out.append((flat[pos:], False))
    return out


def claim_md(item: ClaimRecord, limit: int = 220) -> str:
    """The claim for the Markdown report: prose, the figure in bold.

    >>> claim_md({"claim_text": "- Fee (2026-12-03 verified): € 1,500 | [a](https://x.gov)",
    ...           "values": [{"raw": "€ 1,500", "salient": True}]})
    'Fee (2026-12-03 verified): **€ 1,500** \\\\| a'
    """
    pieces = segments(str(item.get("claim_text", "")), item.get("values") or [], limit)
    return md_lead("".join(f"**{md_inline(p)}**" if fig else md_inline(p) for p, fig in pieces))


def claim_html(item: ClaimRecord, limit: int = 220) -> str:
    """The claim for the HTML report: text, the figure in ``<mark>``."""
    pieces = segments(str(item.get("claim_text", "")), item.get("values") or [], limit)
    return "".join(f"<mark>{h(p)}</mark>" if fig else h(p) for p, fig in pieces)
