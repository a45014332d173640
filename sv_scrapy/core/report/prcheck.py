"""The pull-request check's verdict on the claims a change touched: what fails, what warns, and how
it is shown (``changes.md``, GitHub annotations, the one console line, ``$GITHUB_OUTPUT``).

**Fails** (exit 3): a changed claim whose cited page does not state its figure (``TOKENS_ABSENT``,
a soft 404 included); a ``new``/``figure_changed``/``source_changed`` claim whose page is DEAD.
**Warns**: a page that could not be read this time (blocked, 5xx, robots, binary, a scan without
text; a re-stamped claim's DEAD page too) — a ministry's bad minute never turns the check red —
and a corrected figure whose old value still stands on another line citing the same page or host,
and an edit of the rules that judge the change (the config folder: the check ran by the base's;
``extra`` findings, on the rule file). A figure found only in another context fails nothing.

Claim words come from the pull request and excerpts from the web: in annotations they are
escaped as the Actions toolkit escapes them, in Markdown as every report escapes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sv_scrapy.core.escape import command_data, command_property, md_code, md_text
from sv_scrapy.core.page.fetchstatus import DEAD
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT, TOKENS_PRESENT, WEAK_MATCH
from sv_scrapy.core.report.fragment import md_figure_link
from sv_scrapy.core.report.issuecut import Section, fit
from sv_scrapy.core.report.proposed import stands_at

ERROR, WARNING = "error", "warning"
ANNOTATIONS_PER_KIND = 10  # GitHub keeps this many of each kind per step
STEP_SUMMARY_LIMIT = 1024 * 1024  # bytes GitHub accepts in one step's summary
_STRICT = ("new", "figure_changed", "source_changed")  # a DEAD page fails these; a re-stamp's only warns


@dataclass(frozen=True)
class Finding:
    level: str  # error (fails the check) | warning
    path: str  # from the repository root
    line: int
    title: str
    message: str


def repo_path(item: Mapping[str, Any]) -> str:
    return str(item.get("repo_file") or item.get("file") or "")


def _what(item: Mapping[str, Any]) -> str:
    words = " ".join(str(item.get("claim_text", "")).split())
    words = words if len(words) <= 160 else words[:159] + "…"
    return f"{item.get('change', '')} claim \"{words}\" cites {item.get('source_url', '')}"


def findings_of(item: Mapping[str, Any]) -> list[Finding]:
    """The findings of one checked claim (its worklist record, with ``change``)."""
    path, line, prior, status = repo_path(item), int(item.get("line_no") or 0), item.get("prior"), item.get("fetch_status")
    out: list[Finding] = []
    if prior == TOKENS_ABSENT:
        missing = ", ".join(str(t) for t in item.get("missing_tokens") or [])
        title = "cited page is a soft 404" if item.get("soft_404") else "figure not on the cited page"
        out.append(Finding(ERROR, path, line, title, _elsewhere(f"{_what(item)}; the page does not state {missing}", item)))
    elif status == DEAD:
        level = ERROR if item.get("change") in _STRICT else WARNING
        out.append(Finding(level, path, line, "cited page is DEAD", _elsewhere(f"{_what(item)}; {item.get('note', '')}", item)))
    elif prior not in (TOKENS_PRESENT, WEAK_MATCH):
        out.append(Finding(WARNING, path, line, "cited page not read this time",
                           f"{_what(item)}; {prior} ({status}): {item.get('note', '')} - not a failure, check it by hand"))
    if effect := str(item.get("rules_effect") or ""):  # the change also edits the rules: said where it bites
        out = [Finding(f.level, f.path, f.line, f.title, f"{f.message} ({effect}; judged by the base's rules)")
               for f in out]
    also = list(item.get("also_stated") or [])
    if also:
        old = ", ".join(str(v) for v in item.get("old_figures") or [])
        out.append(Finding(WARNING, path, line, "old figure still stated elsewhere",
                           f"{old} replaced here, still stated at {', '.join(also)}"))
    return out


def _elsewhere(message: str, item: Mapping[str, Any]) -> str:
    """A failing claim's message, and where the site states its figure now when a page was found."""
    where = stands_at(item)
    return f"{message}; {where}" if where else message


def all_findings(items: Sequence[Mapping[str, Any]], extra: Sequence[Finding] = ()) -> list[Finding]:
    """Every finding: the checked claims', then ``extra`` (the change's own, not a claim's: an edit
    of the rules that judge it)."""
    return [f for item in items for f in findings_of(item)] + list(extra)


def outcome(item: Mapping[str, Any]) -> str:
    """The table's last column."""
    found = findings_of(item)
    if any(f.level == ERROR for f in found):
        return "❌ " + "; ".join([*(f.title for f in found), *filter(None, [stands_at(item)])])
    if found:
        return "⚠️ " + "; ".join(f.title for f in found)
    if item.get("prior") == WEAK_MATCH:
        return "ok (weak match)"
    if item.get("context_match") is False:
        return "ok (figure found in another context)"
    return "ok"


