"""What discovery keeps in the content store (``store/discover/``, store format 5), so that a month later
a site's sitemaps and search answers are asked conditionally (a 304 is a few hundred bytes) and a
claim's proposal is not searched for again while neither its page nor the claim changed:

    discover/sitemap/<sha1(url)>.json    a sitemap's entries (or child sitemaps) and its validators
    discover/search/<sha1(url)>.json     a search answer's links and its validators
    discover/failed/<sha1(url)>.json     a search that failed: why, when, and when to ask again
    discover/proposal/<sha1(id)>.json    a claim's proposal (or none found), and what it was made on

A failed search, and a claim where nothing was found, are asked again on the archive lookups'
schedule (``RETRY_FAILED_AFTER_DAYS``: the next monthly audit), not every run. File names are hashes,
never URL-derived text; a file that does not parse or holds another key is read as absent (and
simply rewritten).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.audit.archive.cache import RETRY_FAILED_AFTER_DAYS, read_keyed
from sv_scrapy.core.digest import sha256_hex

FOLDER = "discover"


def _key(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


def claim_fingerprint(claim: Mapping[str, Any]) -> str:
    """What a proposal was made for: the claim's text, figures and citation (a changed claim searches again)."""
    figures = [str(v.get("raw")) for v in claim.get("values") or [] if isinstance(v, Mapping)]
    return sha256_hex(json.dumps([claim.get("claim_text"), claim.get("source_url"), figures], ensure_ascii=False))


def retry_from(at: str) -> str:
    """The day a failed search (or a claim with nothing found) is asked again."""
    return (date.fromisoformat(at[:10]) + timedelta(days=RETRY_FAILED_AFTER_DAYS)).isoformat()


def pack_rows(rows: Sequence[tuple[str, str]]) -> str:
    """Rows as one text, a row a line, its two fields split by a tab: 50,000 sitemap rows are one JSON
    string to write and to read back, not 50,000 arrays (tabs and line breaks never stand in a URL,
    and are dropped from a link's text).

    >>> unpack_rows(pack_rows([("https://x.gov/a", "2026-01-01"), ("https://x.gov/b", "Rates\\tand fees")]))
    [('https://x.gov/a', '2026-01-01'), ('https://x.gov/b', 'Rates and fees')]
    """
    return "\n".join(f"{_one_line(a)}\t{_one_line(b)}" for a, b in rows)


def _one_line(text: str) -> str:
    return " ".join(text.split()) if any(c in text for c in "\t\n\r") else text


