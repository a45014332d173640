"""Where a finished audit's documents go (``core.report.finish.AuditFinish``): ``audit.json``, the
three reports and the ``$GITHUB_OUTPUT`` lines, each written atomically. One writer for the
audit's export and for ``scrapy merge``, so a merged audit is written as a single run's is."""

from __future__ import annotations

from pathlib import Path

from sv_scrapy.core.atomic import append_lines, write_json, write_text
from sv_scrapy.core.report.finish import AuditFinish


def write_documents(done: AuditFinish, out_dir: Path, github_output: str | None) -> None:
    """The documents into ``out_dir``; the output lines appended to ``github_output`` when given."""
    write_json(out_dir / "audit.json", done.doc)
    for name, text in done.reports.items():
        write_text(out_dir / name, text)
    if github_output:
        append_lines(github_output, done.output_lines, "$GITHUB_OUTPUT")
