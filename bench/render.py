"""Rendering speed and memory: JavaScript-only pages through Debian's Chromium.

    python bench/render.py [--pages 40] [--hosts 4]
    python bench/render.py --heldout [--pages 8] [--hosts 3]

Serves N client-rendered pages (the figure is written by a script) over M hosts listed in
``js_spa_hosts``, runs one `scrapy crawl worklist`, samples the proportional set size (PSS)
of the whole process tree every 0.2 s, and prints rendered pages per second, Chromium's
peak PSS and the whole crawl's (goal: under 1 GB). The floors are lowered to 50 ms here, so
the number measures rendering, not politeness.

``--heldout``: the held-out worklist's figure instead, at the shipped politeness (a government
host one request a second, one at a time). M rendered hosts whose N pages each load what a
site's app loads from its own host (a script, a stylesheet, a data call answered late, a font),
as many plain hosts, and a host that answers 503 twice (a fault, left out of the figure). ``--timeline``: every
request to the first rendered host, as the mock web logged it.
Prints, for each host without faults, the first→last span of the requests the crawler sent
(robots.txt and pages; a page's own sub-requests are not the crawler's) ÷ (requests − 1) × its
floor, by the mock web's own log; goal ≤ 1.10 for rendered and plain hosts alike.
Loopback only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from testing.crawl import (  # noqa: E402
    SCRAPY,  # noqa: E402
    make_config,
    write_corpus,
)
from testing.env import clean_env  # noqa: E402
from testing.mockweb import MockWeb  # noqa: E402

PAGE = ("<html><head><title>App</title></head><body><div id='root'></div><script>"
        "document.getElementById('root').innerHTML = '<h1>Rates</h1><p>The rate is {rate} % this year. ' + "
        "'Details of the schedule follow. '.repeat(40) + '</p>';</script></body></html>")


def tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def is_chromium(pid: int) -> bool:
    try:
        return b"chromium" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


# a site's app page: its script and stylesheet from its own host, then a data call the script makes
APP_PAGE = ("<html><head><title>App</title><link rel='stylesheet' href='/static/app.css'>"
            "<script src='/static/app.js'></script></head><body><div id='root'>Loading</div>"
            "<script>render({rate});</script></body></html>")
APP_JS = ("function render(rate) { document.getElementById('root').innerHTML = '<h1>Rates</h1><p>The rate is ' + "
          "rate + ' % this year. ' + 'Details of the schedule follow. '.repeat(40) + '</p>';"
          " fetch('/api/news.json').then(r => r.json()).then(n => {}); }")
APP_CSS = "@font-face { font-family: Gov; src: url('/static/gov.woff2'); } body { font-family: Gov; }"


def heldout(pages: int, hosts: int, timeline: bool = False) -> int:
    """The held-out worklist's figure (``--heldout``): span ÷ bound on each host without faults."""
    from sv_scrapy.core.politeness import floor_seconds, policy_for
    from sv_scrapy.run.config import load_config
    from testing.crawl import crawl
    from testing.mockweb import Route, gets_by_host

    rendered = [f"app{i}.render-heldout.gov.hk" for i in range(hosts)]
    plain = [f"www{i}.render-heldout.gouv.fr" for i in range(hosts)]
    faulty = "down.render-heldout.gouv.fr"
    with tempfile.TemporaryDirectory() as tmp_name, MockWeb() as web:
        tmp = Path(tmp_name)
        lines = []
        for i in range(pages * hosts):
            rate = f"{i % 50 + 1},25"
            app, site = rendered[i % hosts], plain[i % hosts]
            web.route(f"https://{app}/p{i}", Route(body=APP_PAGE.replace("{rate}", repr(rate)), delay=0.05))
            web.route(f"https://{site}/p{i}", Route(body=f"<h1>Rates</h1><p>The rate is {rate} % this year.</p>"
                                                    + "<p>Details of the schedule follow.</p>" * 40, delay=0.05))
            lines += [f"- rate {i % 50 + 1}.25 % ([p](https://{app}/p{i}))",
                      f"- rate {i % 50 + 1}.25 % ([p](https://{site}/p{i}))"]
        for app in rendered:
            web.route(f"https://{app}/static/app.js", Route(body=APP_JS, content_type="text/javascript", delay=0.1))
            web.route(f"https://{app}/static/app.css", Route(body=APP_CSS, content_type="text/css", delay=0.1))
            web.route(f"https://{app}/static/gov.woff2", Route(body=b"\0" * 20_000, content_type="font/woff2"))
            web.route(f"https://{app}/api/news.json", Route(body="[]", content_type="application/json", delay=0.6))
        web.route(f"https://{faulty}/p", Route(sequence=[Route(status=503), Route(status=503), Route(body="7,25 %")]))
        lines.append(f"- rate 7.25 % ([p](https://{faulty}/p))")
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# R\n" + "\n".join(lines) + "\n"})
        config = make_config(tmp / "config", source_verify={"fetch": {"js_spa_hosts": rendered}})
        result = crawl("worklist", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                       args={"sample": str(len(lines))}, timeout=1800, extra_env={"SV_IGNORE_HTTPS_ERRORS": "1"})
        log = list(web.log)
        cfg = load_config(config)
    if result.returncode != 0:
        print(result.stderr[-3000:])
        return 1
    sent = [e for e in log if e.method == "GET" and ("/p" in e.url or e.url.endswith("/robots.txt"))]
    print(f"render --heldout: {pages} pages on each of {hosts} rendered and {hosts} plain hosts, a faulty host; "
          f"shipped politeness; process {result.seconds:.1f} s")
    figures: dict[str, list[float]] = {"rendered": [], "plain": []}
    for host, entries in sorted(gets_by_host(sent).items()):
        if host == faulty:
            continue
        floor = floor_seconds(policy_for(host, cfg.liveness, cfg.hosts))
        gaps = [b.began - a.began for a, b in zip(entries, entries[1:], strict=False)]
        ratio = (entries[-1].began - entries[0].began) / ((len(entries) - 1) * floor)
        figures["rendered" if host in rendered else "plain"].append(ratio)
        for a, b in zip(entries, entries[1:], strict=False):
            if b.began - a.began < floor - 0.1:  # the pacing tests' tolerance
                print(f"  !! {host}: {a.url} ({a.status}) -> {b.url} ({b.status}) {b.began - a.began:.3f} s apart")
        print(f"  {host}: {len(entries)} requests, floor {floor:g} s, gaps {min(gaps):.2f}–{max(gaps):.2f} s "
              f"(median {statistics.median(gaps):.2f}), span ÷ bound {ratio:.3f}")
    if timeline:
        zero = min(e.began for e in log)
        for e in sorted((e for e in log if rendered[0] in e.url), key=lambda e: e.began):
            print(f"    {e.began - zero:8.3f} s  {e.method:7} {e.status} {e.url}")
    for kind, ratios in figures.items():
        print(f"  {kind} hosts: span ÷ bound mean {sum(ratios) / len(ratios):.3f}, worst {max(ratios):.3f} "
              "(goal ≤ 1.10)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=40)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--heldout", action="store_true", help="the held-out worklist's figure at shipped politeness")
    ap.add_argument("--timeline", action="store_true", help="with --heldout: the first rendered host's requests")
    args = ap.parse_args()
    if args.heldout:
        return heldout(args.pages if args.pages != 40 else 8, args.hosts if args.hosts != 4 else 3, args.timeline)
    hosts = [f"app{i}.render-bench.gov.hk" for i in range(args.hosts)]
    with tempfile.TemporaryDirectory() as tmp_name, MockWeb() as web:
        tmp = Path(tmp_name)
        lines = []
        for i in range(args.pages):
            url = f"https://{hosts[i % len(hosts)]}/p{i}"
            web.route(url, body=PAGE.replace("{rate}", f"{i % 50 + 1},25"))
            lines.append(f"- rate {i % 50 + 1}.25 % ([p]({url}))")
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# R\n" + "\n".join(lines) + "\n"})
        config = make_config(tmp / "config",
                             liveness={"global": {"req_per_sec": 100, "default_per_host_interval_ms": 50},
                                       "gov_suffix_default": {"concurrency": 2, "interval_ms": 50}},
                             source_verify={"fetch": {"js_spa_hosts": hosts}})
        env = clean_env()
        env.update(web.env(), SV_CORPUS_ROOT=str(corpus), SV_CONFIG_DIR=str(config), SV_OUTPUT_DIR=str(tmp / "out"),
                   SV_IGNORE_HTTPS_ERRORS="1")
        started = time.monotonic()
        proc = subprocess.Popen([SCRAPY, "crawl", "worklist", "-a", f"sample={args.pages}", "-L", "WARNING"],
                                cwd=PROJECT_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak = {"all": 0, "chromium": 0}

        def sample() -> None:
            while proc.poll() is None:
                pids = tree(proc.pid)
                peak["all"] = max(peak["all"], sum(pss_kb(p) for p in pids))
                peak["chromium"] = max(peak["chromium"], sum(pss_kb(p) for p in pids if is_chromium(p)))
                time.sleep(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, stderr = proc.communicate()
        elapsed = time.monotonic() - started
        sampler.join(timeout=1)
        navigations = [e for e in web.log if e.method == "GET" and "/p" in e.url]
    if proc.returncode != 0:
        print(stderr.decode()[-3000:])
        return 1
    span = navigations[-1].t - navigations[0].t if len(navigations) > 1 else elapsed
    print(f"render: {args.pages} client-rendered pages over {args.hosts} hosts in {elapsed:.1f} s "
          f"(first→last navigation {span:.1f} s)")
    print(f"  rendered pages/s: {len(navigations) / max(span, 1e-9):.2f} ({span / max(len(navigations), 1):.2f} s a page)")
    print(f"  peak PSS: Chromium {peak['chromium'] / 1024:.0f} MB; whole crawl (Scrapy + driver + Chromium) "
          f"{peak['all'] / 1024:.0f} MB (goal < 1024 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
