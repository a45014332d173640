"""The monthly audit as it is run: cold, then warm, then at scale — against politeness.

    python bench/audit.py [--scale-urls 10000] [--scale-hosts 1000] [--scale-rps 100] [--skip-scale]
                          [--skip-cold-warm] [--profile FILE] [--rss-every S] [--stop-after S]

1. **Cold then warm** `scrapy crawl audit` over one content store, on one mock web with
   script-only pages (rendered in Chromium), PDFs on two slow government servers, a host
   answering in 1 s, and plain pages; shipped politeness config. Prints each run's
   first→last request span ÷ its politeness lower bound, warm ÷ cold wall (goal ≤ 1.0) and
   warm ÷ cold bytes served (goal ≤ 0.3).
2. **Scale**: N synthetic URLs over M hosts (half government), no browser; the shipped
   config with the global cap raised to ``--scale-rps`` so the bound is minutes, not hours.
   Prints wall ÷ bound (goal ≤ 1.05), the crawl's peak RSS (goal ≤ 300 MB; ≤ 400 MB at
   100,000 URLs), the most threads the mock web's process had (goal ≤ 16), and the CPU each
   side spent a request with the connections the crawl opened (a crawl that needs most of a
   core at the pace cannot keep it on a 2-core machine that also runs the mock web). ``--rss-every S``
   prints the crawl's RSS (and its open files: mostly kept-alive connections) every S seconds
   as it runs; ``--stop-after S`` kills the crawl after S seconds and prints the most RSS seen
   (memory levels off within minutes; the whole run at 100,000 URLs takes 20 or more).

The bound for a run is the larger of: over hosts, (requests_h − 1) · floor_h (robots.txt
counted, Crawl-delay and overrides included); and (all requests − 1) / req_per_sec — the
time the politeness rules alone force, with every answer instant. Loopback only; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from testing.bounds import politeness_bound, span  # noqa: E402
from testing.crawl import SCRAPY, crawl, make_config, write_corpus  # noqa: E402
from testing.mockweb import MockWeb, Route  # noqa: E402
from testing.mockweb.pdfgen import text_pdf  # noqa: E402


def script_page(text: str) -> str:
    return ("<html><head><title>App</title></head><body><div id='app'></div><script>"
            f"document.getElementById('app').innerHTML = '<p>{text}</p>' + "
            "'<p>How the duty is assessed and collected.</p>'.repeat(20);</script></body></html>")


def cold_warm(seed: int = 5) -> None:
    rng = random.Random(seed)
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp_name, MockWeb() as web:
        tmp = Path(tmp_name)
        for i in range(4):  # script-only pages: rendered every run
            url = f"https://app.bench.gov.hk/rates/{i}"
            web.route(url, body=script_page(f"Stamp duty HK$ {1000 + i}."))
            lines.append(f"- duty HK$ {1000 + i} ([r]({url}))")
        for h in range(2):  # fee schedules as PDFs on slow government servers
            for j in range(4):
                url = f"https://pdf{h}.bench.gouv.fr/doc/{j}.pdf"
                rows = [[f"Band {r}", f"{(r + j) % 40 + 1},75 %", "schedule text"] for r in range(45)]
                data = text_pdf([rows] * rng.randint(20, 40), padding=rng.randint(300_000, 1_500_000))
                web.route(url, Route(body=data, content_type="application/pdf", delay=rng.uniform(0.15, 0.5),
                                     bandwidth=rng.uniform(0.8e6, 1.5e6)))
                lines.append(f"- band {j % 40 + 1}.75 % ([s]({url}))")
        for j in range(4):  # a host that takes a second to answer
            url = f"https://slow.bench.gouv.fr/p/{j}"
            web.route(url, Route(body=f"<p>Fee €{500 + j} per deed.</p>" + "<p>Text.</p>" * 50, delay=1.0))
            lines.append(f"- fee €{500 + j} ([p]({url}))")
        for h in range(4):
            for j in range(5):
                url = f"https://www{h}.bench.gouv.fr/page/{j}"
                web.route(url, Route(body=f"<p>Rate {j + 1},5 % since 2025.</p>" + "<p>Explanatory text.</p>" * 200,
                                     delay=rng.uniform(0.05, 0.2)))
                lines.append(f"- rate {j + 1}.5 % ([p]({url}))")
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# Bench\n" + "\n".join(lines) + "\n"})
        config = make_config(tmp / "config", source_verify={"fetch": {"js_spa_hosts": ["app.bench.gov.hk"]}})
        runs = []
        for name in ("cold", "warm"):
            web.clear_log()
            result = crawl("audit", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(), timeout=1800)
            if result.returncode != 0:
                print(result.stderr[-3000:])
                raise SystemExit(f"{name} audit failed")
            log = list(web.log)
            doc = json.loads((tmp / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
            priors = Counter(item["prior"] for item in doc["items"])
            runs.append((name, result.seconds, span(log), politeness_bound(log, config), sum(e.size for e in log),
                         sum(1 for e in log if e.status == 304), priors))
    print(f"audit cold then warm: {len(lines)} claims (4 rendered pages, 8 PDFs of 0.3–1.5 MB on slow servers, "
          "a host answering in 1 s, 20 plain pages), shipped politeness")
    for name, wall, spn, bound, size, not_modified, priors in runs:
        print(f"  {name}: process {wall:.1f} s, first→last request {spn:.1f} s, bound {bound:.1f} s -> "
              f"span ÷ bound {spn / bound:.2f}; {size / 1e6:.1f} MB served, {not_modified} answered 304; {dict(priors)}")
    (_, cold, _, _, cold_bytes, _, _), (_, warm, _, _, warm_bytes, _, _) = runs
    print(f"  warm ÷ cold wall: {warm / cold:.2f} (goal ≤ 1.0); warm ÷ cold bytes: {warm_bytes / cold_bytes:.2f} "
          "(goal ≤ 0.3)")


def thread_cpu_seconds(name: str) -> float:
    """CPU seconds (user + system) of this process's thread called ``name``, by the kernel's count."""
    found = next(t for t in threading.enumerate() if t.name == name)
    fields = Path(f"/proc/self/task/{found.native_id}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process's children that have ended."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines()
    except OSError:  # it has just ended
        return {}
    return dict(line.split(":", 1) for line in lines if ":" in line)


class CrawlWatch:
    """The crawl's process (this process's child) from outside, each second: its RSS, most RSS
    seen, open files; a line every ``every`` seconds (0: none); killed after ``stop_after``
    seconds (0: never). And this process's own threads (the mock web's), most seen: the
    kernel's count, the watcher itself left out."""

    def __init__(self, every: float, stop_after: float) -> None:
        self.every, self.stop_after = every, stop_after
        self.peak_mb = 0.0
        self.threads_peak = 0
        self.stopped = False
        self._done = threading.Event()
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def _crawl_pid(self) -> int | None:
        me = os.getpid()
        children = Path(f"/proc/{me}/task/{me}/children").read_text(encoding="ascii").split()
        return int(children[0]) if children else None

    def _watch(self) -> None:
        started = time.monotonic()
        said = 0.0
        while not self._done.wait(1.0):
            own_threads = _status(os.getpid()).get("Threads")
            if own_threads is not None:
                self.threads_peak = max(self.threads_peak, int(own_threads) - 1)
            pid = self._crawl_pid()
            if pid is None:
                continue
            status = _status(pid)
            if "VmRSS" not in status:
                continue
            rss = int(status["VmRSS"].split()[0]) / 1024
            self.peak_mb = max(self.peak_mb, rss)
            elapsed = time.monotonic() - started
            if self.every and elapsed - said >= self.every:
                said = elapsed
                files = len(os.listdir(f"/proc/{pid}/fd")) if Path(f"/proc/{pid}/fd").exists() else 0
                print(f"  {elapsed:6.0f} s: crawl RSS {rss:.0f} MB (most {self.peak_mb:.0f}), {files} open files",
                      flush=True)
            if self.stop_after and elapsed >= self.stop_after:
                self.stopped = True
                os.kill(pid, signal.SIGKILL)

    def __enter__(self) -> CrawlWatch:
        self._watcher.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._watcher.join()


