"""The deterministic prior: is the claimed figure on the cited page at all?

A coarse, free pre-filter, never a verdict:

* ``TOKENS_ABSENT`` — no salient figure of the claim is on the page (checked locale-aware);
* ``WEAK_MATCH`` — only short, unit-less figures matched ("4" of "Art. 4");
* ``TOKENS_PRESENT`` — a specific figure matched: three or more significant characters, a
  full date, or a short figure with its own unit beside it ("10 %", "€ 500");
* ``SOURCE_BINARY`` / ``PDF_NO_TEXT`` / ``SOURCE_UNAVAILABLE`` — the page was not read as text.

A zero-match page that is a known JavaScript host or thinner than ``min_text_chars`` was
never really read, so it is ``SOURCE_UNAVAILABLE``, not ``TOKENS_ABSENT``: a correct
citation must not be flagged because the fetcher saw an empty shell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.page.pagescan import Hit, PageIndex

TOKENS_ABSENT = "TOKENS_ABSENT"
WEAK_MATCH = "WEAK_MATCH"
TOKENS_PRESENT = "TOKENS_PRESENT"
SOURCE_BINARY = "SOURCE_BINARY"
SOURCE_UNAVAILABLE = "SOURCE_UNAVAILABLE"
PDF_NO_TEXT = "PDF_NO_TEXT"
_ASCII_SPACES = re.compile(r"[ \t\r\n\f\v]+")
PRIORS = (TOKENS_ABSENT, WEAK_MATCH, TOKENS_PRESENT, SOURCE_BINARY, SOURCE_UNAVAILABLE, PDF_NO_TEXT)


@dataclass(frozen=True)
class PrefilterSettings:
    excerpt_window_chars: int = 400
    max_excerpts: int = 4
    min_text_chars: int = 200
    js_spa_hosts: tuple[str, ...] = ()


@dataclass
class Prior:
    prior: str
    matched_tokens: list[str] = field(default_factory=list)
    strong_matched: list[str] = field(default_factory=list)
    missing_tokens: list[str] = field(default_factory=list)
    excerpts: list[str] = field(default_factory=list)
    found_as: dict[str, str] = field(default_factory=dict)  # claimed raw -> as the page wrote it
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _digits(norm: str) -> int:
    return sum(ch.isdigit() for ch in norm)


def find_value(index: PageIndex, value: Mapping[str, Any]) -> tuple[list[Hit], bool]:
    """(hits, strong) for one claim value on one page: by its canonical form, else as the claim
    wrote it — the claim's own spelling standing on the page is a match in any page language."""
    hits, strong = _find_canonical(index, value)
    if strong:
        return hits, strong
    raw = str(value.get("raw") or "")
    written = index.find_written(raw) if raw else []
    if written:  # as specific as the canonical rule says: a unit beside it, a date, a 3-character id
        return written, value.get("type") in ("pct", "money", "date") or len(str(value.get("norm", ""))) >= 3
    return hits, strong


def _find_canonical(index: PageIndex, value: Mapping[str, Any]) -> tuple[list[Hit], bool]:
    vtype, norm = value.get("type"), str(value.get("norm", ""))
    if vtype in ("pct", "money"):
        number = norm.split(" ", 1)[0]
        hits = index.find_number(number)
        strong = bool(hits) and (len(number.replace(".", "")) >= 3 or any(h.unit for h in hits))
        return sorted(hits, key=lambda h: (not h.unit, h.start)), strong
    if vtype == "date":
        hits = index.find_date(norm)
        if hits:
            return hits, True
        if len(norm) == 10:  # a full date whose month alone is on the page: a hint, not a match
            return index.find_date(norm[:7]), False
        return [], False
    if vtype == "statute":
        hits = index.find_statute(norm)
        return hits, bool(hits) and len(norm) >= 3
    return [], False


def _excerpts(text: str, hits: Iterable[Hit], window: int, limit: int) -> list[str]:
    spans: list[tuple[int, int]] = []
    out: list[str] = []
    for hit in hits:
        if len(out) >= limit:
            break
        lo = max(0, hit.start - window // 2)
        hi = min(len(text), hit.end + window // 2)
        if any(lo < e and s < hi for s, e in spans):
            continue
        spans.append((lo, hi))
        snippet = _ASCII_SPACES.sub(" ", text[lo:hi]).strip()  # NBSPs stay: quote as written
        out.append(("…" if lo else "") + snippet + ("…" if hi < len(text) else ""))
    return out


def _host_in(host: str, hosts: Sequence[str]) -> bool:
    return any(host == h or host.endswith("." + h) for h in hosts)


def prior_for_text(
    values: Sequence[Mapping[str, Any]], text: str, hosts: Sequence[str], settings: PrefilterSettings,
    index: PageIndex | None = None,
) -> Prior:
    """The prior of one claim against one page that was read as text.

    ``hosts`` are the requested and final hosts (a JavaScript host stays one after a redirect).
    """
    salient = [v for v in values if v.get("salient")]
    index = index or PageIndex(text)
    result = Prior(TOKENS_ABSENT)
    strong_hits: list[Hit] = []
    weak_hits: list[Hit] = []
    for value in salient:
        raw = str(value.get("raw"))
        hits, strong = find_value(index, value)
        if not hits:
            result.missing_tokens.append(raw)
            continue
        result.matched_tokens.append(raw)
        result.found_as[raw] = hits[0].written
        if strong:
            result.strong_matched.append(raw)
            strong_hits.extend(hits[:2])
        else:
            weak_hits.extend(hits[:2])
    result.excerpts = _excerpts(text, [*strong_hits, *weak_hits], settings.excerpt_window_chars, settings.max_excerpts)
    if result.strong_matched:
        result.prior = TOKENS_PRESENT
    elif result.matched_tokens:
        result.prior = WEAK_MATCH
    else:
        js_host = any(_host_in(h, settings.js_spa_hosts) for h in hosts if h)
        if js_host or len(text.strip()) < settings.min_text_chars:
            why = "known JavaScript-rendered host" if js_host else f"thin page, under {settings.min_text_chars} chars"
            result.prior = SOURCE_UNAVAILABLE
            result.note = f"indeterminate ({why}): the page was not really read; not a missing figure"
    return result


def prior_without_text(values: Sequence[Mapping[str, Any]], prior: str, note: str = "") -> Prior:
    """The prior of a claim whose page could not be read as text (binary, scan, failure)."""
    return Prior(prior, missing_tokens=[str(v.get("raw")) for v in values if v.get("salient")], note=note)
