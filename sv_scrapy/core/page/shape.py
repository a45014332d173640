"""Where each line of a page's text stands in the page's structure (kept at text extraction).

``core.page.text.html_reading`` returns one ``LineShape`` per line of the text it extracts, so
that a figure's context can be read as the page structures it (``core.page.context``):

* a table row: its cells' column headers, its row header(s) and the table's caption;
* a ``<dd>``: the ``<dt>`` it answers;
* a heading (h1–h6): its level (the headings above a line are read off the lines before it);
* a list item, a footnote, a paragraph.

A text without shapes (a PDF, plain text) is read line by line:
the heading-like lines above stand in for the structure (``context.line_context``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sv_scrapy.core.digest import sha256_hex

CELL_JOIN = " | "  # how core.page.text joins a row's cells on its line


@dataclass(frozen=True)
class LineShape:
    kind: str = "p"  # p | h1..h6 | row | head (a header row) | dt | dd | li | caption | note
    columns: tuple[str, ...] = ()  # a row: the column header of each cell, in order
    row_header: str = ""  # a row: its header cell(s); a dd: its dt
    caption: str = ""  # a row: the table's caption

    @property
    def heading_level(self) -> int:
        """1–6 for a heading, 0 otherwise."""
        return int(self.kind[1]) if len(self.kind) == 2 and self.kind[0] == "h" and self.kind[1].isdigit() else 0


PLAIN = LineShape()


def shapes_to_json(shapes: Sequence[LineShape], text: str) -> str:
    """What the store keeps of a page's shapes, so that a 304 reads the page as its last full read
    did: one compact JSON text holding each table's caption and columns once, each distinct
    (kind, table, row header) once, each line's index into those, and the hash of the ``text``
    the shapes belong to (they are restored with that text only).

    >>> row = LineShape("row", ("Band", "Rate"), "Band 1", "Rates")
    >>> shapes = (PLAIN, row, LineShape("row", ("Band", "Rate"), "Band 2", "Rates"), LineShape("h2"))
    >>> kept = shapes_to_json(shapes, "text")
    >>> json.loads(kept)["tables"], json.loads(kept)["lines"]
    ([['Rates', ['Band', 'Rate']]], [0, 1, 2, 3])
    >>> shapes_from_json(kept, "text") == shapes, shapes_from_json(kept, "another text")
    (True, None)
    """
    tables: dict[tuple[str, tuple[str, ...]], int] = {}
    distinct: dict[tuple[str, int, str], int] = {}
    lines = []
    for shape in shapes:
        table = tables.setdefault((shape.caption, shape.columns), len(tables)) if shape.caption or shape.columns else -1
        lines.append(distinct.setdefault((shape.kind, table, shape.row_header), len(distinct)))
    return json.dumps({"text": sha256_hex(text), "tables": [[caption, list(columns)] for caption, columns in tables],
                       "shapes": [list(key) for key in distinct], "lines": lines},
                      ensure_ascii=False, separators=(",", ":"))


def kept_with(kept: str, text: str) -> bool:
    """Whether ``kept`` (``shapes_to_json``) belongs to ``text``, without decoding it: the hash
    is written first.

    >>> kept = shapes_to_json((PLAIN,), "text")
    >>> kept_with(kept, "text"), kept_with(kept, "other"), kept_with("{damaged", "text")
    (True, False, False)
    """
    return kept.startswith(f'{{"text":"{sha256_hex(text)}"')


def shapes_from_json(kept: str, text: str) -> tuple[LineShape, ...] | None:
    """The shapes kept with ``text``; None when they were kept with another text or do not read
    (then the page is read in full again rather than judged without its structure).

    >>> shapes_from_json("{", "text"), shapes_from_json('{"text": 1}', "text")
    (None, None)
    """
    try:
        data = json.loads(kept)
        if data["text"] != sha256_hex(text):
            return None
        tables = [(str(caption), tuple(str(c) for c in columns)) for caption, columns in data["tables"]]
        table = []
        for kind, t, row_header in data["shapes"]:
            caption, columns = tables[t] if t >= 0 else ("", ())  # -1: the line is in no table
            table.append(LineShape(str(kind), columns, str(row_header), caption))
        return tuple(table[i] for i in data["lines"])
    except (ValueError, KeyError, TypeError, IndexError):
        return None
