"""Claim records frozen once ``RecordsPipeline`` hands them on, for the tests that hold the rule
(``sv_scrapy.items``: what a later stage finds goes into a field of its own, never into the record).

``frozen_records()`` wraps the pipeline for the crawls run in this process inside it: each record it
hands on, and every list and dict in it, refuses a write and notes where the write came from. The
test asserts that nothing was noted (a refused write inside a pipeline is only logged by Scrapy)."""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, NoReturn
from unittest.mock import patch

from sv_scrapy.items import page_of
from sv_scrapy.pipelines.records import RecordsPipeline


class _Frozen:
    """What a frozen dict or list does with a write: notes who tried it, then refuses it."""

    writes: list[str]

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        caller = traceback.extract_stack()[-2]
        self.writes.append(f"{caller.filename}:{caller.lineno} ({caller.name}): {type(self).__name__}")
        raise TypeError("a claim record is final once RecordsPipeline hands it on")


class FrozenDict(_Frozen, dict[str, Any]):
    __setitem__ = __delitem__ = __ior__ = update = pop = popitem = setdefault = clear = _Frozen._refuse


class FrozenList(_Frozen, list[Any]):
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _Frozen._refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _Frozen._refuse


def freeze(value: Any, writes: list[str]) -> Any:
    """``value`` with every dict and list in it frozen (a write noted in ``writes``)."""
    frozen: _Frozen
    if isinstance(value, dict):
        frozen = FrozenDict({key: freeze(v, writes) for key, v in value.items()})
    elif isinstance(value, list):
        frozen = FrozenList(freeze(v, writes) for v in value)
    else:
        return value
    frozen.writes = writes
    return frozen


@contextmanager
def frozen_records() -> Iterator[list[str]]:
    """Within it, ``RecordsPipeline`` hands on frozen records; yields the writes tried on them."""
    judge = RecordsPipeline.process_item
    writes: list[str] = []

    def process_item(self: RecordsPipeline, item: Any) -> Any:
        judged = judge(self, item)
        page = page_of(item)
        if page.outcome is not None:
            page.outcome = replace(page.outcome, records=[freeze(r, writes) for r in page.outcome.records])
        return judged

    with patch.object(RecordsPipeline, "process_item", process_item):
        yield writes
