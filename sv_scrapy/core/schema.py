"""A tiny declarative checker for the JSON config files.

Each problem becomes one ``ConfigError`` naming the file and the dotted key, so a
maintainer sees ``config/_source-verify.json: fetch.max_body_bytes: expected an integer,
got "600k"`` rather than a ``KeyError`` traceback. Keys starting with ``_`` are comments
and are allowed anywhere (the corpus's files document themselves that way).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.errors import ConfigError


class Spec:
    """Base class of the checkers; ``check`` raises ``ConfigError`` or returns None."""

    def check(self, value: Any, where: str, origin: str) -> None:  # pragma: no cover
        raise NotImplementedError


def _fail(origin: str, where: str, msg: str) -> ConfigError:
    return ConfigError(f"{origin}: {where}: {msg}")


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Num(Spec):
    """An int (``integer=True``) or any real number, optionally bounded below."""

    integer: bool = False
    minimum: float | None = None

    def check(self, value: Any, where: str, origin: str) -> None:
        ok = isinstance(value, int) if self.integer else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok:
            kind = "an integer" if self.integer else "a number"
            raise _fail(origin, where, f"expected {kind}, got {_shown(value)}")
        if self.minimum is not None and value < self.minimum:
            raise _fail(origin, where, f"must be >= {self.minimum:g}, got {value}")


INT = Num(integer=True, minimum=0)
POS_INT = Num(integer=True, minimum=1)
NUM = Num(minimum=0)


@dataclass(frozen=True)
class Bool(Spec):
    def check(self, value: Any, where: str, origin: str) -> None:
        if not isinstance(value, bool):
            raise _fail(origin, where, f"expected true or false, got {_shown(value)}")


@dataclass(frozen=True)
class Str(Spec):
    choices: tuple[str, ...] = ()

    def check(self, value: Any, where: str, origin: str) -> None:
        if not isinstance(value, str):
            raise _fail(origin, where, f"expected a string, got {_shown(value)}")
        if self.choices and value not in self.choices:
            raise _fail(origin, where, f"must be one of {', '.join(self.choices)}; got {_shown(value)}")


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec

    def check(self, value: Any, where: str, origin: str) -> None:
        if not isinstance(value, list):
            raise _fail(origin, where, f"expected a list, got {_shown(value)}")
        for i, element in enumerate(value):
            self.item.check(element, f"{where}[{i}]", origin)


@dataclass(frozen=True)
class MapOf(Spec):
    """An object with free-form keys (hosts, status names) whose values share one spec."""

    value: Spec

    def check(self, value: Any, where: str, origin: str) -> None:
        if not isinstance(value, dict):
            raise _fail(origin, where, f"expected an object, got {_shown(value)}")
        for key, element in value.items():
            if not key.startswith("_"):
                self.value.check(element, f"{where}.{key}", origin)


@dataclass(frozen=True)
class Obj(Spec):
    """An object with known keys: every ``required`` key present, nothing unknown."""

    required: dict[str, Spec]
    optional: dict[str, Spec] = field(default_factory=dict)

    def check(self, value: Any, where: str, origin: str) -> None:
        if not isinstance(value, dict):
            raise _fail(origin, where or "(top level)", f"expected an object, got {_shown(value)}")
        prefix = f"{where}." if where else ""
        for key in self.required:
            if key not in value:
                raise _fail(origin, prefix + key, "missing required key")
        for key, element in value.items():
            if key.startswith("_"):
                continue
            spec = self.required.get(key) or self.optional.get(key)
            if spec is None:
                known = ", ".join(sorted({*self.required, *self.optional}))
                raise _fail(origin, prefix + key, f"unknown key (known here: {known})")
            spec.check(element, prefix + key, origin)


def validate(data: Any, spec: Spec, origin: str) -> None:
    """Check ``data`` against ``spec``; ``origin`` (the file) prefixes every message."""
    spec.check(data, "", origin)
