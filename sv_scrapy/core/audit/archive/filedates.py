"""The date of a corpus file, for a claim without a ``Last verified`` stamp: the day of the last
commit that touched it, when the corpus is a git work tree (a file's modification time says
when it was checked out, not when it was written). No git, no history: no date."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def commit_day(root: Path, rel: str, timeout: float = 10.0) -> str:
    """``YYYY-MM-DD`` of the last commit of ``rel`` under ``root``; "" when unknown."""
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%cs", "--", rel],
                             capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    day = out.stdout.strip()
    return day if out.returncode == 0 and _DAY.match(day) else ""


def file_days(root: Path, files: Iterable[str]) -> dict[str, str]:
    """Each corpus file (relative path) -> its commit day, where there is one."""
    days = {}
    for rel in sorted(set(files)):
        if rel and (day := commit_day(root, rel)):
            days[rel] = day
    return days
