"""``scrapy merge`` at scale without crawling 20,000 URLs: one real small part is crawled against
the mock web, its per-page records and store files are scaled to 20,000 claims over 2,000 hosts
and written, as 1, 2 and 4 parts, with the project's own writers (``write_part``,
``ContentStore``); then ``scrapy merge`` of each split is timed (wall and CPU) and optionally
profiled — month one (the parts start from no store), then month two (each part restores month
one's merged store, as the runners do, and rewrites its own pages: the merge links 20,000 pages
and replaces them).

    python bench/merge.py [--urls 20000] [--hosts 2000] [--splits 1,2,4] [--keep DIR] [--profile]

``--keep DIR`` builds the parts there once and reuses them on the next call; ``--profile`` writes
``DIR/merge-N-monthM.prof`` (``python -m cProfile``) for each merge. Goal: ≤ 10 s wall for 20,000
claims (issue #32); ≤ 20 s and ≤ 400 MB peak RSS for 100,000 (issue #42). Loopback only; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any
from unittest import mock

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.audit.partfile import PART_FILE, write_part  # noqa: E402
from sv_scrapy.core.audit.parts import owner_of  # noqa: E402
from sv_scrapy.core.audit.store import ContentStore, Entry  # noqa: E402
from sv_scrapy.core.claims.claims import claim_id  # noqa: E402
from testing.crawl import SCRAPY, crawl, make_config, write_corpus  # noqa: E402
from testing.env import clean_env  # noqa: E402
from testing.mockweb import MockWeb, Route  # noqa: E402

NOW = "2027-01-01T03:00:00Z"
MONTH_TWO = "2027-02-01T03:00:00Z"
TEMPLATES = 90  # one template page per figure (page i states i % 90 + 1)


def host_names(count: int) -> list[str]:
    # one site per host (a registrable domain each), as bench/parts.py
    return [f"www.h{i:04d}.gouv.fr" if i % 2 == 0 else f"www.h{i:04d}-example.org" for i in range(count)]


def url_of(i: int, hosts: list[str]) -> str:
    return f"https://{hosts[i % len(hosts)]}/page/{i}"


def corpus_text(urls: list[str]) -> str:
    lines = [f"- rate {i % 90 + 1}.25 % ([src]({url}))" for i, url in enumerate(urls)]
    return "# Parts\n" + "\n".join(lines) + "\n"


def crawl_template(folder: Path) -> Path:
    """One real part (1/1) of 90 pages over 10 hosts: the records and store files to scale."""
    hosts = host_names(10)
    urls = [url_of(i, hosts) for i in range(TEMPLATES)]
    with MockWeb() as web:
        for i, url in enumerate(urls):
            web.route(url, Route(body=f"<html><body><h1>Rates</h1><p>The rate is {i % 90 + 1},25 % from 1 April "
                                      "2025.</p>" + "<p>Explanatory text about the tax. </p>" * 30 + "</body></html>"))
        corpus = write_corpus(folder / "corpus", {"countries/xx/playbook.md": corpus_text(urls)})
        config = make_config(folder / "config", liveness={"global": {"req_per_sec": 100}},
                             source_verify={"extraction": {"primary_only": False}})
        result = crawl("audit", corpus=corpus, config=config, output=folder / "part", proxy_env=web.env(),
                       args={"part": "1/1"}, settings={"SV_RENDER_ENABLED": "0"}, extra_env={"SV_NOW": NOW},
                       timeout=600)
    if result.returncode != 0:
        print(result.stderr[-3000:])
        raise SystemExit("the template part failed")
    return folder / "part"


class Scaler:
    """Page ``i`` of the big corpus from template page ``i % 90`` (same figure, same text): its
    URL, host, claim id and line replaced in every record and entry."""

    def __init__(self, template: Path) -> None:
        self.doc = json.loads((template / PART_FILE).read_text(encoding="utf-8"))  # the template is small
        self.store = ContentStore(template / "store")
        self.by_url = {c["source_url"]: c for c in self.doc["claims"]}

    def page(self, i: int, url: str) -> dict[str, Any]:
        """The claim, record, urls row, entry and texts of page ``i`` at ``url``."""
        t_url = url_of(i % TEMPLATES, host_names(10))
        claim = self.by_url[t_url]
        entry = self.store.load(t_url)
        assert entry is not None, t_url
        bundle = {"claim": claim, "record": self.doc["records"][claim["id"]], "urls": self.doc["urls"][t_url],
                  "entry": asdict(entry)}
        new_id = claim_id("xx", i + 2, url)
        text = json.dumps(bundle, ensure_ascii=False)
        text = text.replace(claim["id"], new_id).replace(t_url, url)
        text = text.replace(claim["source_host"], url.split("/")[2])
        text = re.sub(r'"line_no": \d+', f'"line_no": {i + 2}', text)
        scaled: dict[str, Any] = json.loads(text)
        scaled["text"], scaled["stable"] = self.store.text(t_url), self.store.stable_text(t_url)
        return scaled


def build_split(n: int, *, folder: Path, scaler: Scaler, urls: list[str], restored: Path | None = None) -> list[Path]:
    """The ``n`` part folders of one audit of ``urls`` into ``folder``, as each part would write
    them: month one, or month two when each part first restores last month's merged store."""
    corpus_index = [(claim_id("xx", i + 2, url), url.split("/")[2]) for i, url in enumerate(urls)]
    pages = [scaler.page(i, url) for i, url in enumerate(urls)]
    folders = []
    template = scaler.doc
    for index in range(1, n + 1):
        part = f"{index}/{n}"
        own = [p for p in pages if owner_of(p["claim"]["source_host"], n) == index]
        out = folder / f"part-{index}"
        if restored is not None:  # what the runners do: the merged store copied into each part's folder
            shutil.copytree(restored, out / "store", copy_function=os.link)
        store = ContentStore(out / "store")
        run_id = f"part{index}of{n}m{2 if restored else 1}"
        for p in own:
            entry = Entry.from_json({**p["entry"], "run_id": run_id})
            store.save(entry)
            store.save_text(p["claim"]["source_url"], p["text"])
            store.save_stable_text(p["claim"]["source_url"], p["stable"])
        _write(out / "store" / "FORMAT.json", json.loads((scaler.store.root / "FORMAT.json").read_bytes()))
        params = {**template["params"], "part": part}
        inputs = {key: template[key] for key in ("failure", "archive_results", "archive_enabled", "archive_counts",
                                                 "quarantined", "store_format", "allowlist_rows", "linter_rows",
                                                 "corpus_commit", "joined")}
        month_one = str(template["generated_at"])
        generated_at = month_one.replace(NOW[:7], MONTH_TWO[:7]) if restored else month_one
        inputs.update(records={p["claim"]["id"]: p["record"] for p in own}, generated_at=generated_at,
                      urls={p["claim"]["source_url"]: p["urls"] for p in own},
                      claims=[p["claim"] for p in own], params=params, run_id=run_id)
        (out / PART_FILE).unlink(missing_ok=True)
        write_part(out / PART_FILE, part=part, inputs=inputs, corpus_index=corpus_index)
        _write(out / "store" / "run.json", {"run_id": run_id, "params": params, "finished": True,
                                            "started_at": generated_at, "finished_at": generated_at,
                                            "previous_finished_at": month_one if restored else ""})
        folders.append(out)
    return folders


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # a restored store's file is a hard link to last month's: never written through
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# runs the merge as its one child and prints that child's peak RSS (KB) last on stderr: this
# process's own children's figure is the largest of every child it ever waited for
_PEAK_OF_CHILD = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
                  "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
                  "sys.exit(done.returncode)")


