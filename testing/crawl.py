"""Crawl helpers shared by the tests and the benches: a corpus on disk, a fast test config, a
`scrapy crawl` subprocess (its in-process twin: ``testing.inprocess``)."""

from __future__ import annotations

import json
import re
import resource
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testing.commands import PROJECT_DIR, SCRAPY, run_scrapy
from testing.env import clean_env

__all__ = ["PROJECT_DIR", "SCRAPY", "CrawlResult", "crawl", "make_config", "write_corpus"]


def write_corpus(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def make_config(folder: Path, liveness: dict[str, Any] | None = None, source_verify: dict[str, Any] | None = None) -> Path:
    """Copy the shipped config and deep-merge overrides into its two JSON files."""
    shutil.copytree(PROJECT_DIR / "config", folder)

    def merge(base: dict[str, Any], extra: dict[str, Any]) -> None:
        for key, value in extra.items():
            if isinstance(value, dict) and isinstance(base.get(key), dict) and not key.startswith("per_host"):
                merge(base[key], value)
            else:
                base[key] = value

    # then and now (the Wayback Machine) is off unless a test asks for it: its own tests are tests/test_archive.py;
    # so is where the figure went (a site's sitemaps and search): tests/test_discover_crawl.py, the demo's
    source_verify = {"archive": {"enabled": False}, "discover": {"enabled": False}, **(source_verify or {})}
    for name, extra in (("_url-liveness.json", liveness), ("_source-verify.json", source_verify)):
        if extra:
            path = folder / name
            data = json.loads(path.read_text(encoding="utf-8"))
            merge(data, extra)
            path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return folder


# floors and waits short enough for a test suite; semantics unchanged
FAST_LIVENESS: dict[str, Any] = {
    "global": {
        "req_per_sec": 100,
        "default_per_host_interval_ms": 50,
        "request_timeout_seconds": 2,
        "retry_backoff_seconds": [0.2, 0.4],
        "retry_jitter_pct": 0,
    },
    "gov_suffix_default": {"concurrency": 1, "interval_ms": 100},
}
# FAST_LIVENESS without the shipped config's per-host overrides (legifrance.gouv.fr 2 s between requests,
# eur-lex.europa.eu 10 s): for tests whose corpus cites those hosts and that are not about their pace
FAST_ANY_HOST: dict[str, Any] = {**FAST_LIVENESS, "per_host_overrides": {}}
# source_verify for a crawl whose PDFs are not about OCR: a generated PDF's thin text layer would start
# tesseract in the fast and pacing passes (OCR is judged in tests/test_spider_ocr.py, marked `ocr`)
NO_OCR: dict[str, Any] = {"pdf": {"ocr": False}}


@dataclass
class CrawlResult:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss_mb: float
    output_dir: Path

    def logged_peak_rss_mb(self) -> float:
        """The crawl's own peak RSS, as its log's stats say (``peak_rss_mb`` is the children's
        ``ru_maxrss``, which starts at the parent's size and is shared by parts run at once)."""
        logged = "\n".join(p.read_text(encoding="utf-8") for p in (self.output_dir / "logs").glob("*.log"))
        found = re.findall(r"'sv/peak_rss_mb': ([\d.]+)", logged)
        return float(found[-1]) if found else float("nan")

    def worklist(self) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads((self.output_dir / "worklist.json").read_text(encoding="utf-8"))
        return doc

    def items_by_line(self) -> dict[int, dict[str, Any]]:
        return {item["line_no"]: item for item in self.worklist()["items"]}


def crawl_command(spider: str, *, corpus: Path, config: Path, output: Path, proxy_env: dict[str, str],
                  args: dict[str, str] | None = None, extra_env: dict[str, str] | None = None,
                  settings: dict[str, str] | None = None, options: list[str] | None = None,
                  launcher: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The command line and the whole environment of ``scrapy crawl <spider>`` (for a test that
    starts it itself, to run several at once or to kill one)."""
    cmd, env = _crawl_args(spider, corpus=corpus, config=config, output=output, proxy_env=proxy_env, args=args,
                           extra_env=extra_env, settings=settings, options=options)
    return [*(launcher or [SCRAPY]), *cmd], clean_env(env)


def _crawl_args(spider: str, *, corpus: Path, config: Path, output: Path, proxy_env: dict[str, str],
                args: dict[str, str] | None, extra_env: dict[str, str] | None, settings: dict[str, str] | None,
                options: list[str] | None) -> tuple[list[str], dict[str, str]]:
    """``crawl <spider>``'s arguments and what the test adds to the clean environment."""
    # hermetic (testing.env): no SV_* location, proxy or GitHub Actions variable leaks in from the caller
    env = {**proxy_env, "SV_CORPUS_ROOT": str(corpus), "SV_CONFIG_DIR": str(config), "SV_OUTPUT_DIR": str(output),
           "SV_IGNORE_HTTPS_ERRORS": "1", **(extra_env or {})}
    cmd = ["crawl", spider]
    for key, value in (args or {}).items():
        cmd += ["-a", f"{key}={value}"]
    for key, value in (settings or {}).items():
        cmd += ["-s", f"{key}={value}"]
    return cmd + (options or []), env


def crawl(spider: str, *, corpus: Path, config: Path, output: Path, proxy_env: dict[str, str],
          args: dict[str, str] | None = None, timeout: float = 180, extra_env: dict[str, str] | None = None,
          settings: dict[str, str] | None = None, options: list[str] | None = None,
          launcher: list[str] | None = None) -> CrawlResult:
    """``scrapy crawl <spider>`` in a subprocess (``launcher``: another command line standing in
    for ``scrapy``, taking the same arguments, e.g. an instrumented one)."""
    cmd, env = _crawl_args(spider, corpus=corpus, config=config, output=output, proxy_env=proxy_env, args=args,
                           extra_env=extra_env, settings=settings, options=options)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    proc = run_scrapy(*cmd, env=env, timeout=timeout, launcher=launcher)
    seconds = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return CrawlResult(proc.returncode, proc.stdout, proc.stderr, seconds, max(peak, before) / 1024, output)


def crawl_demo(folder: Path) -> CrawlResult:
    """The demo's audit (examples/corpus against examples/site on the mock web) into ``folder``/out,
    with the test config (eur-lex's Crawl-delay of 10 s, which the demo shows, left out)."""
    from testing.mockweb import MockWeb, Route
    from testing.mockweb.site import load_site

    config = make_config(folder / "config", liveness=FAST_ANY_HOST, source_verify={"discover": {"enabled": True}})
    with MockWeb() as web:
        load_site(web, PROJECT_DIR / "examples" / "site")
        web.route("https://eur-lex.europa.eu/robots.txt", Route(body="User-agent: *\n", content_type="text/plain"))
        return crawl("audit", corpus=PROJECT_DIR / "examples" / "corpus", config=config, output=folder / "out",
                     proxy_env=web.env())
