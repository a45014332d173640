"""One small hierarchy of the problems a run reports as one line; adapters turn each into
that line and its exit status (``EXIT_STATUSES``)."""

from __future__ import annotations

# every exit status a command or crawl ends with, and what it means
EXIT_STATUSES: dict[int, str] = {
    0: "every output the run promises was written (a change check: no failing finding; warnings allowed)",
    1: "the run failed (an output not written, the crawl failed as a whole, every LLM call failed)",
    2: "the user's mistake: a bad option, argument, config, corpus root, or changed_since revision",
    3: "the change checked by -a changed_since has failing findings (its outputs are written)",
    75: "another run holds the output folder's lock (EX_TEMPFAIL): try later",
}


class SvError(Exception):
    """Base class: a problem the user can fix, reported as one line without a traceback."""

    exit_code = 2


class ConfigError(SvError):
    """A config file is missing, unreadable, or has a missing, unknown or mistyped key."""


class CorpusError(SvError):
    """The corpus root or a scope directory cannot be used."""


class ArgumentError(SvError):
    """A command option or spider argument has a bad value."""


class OutputError(SvError):
    """An output (report, worklist, store, lock) could not be written: the run failed."""

    exit_code = 1


class LockHeld(SvError):
    """Another run holds the output folder's lock (EX_TEMPFAIL: try later)."""

    exit_code = 75


class FindingsInChange(SvError):
    """The change checked by ``-a changed_since`` has failing findings (every output written)."""

    exit_code = 3
