"""Which claims want a search for their figure, and which candidate pages are read first.

A claim wants one when its cited page does not state its figure: ``TOKENS_ABSENT``, a citation of a
site's root (or a redirect to it) that does not state it, a page failing towards ``DEAD`` (from its
first failure: a 404/410, a server error, no answer). A page that states its figure costs nothing.

A candidate is ranked by the words it shares — in its URL's path and its link text — with the claim's
subject words (``core.page.context.claim_words``) and, for a site that writes another language than
the playbook, with the site's own words around the figure: the archived then-capture's excerpts, the
cited page's title and headings. The claim's year counts twice. Ties go to the newest (a sitemap's
``<lastmod>``): among the candidates sharing half the best's words or more, the newest first. A candidate must
share ``MIN_SHARED`` words (a search answer: one, the site's search chose it), so a site with nothing to
find costs its sitemap and no page reads, and a navigation link ("Taxes") is never read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.hosts import registrable_domain
from sv_scrapy.core.page.context import claim_words
from sv_scrapy.core.page.fetchstatus import DEAD, OK, UNAVAILABLE
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT, TOKENS_PRESENT
from sv_scrapy.core.page.subject import STOPWORDS, _stem

LINK, SITEMAP, SEARCH = "link", "sitemap", "search"  # found_via, in the order they are asked
MIN_SHARED = 2  # words a sitemap's URL must share with the claim to be read
_FAILING_STATUSES = frozenset({404, 410, 0}) | frozenset(range(500, 600))
_WORD = re.compile(r"[^\W\d_]{3,}")
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d|21\d\d)(?!\d)")
_SITE_WORDS = 16  # the site's own words kept, at most
_SITE_WORD_LETTERS = 4  # a word of another language this short is likelier a function word ("les", "und")


@dataclass(frozen=True)
class Candidate:
    """A page that may state the claim's figure, and how it was found."""

    url: str
    found_via: str  # link | sitemap | search
    text: str = ""  # the link's text ("" for a sitemap's URL)
    lastmod: str = ""  # the sitemap's <lastmod> (ISO 8601), "" when not given


def is_root(url: str) -> bool:
    """A site's root (``https://host/``): a citation that can never state a figure as cited.

    >>> is_root("https://www.impots.gouv.fr/"), is_root("https://www.impots.gouv.fr/ifi")
    (True, False)
    """
    parts = urlsplit(url)
    return bool(parts.hostname) and parts.path in ("", "/") and not parts.query


def wants_discovery(record: Mapping[str, Any]) -> bool:
    """Does the claim's cited page fail to state its figure (so another page of the site may)?"""
    status, prior = record.get("fetch_status"), record.get("prior")
    if status == DEAD:
        return True
    if status == UNAVAILABLE:
        return int(record.get("http_status") or 0) in _FAILING_STATUSES and "robots" not in str(record.get("note", ""))
    if status != OK:
        return False  # excluded, robots-refused, binary: not the page's failure
    if prior == TOKENS_ABSENT:
        return True
    rooted = is_root(str(record.get("source_url", ""))) or is_root(str(record.get("final_url") or ""))
    return rooted and prior != TOKENS_PRESENT


def site_words(then: Mapping[str, Any] | None, title: str = "", headings: Iterable[str] = ()) -> tuple[str, ...]:
    """The site's own words around the figure: the then-capture's excerpts first, then the cited page's
    title and headings (lower case, no figures, no short function words).

    >>> site_words({"excerpts": ["le patrimoine immobilier net taxable dépasse 1 300 000 €"]}, "IFI : le seuil")
    ('patrimoine', 'immobilier', 'taxable', 'dépasse', 'seuil')
    """
    texts = [str(e) for e in (then or {}).get("excerpts") or []] + [title, *headings]
    out: list[str] = []
    for text in texts:
        for word in _WORD.findall(text):
            low = word.lower()
            if len(low) >= _SITE_WORD_LETTERS and low not in STOPWORDS and low not in out:
                out.append(low)
    return tuple(out[:_SITE_WORDS])


def terms(claim: Mapping[str, Any], own_words: Sequence[str] = ()) -> frozenset[str]:
    """The stems a candidate is ranked by: the claim's subject words and the site's own words."""
    words = [*(claim_words(claim) if claim else ()), *own_words]
    return frozenset(_stem(w.lower()) for w in words if w)


def _said(candidate: Candidate) -> str:
    path = unquote(urlsplit(candidate.url).path)
    return f"{candidate.text} {re.sub(r'[-_/.+]', ' ', path)}"


def score(candidate: Candidate, stems: frozenset[str], years: frozenset[str]) -> int:
    """Words shared with the claim (and the site's words), a year of the claim's counting twice."""
    said = _said(candidate)
    shared = {_stem(w.lower()) for w in _WORD.findall(said)} & stems
    return len(shared) + 2 * len(set(_YEAR.findall(said)) & years)


