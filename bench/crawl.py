"""Crawl speed against politeness: wall time ÷ the lower bound the config allows (the
audit cold/warm and at scale: bench/audit.py).

    python bench/crawl.py [--urls 600] [--hosts 60] [--pdf-pages 40]

Serves N URLs over M hosts through the mock web (latency 30–200 ms per response, half the
hosts under a government namespace), runs one real `scrapy crawl worklist` with the
shipped politeness config, and prints:

* wall time of the crawl (first request to last) ÷ the politeness lower bound, where the
  bound is the larger of max over hosts of (requests_h − 1) · floor_h (robots.txt counts as
  a request) and (all requests − 1) / req_per_sec — goal ≤ 1.10;
* peak RSS of the crawl process — goal ≤ 300 MB;
* PDF text pages/s for pypdfium2, pdfminer.six and `pdftotext -layout`.

Loopback only; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.page.pdf import _pdfminer, _pypdfium2  # noqa: E402
from sv_scrapy.core.politeness import floor_seconds, policy_for  # noqa: E402
from sv_scrapy.run.config import load_config  # noqa: E402
from testing.crawl import crawl, write_corpus  # noqa: E402
from testing.mockweb import MockWeb, Route  # noqa: E402
from testing.mockweb.pdfgen import text_pdf  # noqa: E402


def crawl_bench(urls: int, hosts: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    cfg = load_config(PROJECT_DIR / "config")
    names = [f"h{i:02d}.bench.gouv.fr" if i % 2 == 0 else f"h{i:02d}.bench-example.org" for i in range(hosts)]
    lines, per_host = [], {h: 0 for h in names}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        with MockWeb() as web:
            for i in range(urls):
                host = names[i % hosts]
                per_host[host] += 1
                url = f"https://{host}/page/{i}"
                body = f"<html><body><h1>Rates</h1><p>The rate is {i % 90 + 1},25 % from 1 April 2025.</p>" \
                       + "<p>Explanatory text about the tax. </p>" * 30 + "</body></html>"
                web.route(url, Route(body=body, delay=rng.uniform(0.03, 0.2)))
                lines.append(f"- rate {i % 90 + 1}.25 % ([src]({url}))")
            for host in names:
                web.route(f"https://{host}/robots.txt", Route(body="User-agent: *\nAllow: /\n",
                                                              content_type="text/plain", delay=rng.uniform(0.03, 0.2)))
            corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# Bench\n" + "\n".join(lines) + "\n"})
            result = crawl("worklist", corpus=corpus, config=PROJECT_DIR / "config", output=tmp / "out",
                           proxy_env=web.env(), args={"sample": str(urls), "include_secondary": "1"}, timeout=1800)
            gets = sorted(web.log, key=lambda e: e.t)
            gets = [e for e in gets if e.method == "GET"]
        if result.returncode != 0:
            print(result.stderr[-3000:])
            raise SystemExit("crawl failed")
        stats = result.worklist()["stats"]
    requests = len(gets)
    span = gets[-1].t - gets[0].t
    host_bound = max((per_host[h]) * floor_seconds(policy_for(h, cfg.liveness, cfg.hosts)) for h in names)
    rate_bound = (requests - 1) / cfg.liveness.req_per_sec
    bound = max(host_bound, rate_bound)
    print(f"crawl: {urls} URLs over {hosts} hosts, {requests} requests (robots.txt included), "
          f"priors {stats['by_prior']}")
    print(f"  first→last request: {span:.1f} s; whole `scrapy crawl` process: {result.seconds:.1f} s")
    print(f"  politeness lower bound: {bound:.1f} s (per-host {host_bound:.1f} s, global cap {rate_bound:.1f} s "
          f"at {cfg.liveness.req_per_sec:g} req/s)")
    print(f"  wall ÷ bound: {span / bound:.3f} (goal ≤ 1.10); process ÷ bound: {result.seconds / bound:.3f}")
    print(f"  peak RSS of the crawl: {result.peak_rss_mb:.0f} MB (goal ≤ 300 MB)")


def pdf_bench(pages: int) -> None:
    rows = [[f"Band {r}", f"{r * 1.5:.2f} %", f"€ {r * 1000:,}".replace(",", " "), "note text"] for r in range(50)]
    data = text_pdf([rows] * pages, column_width=130)
    print(f"PDF text: {pages} table pages, {len(data) / 1024:.0f} KiB")
    for name, extract in (("pypdfium2", _pypdfium2), ("pdfminer.six", _pdfminer)):
        t0 = time.perf_counter()
        out = extract(data, 0)
        dt = time.perf_counter() - t0
        print(f"  {name:<13} {pages / dt:8.0f} pages/s  ({len(out.text)} chars)")
    if shutil.which("pdftotext"):
        t0 = time.perf_counter()
        proc = subprocess.run(["pdftotext", "-layout", "-", "-"], input=data, capture_output=True, check=True)
        dt = time.perf_counter() - t0
        print(f"  {'pdftotext':<13} {pages / dt:8.0f} pages/s  ({len(proc.stdout)} bytes, incl. process start)")
    else:
        print("  pdftotext     not installed (poppler-utils)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--urls", type=int, default=600)
    ap.add_argument("--hosts", type=int, default=60)
    ap.add_argument("--pdf-pages", type=int, default=40)
    ap.add_argument("--skip-crawl", action="store_true")
    args = ap.parse_args()
    pdf_bench(args.pdf_pages)
    if not args.skip_crawl:
        crawl_bench(args.urls, args.hosts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
