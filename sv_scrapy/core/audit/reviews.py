"""Review memory: the audit applies the maintainer's reviews (``core.audit.reviewfile``) to this
month's claims.

A review **matches** a claim by the key its history uses (``news.fingerprint``: scope, cited URL,
figures), so a line that moved keeps it; failing that, by the claim id it was made on (same
line, same page, other figures). It **applies** while the claim still shows the finding it
reviewed. It is **live** until it expires:

* the claim's figures changed (``figures`` it was made on differ);
* the page's confirmed text differs from the one it was made on (its ``stable_hash``, the
  settle-confirmed baseline of ``core.page.changes``: a change counts once it is seen twice, so
  a text seen once, or a page in flux, never expires a review, and a confirmed change is news
  once, on the audit that confirms it);
* its ``until`` day has passed (the run's one clock).

A claim whose every finding has a live review is **quiet**: out of the news and the backlog,
listed under "Reviewed". An expired review that applies is news once (the audit where it first
expired; the store's claim outcome remembers it), then the claim is back in the backlog. A
review that matches no claim is **orphaned**: listed, never an error. Pure: no file is read here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sv_scrapy.core.audit.news import fingerprint, new_findings, news
from sv_scrapy.core.audit.reviewfile import FINDINGS, Review
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.fetchstatus import DEAD, UNAVAILABLE
from sv_scrapy.core.page.prefilter import PDF_NO_TEXT, SOURCE_UNAVAILABLE, TOKENS_ABSENT, WEAK_MATCH

ROOT_CITATION = "root_citation"
# what a row's review command suggests; the maintainer edits it before running it
SUGGESTED = {"TOKENS_ABSENT": "figure_elsewhere", "WEAK_MATCH": "figure_elsewhere", "stale_changed": "accepted",
             "CONTENT_CHANGED": "accepted", "UNAVAILABLE": "wont_fix", "DEAD": "fix_pending",
             "PDF_NO_TEXT": "accepted", ROOT_CITATION: "fix_pending"}
# a review of a page that cannot be read holds through its fail streak to DEAD
COVERS = {"UNAVAILABLE": ("UNAVAILABLE", "DEAD")}
_REMEMBERED = "reviews_expired"  # the claim outcome's note of reviews already reported as expired


def figures(item: ClaimRecord) -> tuple[str, ...]:
    """The claim's salient figures, normalised and sorted (what ``fingerprint`` hashes)."""
    return tuple(sorted(str(v.get("norm", "")) for v in item.get("values") or [] if v.get("salient", True)))


def findings(item: ClaimRecord) -> list[str]:
    """The findings the claim shows in this audit, in ``FINDINGS`` order (the linter's is separate).

    >>> findings({"prior": "TOKENS_ABSENT", "fetch_status": "OK", "stale_changed": True, "content_changed": True})
    ['TOKENS_ABSENT', 'stale_changed', 'CONTENT_CHANGED']
    >>> findings({"prior": "SOURCE_UNAVAILABLE", "fetch_status": "DEAD"})
    ['UNAVAILABLE', 'DEAD']
    """
    prior, status = item.get("prior"), item.get("fetch_status")
    shown = {
        TOKENS_ABSENT: prior == TOKENS_ABSENT,
        WEAK_MATCH: prior == WEAK_MATCH,
        "stale_changed": bool(item.get("stale_changed")),
        "CONTENT_CHANGED": bool(item.get("content_changed")),
        "UNAVAILABLE": prior == SOURCE_UNAVAILABLE or status in (UNAVAILABLE, DEAD),
        "DEAD": status == DEAD,
        PDF_NO_TEXT: prior == PDF_NO_TEXT,
    }
    return [f for f in FINDINGS if shown.get(f)]


def new_review(item: ClaimRecord, finding: str, decision: str, reason: str, today: date,
               until: str = "", reviewer: str = "", at: str = "") -> Review:
    """A review of ``item``'s ``finding``, made on its page's hash and its figures as they are now; ``at``
    (``figure_elsewhere``): where the figure stands, with that page's hash when the audit proposed it."""
    return Review(key=fingerprint(item), claim=str(item["id"]), finding=finding, decision=decision, reason=reason,
                  date=today.isoformat(), reviewer=reviewer, until=until, content_hash=page_hash(item),
                  figures=figures(item), url=str(item.get("source_url") or ""), at=at, at_hash=proposed_hash(item, at))