def time_merge(folders: list[Path], out: Path, *, corpus: Path, config: Path, now: str,
               profile: Path | None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one ``scrapy merge`` subprocess."""
    shutil.rmtree(out, ignore_errors=True)
    launcher = [sys.executable, "-c", _PEAK_OF_CHILD]
    launcher += [sys.executable, "-m", "cProfile", "-o", str(profile), SCRAPY] if profile else [SCRAPY]
    env = clean_env({"SV_CORPUS_ROOT": str(corpus), "SV_CONFIG_DIR": str(config), "SV_NOW": now})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run([*launcher, "merge", *map(str, folders), "--into", str(out)], cwd=PROJECT_DIR, env=env,
                          capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        print(done.stderr[-3000:])
        raise SystemExit(f"merge of {len(folders)} part(s) exited {done.returncode}")
    peak_mb = int(done.stderr.strip().splitlines()[-1]) / 1024
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), peak_mb


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--urls", type=int, default=20_000)
    ap.add_argument("--hosts", type=int, default=2_000)
    ap.add_argument("--splits", default="1,2,4")
    ap.add_argument("--keep", type=Path, help="build the parts here once, reuse them next time")
    ap.add_argument("--profile", action="store_true", help="cProfile each merge into the folder")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        folder = (args.keep or Path(tmp_name)).resolve()
        hosts, splits = host_names(args.hosts), [int(s) for s in args.splits.split(",")]
        urls = [url_of(i, hosts) for i in range(args.urls)]
        template = folder / "template" / "part"
        if not (template / PART_FILE).is_file():
            crawl_template(folder / "template")
        corpus = write_corpus(folder / "corpus", {"countries/xx/playbook.md": corpus_text(urls)})
        scaler = Scaler(template)
        rows = []
        for n in splits:
            restored = None
            for month, now in ((1, NOW), (2, MONTH_TWO)):
                split = folder / f"split{n}" / f"month{month}"
                parts = [split / f"part-{i}" for i in range(1, n + 1)]
                if restored is not None or not all((p / PART_FILE).is_file() for p in parts):
                    shutil.rmtree(split, ignore_errors=True)
                    with mock.patch("os.fsync"):  # the input, not the thing measured: no need to wait for the disk
                        parts = build_split(n, folder=split, scaler=scaler, urls=urls, restored=restored)
                profile = folder / f"merge-{n}-month{month}.prof" if args.profile else None
                wall, cpu, peak = time_merge(parts, split / "merged", corpus=corpus, config=folder / "template" / "config",
                                       now=now, profile=profile)
                merged = json.loads((split / "merged" / "audit" / "audit.json").read_text(encoding="utf-8"))
                rows.append((n, month, len(merged["items"]), wall, cpu, peak))
                restored = split / "merged" / "store"
    print(f"scrapy merge: {args.urls} claims over {args.hosts} hosts; month two's parts restore month one's "
          "merged store (parts built once, not timed)\n")
    print("| split | month | merged claims | merge wall (s) | merge CPU (s) | merge peak RSS (MB) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, month, claims, wall, cpu, peak in rows:
        print(f"| {n} | {month} | {claims} | {wall:.1f} | {cpu:.1f} | {peak:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
