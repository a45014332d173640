"""``scrapy merge PART_DIR… --into OUT_DIR [--ci]``: the parts of one audit (``scrapy crawl audit
-a part=I/N``, each its own ``SV_OUTPUT_DIR``) joined into the one audit a single run would have
written — ``audit.json``, the reports, ``issue.md``, ``metrics.prom``, the history point,
``$GITHUB_OUTPUT`` (with ``--ci``) and the merged store, next month's input for any N. No crawling
(the one request is the optional ``SV_HEALTHCHECK_URL`` ping at the end, as the audit's): the
union goes through the audit's own finish (``core.report.finish``) and writer
(``core.report.outputs``).

Exit 0 when every part is in; 1 with one line (and the ⚠️ at the top of the report) when a part is
missing, unfinished, failed or mismatched; 2 for a folder that is no part or a bad option; 75 when
another run holds OUT_DIR's lock."""

from __future__ import annotations

import gc
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.commands import ScrapyCommand

from sv_scrapy.commands import SvCommand
from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.audit import reviewfile
from sv_scrapy.core.audit.partsmerge import judge, merged_inputs, read_part
from sv_scrapy.core.audit.runlock import acquire
from sv_scrapy.core.audit.spool import Spool, spool_dir
from sv_scrapy.core.audit.store import ContentStore
from sv_scrapy.core.audit.storemerge import building_aside, swap_in
from sv_scrapy.core.audit.verdicts import read_verdicts, reports_dir
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.core.report.finish import AuditInputs, finish_audit
from sv_scrapy.core.report.outputs import write_documents
from sv_scrapy.core.report.sourcelinks import resolve_links
from sv_scrapy.ops.heartbeat import Heartbeat
from sv_scrapy.ops.watchers import AuditMonitor
from sv_scrapy.run.registry import LINK_VARIABLES, env, env_values
from sv_scrapy.spiders.audit import AuditSpider

if TYPE_CHECKING:
    import argparse

    from sv_scrapy.core.audit.partsmerge import Judgement, PartFolder
    from sv_scrapy.run.runtime import Runtime


class Command(SvCommand, ScrapyCommand):
    name = "merge"

    def syntax(self) -> str:
        return "PART_DIR... --into OUT_DIR [--ci]"

    def short_desc(self) -> str:
        return "Merge the parts of an audit (-a part=I/N) into one audit, its reports and its store"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--into", metavar="OUT_DIR", help="the merged audit's output folder")
        parser.add_argument("--ci", action="store_true", help="as -a ci=1: reports to SV_CI_DIR, $GITHUB_OUTPUT lines")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        self.answer(lambda: self.merge_folders(args, opts))

    def merge_folders(self, args: list[str], opts: argparse.Namespace) -> int:
        if not args:
            raise ArgumentError("give the part folders: scrapy merge PART_DIR... --into OUT_DIR")
        if not opts.into:
            raise ArgumentError("--into OUT_DIR is required")
        # millions of objects read from the parts live until the end: the cyclic collector's
        # passes would rescan them all (a third of a 20,000-claim merge's CPU) and free nothing
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self.merge([Path(a) for a in args], Path(opts.into), bool(opts.ci))
        finally:
            if collecting:  # as the caller had it (an in-process caller may have turned it off)
                gc.enable()

    def merge(self, folders: list[Path], out: Path, ci: bool) -> int:
        # the parts' records and claims wait on disk for the finish, read one at a time
        spool = Spool(spool_dir(out))
        parts = [read_part(f, spool) for f in folders]  # a folder that is no part: exit 2, nothing written
        rt = self.runtime()
        if out.resolve() in {f.resolve() for f in folders}:
            raise ArgumentError(f"--into {out}: one of the parts; merge into a folder of its own")
        with acquire(out, "scrapy merge", rt.clock.iso()):  # let go once the merge is written (or failed)
            return self.merge_locked(parts, out, ci, rt)

    def merge_locked(self, parts: list[PartFolder], out: Path, ci: bool, rt: Runtime) -> int:
        judgement = judge(parts)
        base = (judgement.merged[0] if judgement.merged else parts[0]).store
        memory = ContentStore(base, rt.clock)
        previous, scopes = memory.claim_outcomes()
        assert self.settings is not None
        report_dir = AuditSpider.report_dir_for(self.settings, out, ci)
        # next month's store, built beside the finish (it reads no output of it)
        fetched = [(p.store, set(p.doc.urls) | p.doc.cited) for p in judgement.merged if p.doc]
        with building_aside(base, fetched, out / "store") as built:
            done = finish_audit(self.inputs(rt, judgement, memory, (previous, scopes), out, report_dir, ci))
            write_documents(done, report_dir, env("GITHUB_OUTPUT") if ci else None)
            building = built()
        # next month's memory: the union's outcomes; an unaudited part's claims keep theirs
        left_out = set(judgement.unaudited)
        unaudited = {cid: previous[cid] for cid, host in judgement.corpus if cid in previous and host in left_out}
        store = ContentStore(building, rt.clock)
        store.save_claim_outcomes({**unaudited, **dict(done.kept.items())}, done.scopes)  # read in order, not by id
        store.save_history(done.history)
        store.save_joined_sites(judgement.joined_now())
        write_json(building / "run.json", {
            "run_id": done.doc["run"]["run_id"], "params": {"merged": [str(p.part) for p in judgement.merged]},
            "finished": True, "started_at": rt.clock.iso(), "finished_at": rt.clock.iso(),
            "previous_finished_at": memory.run_info().get("previous_finished_at", "")})
        swap_in(building, out / "store")
        line = judgement.line()
        # the month's end: metrics.prom, and the optional healthcheck ping (the merge's one request)
        monitor = AuditMonitor(out, rt.clock, Heartbeat(env("SV_HEALTHCHECK_URL").strip()))
        status, line = monitor.finish(1 if line else 0, line, done.doc["stats"])
        for warning in monitor.heartbeat.warnings:
            print(f"scrapy merge: warning: {warning}", file=sys.stderr)
        print(done.summary.replace("audit:", "merge:", 1), flush=True)
        if line:
            print(f"scrapy merge: error: {line}", file=sys.stderr)
        return status

    def inputs(self, rt: Runtime, judgement: Judgement, memory: ContentStore,
               outcomes: tuple[dict[str, dict[str, Any]], dict[str, str]], out: Path, report_dir: Path,
               ci: bool) -> AuditInputs:
        """What a single run's finish would get: the parts' union, the store's memory, this
        folder's config (reviews, verdicts, links)."""
        config = rt.config
        verdicts, warnings = read_verdicts(config.report.verify_reports or reports_dir(out))
        for warning in warnings:
            print(f"scrapy merge: warning: {warning}", file=sys.stderr)
        previous, scopes = outcomes  # the store's claims.json, read once by the caller
        first = judgement.merged[0].doc.head if judgement.merged and judgement.merged[0].doc else {}
        country = (first.get("params") or {}).get("country")
        return AuditInputs(
            params={"country": country, "ci": ci, "part": None}, run_id=uuid.uuid4().hex[:12], resumed=False,
            generated_at=rt.clock.iso(),
            links=resolve_links(env_values(LINK_VARIABLES), config.report.source_url_template, rt.corpus_root),
            weights=config.sampling.weights, backlog_top_n=config.report.backlog_top_n, out_dir=report_dir,
            journal=memory.run_info(), previous=previous, scopes=scopes, history=memory.history(),
            reviews=reviewfile.load(config.config_dir), verdicts=verdicts, spool_dir=spool_dir(report_dir),
            **merged_inputs(judgement))
