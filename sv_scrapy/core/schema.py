"""The config files' models share one base (pydantic v2) and one way of saying what is wrong.

A section of a config file is a frozen ``Section`` whose fields carry their type, bounds, default and
doc (``Field(description=...)``): the loader, the typed values and the docs' reference page all read
that one declaration. Each problem becomes one ``ConfigError`` naming the file and the dotted key, so a
maintainer sees ``config/_source-verify.json: fetch.max_body_bytes: expected an integer, got "600k"``
rather than a traceback. Keys starting with ``_`` are comments and are allowed anywhere (the corpus's
files document themselves that way). The core may depend on pydantic (a pure library, no Scrapy),
so the sections the core reads (``HostPolicy``, ``ArchiveSettings``) are models where they are used.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from sv_scrapy.core.errors import ConfigError

# strict: a JSON string is no integer, ``true`` no number; extra keys are refused (a typo is no default)
# (``x-section`` marks a section in the JSON schema: the docs list its keys one by one)
MODEL_CONFIG = ConfigDict(frozen=True, strict=True, extra="forbid", json_schema_extra={"x-section": True})
# a pydantic dataclass (positional, ``dataclasses.replace``) takes ``frozen`` from its decorator
DATACLASS_CONFIG = ConfigDict(strict=True, extra="forbid")


def drop_comments(value: Any) -> Any:
    """``value`` with every ``_comment`` key left out, at any depth.

    >>> drop_comments({"_why": "shared", "a": [{"b": 1, "_c": 2}]})
    {'a': [{'b': 1}]}
    """
    if isinstance(value, dict):
        return {k: drop_comments(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, list):
        return [drop_comments(v) for v in value]
    return value


class Section(BaseModel):
    """One object of a config file: its keys are the fields."""

    model_config = MODEL_CONFIG


_EXPECTED = {"int": "an integer", "float": "a number", "bool": "true or false", "string": "a string",
             "list": "a list", "tuple": "a list", "frozen_set": "a list", "set": "a list", "dict": "an object",
             "model": "an object", "dataclass": "an object", "model_attributes": "an object"}


def shown(value: Any) -> str:
    """A value as a message shows it, cut at 40 characters.

    >>> shown("600k"), shown(True), shown(list(range(30)))[-6:]
    ('"600k"', 'True', ' 11...')
    """
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


def where(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as the file's dotted key (``per_host_overrides.eur-lex.europa.eu.interval_ms``).

    >>> where(("extraction", "salient_value_types", 1))
    'extraction.salient_value_types[1]'
    """
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _fields(kind: Any) -> dict[str, Any] | None:
    """The fields of a model or pydantic dataclass, by key; None for anything else."""
    fields = getattr(kind, "__pydantic_fields__", None) if isinstance(kind, type) else None
    return {f.alias or n: f for n, f in fields.items()} if fields is not None else None


def _known(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """The keys the object at ``loc`` knows (for "unknown key" messages); "" when it is no model."""
    current: Any = model
    for part in loc:
        fields = _fields(current)
        if fields is not None:
            current = fields[part].annotation if part in fields else None
        else:  # a map's or a list's value type
            args = getattr(current, "__args__", ())
            current = args[-1] if args else None
    return ", ".join(sorted(_fields(current) or ()))


def message(error: ErrorDetails, model: type[BaseModel]) -> str:
    """What one pydantic error says, in the words the loader has always used."""
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx", {})
    if kind in ("missing", "missing_argument"):
        return "missing required key"
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        known = _known(model, tuple(error["loc"][:-1]))
        return f"unknown key (known here: {known})" if known else "unknown key"
    if kind == "greater_than_equal":
        return f"must be >= {float(ctx['ge']):g}, got {value}"
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx["expected"]))
        return f"must be one of {', '.join(choices)}; got {shown(value)}"
    if kind == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    base = kind.removesuffix("_type").removesuffix("_parsing").removesuffix("_from_float")
    if base in _EXPECTED:
        return f"expected {_EXPECTED[base]}, got {shown(value)}"
    return f"{error['msg']}, got {shown(value)}"  # pragma: no cover - a type the models do not use


M = TypeVar("M", bound=BaseModel)


def load(model: type[M], data: Any, origin: str, context: dict[str, Any] | None = None) -> M:
    """``data`` (a parsed JSON file) validated as ``model``; ``origin`` (the file) prefixes the one line.

    The comments dropped, it is validated as JSON (strict, yet an array may fill a tuple field); its first
    problem is the ``ConfigError``.
    """
    try:
        return model.model_validate_json(json.dumps(drop_comments(data)), context=context)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        raise ConfigError(f"{origin}: {where(tuple(error['loc']))}: {message(error, model)}") from None

