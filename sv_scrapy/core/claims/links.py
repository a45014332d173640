"""Markdown links on one line: finding them, masking URLs, pointer clauses, attribution.

Three rules live here:

* **URL masking** — the digits of a URL (``/A18183``, ``/2024-1039``) are not claim figures,
  so every URL is blanked before values are extracted (offsets kept).
* **Pointer links** — "… — verify at [INEC](…)" says the figure is *not* published at the
  link; such a link can only ever come back ``TOKENS_ABSENT``, so it is never a claim. The
  test reads only the clause just before the link (back to the previous clause boundary or
  link), so a real citation earlier on the line still counts. A link that directly
  continues a pointer ("verify at [a](…) / [b](…)", "confirm at the tax office / [a](…)") is a
  pointer too, and so is a link after a verify label ("Verify: [a](…)") and every link of a
  roster of sources that a verify sentence announces ("Confirm … at primary sources.
  Authoritative primary sources: [a](…) · [b](…)", or "… Authoritative primaries: […]"). A past-tense attestation ("verified at
  [a](…)"), a verify clause after the link, and a target named in plain text before a
  parenthesised link ("verify at BOPA ([circular](…))") are not pointers.
* **Nearest-link attribution** — on a line with several citations each figure belongs to
  the nearest link (edge distance); ties go to the following link, because prose cites as
  "figure ([source](url))".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from sv_scrapy.core.figures.values import Value

# the URL may hold balanced parentheses: .../Capital%20Gain%20Tax%20(CGT).aspx
LINK_RE = re.compile(
    r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<url>https?://(?:[^\s()]|\([^\s()]*\))+)(?:\s+\"[^\"]*\")?\)"
)
BARE_URL_RE = re.compile(r"https?://[^\s<>\"`)\]]+")

# a clause boundary: sentence end, semicolon, colon, dash, bracket, pipe
_BOUNDARY_RE = re.compile(r"[.!?](?=\s)|[;:(|\u2014\u2013]|\s-\s")
_VERIFY = r"(?:(?:and|or|then|but|please|always|so)\s+)?(?:re-?)?(?:verify|confirm|check|cross-check|double-check|consult)\b"
_POINTER_RE = re.compile(
    rf"^{_VERIFY}(?:[^.;!?]|(?<=\d)\.(?=\d)){{0,160}}$",  # a decimal point ("1.5 %") ends no clause
    re.IGNORECASE,
)
_VERIFY_START_RE = re.compile(_VERIFY, re.IGNORECASE)
_CONTINUATION_RE = re.compile(r"^(?:[/,+&\u00b7]|and|or|\s)*$", re.IGNORECASE)
# a label before a colon: "Authoritative primary sources:" names a roster; the sentence before
# it is what the roster is for
_LABEL_RE = re.compile(r"(?:^|(?<=[.!?])\s)(?P<label>[^.!?:]{0,80}):\s*$")
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s)")
_LABEL_CUT_RE = re.compile(r"[;(|\u2014\u2013]|\s-\s")
_ROSTER_RE = re.compile(r"\b(?:sources?|primaries)$", re.IGNORECASE)  # "… primary sources:", "… primaries:"


@dataclass(frozen=True)
class Link:
    text: str
    url: str
    start: int
    end: int


def _parses(url: str) -> bool:
    """A URL ``urlsplit`` reads: ``https://[::1`` (a bracket left open) is no address, and every
    later stage asks the URL for its host."""
    try:
        urlsplit(url)
    except ValueError:
        return False
    return True


def find_links(line: str) -> list[Link]:
    """Markdown links to http(s) URLs that parse, images excluded, trailing punctuation trimmed.

    >>> [link.url for link in find_links("[a](https://[::1) [b](https://b.gov/x).")]
    ['https://b.gov/x']
    """
    found = (Link(m.group("text"), m.group("url").rstrip(".,;:"), m.start(), m.end()) for m in LINK_RE.finditer(line))
    return [link for link in found if _parses(link.url)]


def find_code_urls(line: str, links: Sequence[Link]) -> list[Link]:
    """Bare and backticked URLs outside markdown links (`` `https://…` ``): not citations
    under the spec, counted by ``scrapy extract`` and cited only with ``extraction.code_urls``.

    >>> [(u.url, u.text) for u in find_code_urls("rate 2% (`https://a.gov.in/x`)", [])]
    [('https://a.gov.in/x', '')]
    """
    out = []
    for m in BARE_URL_RE.finditer(line):
        start, end = m.span()
        if any(link.start <= start < link.end for link in links):
            continue
        url = m.group(0).rstrip(".,;:")
        if not _parses(url):
            continue
        if line[start - 1 : start] == "`" and line[end : end + 1] == "`":
            start, end = start - 1, end + 1
        out.append(Link("", url, start, end))
    return out


def label_span(link: Link) -> tuple[int, int]:
    """Where a markdown link's text sits on the line ("[text](url)")."""
    return link.start + 1, link.start + 1 + len(link.text)