def scale(urls: int, hosts: int, rps: float, seed: int = 9, profile: str = "", rss_every: float = 0.0,
          stop_after: float = 0.0) -> None:
    rng = random.Random(seed)
    names = [f"h{i:04d}.scale.gouv.fr" if i % 2 == 0 else f"h{i:04d}.scale-example.org" for i in range(hosts)]
    lines = []
    with tempfile.TemporaryDirectory() as tmp_name, MockWeb() as web:
        tmp = Path(tmp_name)
        for i in range(urls):
            url = f"https://{names[i % hosts]}/page/{i}"
            body = f"<html><body><h1>Rates</h1><p>The rate is {i % 90 + 1},25 % from 1 April 2025.</p>" \
                   + "<p>Explanatory text about the tax. </p>" * 30 + "</body></html>"
            web.route(url, Route(body=body, delay=rng.uniform(0.02, 0.1)))
            lines.append(f"- rate {i % 90 + 1}.25 % ([src]({url}))")
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# Scale\n" + "\n".join(lines) + "\n"})
        config = make_config(tmp / "config", liveness={"global": {"req_per_sec": rps}},
                             source_verify={"extraction": {"primary_only": False}})
        # --profile: the crawl under cProfile (where each page's time goes; the wall is then not the figure)
        launcher = [sys.executable, "-m", "cProfile", "-o", profile, SCRAPY] if profile else None
        crawl_cpu, web_cpu = children_cpu_seconds(), thread_cpu_seconds("mockweb")
        with CrawlWatch(rss_every, stop_after) as watch:
            result = crawl("audit", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                           timeout=7200, settings={"SV_RENDER_ENABLED": "0"}, launcher=launcher)
        crawl_cpu, web_cpu = children_cpu_seconds() - crawl_cpu, thread_cpu_seconds("mockweb") - web_cpu
        log = list(web.log)
        if watch.stopped:
            print(f"scale: {urls} URLs over {hosts} hosts, stopped after {stop_after:g} s "
                  f"({sum(1 for e in log if e.method == 'GET')} requests made)")
            print(f"  the crawl process's RSS: at most {watch.peak_mb:.0f} MB (sampled each second)")
            print(f"  the mock web's process: at most {watch.threads_peak} threads (goal ≤ 16)")
            return
        if result.returncode != 0:
            print(result.stderr[-3000:])
            raise SystemExit("scale audit failed")
        bound = politeness_bound(log, config)
        own_peak = result.logged_peak_rss_mb()
    requests = sum(1 for e in log if e.method == "GET")
    print(f"scale: {urls} URLs over {hosts} hosts ({requests} requests, robots.txt included), global cap {rps:g} req/s, "
          "no browser")
    print(f"  first→last request {span(log):.1f} s, bound {bound:.1f} s -> wall ÷ bound {span(log) / bound:.3f} "
          f"(goal ≤ 1.05); whole process {result.seconds:.1f} s")
    print(f"  peak RSS of the crawl process: {own_peak:.0f} MB (goal ≤ {300 if urls <= 20_000 else 400} MB; "
          f"{watch.peak_mb:.0f} MB sampled each second)")
    print(f"  the mock web's process: at most {watch.threads_peak} threads (goal ≤ 16)")
    opened = sum(1 for e in log if e.method == "CONNECT")
    print(f"  CPU a request: the crawl {1000 * crawl_cpu / requests:.1f} ms (start-up and finish included; "
          f"{crawl_cpu / span(log):.2f} of a core over the span), the mock web {1000 * web_cpu / requests:.1f} ms; "
          f"{opened} connections opened ({opened / requests:.2f} a request)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale-urls", type=int, default=10_000)
    ap.add_argument("--scale-hosts", type=int, default=1_000)
    ap.add_argument("--scale-rps", type=float, default=100.0)
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--skip-cold-warm", action="store_true")
    ap.add_argument("--profile", default="", help="write the scale crawl's cProfile stats to this file")
    ap.add_argument("--rss-every", type=float, default=0.0, help="print the scale crawl's RSS every S seconds")
    ap.add_argument("--stop-after", type=float, default=0.0, help="kill the scale crawl after S seconds")
    args = ap.parse_args()
    # the scale run first: peak RSS is read for this process's children, and the cold/warm
    # runs start Chromium
    if not args.skip_scale:
        scale(args.scale_urls, args.scale_hosts, args.scale_rps, profile=args.profile, rss_every=args.rss_every,
              stop_after=args.stop_after)
    if not args.skip_cold_warm:
        cold_warm()
    return 0


if __name__ == "__main__":
    sys.exit(main())
