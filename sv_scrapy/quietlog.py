"""Quiet by default for ``scrapy crawl audit``: Scrapy's INFO chatter goes to a log file under
the output dir; the console keeps the audit's own lines (progress, resume, interruption),
sv_scrapy's warnings and every error; stdout carries the summary line and the report paths.

``-L LEVEL``, ``--logfile`` or ``--nolog`` (or ``LOG_FILE`` set) keep Scrapy's behaviour:
``scrapy crawl audit -L INFO`` is the old, chatty console.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sv_scrapy.runtime import process_clock

if TYPE_CHECKING:
    import argparse

    from scrapy.settings import Settings

QUIET_SPIDERS = ("audit",)
FORMAT = "%(asctime)s [%(name)s] %(levelname)s: %(message)s"


def log_to_file(settings: Settings, opts: argparse.Namespace, spider: str) -> Path | None:
    """Point ``LOG_FILE`` at ``<SV_OUTPUT_DIR>/logs/<spider>-<UTC time>.log``; None when the
    user chose logging options, or the folder cannot be made (the console keeps everything)."""
    if spider not in QUIET_SPIDERS or opts.loglevel or opts.logfile or opts.nolog or settings.get("LOG_FILE"):
        return None
    path = Path(settings["SV_OUTPUT_DIR"]) / "logs" / f"{spider}-{process_clock().stamp()}.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    settings.set("LOG_FILE", str(path), priority="cmdline")
    return path


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


def console_handler(spider: str) -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT, "%Y-%m-%d %H:%M:%S"))
    handler.addFilter(ConsoleFilter(spider))
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
