"""``<SV_OUTPUT_DIR>/part.json``: what a finished part (``-a part=I/N``) hands ``scrapy merge`` —
the crawl's side of the finish's inputs (``core.report.finish.AuditInputs``) as they were before
the part's own finish touched them, and the whole corpus's claim ids and hosts in corpus order
(so the merge orders the union and names the hosts of a part that never finished).

Written first at the part's finish; the part's journal (``store/run.json``) is closed last, so
a ``part.json`` whose run id is the journal's finished run is a complete part."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

PART_FILE = "part.json"
VERSION = 1


def part_document(*, part: str, inputs: Mapping[str, Any], corpus_index: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The part's file: ``inputs`` are the finish's crawl-side inputs, copied (the finish enriches
    the records in place)."""
    return {"version": VERSION, "part": part, "corpus": [list(pair) for pair in corpus_index],
            **copy.deepcopy(dict(inputs))}
