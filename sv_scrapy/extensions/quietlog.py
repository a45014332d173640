"""Quiet by default for the monthly audit, however it is started (``scrapy crawl audit``,
scrapyd's runner, a script with ``CrawlerProcess``): Scrapy's INFO chatter goes to a log file
under the output dir; the console keeps the audit's own lines (progress, resume,
interruption), sv_scrapy's warnings and every error; stdout carries the summary line and the
report paths.

A logging choice of the user's (``-L LEVEL``, ``--logfile``, ``--nolog``, ``LOG_FILE`` or a
``LOG_LEVEL`` set above the project's) keeps Scrapy's behaviour: ``scrapy crawl audit -L INFO``
is the old, chatty console.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.settings import SETTINGS_PRIORITIES

from sv_scrapy.run.runtime import new_clock

if TYPE_CHECKING:
    from scrapy.settings import Settings

    from sv_scrapy.core.clock import Clock

QUIET_JOBS = ("audit",)  # by SV_JOB: the spiders a timer runs with nobody watching
FORMAT = "%(asctime)s [%(name)s] %(levelname)s: %(message)s"
LOGS_FOLDER = "logs"


def user_chose_logging(settings: Settings) -> bool:
    """``-L``/``--logfile``/``--nolog`` (or the same settings) say the user wants Scrapy's own log."""
    return (bool(settings.get("LOG_FILE")) or not settings.getbool("LOG_ENABLED", True)
            or (settings.getpriority("LOG_LEVEL") or 0) > SETTINGS_PRIORITIES["project"])


def log_to_file(settings: Settings, job: str, clock: Clock | None = None) -> Path | None:
    """Point ``LOG_FILE`` at ``<SV_OUTPUT_DIR>/logs/<job>-<UTC time>.log`` for a quiet job; None
    when the user chose logging options, the job is not quiet, or the folder cannot be made
    (the console keeps everything). The crawl command asks before Scrapy starts the process's
    log, the add-on for a crawl started any other way; ``clock`` is the run's (a script asking
    before its crawl has none yet: the time is now, by ``SV_NOW``)."""
    if job not in QUIET_JOBS or user_chose_logging(settings):
        return None
    path = Path(settings["SV_OUTPUT_DIR"]) / LOGS_FOLDER / f"{job}-{(clock or new_clock()).stamp()}.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    settings.set("LOG_FILE", str(path), priority="cmdline")
    return path


def is_quiet(settings: Settings, job: str) -> bool:
    """The log file is the quiet one :func:`log_to_file` chose: the console needs its own handler."""
    log_file = settings.get("LOG_FILE")
    if not log_file or job not in QUIET_JOBS:
        return False
    path = Path(log_file)
    return path.parent == Path(settings["SV_OUTPUT_DIR"]) / LOGS_FOLDER and path.name.startswith(f"{job}-")


class ConsoleFilter(logging.Filter):
    """The spider's own lines, sv_scrapy's warnings, anyone's errors."""

    def __init__(self, spider: str) -> None:
        super().__init__()
        self.spider = spider

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR:
            return True
        if record.name == self.spider:
            return record.levelno >= logging.INFO
        return record.levelno >= logging.WARNING and record.name.startswith("sv_scrapy")


def add_console(spider: str) -> logging.Handler | None:
    """The quiet console on the root logger, once per process: the crawl command adds it before
    the spider is made (its start-up lines reach the console too), the monitor extension for a
    crawl started another way. Returns the handler it added, None when one was there."""
    if any(isinstance(f, ConsoleFilter) for h in logging.root.handlers for f in h.filters):
        return None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT, "%Y-%m-%d %H:%M:%S"))
    handler.addFilter(ConsoleFilter(spider))
    logging.root.addHandler(handler)
    return handler


class _LogFileLost:
    """``handleError`` of the log file's handler: a failed write to the log file (the output
    folder's disk is full) silences that file, instead of logging's own traceback on stderr
    for every later line. The run's one line on stderr says what failed."""

    def __init__(self, handler: logging.FileHandler) -> None:
        self.handler = handler

    def __call__(self, record: logging.LogRecord) -> None:
        logging.root.removeHandler(self.handler)
        with contextlib.suppress(OSError):
            self.handler.close()


def guard_log_files() -> None:
    """Every file handler on the root logger (Scrapy's ``LOG_FILE``) goes quiet when its disk fails."""
    for handler in logging.root.handlers:
        if isinstance(handler, logging.FileHandler):
            setattr(handler, "handleError", _LogFileLost(handler))  # noqa: B010 - the instance, not its class