def unpack_rows(packed: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for line in packed.split("\n"):
        a, _, b = line.partition("\t")
        if a:
            out.append((a, b))
    return out


def conditional_headers(etag: str, last_modified: str) -> dict[str, str]:
    """The headers asking for a page only if it changed since these validators.

    >>> conditional_headers('"v1"', "")
    {'If-None-Match': '"v1"'}
    """
    headers = {"If-None-Match": etag, "If-Modified-Since": last_modified}
    return {name: value for name, value in headers.items() if value}


@dataclass(frozen=True)
class Kept:
    """A kept answer (a sitemap or a search page): its validators and what was read out of it."""

    url: str
    etag: str
    last_modified: str
    rows: Sequence[tuple[str, str]]  # sitemap: (loc, lastmod) or (child sitemap, ""); search: (url, link text)
    index: bool = False  # a sitemap index (its rows are child sitemaps)

    def conditional(self) -> dict[str, str]:
        return conditional_headers(self.etag, self.last_modified)


class DiscoverMemory:
    def __init__(self, store_root: Path) -> None:
        self.root = store_root / FOLDER

    def _read(self, kind: str, key: str) -> dict[str, Any] | None:
        return read_keyed(self.root, kind, key)

    def _write(self, kind: str, key: str, data: dict[str, Any]) -> None:
        write_json(self.root / kind / f"{key}.json", {**data, "key": key})

    # -- sitemaps and search answers -----------------------------------------------------------
    def answer(self, kind: str, url: str) -> Kept | None:
        """The kept ``sitemap`` or ``search`` answer of ``url``, if any."""
        data = self._read(kind, _key(url))
        rows = data.get("rows") if data is not None else None
        if data is None or not isinstance(rows, str):
            return None
        return Kept(url, str(data.get("etag") or ""), str(data.get("last_modified") or ""), unpack_rows(rows),
                    bool(data.get("index")))

    def save_answer(self, kind: str, kept: Kept, at: str) -> None:
        self._write(kind, _key(kept.url), {"url": kept.url, "asked_at": at, "etag": kept.etag,
                                           "last_modified": kept.last_modified, "index": kept.index,
                                           "rows": pack_rows(kept.rows)})

    # -- failed searches -----------------------------------------------------------------------
    def failure(self, url: str, today: str) -> dict[str, Any] | None:
        """A failure of the search ``url`` not yet due to be asked again on ``today``; None to ask."""
        data = self._read("failed", _key(url))
        if data is None or not str(data.get("reason") or ""):
            return None
        return data if str(data.get("retry_from") or "") > today[:10] else None

    def save_failure(self, url: str, reason: str, at: str) -> None:
        self._write("failed", _key(url), {"url": url, "reason": reason, "asked_at": at, "retry_from": retry_from(at)})

    # -- proposals -----------------------------------------------------------------------------
    def proposal(self, claim: Mapping[str, Any], page_hash: str, today: str) -> KeptProposal | None:
        """The kept proposal (or "none found") while the claim and its cited page are unchanged — a
        "none found" only until it is due again; None: search."""
        data = self._read("proposal", _key(str(claim.get("id"))))
        if data is None or data.get("claim") != claim_fingerprint(claim) or data.get("page") != page_hash:
            return None
        found = data.get("proposal")
        if not isinstance(found, dict):
            if str(data.get("retry_from") or "") <= today[:10]:
                return None
            found = None
        return KeptProposal(found, str(data.get("searched") or ""), str(data.get("etag") or ""),
                            str(data.get("last_modified") or ""), str(data.get("text_hash") or ""))

    def save_proposal(self, claim: Mapping[str, Any], page_hash: str, kept: KeptProposal, at: str) -> None:
        self._write("proposal", _key(str(claim.get("id"))), {
            "id": claim.get("id"), "claim": claim_fingerprint(claim), "page": page_hash, "proposal": kept.proposal,
            "searched": kept.searched, "etag": kept.etag, "last_modified": kept.last_modified,
            "text_hash": kept.text_hash, "made_at": at, "retry_from": retry_from(at) if kept.proposal is None else ""})


@dataclass(frozen=True)
class KeptProposal:
    """A claim's proposal as the store keeps it, with the proposed page's validators and text hash (a
    month later the page is asked conditionally: a 304 keeps the proposal, a changed page is judged again)."""

    proposal: dict[str, Any] | None
    searched: str = ""  # what was searched, when nothing was found
    etag: str = ""
    last_modified: str = ""
    text_hash: str = ""  # the proposed page's text hash (a figure_elsewhere review --at it expires when it changes)

    def conditional(self) -> dict[str, str]:
        return conditional_headers(self.etag, self.last_modified)


def searched_line(sources: Sequence[tuple[str, int]]) -> str:
    """The plain sentence of a search that found nothing: what was searched, and how much of it.

    >>> searched_line([("sitemap", 412), ("search", 10)])
    "searched the sitemap (412 pages) and the site's search (10 results): not found"
    >>> searched_line([])
    'no sitemap, no links and no search configured for this site: nothing to search'
    """
    names = {"link": "the cited page's links", "sitemap": "the sitemap", "search": "the site's search"}
    units = {"link": "links", "sitemap": "pages", "search": "results"}
    parts = [f"{names[s]} ({n} {units[s]})" for s, n in sources if s in names]
    if not parts:
        return "no sitemap, no links and no search configured for this site: nothing to search"
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"searched {joined}: not found"
