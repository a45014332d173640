"""A run whose clock (``SV_NOW`` or the real one) is earlier than the previous finished audit's:
said in one line (the report's ⚠️ lines and a warning on stderr), never silently accepted, since
reviews, changes and news from that audit are then dated in this run's future."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any


def clock_behind(doc: Mapping[str, Any]) -> str:
    """The warning for an audit document whose ``generated_at`` is before its previous audit's finish.

    >>> clock_behind({"generated_at": "2027-01-01T03:00:00+00:00",
    ...               "run": {"previous_finished_at": "2027-02-01T03:05:00+00:00"}})[:60]
    "This run's clock (2027-01-01T03:00:00+00:00) is earlier than"
    >>> clock_behind({"generated_at": "2027-03-01T03:00:00+00:00",
    ...               "run": {"previous_finished_at": "2027-02-01T03:05:00+00:00"}})
    ''
    """
    now, previous = str(doc.get("generated_at") or ""), str((doc.get("run") or {}).get("previous_finished_at") or "")
    try:
        behind = bool(previous) and datetime.fromisoformat(now) < datetime.fromisoformat(previous)
    except (TypeError, ValueError):  # unreadable, or one of them without a zone: nothing to say
        return ""
    return (f"This run's clock ({now}) is earlier than the previous audit's finish ({previous}): reviews, "
            "changes and news dated after it lie in this run's future; check SV_NOW or the system clock"
            if behind else "")
