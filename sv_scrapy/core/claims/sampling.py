"""Fetch-free sample selection: which claims the worklist (and so the LLM) looks at.

Scores come from extract metadata only, so the network footprint and the LLM cost are both
bounded by the sample size. Priority: a stale marker, then never verified, then the age of
the ``Last verified`` stamp, then statute/money figures. Ties break on a hash of
``(seed, claim id)``: the same seed and ``as_of`` date always pick the same claims, and
adding a claim elsewhere in the corpus does not reshuffle the others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import date

from sv_scrapy.core.claims.claims import Claim


def stamp_age_days(stamp: Mapping[str, str] | None, as_of: date) -> int | None:
    """Whole days from the stamp's date to ``as_of`` (never negative); None if unstamped."""
    if not stamp:
        return None
    try:
        stamped = date.fromisoformat(stamp["date"])
    except (KeyError, ValueError):
        return None
    return max(0, (as_of - stamped).days)


def _tie_break(seed: int, claim_id: str) -> float:
    digest = hashlib.sha1(f"{seed}:{claim_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def score(claim: Claim, weights: Mapping[str, float], as_of: date, seed: int) -> float:
    """Higher is more urgent. The tie-break adds less than 1, below any weighted term."""
    stamp = claim.inline_stamp
    total = 0.0
    if stamp and stamp.get("kind", "").startswith("stale"):
        total += weights.get("stale_marker", 0.0)
    age = stamp_age_days(stamp, as_of)
    if age is None:
        total += weights.get("never_verified", 0.0)
    else:
        total += age / 30.0 * weights.get("stamp_age_per_30d", 0.0)
    if any(v.get("type") in ("statute", "money") and v.get("salient") for v in claim.values):
        total += weights.get("salient_statute_or_money", 0.0)
    return total + _tie_break(seed, claim.id)


def select_sample(
    claims: Sequence[Claim], n: int, weights: Mapping[str, float], as_of: date, seed: int = 1234
) -> list[Claim]:
    """The ``n`` highest-scoring claims, most urgent first (``n <= 0`` selects none)."""
    ranked = sorted(claims, key=lambda c: (-score(c, weights, as_of, seed), c.id))
    return ranked[: max(0, n)]
