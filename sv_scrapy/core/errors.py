"""One small hierarchy of the problems a run reports as one line; adapters turn each into
that line and its exit status (``EXIT_STATUSES``)."""

from __future__ import annotations

# every exit status a command or crawl ends with, and what it promises (the docs' reference
# reads this table; a status an error class uses must be in it: tests/test_docs.py)
EXIT_STATUSES: dict[int, str] = {
    0: ("Every promised output was written (findings are in the reports, not in the status; "
        "a change check: no failing finding, warnings allowed)."),
    1: "The run failed: an output could not be written, the crawl broke, or verify was stopped.",
    2: ("The user's mistake: an option, argument, config key, corpus location or `changed_since` "
        "revision, named in one line."),
    3: "The change checked by `-a changed_since` has failing findings (a changed claim's page lacks its figure).",
    75: "Another run holds the output folder's lock (EX_TEMPFAIL): try later.",
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
