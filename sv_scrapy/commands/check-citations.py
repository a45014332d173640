"""``scrapy check-citations``: the static portal-root linter (no network). Advisory: exit 0."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.commands import ScrapyCommand

from sv_scrapy.commands import SvCommand
from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.claims.linter import lint_corpus

if TYPE_CHECKING:
    import argparse


class Command(SvCommand, ScrapyCommand):
    name = "check-citations"

    def syntax(self) -> str:
        return "[--country CC] [--json OUT]"

    def short_desc(self) -> str:
        return "Flag primary citations to a bare host root next to a % or money figure (advisory)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--country", help="one scope: an iso2 code or shared/<path>")
        parser.add_argument("--json", metavar="OUT", help="also write the findings to this JSON file")

    def execute(self, opts: argparse.Namespace) -> int:
        rt = self.runtime()
        rows = lint_corpus(rt.corpus_root, rt.config.hosts, rt.extract_options(country=opts.country),
                           rt.config.linter.root_url_allowlist)
        for problem in rows.skipped:
            print(f"warning: skipped {problem}", file=sys.stderr)
        if not rows:
            print("no primary citation to a bare host root next to a figure")
        else:
            print(f"⚠️  {len(rows)} citation(s) point at a government portal's ROOT next to a figure; cite the page "
                  "that states the number, or list the root in linter.root_url_allowlist:")
            for row in rows:
                print(f"  {row.scope}:{row.line_no}  {row.figure}  -> {row.url}")
        if opts.json:
            write_json(Path(opts.json), {"findings": [r.as_dict() for r in rows]})
        print(json.dumps({"root_citations": len(rows)}))
        return 0  # advisory
