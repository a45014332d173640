"""The audit document: every claim's record plus the counts and buckets a reviewer triages.

Buckets, most urgent first: ``stale_changed`` (the page changed after the claim was last
verified), ``TOKENS_ABSENT``, ``CONTENT_CHANGED``, unavailable (grouped by reason),
``PDF_NO_TEXT``. Tripwires, not verdicts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sv_scrapy.core.audit.clockcheck import clock_behind
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.fetchstatus import DEAD, OK, ROBOTS, UNAVAILABLE
from sv_scrapy.core.page.prefilter import PDF_NO_TEXT, SOURCE_UNAVAILABLE, TOKENS_ABSENT, TOKENS_PRESENT

_ATTEMPTS = re.compile(r" after \d+ attempt(?:\(s\)|s)?")


def reason_group(note: str) -> str:
    """A note without its streak, attempt count and page text, so like failures group.

    >>> reason_group("failing (2 of 3): timeout after 3 attempt(s)")
    'timeout'
    >>> reason_group("challenge page (title 'Just a moment...')")
    'challenge page'
    >>> reason_group("failing (1 of 3): http 404")
    'http 404'
    """
    text = note.split("): ", 1)[-1] if note.startswith("failing (") else note
    text = _ATTEMPTS.sub("", text.split(" (", 1)[0])
    return text.strip(" :;") or "unknown"


def audit_stats(items: Sequence[ClaimRecord], urls: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Counts first: the report's opening table and the CI outputs."""
    fetched = [u for u in urls.values() if u.get("fetch_status") == OK]
    not_modified = sum(1 for u in fetched if u.get("not_modified"))
    return {
        "claims": len(items),
        "urls": len(urls),
        "stale_changed": sum(1 for i in items if i.get("stale_changed")),
        "tokens_absent": sum(1 for i in items if i["prior"] == TOKENS_ABSENT),
        "content_changed": sum(1 for i in items if i.get("content_changed")),
        "unavailable": sum(1 for i in items if i["prior"] == SOURCE_UNAVAILABLE),
        "pdf_no_text": sum(1 for i in items if i["prior"] == PDF_NO_TEXT),
        "dead": sum(1 for i in items if i["fetch_status"] == DEAD),
        "soft_404": sum(1 for i in items if i.get("soft_404")),
        # RFC 9309: robots.txt answered 5xx / could not be reached, so its host's pages were not fetched
        "robots_unavailable_urls": sum(1 for u in urls.values() if u.get("fetch_status") == ROBOTS
                                       and str(u.get("note", "")).startswith("robots.txt unavailable")),
        "failing": sum(1 for i in items if i.get("fail_streak") and i["fetch_status"] != DEAD),
        "not_modified_urls": not_modified,
        "not_modified_pct": round(100.0 * not_modified / len(fetched), 1) if fetched else 0.0,
        "by_prior": dict(sorted(Counter(i["prior"] for i in items).items())),
        "by_fetch_status": dict(sorted(Counter(i["fetch_status"] for i in items).items())),
        "pages_by_fetch_status": dict(sorted(Counter(str(u.get("fetch_status")) for u in urls.values()).items())),
    }


def buckets(items: Sequence[ClaimRecord]) -> dict[str, Any]:
    unavailable: dict[str, list[ClaimRecord]] = {}
    for item in items:
        # a soft 404 (200, "page not found") stands with the dead links, not with the figure checks
        if item["prior"] == SOURCE_UNAVAILABLE or item["fetch_status"] in (UNAVAILABLE, DEAD) or item.get("soft_404"):
            unavailable.setdefault(reason_group(str(item.get("note", ""))), []).append(item)
    return {
        "stale_changed": [i for i in items if i.get("stale_changed")],
        "tokens_absent": [i for i in items if i["prior"] == TOKENS_ABSENT and not i.get("soft_404")],
        "content_changed": [i for i in items if i.get("content_changed")],
        "unavailable": dict(sorted(unavailable.items(), key=lambda kv: (-len(kv[1]), kv[0]))),
        "pdf_no_text": [i for i in items if i["prior"] == PDF_NO_TEXT],
        # the figure matched, but never where the page speaks of the claim's words (core/page/context.py)
        "other_context": [i for i in items if i["prior"] == TOKENS_PRESENT and i.get("context_match") is False],
    }


def linked_note(item: ClaimRecord, link: Callable[[str], str] = str) -> str:
    """The report's line for a claim whose figure is one click from its page ("" when it is not);
    ``link`` renders the URL (the Markdown or HTML report's own link)."""
    found = item.get("found_linked") or {}
    url = str(found.get("url") or "")
    return f"the figure is in {link(url)} linked from this page — cite that instead?" if url else ""


def by_scope_priors(items: Sequence[ClaimRecord]) -> dict[str, dict[str, int]]:
    """Scope -> prior -> count, for the report's chart."""
    out: dict[str, Counter[str]] = {}
    for item in items:
        out.setdefault(item["scope"], Counter())[item["prior"]] += 1
    return {scope: dict(counts) for scope, counts in sorted(out.items())}


def top(items: Sequence[ClaimRecord], n: int) -> list[ClaimRecord]:
    """The ``n`` claims a reviewer should look at first (``priority``, then where they stand)."""
    return sorted(items, key=lambda i: (-float(i.get("priority", 0.0)), i["scope"], int(i["line_no"])))[:n]


def standing(items: Sequence[ClaimRecord], news_ids: set[str]) -> list[ClaimRecord]:
    """The backlog: claims that are not in this audit's news."""
    return [i for i in items if i["id"] not in news_ids]


def run_notes(doc: Mapping[str, Any]) -> list[str]:
    """What a reader must know about the run itself before trusting its lists (plain text;
    the renderer escapes): a partial run, no memory of earlier audits, store copies that
    failed their check."""
    notes = [f"Partial results: {problem}" for problem in doc.get("problems", [])]
    notes += [note for note in [clock_behind(doc)] if note]
    if not doc.get("news_since"):  # never silently: a store that did not come back reads the same
        notes.append("No previous store: this audit starts a new baseline (no news, no confirmed change and no "
                     "DEAD page until later audits compare with it)")
    robots = doc.get("stats", {}).get("robots_unavailable_urls", 0)
    if robots:
        notes.append(f"{robots} page(s) not fetched because their host's robots.txt was unavailable (server or "
                     "network error: RFC 9309 reads that as complete disallow)")
    quarantined = doc.get("store_quarantined", [])
    if quarantined:
        one = len(quarantined) == 1
        notes.append(f"{len(quarantined)} stored {'copy' if one else 'copies'} failed {'its' if one else 'their'} "
                     f"hash check and {'was' if one else 'were'} set aside (store/corrupt/), fetched fresh: "
                     + ", ".join(str(q["url"]) for q in quarantined[:10]) + (" …" if len(quarantined) > 10 else ""))
    return notes
