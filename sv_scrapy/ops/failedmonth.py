"""The rolling issue's body for a month whose audit failed: a ⚠️ line at the top, last month's
body kept below it (a reviewer who reads only the issue learns the month was missed).

    python -m sv_scrapy.ops.failedmonth --line LINE --date YYYY-MM-DD [--last-complete DATE]
        --body-file OLD --out NEW

An earlier failure line at the top is replaced, never stacked; the body is cut on a line
boundary to stay within GitHub's issue limit (``core.report.issuecut``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sv_scrapy.core.atomic import write_text
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.report.issuecut import GITHUB_ISSUE_LIMIT, gh_len

MARK = "> ⚠️ **The audit of "


def failed_body(old: str, line: str, date: str, last_complete: str = "", limit: int = GITHUB_ISSUE_LIMIT) -> str:
    r"""``old`` with a failure line on top (a previous one replaced).

    >>> body = failed_body("# Audit\nrows", "no answer", "2027-03-01", "2027-02-01")
    >>> body.splitlines()[0]
    "> ⚠️ **The audit of 2027-03-01 failed**: no answer; last complete audit 2027-02-01. Below: the last audit's report."
    >>> again = failed_body(body, "no answer", "2027-04-01", "2027-02-01")
    >>> again.count("The audit of"), again.splitlines()[2:]
    (1, ['# Audit', 'rows'])
    """
    lines = old.splitlines()
    while lines and (lines[0].startswith(MARK) or not lines[0].strip()):
        lines.pop(0)  # last month's failure line (and the blank after it): this month's replaces it
    since = f"; last complete audit {last_complete}" if last_complete else "; no complete audit on record"
    head = f"{MARK}{date} failed**: {' '.join(line.split())[:500]}{since}. Below: the last audit's report."
    budget = limit - gh_len(head) - 3
    kept: list[str] = []
    used = 0
    for text in lines:
        cost = gh_len(text) + 1
        if used + cost > budget:
            break
        kept.append(text)
        used += cost
    return "\n".join([head, "", *kept]).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--line", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--last-complete", default="")
    ap.add_argument("--body-file", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    opts = ap.parse_args(argv)
    try:
        old = opts.body_file.read_text(encoding="utf-8") if opts.body_file.is_file() else ""
        write_text(opts.out, failed_body(old, opts.line, opts.date, opts.last_complete))
    except (OSError, UnicodeDecodeError, OutputError) as exc:
        print(f"failedmonth: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
