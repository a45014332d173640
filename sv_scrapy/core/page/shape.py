"""Where each line of a page's text stands in the page's structure (kept at text extraction).

``core.page.text.html_reading`` returns one ``LineShape`` per line of the text it extracts, so
that a figure's context can be read as the page structures it (``core.page.context``):

* a table row: its cells' column headers, its row header(s) and the table's caption;
* a ``<dd>``: the ``<dt>`` it answers;
* a heading (h1–h6): its level (the headings above a line are read off the lines before it);
* a list item, a footnote, a paragraph.

A text without shapes (a PDF, plain text, a page restored from the store) is read line by line:
the heading-like lines above stand in for the structure (``context.line_context``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


def shapes_to_json(shapes: Sequence[LineShape]) -> dict[str, Any]:
    """What the store keeps of a page's shapes, so that a 304 reads the page as its last 200
    did: each distinct shape once, and each line's index into them.

    >>> row = LineShape("row", ("Band", "Rate"), "Band 1", "Rates")
    >>> kept = shapes_to_json((PLAIN, row, row, LineShape("h2")))
    >>> kept["lines"]
    [0, 1, 1, 2]
    >>> shapes_from_json(kept) == (PLAIN, row, row, LineShape("h2"))
    True
    """
    distinct: dict[LineShape, int] = {}
    lines = [distinct.setdefault(shape, len(distinct)) for shape in shapes]
    return {"shapes": [[s.kind, list(s.columns), s.row_header, s.caption] for s in distinct], "lines": lines}


def shapes_from_json(data: Mapping[str, Any]) -> tuple[LineShape, ...]:
    table = [LineShape(kind, tuple(columns), row_header, caption) for kind, columns, row_header, caption in data["shapes"]]
    return tuple(table[i] for i in data["lines"])
