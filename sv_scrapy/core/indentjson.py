"""Indented JSON text, byte for byte what ``json.dump(value, fh, indent=2, ensure_ascii=False)``
writes, in a third of its time (issue #42).

With ``indent`` set, the standard library encodes in Python: a generator per container, a
``write`` per token — 30 million of them for a 100,000-claim ``audit.json``, the largest cost of
a merge. Here a container is one ``str.join`` of its members, scalars are encoded by the same C
string encoder, and a document is yielded in pieces only down to ``STREAMED`` levels, so a list
kept on disk (``core.audit.spool.SpooledItems``) is written one element at a time, never held
whole. A list that holds its members already indented (``IndentedMembers``) is copied, not
encoded again.

The same output for every value ``json.dump`` accepts with its defaults, the same ``TypeError``
for one it refuses; a value that contains itself raises ``RecursionError`` where ``json`` names
the cycle (no document the project writes is one)."""

from __future__ import annotations

from collections.abc import Iterator
from json.encoder import encode_basestring  # the C encoder where there is one, as json's own
from typing import Any

PAD = "  "  # one level of indent=2
STREAMED = 2  # levels yielded member by member: audit.json's document, then its items list
_INFINITY = float("inf")


class IndentedMembers(list[Any]):
    """A list that holds its members as their indented text (each ``dumps``'d at the top level):
    ``iterencode`` writes that text, moved to its depth, rather than encoding each member again
    (``core.audit.spool.SpooledItems``: records spooled as text, never decoded to be written).
    Moving is replacing each newline: ``json`` escapes a newline inside a string, so every raw one
    starts a line of the layout. Its iteration still yields the members themselves."""

    def indented_members(self) -> Iterator[str]:
        raise NotImplementedError


def _float(value: float) -> str:
    """As ``json`` writes a float (``allow_nan``: the JavaScript names)."""
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _key(key: Any) -> str:
    """A member's name, as ``json`` turns a key that is no string into one."""
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if key is True or key is False or key is None:
        return encode_basestring({True: "true", False: "false", None: "null"}[key])
    if isinstance(key, int):
        return encode_basestring(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _other(value: Any, newline: str) -> str:
    """A value of no plain JSON type (a subclass, a tuple), in ``json``'s order of checks."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, IndentedMembers):
        return _moved(value, newline)
    if isinstance(value, (list, tuple)):
        return _list(value, newline)
    if isinstance(value, dict):
        return _dict(value, newline)
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def _list(value: Any, newline: str) -> str:
    if not value:
        return "[]"
    inner = newline + PAD
    return "[" + inner + ("," + inner).join([_encoded(v, inner) for v in value]) + newline + "]"


def _moved(value: IndentedMembers, newline: str) -> str:
    if not value:
        return "[]"
    inner = newline + PAD
    return "[" + inner + ("," + inner).join([t.replace("\n", inner) for t in value.indented_members()]) + newline + "]"


def _dict(value: dict[Any, Any], newline: str) -> str:
    if not value:
        return "{}"
    inner = newline + PAD
    return "{" + inner + ("," + inner).join([
        (encode_basestring(k) if type(k) is str else _key(k)) + ": " + _encoded(v, inner)
        for k, v in value.items()]) + newline + "}"


def _encoded(value: Any, newline: str) -> str:
    """``value`` as it stands after ``newline`` (a newline and its indent): the plain types first,
    by exact type (a claim record is mostly strings and small dicts)."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is dict:
        return _dict(value, newline)
    if kind is list:
        return _list(value, newline)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return _float(value)
    return _other(value, newline)


def iterencode(value: Any, newline: str = "\n", levels: int = STREAMED) -> Iterator[str]:
    """The indented text of ``value`` in pieces: each member of the top ``levels`` containers
    encoded whole, the brackets and separators around them apart."""
    if levels <= 0 or not value or not isinstance(value, (list, tuple, dict)):
        yield _encoded(value, newline)
        return
    inner = newline + PAD
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    separator = opening + inner
    if isinstance(value, dict):
        for k, v in value.items():
            yield separator + (encode_basestring(k) if type(k) is str else _key(k)) + ": "
            yield from iterencode(v, inner, levels - 1)
            separator = "," + inner
    elif isinstance(value, IndentedMembers):  # as _moved, a member at a time
        for text in value.indented_members():
            yield separator + text.replace("\n", inner)
            separator = "," + inner
    else:
        for v in value:
            yield separator
            yield from iterencode(v, inner, levels - 1)
            separator = "," + inner
    yield newline + closing


def dumps(value: Any) -> str:
    """The whole text at once, as ``json.dumps(value, indent=2, ensure_ascii=False)``.

    >>> print(dumps({"a": [1, 2.5, None], "b": {}, 3: "é"}))
    {
      "a": [
        1,
        2.5,
        null
      ],
      "b": {},
      "3": "é"
    }
    """
    return _encoded(value, "\n")  # in one join, no generator a level: each spooled record is encoded here
