"""A page's journey at the politeness bound: a held-out-style audit with then and now on.

    python bench/journey.py [--hosts 4] [--hang 30]

One mock web (testing/journeyweb.py: plain pages, frames, linked PDFs and a scan, flagged claims
with archived captures in a mock Wayback, a host that never answers in time), the shipped
politeness config (government hosts 1 s apart, the Wayback's built-in 1.5 s). Three audits:
archive off, then archive on cold and warm over one content store. Prints each run's
first→last request span and requests sent, the archive host's own floor-bound
((its requests − 1) × its floor), and the acceptance arithmetic of issue 29:

* cold ≤ 1.1 × max(archive off, the archive host's floor-bound);
* the first archive request before the last page request;
* warm ≤ cold; warm requests ≤ cold − the 304-able frames and linked documents (and what a
  warm run still sends for them: conditional requests answered 304, no body).

Loopback only; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.politeness import floor_seconds, policy_for  # noqa: E402
from sv_scrapy.run.config import load_config  # noqa: E402
from testing.crawl import crawl, make_config  # noqa: E402
from testing.journeyweb import build  # noqa: E402
from testing.mockweb import MockWeb  # noqa: E402
from testing.mockweb.server import LogEntry  # noqa: E402
from testing.mockweb.wayback import HOST  # noqa: E402

NOW = "2026-06-15T03:00:00Z"


def span(log: list[LogEntry]) -> float:
    starts = sorted(e.began for e in log)
    return starts[-1] - starts[0] if starts else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=4, help="government hosts, six cited pages each")
    ap.add_argument("--hang", type=float, default=30.0, help="seconds the hanging host takes to answer")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name, MockWeb() as web:
        tmp = Path(tmp_name)
        journey = build(web, tmp, hosts=args.hosts, hang_seconds=args.hang)
        on = make_config(tmp / "on", source_verify={"archive": {"enabled": True}})
        off = make_config(tmp / "off")
        archive_host = HOST.split("//", 1)[1]
        cfg = load_config(on)
        archive_floor = floor_seconds(policy_for(archive_host, cfg.liveness, cfg.hosts))
        runs: dict[str, dict[str, float]] = {}
        for name, config, out in (("off", off, "out-off"), ("cold", on, "out"), ("warm", on, "out")):
            web.clear_log()
            result = crawl("audit", corpus=journey.corpus, config=config, output=tmp / out, proxy_env=web.env(),
                           timeout=1800, extra_env={"SV_NOW": NOW})
            if result.returncode != 0:
                print(result.stderr[-3000:])
                raise SystemExit(f"{name} audit failed")
            log = [e for e in web.log if e.method == "GET"]
            archive = [e for e in log if e.url.startswith(HOST)]
            pages = [e.began for e in log if e.url in journey.pages]
            doc = json.loads((tmp / out / "audit" / "audit.json").read_text(encoding="utf-8"))
            runs[name] = {"span": span(log), "process": result.seconds, "requests": len(log),
                          "archive": len(archive), "extras": sum(1 for e in log if e.url in journey.extras),
                          "extras_304": sum(1 for e in log if e.url in journey.extras and e.status == 304),
                          "bytes": sum(e.size for e in log),
                          "archive_floor_bound": max(0, len(archive) - 1) * archive_floor,
                          "first_archive_before_last_page": float(bool(archive) and min(e.began for e in archive)
                                                                  < max(pages)),
                          "then_now": sum(1 for i in doc["items"] if i.get("then_now"))}
    print(f"journey: {len(journey.pages)} cited pages over {args.hosts + 1} hosts ({len(journey.extras)} frames and "
          f"linked documents, {len(journey.scans)} scans), {len(journey.flagged)} flagged claims, a host hanging "
          f"{args.hang:g} s; shipped politeness (archive floor {archive_floor:g} s)")
    for name, r in runs.items():
        print(f"  {name}: first→last request {r['span']:.1f} s (process {r['process']:.1f} s), {r['requests']:.0f} "
              f"requests ({r['archive']:.0f} archive, {r['extras']:.0f} frames/linked of which {r['extras_304']:.0f} "
              f"answered 304), {r['bytes'] / 1e3:.0f} kB served, {r['then_now']:.0f} then-and-now lines")
    off_run, cold, warm = runs["off"], runs["cold"], runs["warm"]
    bound = max(off_run["span"], cold["archive_floor_bound"])
    print(f"  cold ÷ max(off {off_run['span']:.1f} s, archive floor-bound {cold['archive_floor_bound']:.1f} s) = "
          f"{cold['span'] / bound:.2f} (goal ≤ 1.1)")
    print(f"  first archive request before the last page request: {bool(cold['first_archive_before_last_page'])}")
    print(f"  warm ÷ cold wall {warm['span'] / cold['span']:.2f} (goal ≤ 1.0); warm requests {warm['requests']:.0f} vs "
          f"cold − 304-able {cold['requests'] - len(journey.extras):.0f} (goal ≤); warm ÷ cold bytes "
          f"{warm['bytes'] / cold['bytes']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
