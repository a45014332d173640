"""The core stays pure: no module under sv_scrapy/core imports Scrapy or Twisted, nor anything of
sv_scrapy outside sv_scrapy.core (config types the core needs live in core/policy.py)."""

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "sv_scrapy" / "core"


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
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
    assert stages == {"claims", "page", "audit", "report"}
