"""One owner per rule: a page's fetch_status is decided in core/page/pagerecord.py and nowhere else
(no other module of the package assigns it: no ``x.fetch_status =``, ``x["fetch_status"] =``,
``fetch_status=`` keyword or ``.update(fetch_status=…)``)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sv_scrapy"
OWNER = PACKAGE / "core" / "page" / "pagerecord.py"


def assigns_fetch_status(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        for target in targets:
            for part in ast.walk(target):
                if (isinstance(part, ast.Attribute) and part.attr == "fetch_status") or (
                        isinstance(part, ast.Subscript) and isinstance(part.slice, ast.Constant)
                        and part.slice.value == "fetch_status"):
                    lines.append(node.lineno)
        if isinstance(node, ast.Call) and any(k.arg == "fetch_status" for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_fetch_status_is_assigned_in_one_module() -> None:
    found = {str(p.relative_to(PACKAGE)): assigns_fetch_status(p) for p in sorted(PACKAGE.rglob("*.py"))}
    assigners = {name: lines for name, lines in found.items() if lines}
    assert list(assigners) == [str(OWNER.relative_to(PACKAGE))], assigners
