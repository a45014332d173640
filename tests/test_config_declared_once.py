"""Each config key is declared once: a field of its section's model (type, bounds, default, doc).

Not a registry entry as well, not a dataclass beside the model, not a loader line that copies it by
hand (``max_body_bytes=f["max_body_bytes"]``). The ``discover`` section (issue #38) is declared here
as one small model and reads with its defaults.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from pydantic import BaseModel
from typing_extensions import is_typeddict  # the models' typed dicts are typing_extensions' (pydantic on 3.11)

from sv_scrapy.core.errors import ConfigError
from sv_scrapy.core.schema import Section
from sv_scrapy.run import registry
from sv_scrapy.run.config import MODELS, SourceVerify, load_config
from testing import sources

from .conftest import PROJECT_DIR
from .test_config import edit

PACKAGE = PROJECT_DIR / "sv_scrapy"
# the modules that declare and load the config files' models
LOADERS = [PACKAGE / "run" / "config.py", PACKAGE / "run" / "llmconfig.py", PACKAGE / "core" / "schema.py"]
# the core's own views built from several sections (their fields are the core's, named where it reads
# them): the pacer's politeness policy and the primary-source rule. Nothing else may copy a key.
CORE_VIEWS = {"Liveness", "HostRules"}


def _types_in(annotation: Any) -> list[Any]:
    """The classes an annotation names (``dict[str, HostPolicy]`` -> str, HostPolicy)."""
    if get_origin(annotation) is None and not get_args(annotation):
        return [annotation]
    return [t for arg in get_args(annotation) for t in _types_in(arg)]


def declared(model: Any, prefix: str = "") -> dict[str, Any]:
    """Every dotted key the models declare, with the class declaring it."""
    fields = getattr(model, "__pydantic_fields__", None)
    names: dict[str, Any] = {}
    if fields is not None:
        items = {(f.alias or n): f.annotation for n, f in fields.items()}
    elif is_typeddict(model):
        items = get_type_hints(model, include_extras=True)
    else:
        return names
    for key, annotation in items.items():
        names[prefix + key] = model
        for inner in _types_in(annotation):
            if isinstance(inner, type) and (hasattr(inner, "__pydantic_fields__") or is_typeddict(inner)):
                names.update(declared(inner, f"{prefix}{key}."))
    return names


KEYS = {path for model in MODELS.values() for path in declared(model)}


def section_leaves() -> set[str]:
    """The key names of the ``Section`` models that no typed dict also uses (those are read by name)."""
    by_owner = [(path.rsplit(".", 1)[-1], owner) for model in MODELS.values() for path, owner in declared(model).items()]
    typed_dict_keys = {name for name, owner in by_owner if is_typeddict(owner)}
    return {name for name, owner in by_owner if isinstance(owner, type) and issubclass(owner, Section)} - typed_dict_keys


def _models(cls: type = Section) -> set[str]:
    return {cls.__name__}.union(*(_models(sub) for sub in cls.__subclasses__()))


def _section_bodies(tree: ast.Module) -> set[ast.AST]:
    """The nodes inside the models' own classes (their validators read raw input by design)."""
    inside: set[ast.AST] = set()
    models = _models()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in models:
            inside.update(ast.walk(node))
    return inside


