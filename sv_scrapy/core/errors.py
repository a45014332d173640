"""One small hierarchy for the user's mistakes; adapters turn them into one line + exit 2."""

from __future__ import annotations


class SvError(Exception):
    """Base class: a problem the user can fix, reported as one line without a traceback."""


class ConfigError(SvError):
    """A config file is missing, unreadable, or has a missing, unknown or mistyped key."""


class CorpusError(SvError):
    """The corpus root or a scope directory cannot be used."""


class ArgumentError(SvError):
    """A command option or spider argument has a bad value."""
