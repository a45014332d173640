"""One registry of knobs (sv_scrapy/run/registry.py): no environment variable is read outside it, and every
setting the package reads is declared in it (the config files' keys are their models', see
tests/test_config_declared_once.py)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from sv_scrapy.core.errors import ConfigError
from sv_scrapy.run import registry
from sv_scrapy.run.config import load_config
from testing import sources

PACKAGE = Path(__file__).resolve().parents[1] / "sv_scrapy"
# the two modules that may touch os.environ: the registry, and the pure core's reader below it
READERS = {"run/registry.py", "core/environment.py"}
SETTING_READ = re.compile(r"""settings(?:\.get\w*\(|\[)\s*["']([A-Z][A-Z0-9_]+)["']""")


def environ_uses(path: Path) -> list[int]:
    """Lines that name ``os.environ``, ``os.getenv`` or ``environ`` imported from os."""
    names = ("environ", "getenv", "environb", "putenv")
    return [node.lineno for node in sources.nodes(path)
            if (isinstance(node, ast.Attribute) and node.attr in names)
            or (isinstance(node, ast.ImportFrom) and node.module == "os" and any(a.name in names for a in node.names))]


def env_names_read(path: Path) -> set[str]:
    """The names passed to ``env("…")`` / ``read("…")`` (the registry's and the core's readers)."""
    names = set()
    for node in sources.nodes(path):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and \
                isinstance(node.args[0].value, str):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func in ("env", "read") and re.fullmatch(r"[A-Z][A-Z0-9_]*|[a-z]+_proxy", node.args[0].value):
                names.add(node.args[0].value)
    return names


def test_no_environment_variable_is_read_outside_the_registry() -> None:
    found = {str(p.relative_to(PACKAGE)): environ_uses(p) for p in sorted(PACKAGE.rglob("*.py"))}
    outside = {name: lines for name, lines in found.items() if lines and name not in READERS}
    assert outside == {}


def test_every_variable_read_is_declared() -> None:
    declared = {e.name for e in registry.ENTRIES if e.source in (registry.ENV, registry.SETTING_ENV)}
    read = set().union(*(env_names_read(p) for p in PACKAGE.rglob("*.py")))
    assert read - declared == set()
    assert {"SV_NOW", "SV_LLM_POLL_SECONDS", "ANTHROPIC_API_KEY"} <= read  # the scan sees the readers


def test_an_undeclared_variable_is_refused() -> None:
    with pytest.raises(KeyError, match="SV_NOT_DECLARED: not a registered environment variable"):
        registry.env("SV_NOT_DECLARED")


def test_every_setting_the_package_reads_is_declared() -> None:
    declared = {e.name for e in registry.ENTRIES if e.source in (registry.SETTING, registry.SETTING_ENV)}
    read = {m for p in PACKAGE.rglob("*.py") for m in SETTING_READ.findall(p.read_text(encoding="utf-8"))}
    assert "SV_REQ_PER_SEC" in read and "LOG_FILE" in read
    assert read - declared == set()


def test_every_entry_has_a_source_a_type_and_a_doc() -> None:
    for e in registry.ENTRIES:
        assert e.source in registry.SOURCES and e.kind and e.doc.strip(), e
    names = [(e.source, e.name) for e in registry.ENTRIES]
    assert len(names) == len(set(names))


def test_the_shipped_config_uses_only_declared_keys(tmp_path: Path) -> None:
    """The checkers are the models': a key they do not declare is refused, one line naming it."""
    config = Path(__file__).resolve().parents[1] / "config"
    for name in ("_source-verify.json", "_url-liveness.json", "primary-source-allowlist.txt"):
        (tmp_path / name).write_bytes((config / name).read_bytes())
    load_config(tmp_path)
    doc = json.loads((tmp_path / "_source-verify.json").read_text(encoding="utf-8"))
    del doc["fetch"]["content_cache_ttl_days"]  # ignored: its absence is fine
    doc["fetch"]["cache_days"] = 3
    (tmp_path / "_source-verify.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"fetch\.cache_days: unknown key"):
        load_config(tmp_path)
