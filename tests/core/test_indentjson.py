"""``core.indentjson`` writes what ``json.dump(indent=2, ensure_ascii=False)`` writes, byte for byte
(every document the project writes goes through it: ``core.atomic.write_json``)."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict, namedtuple
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.indentjson import IndentedMembers, dumps, iterencode


def stock(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
keys = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
documents = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                         | st.dictionaries(keys, inner, max_size=4), max_leaves=30)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(documents)
def test_any_document_is_written_as_json_writes_it(value: Any) -> None:
    assert dumps(value) == stock(value)


class Colour(enum.IntEnum):
    RED = 1


class Name(str):
    def __str__(self) -> str:
        return "not this"


Pair = namedtuple("Pair", "a b")


@pytest.mark.parametrize("value", [
    {}, [], "", 0, -0.0, math.nan, math.inf, -math.inf, 1e16, 2**70, 1.5e-7,
    {"a": {}, "b": [], "c": [{}], "d": {"e": []}},
    {"\u2028 \x00 \"\\ é 😀": "\n\t\x1f\u2029"},
    {2: "int key", 2.5: "float key", True: "bool key", False: "bool key", None: "none key"},
    [Colour.RED, Name("x"), Pair(1, [2]), OrderedDict(z=1, a=2), (), ("t",)],
    {"items": [{"id": "a", "values": [{"needles": ["1.25", "1,25"]}]}, {"id": "b"}], "tail": 1},
])
def test_edge_values_are_written_as_json_writes_them(value: Any) -> None:
    assert dumps(value) == stock(value)


@pytest.mark.parametrize("value, message", [
    ({"a": object()}, "Object of type object is not JSON serializable"),
    ([{1, 2}], "Object of type set is not JSON serializable"),
    ({(1, 2): "x"}, "keys must be str, int, float, bool or None, not tuple"),
])
def test_what_json_refuses_is_refused_with_its_words(value: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        dumps(value)
    with pytest.raises(TypeError, match=message):
        stock(value)


class Streamed(list[dict[str, Any]]):
    """A list whose own storage stays empty, its elements made as it is iterated (as
    ``core.audit.spool.SpooledItems`` reads them from disk)."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count, self.made = count, 0

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(self.count):
            self.made += 1
            yield {"id": i, "text": "é" * i}


def test_a_document_is_yielded_an_item_at_a_time() -> None:
    items = Streamed(3)
    seen = [(piece, items.made) for piece in iterencode({"version": 1, "items": items})]
    whole = [(json.loads(piece), made) for piece, made in seen if piece.startswith("{\n      ")]
    # each item one piece of its own, made only when it is written
    assert whole == [({"id": i, "text": "é" * i}, i + 1) for i in range(3)]
    assert "".join(p for p, _ in seen) == stock({"version": 1, "items": list(Streamed(3))})


def test_write_json_writes_json_dumps_bytes(tmp_path: Path) -> None:
    doc = {"version": 1, "items": Streamed(2), "stats": {"claims": 2, "pct": 12.5}, "none": []}
    write_json(tmp_path / "doc.json", doc)
    wanted = stock({**doc, "items": list(Streamed(2))}) + "\n"
    assert (tmp_path / "doc.json").read_bytes() == wanted.encode("utf-8")


class Texts(IndentedMembers):
    """Members held as their indented text only: iterating them would fail the test."""

    def __init__(self, values: list[Any]) -> None:
        super().__init__()
        self.texts = [dumps(v) for v in values]

    def __len__(self) -> int:
        return len(self.texts)

    def __iter__(self) -> Iterator[Any]:
        raise AssertionError("decoded to be written")

    def indented_members(self) -> Iterator[str]:
        return iter(self.texts)


def test_members_held_as_text_are_written_at_their_depth() -> None:
    values = [{"id": "a", "lines": ["x\ny", {"deep": [1, {}]}]}, [], "é", {"k": {"l": ["m"]}}]
    doc = {"version": 1, "items": Texts(values), "tail": [Texts([{"x": 1}])]}
    assert "".join(iterencode(doc)) == stock({"version": 1, "items": values, "tail": [[{"x": 1}]]})
