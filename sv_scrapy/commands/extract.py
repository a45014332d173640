"""``scrapy extract``: parse the corpus into claims, no network; print JSON stats."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.commands import ScrapyCommand

from sv_scrapy.commands import SvCommand
from sv_scrapy.core.args import parse_date
from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.claims.candidates import allowlist_candidates
from sv_scrapy.core.claims.claims import extract_corpus, extraction_stats, unknown_scope
from sv_scrapy.core.claims.sampling import stamp_age_days
from sv_scrapy.core.errors import ArgumentError

if TYPE_CHECKING:
    import argparse


class Command(SvCommand, ScrapyCommand):
    name = "extract"

    def syntax(self) -> str:
        return "[--country CC] [--section TEXT] [--include-secondary] [--json OUT] [--as-of YYYY-MM-DD]"

    def short_desc(self) -> str:
        return "Extract claim <-> primary-source pairs from the corpus (no network)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--country", help="one scope: an iso2 code or shared/<path>")
        parser.add_argument("--section", help="only claims under headings containing this text")
        parser.add_argument("--include-secondary", action="store_true", help="keep non-primary citations too")
        parser.add_argument("--json", metavar="OUT", help="write every claim to this JSON file")
        parser.add_argument("--as-of", metavar="YYYY-MM-DD", help="date stamp ages are measured at (default today)")

    def execute(self, opts: argparse.Namespace) -> int:
        rt = self.runtime()
        as_of = parse_date("--as-of ", opts.as_of) if opts.as_of is not None else rt.clock.today()
        options = rt.extract_options(
            include_secondary=opts.include_secondary, country=opts.country, section=opts.section
        )
        result = extract_corpus(rt.corpus_root, rt.config.hosts, options)
        for warning in rt.config.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        for problem in result.skipped:
            print(f"warning: skipped {problem}", file=sys.stderr)
        error = unknown_scope(result, opts.country, "--country ")
        if error:
            raise error
        allowlist = str(rt.config.allowlist_path) if rt.config.allowlist_path else "missing (government hosts only)"
        stats = extraction_stats(result) | {"as_of": as_of.isoformat(), "allowlist": allowlist}
        # proposals for the maintainer, never promoted (issue #12): secondary hosts that look
        # official and are cited next to salient figures
        stats["allowlist_candidates"] = [row.as_dict() for row in allowlist_candidates(result.secondary_cited)[:20]]
        if opts.json:
            records = []
            for claim in result.claims:
                record = claim.as_dict()
                record["stamp_age_days"] = stamp_age_days(claim.inline_stamp, as_of)
                records.append(record)
            out = Path(opts.json)
            if out.is_dir():
                raise ArgumentError(f"--json {opts.json}: is a folder; give a file path")
            write_json(
                out,
                {
                    "generated_at": rt.clock.iso(),
                    "params": {
                        "country": opts.country,
                        "section": opts.section,
                        "include_secondary": opts.include_secondary,
                        "as_of": as_of.isoformat(),
                        "corpus_root": str(rt.corpus_root),
                    },
                    "stats": stats,
                    "claims": records,
                },
            )
            print(f"wrote {len(records)} claims to {opts.json}", file=sys.stderr)
        print(json.dumps(stats, indent=2, ensure_ascii=False))
        return 0
