"""The package's rooms and the direction of its imports.

The top level holds only what Scrapy looks up by name; every other module lives in a room, and a
room imports only rooms below it, so no import points up and no two rooms need each other. A new
top-level module or a new room is a decision about the layout: make it here, with a reason."""

from __future__ import annotations

import ast
from pathlib import Path

from testing import sources

PACKAGE = Path(__file__).resolve().parents[1] / "sv_scrapy"

# what Scrapy (or Python) looks up by name, or names its own modules by: the settings module, ADDONS,
# the items, the signals, the exceptions, SCHEDULER_PRIORITY_QUEUE's module, TWISTED_DNS_RESOLVER's
TOP_LEVEL_MODULES = {"__init__", "settings", "addon", "items", "signals", "exceptions", "pqueues", "resolver"}
# lowest first; a room imports only rooms of a lower layer
LAYERS: list[set[str]] = [
    {"core"},
    {"run"},
    {"__init__", "exceptions", "signals", "items", "resolver", "pqueues"},
    {"llm", "ops"},
    {"downloadhandlers"},
    {"extensions"},
    {"downloadermiddlewares"},
    {"pipelines"},  # discovery asks the robots middleware for the rules it already holds
    {"spiders"},
    {"commands", "addon", "settings"},
]
LAYER_OF = {room: depth for depth, rooms in enumerate(LAYERS) for room in rooms}


def room_of(module: str) -> str:
    """``sv_scrapy.run.config`` -> ``run``; ``sv_scrapy`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported(tree: ast.Module) -> set[str]:
    """The sv_scrapy modules a file imports, TYPE_CHECKING blocks included (an annotation's import
    still says which way the rooms lean)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "sv_scrapy":
            if node.module == "sv_scrapy":
                found.update(f"sv_scrapy.{alias.name}" for alias in node.names)
            else:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "sv_scrapy")
    return found


def room_imports() -> dict[tuple[str, str], list[str]]:
    """(importing room, imported room) -> the files that make that edge."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        source = room_of(".".join(parts))
        for module in imported(sources.tree(path)):
            target = room_of(module)
            if target == "__version__":
                target = "__init__"
            if target != source:
                edges.setdefault((source, target), []).append(str(path.relative_to(PACKAGE)))
    return edges


def test_the_top_level_holds_only_what_scrapy_looks_up() -> None:
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    assert modules == TOP_LEVEL_MODULES, "a new top-level module belongs in a room (docs/development/layout.md)"
    assert len(modules) <= 8


def test_every_room_has_a_layer() -> None:
    rooms = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert rooms | TOP_LEVEL_MODULES == set(LAYER_OF), "a new room needs a layer here"


def test_no_room_imports_upward_or_sideways() -> None:
    wrong = {
        f"{source} -> {target}": files
        for (source, target), files in room_imports().items()
        if LAYER_OF[target] >= LAYER_OF[source]
    }
    assert not wrong, wrong


def test_the_layer_check_sees_an_upward_import() -> None:
    """The check itself: a core module that imported a pipeline would be caught."""
    tree = ast.parse("from sv_scrapy.pipelines.read import ReadPipeline\n")
    target = room_of(next(iter(imported(tree))))
    assert LAYER_OF[target] > LAYER_OF["core"]
