"""The pull-request check at corpus scale: a change touching 10 claims of a 1,000-claim corpus in a
real git repository (``scrapy crawl worklist -a changed_since=REF``).

    python bench/changes.py [--claims 1000] [--changed 10] [--hosts 50]

Prints:

* the extraction of both revisions and the diff (``git archive`` of REF, two extractions, the
  change set), in-process, best of 3;
* start-up: the whole ``scrapy crawl`` process for a change that touches no claim (nothing fetched);
* the check: the whole process, ÷ (the politeness lower bound of its own requests + start-up), where
  the bound is the larger of max over hosts of requests_h · floor_h (robots.txt counts) and
  (requests − 1) / req_per_sec, with the shipped politeness config — goal ≤ 1.10.

Loopback only (the mock web, 30–200 ms a response); asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.politeness import floor_seconds, policy_for  # noqa: E402
from sv_scrapy.run.changedsince import check_changes  # noqa: E402
from sv_scrapy.run.config import load_config  # noqa: E402
from sv_scrapy.run.runtime import Runtime  # noqa: E402
from testing.crawl import crawl  # noqa: E402
from testing.gitcorpus import commit, init_repo  # noqa: E402
from testing.mockweb import MockWeb, Route  # noqa: E402

FILES = 10


def corpus_files(claims: int, hosts: int, changed: set[int]) -> tuple[dict[str, str], dict[str, str]]:
    """(base, head) file texts: claim i cites host i % hosts; the changed ones alternate a re-stamp
    and a figure corrected to what the page states."""
    order = sorted(changed)
    restamp = set(order[::2])
    base: dict[str, list[str]] = {}
    head: dict[str, list[str]] = {}
    for i in range(claims):
        rel = f"countries/c{i % FILES:02d}/playbook.md"
        url = f"https://h{i % hosts:02d}.bench.gouv.fr/page/{i}"
        before = f"- rate {i % 90 + 1}.25 % ([src]({url})) (2026-05-01 verified)"
        after = before
        if i in changed:
            after = (before.replace("2026-05-01", "2026-12-01") if i in restamp
                     else before.replace(f"{i % 90 + 1}.25 %", f"{i % 90 + 1}.75 %"))
        base.setdefault(rel, ["# Bench", ""]).append(before)
        head.setdefault(rel, ["# Bench", ""]).append(after)
    return ({k: "\n".join(v) + "\n" for k, v in base.items()}, {k: "\n".join(v) + "\n" for k, v in head.items()})


def page(i: int, corrected: set[int]) -> str:
    figure = f"{i % 90 + 1},75 %" if i in corrected else f"{i % 90 + 1},25 %"
    return (f"<html><body><h1>Rates</h1><p>The rate is {figure} from 1 April 2025.</p>"
            + "<p>Explanatory text about the tax. </p>" * 30 + "</body></html>")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claims", type=int, default=1000)
    ap.add_argument("--changed", type=int, default=10)
    ap.add_argument("--hosts", type=int, default=50)
    args = ap.parse_args()
    rng = random.Random(7)
    changed = set(rng.sample(range(args.claims), args.changed))
    cfg = load_config(PROJECT_DIR / "config")
    base, head = corpus_files(args.claims, args.hosts, changed)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        repo = init_repo(tmp / "repo")
        commit(repo, base, "base")
        commit(repo, head, "the change")
        commit(repo, {"countries/c00/unrelated.md": "# Notes\n\nNo figures.\n"}, "touches no claim")
        rt = Runtime(config=cfg, corpus_root=repo, output_dir=tmp / "unused")
        params = {"changed_since": "HEAD~2", "sample": None, "country": None, "section": None}
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            check = check_changes(rt, params)
            best = min(best, time.perf_counter() - t0)
        print(f"corpus: {args.claims} claims in {FILES} files over {args.hosts} hosts; change touches "
              f"{len(check.checked)} ({Counter(c.change for c in check.checked)})")
        print(f"  both revisions extracted + diffed: {best * 1000:.0f} ms (best of 3, in-process)")
        with MockWeb() as web:
            for i in range(args.claims):
                web.route(f"https://h{i % args.hosts:02d}.bench.gouv.fr/page/{i}",
                          Route(body=page(i, set(sorted(changed)[1::2])), delay=rng.uniform(0.03, 0.2)))
            for h in range(args.hosts):
                web.route(f"https://h{h:02d}.bench.gouv.fr/robots.txt",
                          Route(body="User-agent: *\nAllow: /\n", content_type="text/plain",
                                delay=rng.uniform(0.03, 0.2)))
            idle = crawl("worklist", corpus=repo, config=PROJECT_DIR / "config", output=tmp / "idle",
                         proxy_env=web.env(), args={"changed_since": "HEAD~1"}, timeout=600)
            if idle.returncode != 0 or web.log:
                raise SystemExit(f"a change touching no claim: exit {idle.returncode}, {len(web.log)} request(s)\n"
                                 + idle.stderr[-2000:])
            result = crawl("worklist", corpus=repo, config=PROJECT_DIR / "config", output=tmp / "out",
                           proxy_env=web.env(), args={"changed_since": "HEAD~2"}, timeout=600)
            gets = [e for e in web.log if e.method == "GET"]
        if result.returncode not in (0, 3):
            print(result.stderr[-3000:])
            raise SystemExit("check failed")
    per_host = Counter(urlsplit(e.url).hostname or "" for e in gets)
    host_bound = max(n * floor_seconds(policy_for(h, cfg.liveness, cfg.hosts)) for h, n in per_host.items())
    rate_bound = (len(gets) - 1) / cfg.liveness.req_per_sec
    bound = max(host_bound, rate_bound)
    print(f"  start-up (a change touching no claim, nothing fetched): {idle.seconds:.2f} s")
    print(f"  the check: {len(gets)} requests (robots.txt included) over {len(per_host)} hosts, exit "
          f"{result.returncode}: {result.seconds:.2f} s; politeness bound {bound:.2f} s (per-host "
          f"{host_bound:.2f} s, global cap {rate_bound:.2f} s)")
    print(f"  wall ÷ (bound + start-up): {result.seconds / (bound + idle.seconds):.3f} (goal ≤ 1.10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
