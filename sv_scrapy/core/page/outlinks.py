"""What a page points at that may hold its figure: frames, and documents one click away.

* **Frames**: a portal shell whose figure sits in ``<iframe src="/frames/rates.html">`` reads as
  ``TOKENS_ABSENT`` — a false absent. For a thin or zero-match page, the documents of its
  ``<iframe>``/``<frame>`` elements on the same host or the same registrable domain (the Public
  Suffix List of ``tldextract``, read offline) are fetched, at most ``FRAME_LIMIT``, and their text
  joins the page's for matching; an excerpt taken from a frame names the frame's URL.
* **One hop for the figure**: for a ``TOKENS_ABSENT`` HTML page, same-host links to documents
  (PDF, DOC, XLS…) or pages whose link text or file name shares the claim's context words or
  the year of its figure are candidates; where a candidate holds the figure, the claim stays
  ``TOKENS_ABSENT`` (the cited page does not say it) with ``found_linked``.

Pure: the pipelines (``pipelines/outlinks.py``) fetch, through the paced handler like any request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import lxml.html

from sv_scrapy.core.hosts import registrable_domain as site_of
from sv_scrapy.core.page.pagescan import PageIndex
from sv_scrapy.core.page.prefilter import TOKENS_PRESENT, PrefilterSettings, prior_for_text
from sv_scrapy.core.page.subject import _stem, context_words
from sv_scrapy.core.page.text import html_tree

FRAME_LIMIT = 3  # frames fetched for one page, at most
DOC_EXTENSIONS = frozenset({"pdf", "doc", "docx", "xls", "xlsx", "ods", "odt", "csv", "rtf", "txt"})
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d|21\d\d)(?!\d)")
_LINK_WORD = re.compile(r"[^\W\d_]{3,}")
_SPACES = re.compile(r"[ \t\r\n\f\v]+")  # as the excerpts collapse them (NBSPs stay)


def same_site(a: str, b: str) -> bool:
    """Same host, or the same registrable domain."""
    a, b = a.lower().rstrip("."), b.lower().rstrip(".")
    return a == b or (bool(a) and site_of(a) == site_of(b) and site_of(a) != a.split(".")[-1])


def _absolute(href: str, base: str) -> str:
    """An http(s) URL without its fragment, or "" (also for ``http://[x``, which no parser reads).

    >>> _absolute("rates.html#t", "https://a.gov/x/"), _absolute("http://[x", "https://a.gov/")
    ('https://a.gov/x/rates.html', '')
    """
    try:
        parts = urlsplit(urljoin(base, href.strip()))
    except ValueError:  # an IPv6 bracket left open, a netloc NFKC turns into a user or port
        return ""
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, ""))


def frame_urls(html: str, base: str, limit: int = FRAME_LIMIT) -> list[str]:
    """The same-site documents of a page's ``<iframe>``/``<frame>`` elements, in page order.

    >>> frame_urls('<iframe src="/frames/rates.html"></iframe><iframe src="https://ads.example.net/x"></iframe>',
    ...            "https://portal.gouv.fr/taxes")
    ['https://portal.gouv.fr/frames/rates.html']
    """
    return tree_frames(html_tree(html), base, limit) if "frame" in html.lower() else []


def tree_frames(root: lxml.html.HtmlElement | None, base: str, limit: int = FRAME_LIMIT) -> list[str]:
    """``frame_urls`` of a page already parsed (``core.page.text.html_tree``)."""
    if root is None:
        return []
    host, out = urlsplit(base).hostname or "", []
    for el in root.iter("iframe", "frame"):
        url = _absolute(el.get("src") or "", base)
        if url and url != base and url not in out and same_site(urlsplit(url).hostname or "", host):
            out.append(url)
    return out[:limit]


def page_links(html: str, base: str, limit: int = 400) -> list[tuple[str, str]]:
    """(URL, link text) of the page's same-host links, in page order, the page itself left out."""
    return tree_links(html_tree(html), base, limit)


def tree_links(root: lxml.html.HtmlElement | None, base: str, limit: int = 400) -> list[tuple[str, str]]:
    """``page_links`` of a page already parsed (``core.page.text.html_tree``)."""
    if root is None:
        return []
    host, seen, out = urlsplit(base).hostname or "", {base}, []
    for el in root.iter("a"):
        url = _absolute(el.get("href") or "", base)
        if url and url not in seen and (urlsplit(url).hostname or "") == host:
            seen.add(url)
            out.append((url, " ".join(el.text_content().split())[:200]))
            if len(out) >= limit:
                break
    return out


def any_figure(claims: Iterable[Mapping[str, Any]], text: str, index: PageIndex | None,
               settings: PrefilterSettings) -> bool:
    """Does any claim's figure stand in ``text`` at all (a strong or a weak match)?"""
    if not text.strip():
        return False
    index = index or PageIndex(text)
    return any(prior_for_text(c["values"], text, (), settings, index).matched_tokens for c in claims)


def wants_frames(claims: Sequence[Mapping[str, Any]], text: str, settings: PrefilterSettings,
                 index: PageIndex | None = None) -> bool:
    """A thin page, or one where no claim's figure stands: its frames are read too."""
    return len(text.strip()) < settings.min_text_chars or not any_figure(claims, text, index, settings)


def _extension(url: str) -> str:
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def linked_candidates(links: Sequence[tuple[str, str]], claim: Mapping[str, Any], limit: int) -> list[str]:
    """Links worth one hop for ``claim``: documents or pages whose text or file name shares the
    claim's context words or its figure's year; documents first, then the most words shared.

    >>> links = [("https://x.gov/fees-2025.pdf", "Download the fee schedule (PDF)"), ("https://x.gov/contact", "Contact"),
    ...          ("https://x.gov/news", "News")]
    >>> linked_candidates(links, {"claim_text": "Filing fee 2025: $7 ([a](https://x.gov/fees))",
    ...                           "values": [{"raw": "$7"}]}, 2)
    ['https://x.gov/fees-2025.pdf']
    """
    words = {_stem(w) for w in context_words(str(claim.get("claim_text", "")), claim.get("values") or [])}
    years = set(_YEAR.findall(str(claim.get("claim_text", ""))))
    scored: list[tuple[int, int, int, str]] = []
    for n, (url, text) in enumerate(links):
        name = urlsplit(url).path.rsplit("/", 1)[-1]
        said = f"{text} {name.replace('-', ' ').replace('_', ' ')}"
        shared = len({_stem(w.lower()) for w in _LINK_WORD.findall(said)} & words)
        shared += 2 * len(set(_YEAR.findall(said)) & years)
        if shared:
            scored.append((0 if _extension(url) in DOC_EXTENSIONS else 1, -shared, n, url))
    return [url for *_, url in sorted(scored)[:limit]]


def found_in(values: Sequence[Mapping[str, Any]], text: str, settings: PrefilterSettings) -> str:
    """The excerpt where ``text`` (a linked document) states the claim's figure strongly; "" when not."""
    prior = prior_for_text(values, text, (), settings)
    return prior.excerpts[0] if prior.prior == TOKENS_PRESENT and prior.excerpts else ""


def join_frames(text: str, frames: Sequence[tuple[str, str]]) -> str:
    """The page's text with its frames' texts after it, one block each."""
    return "\n".join([text, *(t for _, t in frames if t)]) if frames else text


def name_frames(excerpts: Sequence[str], text: str, frames: Sequence[tuple[str, str]],
                figures: Iterable[str] = ()) -> list[str]:
    """Excerpts whose figure stands in a frame say so — "(frame <url>) …" — and quote the frame
    only (an excerpt window may reach back into the page's own text).

    >>> name_frames(["Portal Rates Le taux de 5,81 % s'applique."], "Portal Rates",
    ...             [("https://p.gouv.fr/f.html", "Le taux de 5,81 % s'applique.")], ["5,81 %"])
    ["(frame https://p.gouv.fr/f.html) Le taux de 5,81 % s'applique."]
    """
    if not frames:
        return list(excerpts)
    out, main, written = [], _SPACES.sub(" ", text), [f for f in figures if f]
    for excerpt in excerpts:
        core = excerpt.strip("…").strip()
        named = excerpt
        if core not in main:
            for url, frame_text in frames:
                flat = _SPACES.sub(" ", frame_text).strip()
                start = core.find(flat[:40]) if flat else -1
                if start >= 0:
                    part = core[start:]
                elif core in flat:
                    part = core
                else:
                    part = ""
                if part and (not written or any(f in part for f in written)):
                    named = f"(frame {url}) {part}{'…' if excerpt.endswith('…') else ''}"
                    break
        out.append(named)
    return out
