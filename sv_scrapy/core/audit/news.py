"""What is new since the previous audit: each claim's outcome compared with the one the store
kept, so the report can open with the month's news instead of the standing backlog.

Transitions (one per claim, the strongest wins):

* ``newly_dead`` — DEAD now, not DEAD before (after the configured fail streak);
* ``newly_unavailable`` — not read now (``SOURCE_UNAVAILABLE``), read before;
* ``vanished`` — the page had the figure (``TOKENS_PRESENT``) and now does not
  (``TOKENS_ABSENT``, or only a weak match is left): the strongest signal this tool has;
* ``appeared`` — the figure is on the page now and was not before;
* ``recovered`` — read again after being unavailable or dead;
* ``new_claim`` — a claim the previous audit of its scope did not have.

Beside the transitions, a **new proposal** is news (``proposal_new``): the audit found, on the cited
site, a page stating the claim's figure (``proposed_source``) that the previous audit did not propose.

A figure transition is **confirmed** like a content change (``core.page.changes``): at once when
the page is settled (its text is the confirmed baseline, or a change settled on this run),
otherwise only when the next audit sees the same prior again. A page whose text differs on
every run can still report a vanished figure, one month late; a page that flips back is
never reported. ``previous_prior`` is the prior this audit compared against.

A claim keeps its outcome when its line moves: unmatched ids are matched by a fingerprint
(scope, cited URL, figures).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.outcomes import KeptOutcomes
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.fetchstatus import DEAD
from sv_scrapy.core.page.prefilter import SOURCE_UNAVAILABLE, TOKENS_ABSENT, TOKENS_PRESENT, WEAK_MATCH

VANISHED, APPEARED = "vanished", "appeared"
NEWLY_UNAVAILABLE, NEWLY_DEAD = "newly_unavailable", "newly_dead"
RECOVERED, NEW_CLAIM = "recovered", "new_claim"
TRANSITIONS = (VANISHED, APPEARED, NEWLY_UNAVAILABLE, NEWLY_DEAD, RECOVERED, NEW_CLAIM)
STALE_CHANGED = "stale_changed"  # a news section, not a transition: the record's own flag
PROPOSED = "proposed"  # a news section too: a new proposal of where the figure stands (core.audit.discover)

# news sections, most urgent first; each claim is listed once, in the first that holds it
NEWS_SECTIONS: tuple[tuple[str, str, bool], ...] = (
    # key, title, counts as a finding
    (VANISHED, "Figure vanished — the page had it, now it does not", True),
    (STALE_CHANGED, "⚠️ Page changed after `Last verified`", True),
    (NEWLY_DEAD, "Newly DEAD", True),
    (NEWLY_UNAVAILABLE, "Newly unavailable", True),
    (PROPOSED, "Stated elsewhere — the site states the figure on another page (a suggestion to check)", False),
    (NEW_CLAIM, "New claims", False),  # only those flagged count, see new_findings
    (RECOVERED, "Recovered — read again", False),
    (APPEARED, "Figure appeared", False),
)


def fingerprint(item: ClaimRecord) -> str:
    """What identifies a claim when its line number moves."""
    norms = sorted(str(v.get("norm", "")) for v in item.get("values") or [] if v.get("salient", True))
    key = "\x1f".join([str(item.get("scope", "")), str(item.get("source_url", "")), *norms])
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def figure_transition(before: str, now: str) -> str | None:
    """A change of prior that says something about the figure itself.

    >>> figure_transition("TOKENS_PRESENT", "TOKENS_ABSENT"), figure_transition("TOKENS_ABSENT", "WEAK_MATCH")
    ('vanished', None)
    """
    if before == TOKENS_PRESENT and now in (TOKENS_ABSENT, WEAK_MATCH):
        return VANISHED
    if before in (TOKENS_ABSENT, WEAK_MATCH) and now == TOKENS_PRESENT:
        return APPEARED
    return None


def judge(prev: Mapping[str, Any] | None, item: ClaimRecord, scope_audited_before: bool
          ) -> tuple[str | None, str | None, str, dict[str, Any]]:
    """(transition, previous_prior, pending transition or "", the outcome to keep) for one claim.

    ``prev`` is the kept outcome: ``prior`` and ``fetch_status`` last seen, ``baseline`` the
    last confirmed prior of a read page, ``pending`` a prior seen once on an unsettled page.
    """
    prior, status = str(item["prior"]), str(item["fetch_status"])
    readable = prior != SOURCE_UNAVAILABLE
    outcome: dict[str, Any] = {"prior": prior, "fetch_status": status, "scope": item.get("scope", ""),
                               "fp": fingerprint(item), "baseline": prior if readable else "", "pending": ""}
    if prev is None:
        return (NEW_CLAIM if scope_audited_before else None), None, "", outcome
    was_readable = prev.get("prior") != SOURCE_UNAVAILABLE
    baseline = str(prev.get("baseline") or "")
    if not readable:
        outcome["baseline"], outcome["pending"] = baseline, ""
        if status == DEAD and prev.get("fetch_status") != DEAD:
            return NEWLY_DEAD, str(prev.get("prior")), "", outcome
        return (NEWLY_UNAVAILABLE if was_readable else None), str(prev.get("prior")), "", outcome
    settled = not item.get("in_flux") or prev.get("pending") == prior
    change = figure_transition(baseline, prior) if baseline else None
    if change and not settled:  # seen once on a page in flux: wait for the next audit
        outcome["baseline"], outcome["pending"] = baseline, prior
        return (None if was_readable else RECOVERED), baseline, change, outcome
    if change:
        return change, baseline, "", outcome
    if not was_readable:
        return RECOVERED, str(prev.get("prior")), "", outcome
    return None, baseline or str(prev.get("prior")), "", outcome


def shared_values(outcome: dict[str, Any]) -> dict[str, Any]:
    """The outcome with its few distinct words (priors, statuses, scopes) shared, not one copy a
    claim: 100,000 outcomes are kept until the store is written."""
    return {k: sys.intern(v) if isinstance(v, str) and k != "fp" else v for k, v in outcome.items()}


class Transitions:
    """``apply_transitions`` one claim at a time, in corpus order (the audit's finish streams its
    claims): ``ids`` are every claim id of the audit, known before the first claim is judged (a
    previous outcome whose id is gone may have moved to a new line)."""

    def __init__(self, previous: Mapping[str, Mapping[str, Any]], audited_scopes: Iterable[str],
                 ids: Collection[str], spool_dir: Path | None = None) -> None:
        self.previous = previous
        self.by_fp: dict[str, list[str]] = {}
        for cid, out in previous.items():
            if cid not in ids:
                self.by_fp.setdefault(str(out.get("fp", "")), []).append(cid)
        self.scopes_before = set(audited_scopes)
        self.audited_now: set[Any] = set()
        self.outcomes = KeptOutcomes(spool_dir)  # on disk until the store writes them

    def apply(self, item: ClaimRecord) -> None:
        """Set ``previous_prior``, ``transition``, ``transition_pending`` and ``proposal_new``."""
        prev = self.previous.get(item["id"])
        if prev is None:
            moved = self.by_fp.get(fingerprint(item)) or []
            prev = self.previous[moved.pop(0)] if moved else None
        transition, before, pending, outcome = judge(prev, item, item.get("scope") in self.scopes_before)
        item.update({"previous_prior": before, "transition": transition, "transition_pending": pending or None})
        proposed = str((item.get("proposed_source") or {}).get("url") or "")
        outcome["proposed"] = proposed
        item["proposal_new"] = bool(proposed and prev is not None and str(prev.get("proposed") or "") != proposed)
        self.outcomes.add(item["id"], outcome)  # each claim once: ids are unique
        self.audited_now.add(item.get("scope"))

    def kept(self) -> KeptOutcomes:
        """The outcomes to keep: this audit's, plus the kept ones of scopes it did not audit."""
        kept = self.outcomes
        for cid, out in self.previous.items():
            # the scope first: asking the spool by id reads its index, which a whole audit never needs
            if out.get("scope") not in self.audited_now and cid not in kept:
                kept.add(cid, dict(out))  # a scope this audit did not cover keeps its outcomes
        return kept


