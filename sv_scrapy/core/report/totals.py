"""What the reports count over every claim of the audit (a first audit's baseline, the chart of
priors per scope), so they can be handed only the claims they can list: a large audit's finish
(``core.report.finish``) never holds every claim's record at once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sv_scrapy.core.audit.reviews import expired_news, quiet
from sv_scrapy.core.claims.record import ClaimRecord


@dataclass(frozen=True)
class Totals:
    claims: int  # every claim of the audit
    set_apart: int  # quiet claims and claims whose review expired this audit (listed apart)
    priors_by_scope: dict[str, dict[str, int]]

    @property
    def baseline(self) -> int:
        """The claims a first audit makes its baseline: neither quiet nor back with an expired review."""
        return self.claims - self.set_apart


def counted_apart(items: Iterable[ClaimRecord]) -> int:
    return sum(1 for i in items if quiet(i) or expired_news(i))