def same_site(url: str, cited_host: str) -> bool:
    """On the cited host's registrable domain (the Public Suffix List, ``core.hosts``)."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    cited = cited_host.lower().rstrip(".")
    if not host or urlsplit(url).scheme not in ("http", "https"):
        return False
    if host == cited:
        return True
    site = registrable_domain(cited)
    return bool(site) and registrable_domain(host) == site


def _path_stems(url: str) -> set[str]:
    said = re.sub(r"[-_/.+]", " ", unquote(urlsplit(url).path))
    return {_stem(w.lower()) for w in _WORD.findall(said)} | set(_YEAR.findall(said))


def _any_of(words: Iterable[str]) -> re.Pattern[str]:
    alternatives = sorted((re.escape(w) for w in words if w), key=len, reverse=True)
    return re.compile("|".join(alternatives) if alternatives else r"(?!)")


class SiteIndex:
    """A site's sitemap URLs indexed by the words of their paths, so that a claim meets the few URLs that
    share a word with it instead of scoring 50,000 each time. Only URLs sharing a word with
    ``vocabulary`` (the words of every claim the run has on the site, and the site's own words) are
    kept: a 50,000-URL sitemap of forms and news costs what its relevant part holds.

    >>> words = frozenset(_stem(w) for w in ("stamp", "duty", "surcharge"))
    >>> index = SiteIndex([("https://x.gov/stamp-duty/surcharge", "2026-01-01"), ("https://x.gov/contact", "")], words)
    >>> len(index), [c.url for c in index.candidates(frozenset({_stem("stamp")}), frozenset())]
    (1, ['https://x.gov/stamp-duty/surcharge'])
    """

    def __init__(self, rows: Iterable[Sequence[str]], vocabulary: frozenset[str] | None = None) -> None:
        self.urls: list[str] = []
        self.lastmods: list[str] = []
        self.by_word: dict[str, list[int]] = {}
        self.listed = 0  # URLs the sitemaps listed, kept or not
        # a word's stem is a prefix of it: a URL holding none of the vocabulary's stems anywhere shares no
        # word with it, found by one regular-expression search instead of splitting every URL into words
        holds = _any_of(vocabulary).search if vocabulary is not None else None
        for loc, lastmod in rows:
            self.listed += 1
            if holds is not None and not holds(unquote(loc).lower() if "%" in loc else loc.lower()):
                continue
            words = _path_stems(loc)
            if vocabulary is not None and not words & vocabulary:
                continue
            n = len(self.urls)
            self.urls.append(loc)
            self.lastmods.append(lastmod)
            for word in words:
                self.by_word.setdefault(word, []).append(n)

    def __len__(self) -> int:
        return len(self.urls)

    def extend(self, other: SiteIndex) -> None:
        """Another sitemap of the same site (an index's next child) joins this one."""
        base = len(self.urls)
        self.listed += other.listed
        self.urls += other.urls
        self.lastmods += other.lastmods
        for word, rows in other.by_word.items():
            self.by_word.setdefault(word, []).extend(n + base for n in rows)

    def candidates(self, stems: frozenset[str], years: frozenset[str]) -> list[Candidate]:
        """The URLs sharing a word (or a year) with the claim, in sitemap order."""
        found: set[int] = set()
        for word in stems | years:
            found.update(self.by_word.get(word, ()))
        return [Candidate(self.urls[n], SITEMAP, "", self.lastmods[n]) for n in sorted(found)]


def claim_years(claim: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(_YEAR.findall(str(claim.get("claim_text", ""))))


def ranked(candidates: Iterable[Candidate], claim: ClaimRecord, own_words: Sequence[str], cited_host: str,
           limit: int, skip: Iterable[str] = ()) -> list[Candidate]:
    """At most ``limit`` candidates worth reading for ``claim``: same site, not ``skip``ped (the cited
    page, pages read already), sharing enough words; most words first, then the newest."""
    stems = terms(claim, own_words)
    years = claim_years(claim)
    skipped = {u.rstrip("/") for u in skip}
    scored: list[tuple[int, int, Candidate]] = []
    seen: set[str] = set()
    for n, candidate in enumerate(candidates):
        key = candidate.url.rstrip("/")
        if key in seen or key in skipped or not same_site(candidate.url, cited_host):
            continue
        seen.add(key)
        points = score(candidate, stems, years)
        if points >= (1 if candidate.found_via == SEARCH else MIN_SHARED):
            scored.append((points, n, candidate))
    if not scored:
        return []
    # the best-matching tier (half the best's words or more), newest first: a current guidance page before
    # an old news release whose longer title shares more; then the rest, by words shared
    best = max(points for points, _, _ in scored)
    scored.sort(key=lambda s: (2 * s[0] < best, _newest_first(s[2].lastmod) if 2 * s[0] >= best else "", -s[0], s[1]))
    return [c for *_, c in scored[:limit]]


def _newest_first(lastmod: str) -> str:
    """A sort key putting the newest ``<lastmod>`` first (no date: last)."""
    digits = re.sub(r"\D", "", lastmod)[:14].ljust(14, "0")
    return "".join(chr(ord("9") - ord(d) + ord("0")) for d in digits) if lastmod else "~"


def search_query(claim: Mapping[str, Any], own_words: Sequence[str], limit: int = 4) -> str:
    """What the site's own search is asked: the site's words when it writes another language, else the
    claim's subject words (a few; a search box ANDs them).

    >>> search_query({"claim_text": "Property wealth tax (IFI): above €1,300,000", "values": [{"raw": "€1,300,000"}]}, [])
    'property wealth tax ifi'
    """
    words = list(own_words) or list(claim_words(claim))
    return " ".join(words[:limit])
