"""Every project file the docs name exists.

A page that names a file the project no longer has sends the next maintainer looking for it; the
generated reference cannot drift that way, but the prose can, so each path-like name in docs/ and
the README is checked against the checkout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import PROJECT_DIR

#: The project's own top-level rooms a page may name a file in. ``scripts/`` is absent on purpose:
#: the docs name it as the corpus's folder (its allowlist), which lives beside the corpus, not here.
ROOMS = ("sv_scrapy", "tests", "testing", "bench", "docs", "examples", "config", "deploy", "tools",
         ".github", ".ci")

#: A room, a slash, then path characters; not when the name is a pattern (``tests/test_*.py``,
#: ``docs/<page>``), which is followed by one of ``*<{``.
PATH_NAME = re.compile(r"(?<![\w./-])((?:" + "|".join(re.escape(room) for room in ROOMS)
                       + r")/[\w./-]*[\w/])(?![*<{\w])")


def pages() -> list[Path]:
    return sorted(PROJECT_DIR.glob("docs/**/*.md")) + [PROJECT_DIR / "README.md"]


def names_in(text: str) -> set[str]:
    return set(PATH_NAME.findall(text))


def exists(name: str) -> bool:
    """Whether ``name`` is a file or folder of the checkout; ``pkg/module.attr`` names a module's
    attribute, so its module file is what must exist."""
    path = PROJECT_DIR / name.rstrip("/")
    if path.exists():
        return True
    module, _, _attribute = name.rpartition(".")
    return bool(module) and "/" in module and (PROJECT_DIR / f"{module}.py").is_file()


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(PROJECT_DIR)))
def test_every_file_a_page_names_exists(page: Path) -> None:
    missing = sorted(name for name in names_in(page.read_text(encoding="utf-8")) if not exists(name))
    assert not missing, f"{page.relative_to(PROJECT_DIR)} names files the checkout does not have: {missing}"


def test_the_check_sees_a_named_file_that_is_gone() -> None:
    text = "See `tests/test_no_such_thing.py` and `testing/mockweb/pdfgen.scan_pdf`; `tests/test_*.py` is a pattern."
    assert names_in(text) == {"tests/test_no_such_thing.py", "testing/mockweb/pdfgen.scan_pdf"}
    assert [name for name in sorted(names_in(text)) if not exists(name)] == ["tests/test_no_such_thing.py"]
