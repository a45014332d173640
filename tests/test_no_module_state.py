"""State lives with the run, not in module globals: no module of the package binds a mutable
container at module level that a function then changes — but ``run.state._RUNS``, the
crawler -> Run registry every component reaches the crawl's state through. Two crawls in one
process (the in-process tests, a script with ``CrawlerProcess``) then share nothing."""

from __future__ import annotations

import ast
from pathlib import Path

from testing import sources

PACKAGE = Path(__file__).resolve().parents[1] / "sv_scrapy"
ALLOWED = {("run/state.py", "_RUNS")}
CONTAINER_CALLS = {"dict", "set", "list", "WeakKeyDictionary", "WeakValueDictionary", "defaultdict", "OrderedDict",
                   "Counter", "deque"}
MUTATORS = {"setdefault", "pop", "popitem", "update", "add", "append", "extend", "insert", "remove", "discard",
            "clear"}


def is_container(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.Set | ast.List | ast.DictComp | ast.SetComp | ast.ListComp):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in CONTAINER_CALLS
    return False


def module_containers(tree: ast.Module) -> set[str]:
    """Names the module's top level binds to a mutable container."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and is_container(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and is_container(node.value):
            names.add(node.target.id)
    return names


def mutated_in_functions(tree: ast.Module) -> set[str]:
    """Names a function changes in place: ``x[k] = v``, ``del x[k]``, ``x[k] += v``, ``x.pop(...)`` and kin."""
    names: set[str] = set()
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            changed: list[ast.expr] = []  # the containers changed in place
            if isinstance(node, ast.Assign | ast.Delete):
                changed = [t.value for t in node.targets if isinstance(t, ast.Subscript)]
            elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Subscript):
                changed = [node.target.value]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                changed = [node.func.value]
            names.update(c.id for c in changed if isinstance(c, ast.Name))
    return names


def module_registries(path: Path) -> set[str]:
    tree = sources.tree(path)
    return module_containers(tree) & mutated_in_functions(tree)


def test_no_module_level_registry_but_the_runs() -> None:
    found = {(str(p.relative_to(PACKAGE)), name) for p in sorted(PACKAGE.rglob("*.py")) for name in module_registries(p)}
    assert found == ALLOWED, sorted(found - ALLOWED)


def test_the_check_sees_a_registry(tmp_path: Path) -> None:
    # each shape of change a function can make to a module-level container; a constant table is no registry
    source = tmp_path / "m.py"
    source.write_text(
        "from weakref import WeakKeyDictionary\n"
        "CACHE: dict[str, int] = {}\nHELD = WeakKeyDictionary()\nSEEN = set()\nGONE = {}\nTABLE = {'a': 1}\n"
        "def f(k):\n    CACHE[k] = 1\n    HELD.setdefault(k, 2)\n    SEEN.add(k)\n    del GONE[k]\n    return TABLE[k]\n",
        encoding="utf-8")
    assert module_registries(source) == {"CACHE", "HELD", "SEEN", "GONE"}
