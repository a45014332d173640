"""The reference pages' tables, generated from the code at build time (one directive each).

Each directive reads the one place the code declares a thing (the commands' own option parsers,
the spiders' ``ARGUMENTS``, ``sv_scrapy.run.registry``, the config files' models, ``ClaimRecord``'s annotated lines,
``core/errors.py``, the metrics writer, the status tuples) and warns about any entry that has no
doc, so ``sphinx-build -W`` fails on an undocumented one. ``reference_names`` lists every name the
built reference must show (tests/test_docs.py checks the HTML against it).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import json
import tokenize
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)
PROJECT_DIR = Path(__file__).resolve().parents[2]
Cell = str | nodes.Node


# -- what the code declares ------------------------------------------------------------------

def project_commands() -> dict[str, Any]:
    """The project's ``scrapy`` commands, as Scrapy finds them (``COMMANDS_MODULE``)."""
    from scrapy.cmdline import _get_commands_from_module

    return dict(sorted(_get_commands_from_module("sv_scrapy.commands", True).items()))


def command_parser(name: str, cmd: Any) -> argparse.ArgumentParser:
    """The command's own parser, filled by its ``add_options`` as ``scrapy <name>`` fills it."""
    from scrapy.settings import Settings

    settings = Settings()
    settings.setmodule("sv_scrapy.settings", priority="project")
    cmd.settings = settings
    parser = argparse.ArgumentParser(prog=f"scrapy {name}", add_help=False)
    cmd.add_options(parser)
    return parser


def command_options(name: str, cmd: Any) -> list[argparse.Action]:
    return [a for a in command_parser(name, cmd)._actions if a.option_strings]


def spider_arguments() -> dict[str, tuple[tuple[str, ...], dict[str, str]]]:
    """``{spider: (ARGUMENTS, ARGUMENT_DOCS)}`` of the project's spiders."""
    out = {}
    for module in ("worklist", "audit"):
        mod = importlib.import_module(f"sv_scrapy.spiders.{module}")
        for obj in vars(mod).values():
            if isinstance(obj, type) and getattr(obj, "name", None) == module and hasattr(obj, "ARGUMENTS"):
                out[module] = (tuple(obj.ARGUMENTS), dict(getattr(obj, "ARGUMENT_DOCS", {})))
    return out


def record_fields() -> list[tuple[str, str, str, str]]:
    """``ClaimRecord``'s fields as its source declares them: (group, name, type, doc comment)."""
    path = PROJECT_DIR / "sv_scrapy" / "core" / "claims" / "record.py"
    source = path.read_text(encoding="utf-8")
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    cls = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef) and n.name == "ClaimRecord")
    fields, group = [], ""
    lines = source.splitlines()
    for stmt in cls.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        above = stmt.lineno - 1
        if lines[above - 1].strip().startswith("#"):
            group = comments[above]
        fields.append((group, stmt.target.id, ast.unparse(stmt.annotation), comments.get(stmt.lineno, "")))
    return fields


def exit_statuses() -> list[tuple[int, str, list[str]]]:
    """(status, meaning, the error classes that end in it) from ``core/errors.py``."""
    from sv_scrapy.core import errors

    classes: dict[int, list[str]] = {}
    stack = [errors.SvError]
    while stack:
        cls = stack.pop()
        classes.setdefault(cls.exit_code, []).append(cls.__name__)
        stack.extend(cls.__subclasses__())
    codes_ = sorted({*errors.EXIT_STATUSES, *classes})  # a class's status missing from the table: no meaning
    return [(code, errors.EXIT_STATUSES.get(code, ""), sorted(classes.get(code, []))) for code in codes_]


def metric_names() -> list[tuple[str, str]]:
    """(name, help) of every gauge ``metrics.prom`` can hold (a full run's textfile, parsed)."""
    from sv_scrapy.core.audit.metrics import RunMetrics, prometheus_text

    stats = {"by_prior": {"TOKENS_ABSENT": 1}, "new_findings": 0, "pages_by_fetch_status": {"OK": 1},
             "not_modified_pct": 0.0, "archive": {"lookups": 1, "by_verdict": {"x": 1}}}
    text = prometheus_text(RunMetrics(0.0, True, 0.0, 0.0, stats))
    return [tuple(line[len("# HELP "):].split(" ", 1)) for line in text.splitlines()  # type: ignore[misc]
            if line.startswith("# HELP ")]


def config_files() -> list[str]:
    from sv_scrapy.run.config import MODELS

    return list(MODELS)