def proposed_hash(item: ClaimRecord, url: str) -> str:
    """The text hash of the page the audit proposed for ``item`` when that page is ``url`` ("" otherwise)."""
    proposed = item.get("proposed_source") or {}
    return str(item.get("proposed_hash") or "") if url and proposed.get("url") == url else ""


def page_hash(item: ClaimRecord) -> str:
    """The page's confirmed text a review is made on and compared with: the settle-confirmed
    baseline (``stable_hash``), or, in a record from before it was kept, the text read.

    >>> page_hash({"content_hash": "b", "stable_hash": "a"}), page_hash({"content_hash": "b"})
    ('a', 'b')
    """
    return str(item.get("stable_hash") or item.get("content_hash") or "")


def why_expired(review: Review, item: ClaimRecord, today: date) -> str:
    """Why a matched review no longer holds ("" while it is live).

    >>> r = Review("ab12cd34", "fr:3:0a1b2c3d", "TOKENS_ABSENT", "wont_fix", "x", "2027-01-01",
    ...            until="2027-02-01", content_hash="h1", figures=("5.81%",))
    >>> item = {"content_hash": "h1", "values": [{"norm": "5.81%"}]}
    >>> why_expired(r, item, date(2027, 1, 15)), why_expired(r, item, date(2027, 3, 1))
    ('', 'its until date 2027-02-01 has passed')
    >>> why_expired(r, {**item, "content_hash": "h2"}, date(2027, 1, 15))
    'the page changed since'
    >>> why_expired(r, {**item, "content_hash": "h2", "stable_hash": "h1"}, date(2027, 1, 15))  # not confirmed
    ''
    """
    now = figures(item)
    if review.figures and now != review.figures:
        return f"the claim's figures changed since ({', '.join(review.figures)} → {', '.join(now) or 'none'})"
    page = page_hash(item)
    if review.content_hash and page and page != review.content_hash:
        return "the page changed since"
    elsewhere = proposed_hash(item, review.at)
    if review.at_hash and elsewhere and elsewhere != review.at_hash:
        return f"the page it names ({review.at}) changed since"
    return until_passed(review, today)


def until_passed(review: Review, today: date) -> str:
    return f"its until date {review.until} has passed" if review.until and review.until < today.isoformat() else ""


def expired_line(review: Review, why: str) -> str:
    """What the report says of an expired review.

    >>> r = Review("ab12cd34", "fr:3:0a1b2c3d", "TOKENS_ABSENT", "figure_elsewhere", "in the annex", "2026-06-03")
    >>> expired_line(r, "the page changed since")
    'reviewed 2026-06-03 as figure_elsewhere — the page changed since'
    """
    return f"reviewed {review.date} as {review.decision} — {why}"


@dataclass
class Applied:
    """What the reviews did to this audit."""

    quiet: list[tuple[ClaimRecord, list[Review]]] = field(default_factory=list)  # claim, its live reviews
    quiet_roots: list[tuple[Mapping[str, Any], Review]] = field(default_factory=list)  # linter row, its review
    expired_news: list[ClaimRecord] = field(default_factory=list)  # claims whose review expired this audit
    expired: list[tuple[Review, str]] = field(default_factory=list)  # every expired review, with why
    orphaned: list[Review] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The audit document's ``reviews`` block."""
        return {"reviewed": len(self.quiet) + len(self.quiet_roots), "review_expired": len(self.expired_news),
                "orphaned": [r.as_dict() for r in self.orphaned],
                "root_citations_reviewed": [{**dict(row), "review": _public(r, "", True)} for row, r in self.quiet_roots]}


def _public(review: Review, why: str, applies: bool) -> dict[str, Any]:
    """A claim record's ``review`` field."""
    return {"decision": review.decision, "reason": review.reason, "date": review.date, "expired": bool(why),
            "why_expired": why or None, "finding": review.finding, "reviewer": review.reviewer or None,
            "until": review.until or None, "applies": applies, "quiet": False, "news": False}


def _match(reviews: Sequence[Review], items: Sequence[ClaimRecord]) -> dict[int, ClaimRecord]:
    """Review index -> the claim it is about (history key first, then the claim id it was made on)."""
    by_id = {str(i["id"]): i for i in items}
    by_key: dict[str, list[ClaimRecord]] = {}
    for item in items:
        by_key.setdefault(fingerprint(item), []).append(item)
    out: dict[int, ClaimRecord] = {}
    for n, review in enumerate(reviews):
        same_key = by_key.get(review.key, [])
        exact = [i for i in same_key if i["id"] == review.claim]
        if exact or same_key:  # a moved line keeps its review (the nearest line when a key repeats)
            line = _line(review.claim)
            out[n] = (exact or sorted(same_key, key=lambda i: abs(int(i["line_no"]) - line)))[0]
        elif review.claim in by_id:  # same line and page, other figures: the review is expired
            out[n] = by_id[review.claim]
    return out