def page_says(item: Mapping[str, Any]) -> str:
    """What the page says: its excerpt where the figure stands, else the nearest figure of the same
    kind ("page now says 6.45 %") and the words where it speaks of the claim's subject."""
    excerpts = item.get("excerpts") or []
    if item.get("prior") != TOKENS_ABSENT and excerpts:
        return str(excerpts[0])
    hint = f"nearest figure of the kind: {item['page_hint']}" if item.get("page_hint") else ""
    return " — ".join(x for x in (hint, str(item.get("page_excerpt") or "")) if x) or str(item.get("note") or "")


def _row(item: Mapping[str, Any], change: str, says: str, result: str) -> str:
    link = md_figure_link(item) if says else ""  # lands on the figure the excerpt shows
    return (f"| {md_code(repo_path(item) + ':' + str(item.get('line_no')))} | {change} | "
            f"{md_text(str(item.get('claim_text', '')), 300)} | {md_text(says, 240)}{' · ' + link if link else ''} | "
            f"{md_text(result)} |")


def changes_sections(items: Sequence[Mapping[str, Any]], removed: Sequence[Mapping[str, Any]], ref: str,
                     extra: Sequence[Finding] = ()) -> list[Section]:
    """One table: each checked claim, then each removed one (its line at the revision, not fetched);
    the change's own findings (``extra``) above it."""
    findings = all_findings(items, extra)
    errors = sum(f.level == ERROR for f in findings)
    head = [f"# Claims changed since {md_code(ref)}", "",
            f"{len(items)} claim(s) checked: {errors} failing finding(s), {len(findings) - errors} warning(s), "
            f"{len(removed)} removed (not fetched).", ""]
    for f in extra:
        head += [f"⚠️ {md_code(f.path)}: {md_text(f.message)}", ""]
    head += ["| where | change | claim | what the page says | outcome |", "|---|---|---|---|---|"]
    rows = [_row(i, str(i.get("change")), page_says(i), outcome(i)) for i in items]
    rows += [_row(r, "removed", "", "not fetched (line at the revision)") for r in removed]
    return [Section(head, rows, [""])]


def changes_markdown(items: Sequence[Mapping[str, Any]], removed: Sequence[Mapping[str, Any]], ref: str,
                     limit: int = 0, extra: Sequence[Finding] = ()) -> str:
    """``changes.md``; with ``limit`` (bytes), cut on a row to fit (the step summary)."""
    sections = changes_sections(items, removed, ref, extra)
    return fit(sections, limit or 1 << 62, more=lambda n: f"_… {n} more row(s) in changes.md (the artifact)._",
               measure=lambda text: len(text.encode("utf-8")))


def annotation(f: Finding) -> str:
    """One workflow command; every untrusted part escaped, nothing untrusted before the ``::``."""
    return (f"::{f.level} file={command_property(f.path)},line={f.line},title={command_property(f.title)}"
            f"::{command_data(f.message)}")


def annotation_lines(findings: Sequence[Finding], per_kind: int = ANNOTATIONS_PER_KIND) -> list[str]:
    """At most ``per_kind`` of each level; then a plain line saying how many more ``changes.md`` holds."""
    lines: list[str] = []
    for level, what in ((ERROR, "failing finding(s)"), (WARNING, "warning(s)")):
        mine = [f for f in findings if f.level == level]
        lines += [annotation(f) for f in mine[:per_kind]]
        if len(mine) > per_kind:
            lines.append(f"sv_scrapy: {len(mine) - per_kind} more {what} not annotated "
                         f"(GitHub shows {per_kind} per step): see changes.md")
    return lines


def summary_line(items: Sequence[Mapping[str, Any]], removed: int, moved: int, ref: str, report: str,
                 extra: Sequence[Finding] = ()) -> str:
    findings = all_findings(items, extra)
    errors = sum(f.level == ERROR for f in findings)
    verdict = "FAILS" if errors else "passes"
    return (f"changes since {ref[:40]}: {len(items)} claim(s) checked, {errors} failing, "
            f"{len(findings) - errors} warning(s), {removed} removed, {moved} moved -> {verdict} ({report})")


def output_lines(items: Sequence[Mapping[str, Any]], report: str, extra: Sequence[Finding] = ()) -> list[str]:
    """``$GITHUB_OUTPUT``: ``findings``, ``warnings``, ``claims_checked``, ``report``."""
    findings = all_findings(items, extra)
    errors = sum(f.level == ERROR for f in findings)
    return [f"findings={errors}", f"warnings={len(findings) - errors}", f"claims_checked={len(items)}",
            f"report={report}"]
