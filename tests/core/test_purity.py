"""The core stays pure: no module under sv_scrapy/core imports Scrapy or Twisted, nor anything of
sv_scrapy outside sv_scrapy.core (config types the core needs live in core/policy.py)."""

import ast
from pathlib import Path

import pytest

from testing import sources

CORE = Path(__file__).resolve().parents[2] / "sv_scrapy" / "core"


def imports_of(path: Path) -> set[str]:
    imported = set()
    for node in sources.nodes(path):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module)
    return imported


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_core_module_imports_no_framework(path: Path) -> None:
    imported = imports_of(path)
    assert not {name.split(".")[0] for name in imported} & {"scrapy", "twisted", "scrapy_playwright"}
    outside = sorted(n for n in imported if n.split(".")[0] == "sv_scrapy" and not n.startswith("sv_scrapy.core"))
    assert outside == []


def test_core_is_grouped_by_stage() -> None:
    stages = {p.name for p in CORE.iterdir() if (p / "__init__.py").is_file()}
    assert stages == {"figures", "claims", "page", "audit", "report"}


# the layers, lowest first: a module may import its own layer and those below, never above.
# The top-level helpers are shared plumbing (no figures); hosts needs CLDR's territories, and the
# pacer (politeness) a host's floor.
LAYERS = ["plumbing", "figures", "hosts", "politeness", "claims", "page", "audit", "report"]


def layer_of(module: str) -> str:
    """``sv_scrapy.core.page.text`` -> ``page``; a top-level module is plumbing, but hosts and politeness."""
    parts = module.split(".")[2:]
    if len(parts) > 1 or (parts and parts[0] in LAYERS):
        return parts[0]
    return "plumbing"


def upward_arrows() -> list[str]:
    arrows = []
    for path in sorted(CORE.rglob("*.py")):
        module = ".".join(("sv_scrapy", "core", *path.relative_to(CORE).with_suffix("").parts))
        for imported in imports_of(path):
            if imported.startswith("sv_scrapy.core.") and \
                    LAYERS.index(layer_of(imported)) > LAYERS.index(layer_of(module)):
                arrows.append(f"{module} -> {imported}")
    return arrows


def test_no_core_layer_imports_a_layer_above_it() -> None:
    # the page layer knows nothing of the store (the audit hands it plain values: Previous);
    # the figure grammar sits below both the claims and the page
    assert upward_arrows() == []


def test_the_layering_check_sees_an_upward_arrow() -> None:
    assert layer_of("sv_scrapy.core.page.pagerecord") == "page" and layer_of("sv_scrapy.core.hosts") == "hosts"
    assert layer_of("sv_scrapy.core.errors") == "plumbing" and layer_of("sv_scrapy.core.figures.cldr") == "figures"
    assert LAYERS.index(layer_of("sv_scrapy.core.audit.store")) > LAYERS.index(layer_of("sv_scrapy.core.page.text"))


def import_cycles() -> list[list[str]]:
    """Cycles in the import graph of the core's modules (a module importing itself through others)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(CORE.rglob("*.py")):
        module = ".".join(("sv_scrapy", "core", *path.relative_to(CORE).with_suffix("").parts)).removesuffix(".__init__")
        graph[module] = {m for m in imports_of(path) if m.startswith("sv_scrapy.core.")}
    cycles, done, stack = [], set(), []

    def visit(node: str) -> None:
        if node in stack:
            cycles.append(stack[stack.index(node):] + [node])
            return
        if node in done:
            return
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        stack.pop()
        done.add(node)

    for module in sorted(graph):
        visit(module)
    return cycles


def test_the_core_has_no_import_cycle() -> None:
    assert import_cycles() == []
