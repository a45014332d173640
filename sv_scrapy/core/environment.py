"""The process environment, read here only: ``sv_scrapy.run.registry.env`` checks a variable is
declared before it asks, and the core's few readers name declared ones (tests/test_registry.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping


def read(name: str) -> str:
    """A variable's value, ``""`` when unset."""
    return os.environ.get(name, "")


def child_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """The whole environment handed on to a child process, with ``extra`` over it."""
    return {**os.environ, **extra}
