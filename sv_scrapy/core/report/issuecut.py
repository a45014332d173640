"""Fit a Markdown report into GitHub's issue body limit, cutting only between rows.

A report is a list of sections; each has head lines (a heading, a table header), rows (a
table row, or a list item with its sub-items) and tail lines. When everything does not fit,
rows are kept in order until the next one would not, and a last line says how many rows the
artifact holds beyond this. Length is counted in UTF-16 code units, which is never less than
the character count GitHub checks, so the body also fits however GitHub counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

GITHUB_ISSUE_LIMIT = 65_536


@dataclass
class Section:
    head: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)  # a row may span lines; it is kept or cut whole
    tail: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [*self.head, *self.rows, *self.tail]


def gh_len(text: str) -> int:
    """Length as UTF-16 code units (an emoji outside the BMP counts 2).

    >>> gh_len("a⚠️€😀")
    6
    """
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _more(n: int) -> str:
    return f"_… {n} more row(s) in the artifact (report.md, report.html, audit.json)._"


def join(sections: Sequence[Section]) -> str:
    return "\n".join(line for s in sections for line in s.lines()).rstrip() + "\n"


def fit(sections: Sequence[Section], limit: int = GITHUB_ISSUE_LIMIT,
        more: Callable[[int], str] = _more, measure: Callable[[str], int] = gh_len) -> str:
    """The whole report when it fits in ``limit`` (as ``measure`` counts: UTF-16 units for an
    issue, UTF-8 bytes for a step summary); otherwise its first rows, cut on a row boundary,
    and the ``more`` line.

    >>> s = [Section(["# T", "", "| a |", "|---|"], [f"| {i} |" for i in range(100)], [""])]
    >>> out = fit(s, 160); out.splitlines()[-3:], gh_len(out) <= 160
    (['| 9 |', '', '_… 90 more row(s) in the artifact (report.md, report.html, audit.json)._'], True)
    """
    whole = join(sections)
    if measure(whole) <= limit:
        return whole
    total_rows = sum(len(s.rows) for s in sections)
    budget = limit - measure(more(total_rows)) - 4  # the note, its blank line, the final newline
    out: list[str] = []
    used = 0
    kept = 0
    for section in sections:
        head = "\n".join(section.head)
        cost = measure(head) + 1 if section.head else 0
        if used + cost > budget:
            break
        out += section.head
        used += cost
        stopped = False
        for row in section.rows:
            cost = measure(row) + 1
            if used + cost > budget:
                stopped = True
                break
            out.append(row)
            used += cost
            kept += 1
        if stopped:
            break
        tail_cost = measure("\n".join(section.tail)) + 1 if section.tail else 0
        if used + tail_cost > budget:
            break
        out += section.tail
        used += tail_cost
    while out and not out[-1].strip():
        out.pop()
    return "\n".join([*out, "", more(total_rows - kept)]) + "\n"
