"""What a change to the corpus did to its claims: the claims of the working tree against those of
an earlier revision (``scrapy crawl worklist -a changed_since=REF``).

A claim is matched across the two revisions by the identity its history uses
(``news.fingerprint``: scope, cited URL, figures), so a line that only moved is no change. What
is left unmatched is paired by where it stands: each file's lines are aligned (``difflib``), so
"the same line" survives 20 lines inserted above it. Each changed claim gets one ``change``:

* ``restamped`` — the same identity, a later ``Last verified`` date applies (its own stamp, its
  heading's, or the file's ``**Last verified**``);
* ``figure_changed`` — the same URL on the same (aligned) line, other figures;
* ``source_changed`` — the same figures on the same (aligned) line, another URL;
* ``new`` — anything else.

A claim at the revision left unmatched is ``removed``. Pure: texts and claim records in, data out.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.audit.news import fingerprint
from sv_scrapy.core.claims.record import ClaimRecord

NEW, RESTAMPED, FIGURE_CHANGED, SOURCE_CHANGED = "new", "restamped", "figure_changed", "source_changed"
CHANGES = (NEW, RESTAMPED, FIGURE_CHANGED, SOURCE_CHANGED)
NEAR_LINES = 3  # how far (after alignment) a figure or URL edit may sit from the line it replaced


@dataclass(frozen=True)
class Changed:
    claim: ClaimRecord  # as it stands now
    change: str  # one of CHANGES
    before: ClaimRecord | None = None  # as it stood at the revision (None: new)
    also_stated: tuple[str, ...] = ()  # figure_changed: "scope:line" still stating the old figure


@dataclass
class ChangeSet:
    changed: list[Changed] = field(default_factory=list)
    removed: list[ClaimRecord] = field(default_factory=list)
    moved: int = 0  # claims whose line moved, nothing else
    unchanged: int = 0


def line_map(before: str, after: str) -> Callable[[int], tuple[int, int]]:
    """Line ``n`` (1-based) of ``before`` -> the lines of ``after`` it became: itself moved, or
    (an edited line) the span of the edit that replaced it.

    >>> move = line_map("a\\nb\\nc\\n", "x\\ny\\na\\nB\\nB2\\nc\\n")
    >>> [move(1), move(2), move(3)]
    [(3, 3), (4, 5), (6, 6)]
    """
    old, new = before.splitlines(), after.splitlines()
    table: dict[int, tuple[int, int]] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        for i in range(i1, i2):
            table[i + 1] = (j1 + (i - i1) + 1,) * 2 if tag == "equal" else (j1 + 1, max(j1 + 1, j2))
    return lambda n: table.get(n, (n, n))


def figures(claim: Mapping[str, Any]) -> frozenset[tuple[str, str]]:
    """The claim's salient figures as (type, normalised value)."""
    return frozenset((str(v.get("type", "")), str(v.get("norm", ""))) for v in claim.get("values") or []
                     if v.get("salient", True))


def stamp_date(claim: Mapping[str, Any]) -> str:
    """The ``Last verified`` date that applies to the claim ("" none, or a stale marker)."""
    stamp = claim.get("inline_stamp") or {}
    return "" if str(stamp.get("kind", "")).startswith("stale") else str(stamp.get("date", ""))


Where = Callable[[int], tuple[int, int]]


def _nearest(claim: ClaimRecord, candidates: Iterable[ClaimRecord], where: Where,
             limit: int | None = None) -> ClaimRecord | None:
    best: tuple[int, int] | None = None
    found: ClaimRecord | None = None
    line = claim["line_no"]
    for cand in candidates:
        lo, hi = where(cand["line_no"])
        gap = 0 if lo <= line <= hi else min(abs(line - lo), abs(line - hi))
        if (limit is None or gap <= limit) and (best is None or (gap, cand["line_no"]) < best):
            best, found = (gap, cand["line_no"]), cand
    return found


def _diff_file(base: list[ClaimRecord], head: list[ClaimRecord], where: Where, out: ChangeSet) -> None:
    left = {id(c): c for c in base}
    by_key: dict[str, list[ClaimRecord]] = {}
    for b in base:
        by_key.setdefault(fingerprint(b), []).append(b)
    pending: list[ClaimRecord] = []
    for claim in sorted(head, key=lambda c: c["line_no"]):
        before = _nearest(claim, (b for b in by_key.get(fingerprint(claim), []) if id(b) in left), where)
        if before is None:
            pending.append(claim)
            continue
        del left[id(before)]
        if stamp_date(claim) > stamp_date(before):
            out.changed.append(Changed(claim, RESTAMPED, before))
        elif before["line_no"] != claim["line_no"]:
            out.moved += 1
        else:
            out.unchanged += 1
    for claim in pending:
        before = _nearest(claim, (b for b in left.values() if b["source_url"] == claim["source_url"]), where, NEAR_LINES)
        change = FIGURE_CHANGED
        if before is None:
            mine = figures(claim)
            before = _nearest(claim, (b for b in left.values() if mine and figures(b) == mine), where, NEAR_LINES)
            change = SOURCE_CHANGED
        if before is None:
            out.changed.append(Changed(claim, NEW))
            continue
        del left[id(before)]
        out.changed.append(Changed(claim, change, before))
    out.removed.extend(sorted(left.values(), key=lambda c: c["line_no"]))


def still_stated(change: Changed, corpus: Sequence[ClaimRecord]) -> tuple[str, ...]:
    """Where the figure a ``figure_changed`` claim replaced still stands, citing the same page (or
    the same host): ``("fr:120", "shared/exit/western-europe:33")``."""
    if change.change != FIGURE_CHANGED or change.before is None:
        return ()
    old = figures(change.before) - figures(change.claim)
    if not old:
        return ()
    url, host = change.claim["source_url"], change.claim.get("source_host", "")
    return tuple(
        f"{other['scope']}:{other['line_no']}" for other in corpus
        if other["id"] != change.claim["id"] and old & figures(other)
        and (other["source_url"] == url or (host and other.get("source_host") == host))
    )


def diff_claims(base: Sequence[ClaimRecord], head: Sequence[ClaimRecord],
                base_texts: Mapping[str, str], head_texts: Mapping[str, str]) -> ChangeSet:
    """The change from ``base`` (claims and file texts at the revision) to ``head`` (now); files
    are keyed by their path under the corpus root (a claim's ``file``)."""
    out = ChangeSet()
    files = sorted({c.get("file", "") for c in base} | {c.get("file", "") for c in head})
    for rel in files:
        where = line_map(base_texts.get(rel, ""), head_texts.get(rel, ""))
        _diff_file([c for c in base if c.get("file", "") == rel], [c for c in head if c.get("file", "") == rel],
                   where, out)
    out.changed = [Changed(c.claim, c.change, c.before, still_stated(c, head)) for c in out.changed]
    out.changed.sort(key=lambda c: (c.claim.get("file", ""), c.claim["line_no"], c.claim["source_url"]))
    return out
