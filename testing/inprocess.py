"""A crawl in the test's own process: Scrapy's ``CrawlerRunner`` with the project's settings over
the mock web, for pipeline and spider behaviour (the CLI and its exit statuses keep one
subprocess test per command: ``testing.commands``).

Twisted's reactor cannot be restarted, so one reactor (the project's asyncio reactor) runs for
the whole test process in a thread of its own, and each crawl is handed to it and waited for.
During a crawl the process environment is the clean one (``testing.env``) plus the mock web's
proxy: Scrapy's proxy middleware and ``SV_IGNORE_HTTPS_ERRORS``/``SV_NOW`` are read from it, as
in a subprocess. The result carries what a subprocess would show: the exit status and one line
(``extensions.outcome.exit_status``), the log lines, the stats, the outputs.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy.crawler import Crawler, CrawlerRunner
from scrapy.settings import Settings
from scrapy.utils.reactor import install_reactor, is_reactor_installed

from sv_scrapy.extensions.outcome import exit_status, stats_if_started
from sv_scrapy.extensions.quietlog import ConsoleFilter
from sv_scrapy.run.state import finish
from testing.commands import environment

REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"  # the project's TWISTED_REACTOR


def reactor_thread() -> Any:
    """The process's reactor, running in its own daemon thread (started on first use)."""
    if not is_reactor_installed():
        install_reactor(REACTOR)
    from twisted.internet import reactor as installed

    reactor: Any = installed  # the asyncio reactor, whose run() takes installSignalHandlers
    if not reactor.running:
        def run() -> None:
            reactor.run(installSignalHandlers=False)  # signals stay the main thread's (pytest's)

        threading.Thread(target=run, daemon=True, name="twisted-reactor").start()
        deadline = time.monotonic() + 10
        while not reactor.running and time.monotonic() < deadline:
            time.sleep(0.01)
    return reactor


class _Lines(logging.Handler):
    """The crawl's log at INFO and above; ``console`` keeps what the quiet console would show."""

    def __init__(self, spider: str) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.console: list[str] = []
        self.quiet = ConsoleFilter(spider)
        self.setFormatter(logging.Formatter("[%(name)s] %(levelname)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        line = self.format(record)
        self.lines.append(line)
        if self.quiet.filter(record):
            self.console.append(line)


@dataclass
class InProcessCrawl:
    """What ``testing.crawl.crawl`` returns for a subprocess, from a crawl in this process:
    ``returncode`` is the exit status ``scrapy crawl`` would have, ``stdout`` what was printed,
    ``stderr`` what was printed there plus the log lines the quiet console shows."""
    returncode: int
    line: str  # the run's one line ("" when it went well)
    output_dir: Path
    stdout: str = ""
    stderr: str = ""
    log: list[str] = field(default_factory=list)  # "[logger] LEVEL: message", INFO and above
    stats: dict[str, Any] = field(default_factory=dict)
    rss_before_mb: float = 0.0  # the process's resident memory when the crawl began

    @property
    def exit_status(self) -> int:
        return self.returncode

    def peak_growth_mb(self) -> float:
        """How far the process's resident memory rose during the crawl: the crawl's own
        ``sv/peak_rss_mb`` (its peak, reset when the crawl began) less where it began."""
        return float(self.stats["sv/peak_rss_mb"]) - self.rss_before_mb

    def worklist(self) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads((self.output_dir / "worklist.json").read_text(encoding="utf-8"))
        return doc

    def items_by_line(self) -> dict[int, dict[str, Any]]:
        return {item["line_no"]: item for item in self.worklist()["items"]}

    def audit(self, report_dir: Path | None = None) -> dict[str, Any]:
        path = (report_dir or self.output_dir / "audit") / "audit.json"
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return doc


def _restart_peak_rss() -> float:
    """Reset the process's peak resident memory (``VmHWM``) to its current size, and return
    that size in MB, so that the crawl's ``sv/peak_rss_mb`` is its own peak, not the test
    process's (Linux: writing 5 to ``clear_refs``)."""
    Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def project_settings(overrides: Mapping[str, Any]) -> Settings:
    settings = Settings()
    settings.setmodule("sv_scrapy.settings", priority="project")
    settings.setdict(dict(overrides), priority="cmdline")
    return settings


def crawl_in_process(spider: str, *, corpus: Path, config: Path, output: Path, proxy_env: Mapping[str, str],
                     args: Mapping[str, str] | None = None, settings: Mapping[str, Any] | None = None,
                     extra_env: Mapping[str, str] | None = None, timeout: float = 180) -> InProcessCrawl:
    """``scrapy crawl <spider>`` without the process, called as ``testing.crawl.crawl``: the same
    settings, checks, pipelines and extensions (a refused start is its ``SvError``'s exit status
    and line, printed as ``scrapy crawl`` prints it)."""
    from twisted.internet.threads import blockingCallFromThread

    from sv_scrapy.core.errors import SvError

    reactor = reactor_thread()
    overrides = {"SV_CORPUS_ROOT": str(corpus), "SV_CONFIG_DIR": str(config), "SV_OUTPUT_DIR": str(output),
                 # a level chosen: the crawl logs here (captured), not to the audit's quiet file
                 "LOG_LEVEL": "INFO", **(settings or {})}
    lines, level = _Lines(spider), logging.root.level
    out, err = io.StringIO(), io.StringIO()
    logging.root.addHandler(lines)
    logging.root.setLevel(logging.INFO)  # as Scrapy's LOG_LEVEL would, had it configured the process's log
    refused: SvError | None = None
    crawler: Crawler | None = None
    rss_before = _restart_peak_rss()
    try:
        with environment({**proxy_env, "SV_IGNORE_HTTPS_ERRORS": "1", **(extra_env or {})}), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runner = CrawlerRunner(project_settings(overrides))
            crawler = runner.create_crawler(spider)

            def start() -> Any:
                return runner.crawl(crawler, **(args or {})).addTimeout(timeout, reactor)

            try:
                blockingCallFromThread(reactor, start)
            except SvError as exc:
                refused = exc
            else:
                code, line = exit_status(crawler)
                if line:  # as scrapy crawl ends
                    print(f"scrapy crawl {spider}: error: {line}", file=sys.stderr)
    finally:
        logging.root.removeHandler(lines)
        logging.root.setLevel(level)
        if crawler is not None:  # a crawl that stopped before its end: the next one may take the folder
            finish(crawler)
    stderr = "".join(f"{line}\n" for line in lines.console) + err.getvalue()
    if refused is not None:
        return InProcessCrawl(refused.exit_code, str(refused), output, out.getvalue(), stderr, lines.lines)
    started = stats_if_started(crawler)
    stats = started.get_stats() if started is not None else {}
    return InProcessCrawl(code, line, output, out.getvalue(), stderr, lines.lines, stats, rss_before)
