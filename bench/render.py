"""Rendering speed and memory: JavaScript-only pages through Debian's Chromium.

    python bench/render.py [--pages 40] [--hosts 4]

Serves N client-rendered pages (the figure is written by a script) over M hosts listed in
``js_spa_hosts``, runs one `scrapy crawl worklist`, samples the proportional set size (PSS)
of the whole process tree every 0.2 s, and prints rendered pages per second, Chromium's
peak PSS and the whole crawl's (goal: under 1 GB). The floors are lowered to 50 ms here, so
the number measures rendering, not politeness. Loopback only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=40)
    ap.add_argument("--hosts", type=int, default=4)
    args = ap.parse_args()
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