def mask_urls(line: str) -> str:
    """Blank every URL (link targets and bare URLs) keeping offsets."""
    chars = list(line)
    spans = [m.span("url") for m in LINK_RE.finditer(line)] + [m.span() for m in BARE_URL_RE.finditer(line)]
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _clause_before(line: str, start: int, floor: int) -> str:
    head = line[floor:start]
    ends = [m.end() for m in _BOUNDARY_RE.finditer(head)]
    clause = head[ends[-1] :] if ends else head
    return clause.replace("*", "").replace("_", "").strip()


def _after_label(line: str, start: int, floor: int) -> bool:
    """Is the link the first after a verify label ("Verify: [a]") or a roster label that a
    verify sentence announces ("Confirm … at primary sources. Primary sources: [a]")?"""
    head = line[floor:start].replace("*", "").replace("_", "")
    label = _LABEL_RE.search(head)
    if not label:
        return False
    text = _LABEL_CUT_RE.split(label.group("label"))[-1].strip()  # "| 10% | Verify:" -> "Verify"
    if _POINTER_RE.match(text):
        return True
    if not _ROSTER_RE.search(text):
        return False
    before = head[: label.start("label")].rstrip()
    ends = [m.end() for m in _SENTENCE_END_RE.finditer(before[:-1])]
    sentence = before[ends[-1] :].strip() if ends else before.strip()
    return bool(_VERIFY_START_RE.match(sentence))


def pointer_flags(line: str, links: Sequence[Link]) -> list[bool]:
    """For each link: is it a "verify at <authority>" pointer rather than a citation?

    >>> line = "rate 10% ([DIR](https://a.gov.bs/x)); figures as researched — verify at [INEC](https://b.gob.ar/)"
    >>> pointer_flags(line, find_links(line))
    [False, True]
    >>> line = "Confirm the 10% band at primary sources. Primary sources: [a](https://a.gov.ky/) · [b](https://b.gov.ky/)"
    >>> pointer_flags(line, find_links(line))
    [True, True]
    """
    flags: list[bool] = []
    prev_end = 0
    for i, link in enumerate(links):
        between = line[prev_end : link.start].replace("*", "")
        if i and _CONTINUATION_RE.match(between):
            flags.append(flags[-1])
        else:
            clause = _clause_before(line, link.start, prev_end)
            flags.append(bool(_POINTER_RE.match(clause)) or (not clause and _after_label(line, link.start, prev_end)))
        prev_end = link.end
    return flags


def attribute(values: Sequence[Value], links: Sequence[Link]) -> list[list[Value]]:
    """Give each value to its nearest link; one list per link, in link order.

    >>> from sv_scrapy.core.figures.values import extract_values
    >>> line = "VAT 10% ([a](https://a.gov/)) and duty 2% ([b](https://b.gov/))"
    >>> [[v.raw for v in vs] for vs in attribute(extract_values(mask_urls(line)), find_links(line))]
    [['10%'], ['2%']]
    """
    if len(links) <= 1:
        return [list(values)] if links else []
    owned: list[list[Value]] = [[] for _ in links]
    for value in values:

        def distance(i: int, value: Value = value) -> tuple[int, int, int]:
            link = links[i]
            if link.start < value.end and value.pos < link.end:
                return (0, 0, i)  # inside the link's own label
            if link.start >= value.end:
                return (link.start - value.end, 0, i)  # link follows the figure
            return (value.pos - link.end, 1, i)  # link precedes the figure

        owned[min(range(len(links)), key=distance)].append(value)
    return owned