def _line(claim_id: str) -> int:
    parts = claim_id.rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0


def previous_outcome(item: ClaimRecord, previous: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    """The outcome the last audit kept for this claim (by id, or by its history key)."""
    found = previous.get(str(item["id"]))
    if found is None:
        fp = fingerprint(item)
        found = next((o for o in previous.values() if o.get("fp") == fp), None)
    return found or {}


def _expiry_mark(review: Review) -> str:
    return f"{review.finding}@{review.date}"


def apply_reviews(items: Sequence[ClaimRecord], reviews: Sequence[Review], today: date,
                  previous: Mapping[str, Mapping[str, Any]] | None = None,
                  root_rows: Sequence[Mapping[str, Any]] = ()) -> Applied:
    """Set ``review`` on every item (null without one) and say which claims are quiet, which
    reviews expired (news the first time) and which are orphaned. ``root_rows`` are the linter's
    rows, each with the ``id`` of the claim its line and URL make."""
    applied = Applied()
    matched = _match(reviews, items)
    per_item: dict[str, list[tuple[Review, str]]] = {}
    rows = {str(r["id"]): r for r in root_rows}
    for n, review in enumerate(reviews):
        item = matched.get(n)
        if review.finding == ROOT_CITATION:
            row = rows.get(str(item["id"])) if item is not None else rows.get(review.claim)
            if row is not None:
                why = why_expired(review, item, today) if item is not None else until_passed(review, today)
                if why:
                    applied.expired.append((review, why))
                else:
                    applied.quiet_roots.append((row, review))
                continue
        if item is None:
            applied.orphaned.append(review)
            continue
        per_item.setdefault(str(item["id"]), []).append((review, why_expired(review, item, today)))
    for item in items:
        own = per_item.get(str(item["id"]), [])
        item["review"] = None
        if not own:
            continue
        shown = findings(item)
        live = [r for r, why in own if not why and r.finding in shown]
        expired = [(r, why) for r, why in own if why]
        applied.expired += expired
        quiet = bool(shown) and all(any(f in COVERS.get(r.finding, (r.finding,)) for r in live) for f in shown)
        first = (live[0], "") if live else next(((r, w) for r, w in expired if r.finding in shown), own[0])
        record = _public(first[0], first[1], first[0].finding in shown)
        record["quiet"] = quiet
        item["review"] = record
        if quiet:
            applied.quiet.append((item, live))
            continue
        back = [r for r, _ in expired if r.finding in shown]
        if back and not set(map(_expiry_mark, back)) <= set(previous_outcome(item, previous or {}).get(_REMEMBERED, [])):
            record["news"] = True
            applied.expired_news.append(item)
    return applied


def remember_expired(kept: MutableMapping[str, dict[str, Any]], items: Iterable[ClaimRecord],
                     reviews: Sequence[Review], today: date) -> None:
    """Note in each claim's kept outcome the expired reviews already reported, so an expired
    review is news once."""
    matched = _match(reviews, list(items))
    marks: dict[str, list[str]] = {}
    for n, item in matched.items():
        review = reviews[n]
        if why_expired(review, item, today) and review.finding in findings(item):
            marks.setdefault(str(item["id"]), []).append(_expiry_mark(review))
    for cid, found in marks.items():
        if cid in kept:
            kept[cid] = {**kept[cid], _REMEMBERED: sorted(found)}  # set again: a spooled outcome is a copy


def quiet(item: ClaimRecord) -> bool:
    """Out of the news and the backlog: every finding of the claim has a live review."""
    return bool((item.get("review") or {}).get("quiet"))


def expired_news(item: ClaimRecord) -> bool:
    """A review of the claim expired on this audit: the finding is back, as news."""
    return bool((item.get("review") or {}).get("news"))


def open_findings(items: Sequence[ClaimRecord]) -> int:
    """``new_findings`` without the quiet claims; a review that expired on this audit counts."""
    back = [i for i in items if not quiet(i) and expired_news(i)]
    return new_findings(news([i for i in items if not quiet(i) and not expired_news(i)])) + len(back)
