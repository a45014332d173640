"""sv_scrapy's own ``scrapy`` commands (``COMMANDS_MODULE``), and what the non-crawling ones share.

``SvCommand`` is a mixin, not a ``ScrapyCommand`` subclass: Scrapy registers every
``ScrapyCommand`` subclass defined in a module of ``COMMANDS_MODULE`` under that module's name, so
a base class here would appear as a ``scrapy commands`` command. Each command is
``class Command(SvCommand, ScrapyCommand)``.
"""

from __future__ import annotations

import sys
import tempfile
import traceback
from typing import TYPE_CHECKING, Any, ClassVar

from sv_scrapy.core.errors import SvError
from sv_scrapy.run.registry import apply_environment
from sv_scrapy.run.runtime import Runtime, resolve

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from scrapy.settings import Settings


def bug_message(command: str, exc: Exception) -> str:
    """An exception no mistake of the user's and no failed write explains: a bug in sv_scrapy.
    Keeps its traceback in a file and returns the one line that names both. (The console of an
    unattended run shows one line per failure, never Python's traceback.)"""
    what = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    what = "".join(ch if ch.isprintable() else "?" for ch in what)  # the message may quote outside text
    try:
        with tempfile.NamedTemporaryFile("w", prefix=f"sv_scrapy-{command}-", suffix=".traceback.txt",
                                         delete=False, encoding="utf-8") as kept:
            kept.write("".join(traceback.format_exception(exc)))
        where = f"its traceback is in {kept.name}"
    except OSError:
        where = "its traceback could not be kept"
    return f"a bug in sv_scrapy ({what}); {where}"


def report_bug(command: str, exc: Exception) -> int:
    """A bug met by a command that does not crawl: its one line on stderr; the exit status is 1
    (``scrapy crawl``'s checks tell the crawl's watchers too: ``commands.crawl``)."""
    print(f"scrapy {command}: error: {bug_message(command, exc)}", file=sys.stderr)
    return 1


class SvCommand:
    """A non-crawling project command whose failures end in one line and their exit status."""

    requires_project = True
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}
    name = "sv"
    # ScrapyCommand's own attributes, which the mixin reads and sets
    settings: Settings | None
    exitcode: int

    def fail(self, message: str, status: int = 2) -> None:
        """End in one line on stderr and ``status`` (2: the user's mistake)."""
        print(f"scrapy {self.name}: error: {message}", file=sys.stderr)
        self.exitcode = status

    def runtime(self) -> Runtime:
        assert self.settings is not None
        apply_environment(self.settings)
        return resolve(self.settings)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            self.fail(f"unexpected argument(s): {' '.join(args)}")
            return
        self.answer(lambda: self.execute(opts))

    def answer(self, work: Callable[[], int | None]) -> None:
        """Do ``work``; the exit status is what it returns, else one line: an ``SvError``'s own
        status (2 a mistake, 1 a failed write, 75 the lock is taken), 1 for a bug."""
        try:
            self.exitcode = work() or 0
        except SvError as exc:
            self.fail(str(exc), exc.exit_code)
        except Exception as exc:  # noqa: BLE001  # a bug: one line and exit 1, as any failure
            self.exitcode = report_bug(self.name, exc)

    def execute(self, opts: argparse.Namespace) -> int | None:  # pragma: no cover
        raise NotImplementedError
