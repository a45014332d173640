"""The pull-request check's documents (``worklist -a changed_since``): ``worklist.json`` with each
item's ``change`` plus ``removed`` and ``findings``, ``changes.md``, ``changes-failing.json`` (the
failing claims in the worklist's shape, for ``scrapy verify``), one console line, and with
``-a ci=1`` the annotations, ``$GITHUB_STEP_SUMMARY`` and ``$GITHUB_OUTPUT``. Glue over
``core.report.prcheck``; the exit status 3 is ``scrapy crawl``'s, from ``Run.change_failures``."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from sv_scrapy.core.atomic import append_lines, write_json, write_text
from sv_scrapy.core.report import prcheck
from sv_scrapy.core.report.worklistsummary import worklist_stats
from sv_scrapy.run.registry import env

FAILING_WORKLIST = "changes-failing.json"

if TYPE_CHECKING:
    from sv_scrapy.core.claims.record import ClaimRecord
    from sv_scrapy.run.changedsince import ChangeCheck
    from sv_scrapy.run.state import Run


def export_changes(run: Run, check: ChangeCheck, records: list[ClaimRecord], failure: str) -> None:
    """Write the check's documents; set ``run.change_failures``. Raises ``OutputError``."""
    items = [check.annotated(record, change) for record, change in zip(records, check.checked, strict=True)]
    removed = check.removed()
    own = check.own_findings()  # an edit of the rules that judge the change: no claim's
    findings = prcheck.all_findings(items, own)
    ref = f"{check.revision.ref} ({check.revision.commit[:12]})"
    report = run.out_dir / "changes.md"
    doc: dict[str, Any] = {
        "version": 1, "generated_at": run.runtime.clock.iso(), "params": run.params, "complete": not failure,
        "problems": [failure] if failure else [], "stats": worklist_stats(items),
        "changed_since": {"ref": check.revision.ref, "commit": check.revision.commit,
                          "moved": check.changes.moved, "removed": len(removed),
                          # the rules judged by are the config folder at that commit; these files the change edits
                          "rules_edited": list(check.rules.edited) if check.rules else []},
        "items": items, "removed": removed, "findings": [asdict(f) for f in findings]}
    write_json(run.out_dir / "worklist.json", doc)
    # the failing claims alone, in the worklist's shape: what `scrapy verify --worklist` is given in CI
    failing = [i for i in items if any(f.level == prcheck.ERROR for f in prcheck.findings_of(i))]
    write_json(run.out_dir / FAILING_WORKLIST, {**doc, "items": failing, "stats": worklist_stats(failing)})
    write_text(report, prcheck.changes_markdown(items, removed, ref, extra=own))
    run.change_failures = sum(f.level == prcheck.ERROR for f in findings)
    lines = [prcheck.summary_line(items, len(removed), check.changes.moved, check.revision.commit[:12], str(report),
                                  own)]
    if run.params.get("ci"):
        lines = prcheck.annotation_lines(findings) + lines
        if step_summary := env("GITHUB_STEP_SUMMARY"):
            summary = prcheck.changes_markdown(items, removed, ref, limit=prcheck.STEP_SUMMARY_LIMIT - 1,  # + its newline
                                               extra=own)
            append_lines(step_summary, [summary], "$GITHUB_STEP_SUMMARY")
        if github_output := env("GITHUB_OUTPUT"):
            append_lines(github_output, prcheck.output_lines(items, str(report), own), "$GITHUB_OUTPUT")
    print("\n".join(lines), flush=True)