def _resolved(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema node with its ``$ref`` followed and an optional value's ``null`` left out."""
    if "$ref" in schema:
        schema = {**defs[schema["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in schema.items() if k != "$ref"}}
    options = [o for o in schema.get("anyOf", ()) if o.get("type") != "null"]
    if len(options) == 1:
        schema = {**_resolved(options[0], defs), **{k: v for k, v in schema.items() if k != "anyOf"}}
    return schema


def kind_of(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A value's type in words, from its JSON schema (``list of (pct | money)``, ``integer >= 1``)."""
    schema = _resolved(schema, defs)
    if "enum" in schema:
        return f"({' | '.join(map(str, schema['enum']))})"
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return f"{kind} >= {schema['minimum']:g}" if "minimum" in schema else str(kind)
    if kind == "boolean":
        return "true | false"
    if kind == "array":
        return f"list of {kind_of(schema.get('items', {}), defs)}"
    if kind == "object" and "properties" in schema:
        needed = set(schema.get("required", ()))
        return "object {" + ", ".join(k if k in needed else f"{k}?" for k in schema["properties"]) + "}"
    if kind == "object":
        return f"object of name: {kind_of(schema.get('additionalProperties', {}), defs)}"
    return str(kind or "any")


def config_keys(file: str) -> list[tuple[str, str, str, str]]:
    """(dotted key, type, default, doc) of every key of one config file, from its model's JSON schema;
    a section's keys one by one, any other object as one key."""
    from sv_scrapy.run.config import MODELS

    top = MODELS[file].model_json_schema(by_alias=True)
    defs = top.get("$defs", {})
    rows: list[tuple[str, str, str, str]] = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        needed = set(node.get("required", ()))
        for key, raw in node["properties"].items():
            field = _resolved(raw, defs)
            if field.get("x-section"):
                walk(field, f"{prefix}{key}.")
                continue
            doc = str(raw.get("description") or field.get("description") or "")
            default = "required" if key in needed else (
                "ignored" if doc.startswith("Ignored") else shown(field.get("default")))
            rows.append((prefix + key, kind_of(field, defs), default, doc))

    walk(top, "")
    return rows


def reference_names() -> dict[str, list[str]]:
    """Every name the built reference must show, by kind (the drift test's list)."""
    from sv_scrapy.run import registry

    return {
        "options": sorted({s for name, cmd in project_commands().items()
                           for a in command_options(name, cmd) for s in a.option_strings}),
        "commands": [f"scrapy {n}" for n in project_commands()],
        "registry": sorted({e.name for e in registry.ENTRIES}),
        "config keys": sorted({key for file in config_files() for key, *_ in config_keys(file)}),
        "exit statuses": [str(code) for code, _, _ in exit_statuses()],
        "ClaimRecord fields": [name for _, name, _, _ in record_fields()],
        "metrics": [name for name, _ in metric_names()],
    }


# -- docutils helpers ------------------------------------------------------------------------

def _cell(value: Cell) -> nodes.entry:
    entry = nodes.entry()
    if isinstance(value, nodes.Node):
        entry += value if isinstance(value, nodes.Element) and not isinstance(value, nodes.Inline) \
            else nodes.paragraph("", "", value)
    else:
        entry += nodes.paragraph(text=value)
    return entry


def prose(text: str) -> nodes.paragraph:
    """A doc line with its `backticked` spans as literals."""
    para = nodes.paragraph()
    for i, part in enumerate(text.split("`")):
        if part:
            para += code(part) if i % 2 else nodes.Text(part)
    return para


def code(text: str) -> nodes.literal:
    return nodes.literal(text=text)


def codes(texts: Iterable[str]) -> nodes.paragraph:
    para = nodes.paragraph()
    for i, text in enumerate(texts):
        if i:
            para += nodes.Text(", ")
        para += code(text)
    return para


def table(headers: Sequence[str], rows: Iterable[Sequence[Cell]]) -> nodes.table:
    tab = nodes.table(classes=["sv-reference"])
    group = nodes.tgroup(cols=len(headers))
    tab += group
    for _ in headers:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for h in headers:
        row += _cell(h)
    head += row
    body = nodes.tbody()
    group += body
    for values in rows:
        row = nodes.row()
        for v in values:
            row += _cell(v)
        body += row
    return tab


def shown(value: Any, limit: int = 80) -> str:
    """A default as JSON; a long built-in list or table summed up (its values live in the registry)."""
    if value is None or value == "":
        return "—"
    if isinstance(value, (tuple, frozenset, set)):
        value = list(value)
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    if len(text) <= limit:
        return text
    if isinstance(value, list):
        return f"{len(value)} built-in values ({', '.join(map(str, value[:3]))}, …)"
    return f"a built-in table of {len(value)} keys ({', '.join(list(value)[:3])}, …; see the code)"


class _Directive(SphinxDirective):
    has_content = False

    def undocumented(self, what: str) -> None:
        logger.warning("undocumented %s (add its doc where the code declares it)", what,
                       location=self.get_location())


# -- the directives --------------------------------------------------------------------------

class Commands(_Directive):
    """Every project command: its syntax, its description, and each option of its parser."""

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for name, cmd in project_commands().items():
            section = nodes.section(ids=[f"command-{name}"])
            section += nodes.title(text=f"scrapy {name}")
            section += nodes.paragraph("", "", code(f"scrapy {name} {cmd.syntax()}".strip()))
            section += nodes.paragraph(text=cmd.short_desc())
            rows = []
            for action in command_options(name, cmd):
                if not action.help or action.help == argparse.SUPPRESS:
                    self.undocumented(f"option {'/'.join(action.option_strings)} of scrapy {name}")
                metavar = action.metavar or ("" if action.nargs == 0 else action.dest.upper())
                default = "" if action.default in (None, False, argparse.SUPPRESS, [], {}) else action.default
                rows.append((codes(action.option_strings), str(metavar or ""), shown(default),
                             prose(str(action.help or "").replace("%%", "%"))))
            section += table(("option", "value", "default", "what it does"), rows)
            out.append(section)
        return out


class SpiderArguments(_Directive):
    """``scrapy crawl <spider> -a name=value``: each spider's arguments."""

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for spider, (names, docs) in spider_arguments().items():
            out.append(nodes.rubric(text=f"scrapy crawl {spider}"))
            out.append(table(("argument", "what it does"),
                             [(code(f"-a {n}=…"), prose(docs.get(n, "—"))) for n in names]))
        return out


class Registry(_Directive):
    """One table of ``sv_scrapy.run.registry``: the entries of one source."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        from sv_scrapy.run import registry

        source = self.arguments[0]
        if source not in registry.SOURCES:
            raise self.error(f"unknown source {source!r} (known: {', '.join(registry.SOURCES)})")
        rows = []
        for e in registry.BY_SOURCE[source]:
            if not e.doc.strip():
                self.undocumented(f"registry entry {e.name} ({source})")
            name = nodes.paragraph("", "", code(e.name))
            name["ids"] = [nodes.make_id(f"{source}-{e.name}")]
            rows.append((name, e.kind, shown(e.default), prose(e.doc)))
        return [table(("name", "type", "default", "what it does"), rows)]


class ConfigKeys(_Directive):
    """One config file's keys, from its model (``sv_scrapy.run.config.MODELS``)."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        file = self.arguments[0]
        if file not in config_files():
            raise self.error(f"unknown config file {file!r} (known: {', '.join(config_files())})")
        rows = []
        for key, kind, default, doc in config_keys(file):
            if not doc.strip():
                self.undocumented(f"config key {key} ({file}: a Field description)")
            name = nodes.paragraph("", "", code(key))
            name["ids"] = [nodes.make_id(f"{file}-{key}")]
            rows.append((name, kind, default, prose(doc)))
        return [table(("key", "type", "default", "what it does"), rows)]


class ClaimRecordFields(_Directive):
    """The fields of ``audit.json`` / ``worklist.json`` records, by group."""

    def run(self) -> list[nodes.Node]:
        rows = []
        for group, name, kind, doc in record_fields():
            if not doc:
                self.undocumented(f"ClaimRecord field {name} (a comment on its line in core/claims/record.py)")
            rows.append((code(name), code(kind), prose(doc), group))
        return [table(("field", "type", "what it holds", "written by"), rows)]


class ExitStatuses(_Directive):
    def run(self) -> list[nodes.Node]:
        rows = []
        for code_, meaning, classes in exit_statuses():
            if not meaning:
                self.undocumented(f"exit status {code_}")
            rows.append((code(str(code_)), meaning, codes(classes) if classes else "—"))
        return [table(("status", "meaning", "raised as"), rows)]


class Metrics(_Directive):
    def run(self) -> list[nodes.Node]:
        return [table(("gauge", "what it says"), [(code(n), h) for n, h in metric_names()])]


class Values(_Directive):
    """A tuple of names the code declares, as a list of literals: ``module:NAME``."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        module, _, attr = self.arguments[0].partition(":")
        return [codes(str(v) for v in getattr(importlib.import_module(module), attr))]


class Pipelines(_Directive):
    """``ITEM_PIPELINES`` in order: a page's path through the pipelines."""

    def run(self) -> list[nodes.Node]:
        from sv_scrapy import settings

        order = sorted(settings.ITEM_PIPELINES.items(), key=lambda kv: kv[1])
        text = "\n".join(f"{prio:>4}  {path.rsplit('.', 1)[-1]}" for path, prio in order)
        return [nodes.literal_block(text=text)]


class Modules(_Directive):
    """Every module of the package with the first line of its docstring: a layout that cannot drift."""

    def run(self) -> list[nodes.Node]:
        package = PROJECT_DIR / "sv_scrapy"
        rows = []
        for path in sorted(package.rglob("*.py")):
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            name = path.relative_to(package.parent).as_posix()
            if not doc and path.name != "__init__.py":
                self.undocumented(f"module {name} (its docstring)")
            if doc:
                rows.append((code(name), prose(doc.split("\n\n")[0].replace("\n", " "))))
        return [table(("module", "what it holds"), rows)]


def setup(app: Sphinx) -> dict[str, Any]:
    for name, directive in (("sv-commands", Commands), ("sv-spider-arguments", SpiderArguments),
                            ("sv-registry", Registry), ("sv-config", ConfigKeys),
                            ("sv-claim-record", ClaimRecordFields),
                            ("sv-exit-statuses", ExitStatuses), ("sv-metrics", Metrics), ("sv-values", Values),
                            ("sv-pipelines", Pipelines), ("sv-modules", Modules)):
        app.add_directive(name, directive)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
