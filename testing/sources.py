"""Python files parsed once a process: the house tests (the rooms' layering, one owner per rule, the
registry, module state, the core's purity, Scrapy's private names, …) each read every file of the
package, and a worker that runs several of them parses and walks each file once."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def tree(path: Path) -> ast.Module:
    """``path``'s syntax tree, shared by every caller: read it, never change it."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s tree in ``ast.walk``'s order (the walk is most of a scan's time)."""
    return tuple(ast.walk(tree(path)))
