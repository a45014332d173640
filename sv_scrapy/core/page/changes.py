"""Settle-confirmed change detection, fail streaks, and what changed around a figure.

A naive "hash differs from last run" flags every page with a ticker or a timestamp on every
run. Here a change is **confirmed** only when the new content is seen again on the next run
(it has settled): the current hash equals the previous run's and differs from the stable
baseline. A page that differs on every run never settles, so it is never flagged; a revert
to the baseline is no change. The hash is of the *cleaned* text, so a rotating banner or a
CSRF token in the HTML does not count.

``stale_changed``: a confirmed change first seen after the claim's ``Last verified`` date —
the claim was checked against the old page.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from datetime import date


@dataclass(frozen=True)
class ContentState:
    """What the store remembers of one URL's content between runs."""

    stable_hash: str = ""  # the confirmed baseline
    stable_since: str = ""  # when that baseline was established (fetched_at)
    stable_seen_at: str = ""  # the last fetch that still saw the baseline
    last_hash: str = ""  # the previous run's hash (baseline or not)
    pending_since: str = ""  # first fetch that saw ``last_hash`` when it differs from the baseline
    changed_at: str = ""  # when the last confirmed change was first seen


@dataclass(frozen=True)
class Settled:
    state: ContentState
    changed: bool  # a change confirmed on this run
    in_flux: bool  # differs from the baseline, not (yet) confirmed


def settle(previous: ContentState | None, new_hash: str, fetched_at: str) -> Settled:
    """Fold one run's hash into the state.

    >>> s = settle(None, "A", "t1").state                       # run 1: baseline
    >>> r2 = settle(s, "B", "t2"); (r2.changed, r2.in_flux)      # run 2: new, not yet settled
    (False, True)
    >>> r3 = settle(r2.state, "B", "t3"); (r3.changed, r3.state.stable_hash, r3.state.changed_at)
    (True, 'B', 't2')
    >>> settle(settle(s, "B", "t2").state, "A", "t3").changed   # a revert is no change
    False
    """
    state = previous or ContentState()
    if not state.stable_hash:
        return Settled(ContentState(new_hash, fetched_at, fetched_at, new_hash, "", ""), False, False)
    if new_hash == state.stable_hash:
        return Settled(replace(state, stable_seen_at=fetched_at, last_hash=new_hash, pending_since=""), False, False)
    if new_hash == state.last_hash:  # seen twice running: settled at a new value
        first_seen = state.pending_since or fetched_at
        new_state = ContentState(new_hash, fetched_at, fetched_at, new_hash, "", first_seen)
        return Settled(new_state, True, False)
    return Settled(replace(state, last_hash=new_hash, pending_since=fetched_at), False, True)


def stale_changed(changed_at: str, stamp: dict[str, str] | None) -> bool:
    """A confirmed change first seen after the claim's stamp date (or a claim never verified).

    >>> stale_changed("2026-03-01T10:00:00+00:00", {"date": "2026-02-15"})
    True
    >>> stale_changed("2026-03-01T10:00:00+00:00", {"date": "2026-03-01"})
    False
    """
    if not changed_at:
        return False
    if not stamp or not stamp.get("date"):
        return True
    try:
        return date.fromisoformat(stamp["date"]) < date.fromisoformat(changed_at[:10])
    except ValueError:
        return True


def fail_streak(previous_streak: int, ok: bool) -> int:
    """Consecutive failing runs, counting this one; a success resets it."""
    return 0 if ok else previous_streak + 1


def changed_lines(old: str, new: str, limit: int = 8, width: int = 200) -> list[str]:
    """The lines that differ between two texts, ``- old`` / ``+ new``, at most ``limit``."""
    out: list[str] = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append(line if len(line) <= width else line[: width - 1] + "…")
        if len(out) >= limit:
            break
    return out
