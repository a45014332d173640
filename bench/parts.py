"""The audit in host-partitioned parts at scale: one corpus split into 1, 2 and 4 parts, the parts
of a split run at once against one mock web, then merged.

    python bench/parts.py [--urls 20000] [--hosts 2000] [--rps 100] [--splits 1,2,4] [--separate]

For every part: its first→last request span ÷ its own politeness bound (goal ≤ 1.05) and the
crawl's peak RSS; for every split: ``scrapy merge`` wall time (goal ≤ 10 s for 20,000 claims)
and whether the merged items are the union of the parts' and equal to the one-part run's.

A part's bound is the larger of, over its hosts, (requests_h − 1) · floor_h, and (its
requests − 1) ÷ its share of the global cap (``req_per_sec`` ÷ N: the parts share one address
here, unless ``--separate`` sets ``SV_PARTS_SEPARATE_MACHINES``, which on one machine only
moves the limit to the CPU). Each part's requests carry their own User-Agent, so the one
request log is split by part. Loopback only; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from testing.bounds import politeness_bound, span  # noqa: E402
from testing.crawl import SCRAPY, CrawlResult, crawl, make_config, write_corpus  # noqa: E402
from testing.mockweb import MockWeb, Route  # noqa: E402


def essentials(doc: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    return {i["id"]: (i["fetch_status"], i["prior"], tuple(i["matched_tokens"])) for i in doc["items"]}


def run_split(n: int, *, tmp: Path, web: MockWeb, corpus: Path, rps: float, separate: bool) -> dict[str, Any]:
    configs = [make_config(tmp / f"config-{n}-{i}", liveness={"global": {
        "req_per_sec": rps, "user_agent": f"sv_scrapy/{{version}} (bench part {i})"}},
        source_verify={"extraction": {"primary_only": False}}) for i in range(1, n + 1)]
    settings = {"SV_RENDER_ENABLED": "0", "SV_PARTS_SEPARATE_MACHINES": "1" if separate else "0"}
    web.clear_log()

    def part(i: int) -> CrawlResult:
        return crawl("audit", corpus=corpus, config=configs[i - 1], output=tmp / f"split{n}" / f"part-{i}",
                     proxy_env=web.env(), args={"part": f"{i}/{n}"}, timeout=7200, settings=settings,
                     extra_env={"SV_NOW": "2027-01-01T03:00:00Z"})

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with ThreadPoolExecutor(n) as pool:
        results = list(pool.map(part, range(1, n + 1)))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    log = [e for e in web.log if e.method == "GET"]
    rows = []
    for i, result in enumerate(results, start=1):
        if result.returncode != 0:
            print(result.stderr[-3000:])
            raise SystemExit(f"part {i}/{n} failed")
        own = [e for e in log if f"(bench part {i})" in e.user_agent]
        if not own:
            raise SystemExit(f"part {i}/{n}: no request in the log; agents: {Counter(e.user_agent for e in log)}")
        spn = span(own)
        bound = politeness_bound(own, configs[i - 1], 1.0 if separate else 1.0 / n)
        rows.append({"part": f"{i}/{n}", "requests": len(own), "span": spn, "bound": bound, "ratio": spn / bound,
                     "rss": result.logged_peak_rss_mb(), "process": result.seconds})
    folders = [str(tmp / f"split{n}" / f"part-{i}") for i in range(1, n + 1)]
    began = time.monotonic()
    merged = subprocess.run([SCRAPY, "merge", *folders, "--into", str(tmp / f"split{n}" / "merged")], cwd=PROJECT_DIR,
                            capture_output=True, text=True, timeout=600,
                            env={"PATH": str(Path(SCRAPY).parent), "SV_CORPUS_ROOT": str(corpus),
                                 "SV_CONFIG_DIR": str(configs[0]), "SV_NOW": "2027-01-01T03:00:00Z"})
    merge_s = time.monotonic() - began
    if merged.returncode != 0:
        print(merged.stderr[-3000:])
        raise SystemExit(f"merge of {n} part(s) failed")
    doc = json.loads((tmp / f"split{n}" / "merged" / "audit" / "audit.json").read_text(encoding="utf-8"))
    union: dict[str, tuple[Any, ...]] = {}
    for folder in folders:
        union.update(essentials(json.loads((Path(folder) / "audit" / "audit.json").read_text(encoding="utf-8"))))
    return {"rows": rows, "merge_s": merge_s, "merged": essentials(doc), "union": union, "cpu_s": cpu_s,
            "requests": len(log)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--urls", type=int, default=20_000)
    ap.add_argument("--hosts", type=int, default=2_000)
    ap.add_argument("--rps", type=float, default=100.0)
    ap.add_argument("--splits", default="1,2,4")
    ap.add_argument("--separate", action="store_true", help="SV_PARTS_SEPARATE_MACHINES: each part the whole cap")
    args = ap.parse_args()
    rng = random.Random(11)
    # one site per host (a registrable domain each): subdomains of one site would all be one part's
    names = [f"www.h{i:04d}.gouv.fr" if i % 2 == 0 else f"www.h{i:04d}-example.org" for i in range(args.hosts)]
    lines = []
    with tempfile.TemporaryDirectory() as tmp_name, MockWeb() as web:
        tmp = Path(tmp_name)
        for i in range(args.urls):
            url = f"https://{names[i % args.hosts]}/page/{i}"
            body = f"<html><body><h1>Rates</h1><p>The rate is {i % 90 + 1},25 % from 1 April 2025.</p>" \
                   + "<p>Explanatory text about the tax. </p>" * 30 + "</body></html>"
            web.route(url, Route(body=body, delay=rng.uniform(0.02, 0.1)))
            lines.append(f"- rate {i % 90 + 1}.25 % ([src]({url}))")
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# Parts\n" + "\n".join(lines) + "\n"})
        splits = {n: run_split(n, tmp=tmp, web=web, corpus=corpus, rps=args.rps, separate=args.separate)
                  for n in (int(s) for s in args.splits.split(","))}
    print(f"parts: {args.urls} URLs over {args.hosts} hosts, global cap {args.rps:g} req/s "
          f"({'each part the whole cap' if args.separate else 'shared by the parts: a Nth each'}), no browser\n")
    print("| split | part | requests | first→last (s) | own bound (s) | ÷ bound | peak RSS (MB) | merge (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    reference = splits[min(splits)]["merged"]
    for n, split in splits.items():
        for j, row in enumerate(split["rows"]):
            merge = f"{split['merge_s']:.1f}" if j == 0 else ""
            print(f"| {n} | {row['part']} | {row['requests']} | {row['span']:.1f} | {row['bound']:.1f} | "
                  f"{row['ratio']:.3f} | {row['rss']:.0f} | {merge} |")
    print()
    for n, split in splits.items():
        print(f"split {n}: merged = union of the parts: {split['merged'] == split['union']}; "
              f"= the {min(splits)}-part run: {split['merged'] == reference}; {len(split['merged'])} claims; "
              f"the parts' CPU {split['cpu_s']:.0f} s ({1000 * split['cpu_s'] / split['requests']:.1f} ms a request)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
