"""The docs build with every warning an error, and their reference shows what the code declares:
every option of every project command, every registry entry and config key, every exit status, every
``ClaimRecord`` field and every metric. A planted entry without its doc fails the build."""

from __future__ import annotations

import html
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from testing.commands import run_command

from .conftest import PROJECT_DIR

DOCS = PROJECT_DIR / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import svref  # noqa: E402


def sphinx(out: Path, prelude: str = "", builder: str = "html") -> subprocess.CompletedProcess[str]:
    """``sphinx-build -nW`` of docs/ into ``out``, after ``prelude`` (Python run in the same process)."""
    script = prelude + textwrap.dedent(f"""
        import sys
        from sphinx.cmd.build import main
        sys.exit(main(["-nW", "--keep-going", "-q", "-b", {builder!r}, {str(DOCS)!r}, {str(out)!r}]))
    """)
    return subprocess.run([sys.executable, "-c", script], cwd=PROJECT_DIR, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``make docs`` builds it (every warning an error, then the internal links), into a
    folder of the test's: make test builds the docs here and nowhere else. ``-o install``: the
    suite runs installed; with this interpreter's tools, and none of an outer make's flags (this
    runs inside make test)."""
    out = tmp_path_factory.mktemp("docs")
    result = run_command(["make", "-o", "install", "docs", f"DOCS_OUT={out}", f"BIN={Path(sys.executable).parent}"],
                         env={"MAKEFLAGS": "", "MAKELEVEL": ""}, timeout=300)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    return out / "html"


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))


@pytest.mark.subprocess
def test_the_docs_build_with_every_warning_an_error(built: Path) -> None:
    assert (built / "index.html").is_file() and (built / "tutorial.html").is_file()
    assert (built.parent / "linkcheck" / "output.json").is_file()  # the internal links were checked
    for section in ("howto", "explanation", "development", "reference"):
        assert any((built / section).glob("*.html")), section  # the globbed toctrees found the pages


@pytest.mark.parametrize(("kind", "page"), [
    ("commands", "reference/commands.html"),
    ("options", "reference/commands.html"),
    ("registry", "reference/settings.html"),
    ("config keys", "reference/settings.html"),
    ("exit statuses", "reference/exit-statuses.html"),
    ("ClaimRecord fields", "reference/records.html"),
    ("metrics", "reference/metrics.html"),
])
@pytest.mark.subprocess
def test_the_reference_names_what_the_code_declares(built: Path, kind: str, page: str) -> None:
    shown = set(re.findall(r"[^\s,]+", text_of(built / page)))
    names = svref.reference_names()[kind]
    assert names
    assert [n for n in names if n not in shown and not all(w in shown for w in n.split())] == []


def test_every_command_option_and_spider_argument_is_listed() -> None:
    names = svref.reference_names()
    assert {"--from-audit", "--max-cost-usd", "--as", "--json", "-a", "-s"} <= set(names["options"])
    assert set(names["commands"]) >= {"scrapy verify", "scrapy review", "scrapy extract", "scrapy crawl"}
    assert {"ci", "country"} <= set(svref.spider_arguments()["audit"][0])


PLANTS = {
    "registry entry": ("from sv_scrapy.run import registry as r\n"
                       "e = r.Entry('SV_PLANTED', r.ENV, 'string', '', '')\n"
                       "r.ENTRIES = (*r.ENTRIES, e); r.BY_SOURCE[r.ENV] = (*r.BY_SOURCE[r.ENV], e)\n",
                       "undocumented registry entry SV_PLANTED"),
    "command option": ("import importlib\n"
                       "m = importlib.import_module('sv_scrapy.commands.extract')\n"
                       "add = m.Command.add_options\n"
                       "m.Command.add_options = lambda self, p: (add(self, p), p.add_argument('--planted'))\n",
                       "undocumented option --planted of scrapy extract"),
    "exit status": ("from sv_scrapy.core import errors\n"
                    "class Planted(errors.SvError):\n    exit_code = 4\n",
                    "undocumented exit status 4"),
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """One build with every plant at once (each warning is its own: a check removed loses its line),
    a ``ClaimRecord`` field without its comment among them; the ``dummy`` builder, as the warnings
    come from reading the pages, not from writing them."""
    tmp = tmp_path_factory.mktemp("planted")
    record = PROJECT_DIR / "sv_scrapy" / "core" / "claims" / "record.py"
    planted = tmp / "sv_scrapy" / "core" / "claims" / "record.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(record.read_text(encoding="utf-8").replace("    then_now:", "    planted_field: str\n    then_now:"),
                       encoding="utf-8")
    prelude = "".join(code for code, _ in PLANTS.values())
    prelude += (f"import sys; sys.path.insert(0, {str(DOCS / '_ext')!r})\n"
                f"import svref, pathlib; svref.PROJECT_DIR = pathlib.Path({str(tmp)!r})\n")
    return sphinx(tmp / "out", prelude, builder="dummy")


@pytest.mark.parametrize("what", sorted(PLANTS))
@pytest.mark.subprocess
def test_a_planted_undocumented_entry_fails_the_build(planted: subprocess.CompletedProcess[str], what: str) -> None:
    assert planted.returncode != 0
    assert PLANTS[what][1] in planted.stderr


@pytest.mark.subprocess
def test_a_record_field_without_its_comment_fails_the_build(planted: subprocess.CompletedProcess[str]) -> None:
    assert planted.returncode != 0
    assert "undocumented ClaimRecord field planted_field" in planted.stderr


def test_every_status_an_error_ends_with_has_its_meaning() -> None:
    assert all(meaning for _, meaning, _ in svref.exit_statuses())


def test_every_module_with_docstring_roles_is_autodocumented() -> None:
    """A role resolves (or fails the -n build) only where autodoc renders its docstring."""
    api = (DOCS / "reference" / "api.md").read_text(encoding="utf-8")
    package = PROJECT_DIR / "sv_scrapy"
    with_roles = [".".join(p.relative_to(PROJECT_DIR).with_suffix("").parts) for p in sorted(package.rglob("*.py"))
                  if re.search(r":(func|class|data|meth|attr|mod):`", p.read_text(encoding="utf-8"))]
    assert with_roles
    assert [m for m in with_roles if f".. automodule:: {m}\n" not in api] == []