def apply_transitions(items: Sequence[ClaimRecord], previous: Mapping[str, Mapping[str, Any]],
                      audited_scopes: Iterable[str]) -> KeptOutcomes:
    """Set ``previous_prior``, ``transition`` and ``transition_pending`` on every item; return
    the outcomes to keep: this audit's, plus the kept ones of scopes it did not audit."""
    transitions = Transitions(previous, audited_scopes, {i["id"] for i in items})
    for item in items:
        transitions.apply(item)
    return transitions.kept()


def news(items: Sequence[ClaimRecord]) -> dict[str, list[ClaimRecord]]:
    """Section key -> the claims it lists, each claim once (``NEWS_SECTIONS`` order)."""
    out: dict[str, list[ClaimRecord]] = {key: [] for key, _, _ in NEWS_SECTIONS}
    for item in items:
        transition = item.get("transition")
        if transition == VANISHED:
            out[VANISHED].append(item)
        elif item.get("stale_changed"):  # true only on the audit where the change settled
            out[STALE_CHANGED].append(item)
        elif transition in out:
            out[str(transition)].append(item)
        elif item.get("proposal_new"):
            out[PROPOSED].append(item)
    return out


def is_flagged(item: ClaimRecord) -> bool:
    """A claim that needs a look whatever its history."""
    return item.get("prior") == TOKENS_ABSENT or bool(item.get("stale_changed")) or item.get("fetch_status") == DEAD


def new_findings(sections: Mapping[str, Sequence[ClaimRecord]]) -> int:
    """Claims in the news that need a look: every finding section, and new claims that are flagged."""
    total = sum(len(sections.get(key, ())) for key, _, finding in NEWS_SECTIONS if finding)
    return total + sum(1 for item in sections.get(NEW_CLAIM, ()) if is_flagged(item))
