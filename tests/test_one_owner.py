"""One owner per rule: a page's fetch_status is decided in core/page/pagerecord.py and nowhere else
(no other module of the package assigns it: no ``x.fetch_status =``, ``x["fetch_status"] =``,
``fetch_status=`` keyword or ``.update(fetch_status=…)``; the journal copying a decided
``outcome.fetch_status`` into the store entry decides nothing)."""

from __future__ import annotations

import ast
from pathlib import Path

from testing import sources

PACKAGE = Path(__file__).resolve().parents[1] / "sv_scrapy"
OWNER = PACKAGE / "core" / "page" / "pagerecord.py"


def copies_status(value: ast.expr) -> bool:
    return isinstance(value, ast.Attribute) and value.attr == "fetch_status"


def assigns_fetch_status(path: Path) -> list[int]:
    lines = []
    for node in sources.nodes(path):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        for target in targets:
            for part in ast.walk(target):
                if (isinstance(part, ast.Attribute) and part.attr == "fetch_status") or (
                        isinstance(part, ast.Subscript) and isinstance(part.slice, ast.Constant)
                        and part.slice.value == "fetch_status"):
                    lines.append(node.lineno)
        # a keyword that copies a decided status (``fetch_status=outcome.fetch_status``: the journal
        # keeping what pagerecord decided) is no decision; any other value is
        if isinstance(node, ast.Call) and any(k.arg == "fetch_status" and not copies_status(k.value)
                                              for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_fetch_status_is_assigned_in_one_module() -> None:
    found = {str(p.relative_to(PACKAGE)): assigns_fetch_status(p) for p in sorted(PACKAGE.rglob("*.py"))}
    assigners = {name: lines for name, lines in found.items() if lines}
    assert list(assigners) == [str(OWNER.relative_to(PACKAGE))], assigners


def calls_of(path: Path, names: set[str]) -> list[int]:
    """Lines that call one of ``names`` (a bare name or an attribute)."""
    lines = []
    for node in sources.nodes(path):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in names:
                lines.append(node.lineno)
    return lines


def test_one_road_to_the_config() -> None:
    # a run loads the typed Config once, through runtime.config_of (its components take the run's,
    # run.state.config_of; the pull-request check's base rules through runtime.config_in); nothing
    # else reads the config files
    readers = {str(p.relative_to(PACKAGE)): calls_of(p, {"load_config", "load_cached"})
               for p in sorted(PACKAGE.rglob("*.py"))}
    assert {name: lines for name, lines in readers.items() if lines}.keys() == {"run/runtime.py"}, readers
