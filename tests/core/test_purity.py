"""The core stays pure: no module under sv_scrapy/core imports Scrapy or Twisted."""

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "sv_scrapy" / "core"


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_module_imports_no_framework(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & {"scrapy", "twisted", "scrapy_playwright"}