def _named(node: ast.AST) -> str:
    """The key an expression ends with: ``f["max_body_bytes"]``, ``g.concurrency``, ``raw.get("enabled")``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant):
        return str(node.args[0].value)
    return ""


def hand_copies(path: Path) -> list[str]:
    """Lines of ``path`` that copy a config key by hand: ``key=<something>.key`` / ``key=x["key"]`` in a
    call (outside the core's views), or a key read by string from parsed JSON outside the models."""
    leaves, inside, found = section_leaves(), _section_bodies(sources.tree(path)), []
    for node in sources.nodes(path):
        if isinstance(node, ast.Call):
            callee = getattr(node.func, "id", getattr(node.func, "attr", ""))
            for kw in node.keywords:
                if kw.arg and kw.arg == _named(kw.value) and callee not in CORE_VIEWS:
                    found.append(f"{path.name}:{node.lineno}: {kw.arg}= copied into {callee}")
        if isinstance(node, (ast.Subscript, ast.Call)) and node not in inside and _named(node) in leaves:
            found.append(f"{path.name}:{node.lineno}: {_named(node)!r} read by hand")
    return found


def test_the_scan_sees_what_it_guards() -> None:
    assert {"fetch.max_body_bytes", "global.concurrency", "llm.prices_usd_per_mtok.long_context.threshold_tokens",
            "per_host_overrides.interval_ms", "discover.search"} <= KEYS
    assert {"max_body_bytes", "concurrency", "enabled"} <= section_leaves()
    assert "input" not in section_leaves()  # a price line is a typed dict's key, read by name by the cost code


def test_the_registry_declares_no_config_key() -> None:
    assert not set(registry.SOURCES) & set(MODELS)
    names = {e.name for e in registry.ENTRIES}
    assert names & KEYS == set()


def test_no_loader_line_copies_a_key_by_hand() -> None:
    assert [line for path in LOADERS for line in hand_copies(path)] == []


def test_a_hand_copy_is_seen(tmp_path: Path) -> None:
    planted = tmp_path / "config.py"
    planted.write_text("def load(f, sv):\n    return Fetch(max_body_bytes=f['max_body_bytes'], x=sv.fetch)\n"
                       "def enabled(raw):\n    return raw.get('enabled', True)\n", encoding="utf-8")
    assert len(hand_copies(planted)) == 3


def test_the_loaders_declare_no_class_beside_the_models() -> None:
    """A dataclass mirroring a section would declare its keys a second time."""
    for path in LOADERS:
        for node in sources.nodes(path):
            if isinstance(node, ast.ClassDef):
                assert any(getattr(b, "id", "") in ("Section", "BaseModel", "TypedDict", "SourceVerify")
                           for b in node.bases), f"{path.name}: class {node.name}"


def _walk_models(model: type[BaseModel]) -> list[tuple[str, Any]]:
    out = []
    for name, field in model.model_fields.items():
        for inner in _types_in(field.annotation):
            if isinstance(inner, type) and issubclass(inner, Section):
                out.extend(_walk_models(inner))
                break
        else:
            out.append((f"{model.__name__}.{name}", field))
    return out


def test_every_key_has_its_doc_in_its_field() -> None:
    fields = [pair for model in MODELS.values() for pair in _walk_models(model)]
    assert len(fields) > 70
    assert [name for name, field in fields if not (field.description or "").strip()] == []


def test_ignored_keys_are_optional_and_say_so() -> None:
    ignored = [(n, f) for model in MODELS.values() for n, f in _walk_models(model)
               if (f.description or "").startswith("Ignored")]
    assert {n for n, _ in ignored} >= {"Fetch.content_cache_ttl_days", "Global.threshold_pct"}
    assert all(not f.is_required() for _, f in ignored)


def with_discover(tmp_path: Path, discover: Any) -> Path:
    folder = tmp_path / "config"
    shutil.copytree(PROJECT_DIR / "config", folder)
    if discover is not None:
        edit(folder, "_source-verify.json", lambda d: d.update(discover=discover))
    return folder


def test_discover_is_optional_with_its_defaults(tmp_path: Path) -> None:
    d = load_config(with_discover(tmp_path / "absent", None)).discover
    assert (d.enabled, d.max_candidates, d.max_requests_per_host, d.search) == (True, 5, 60, {})
    search = {"www.example.gov": "https://www.example.gov/search?q={q}", "_comment": "one per host"}
    d = load_config(with_discover(tmp_path, {"max_candidates": 2, "search": search})).discover
    assert (d.max_candidates, d.search) == (2, {"www.example.gov": search["www.example.gov"]})


@pytest.mark.parametrize(("discover", "message"), [
    ({"max_candidate": 2}, "discover.max_candidate: unknown key"),
    ({"max_requests_per_host": -1}, "discover.max_requests_per_host: must be >= 0"),
    ({"enabled": "yes"}, 'discover.enabled: expected true or false, got "yes"'),
    ({"search": {"a.gov": "https://a.gov/s?query=x"}}, "discover.search: a.gov: must be a URL template containing {q}"),
])
def test_a_bad_discover_key_is_one_line(tmp_path: Path, discover: Any, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(with_discover(tmp_path, discover))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_the_models_are_frozen() -> None:
    cfg = load_config(PROJECT_DIR / "config")
    with pytest.raises(Exception, match="frozen"):
        cfg.fetch.max_body_bytes = 1  # type: ignore[misc]
    assert isinstance(cfg, SourceVerify) and cfg.liveness.concurrency > 0
