"""The threat model (docs/explanation/threat-model.md) stays true: every untrusted input has its
section, and every test it names for a defence exists, down to the test function."""

from __future__ import annotations

import re

from .conftest import PROJECT_DIR

PAGE = PROJECT_DIR / "docs" / "explanation" / "threat-model.md"
INPUTS = ("A fork's change", "A page's bytes", "A model's answer", "The archive", "The corpus files and the config",
          "A restored store")
# named by the page for work that lands beside this one (the pinned resolver, the fuzzing of the
# readers): checked once they are in the tree
PROMISED = {"tests/test_pinned_addresses.py", "tests/fuzz/"}


def cited() -> list[tuple[str, str]]:
    """(test path, a function named with it, or "") for each test the tables' last column names:
    `path`, `path::name`, or `path` followed by (`name`, …)."""
    out = []
    for cell in re.findall(r"\| ([^|]*`tests/[^|]*) \|$", PAGE.read_text(encoding="utf-8"), re.M):
        path = ""
        for token in re.findall(r"`([^`]+)`", cell):
            if token.startswith("tests/"):
                path, _, name = token.partition("::")
                out.append((path, name))
            elif re.fullmatch(r"test_\w+", token):
                out.append((path, token))
    return out


def test_every_untrusted_input_has_its_section() -> None:
    headings = re.findall(r"^## (.+)$", PAGE.read_text(encoding="utf-8"), re.M)
    assert [h for h in INPUTS if h not in headings] == []


def test_every_test_the_page_names_exists() -> None:
    found = cited()
    assert len(found) >= 30  # the reader above still reads the page's tables
    missing = []
    for path, name in found:
        target = PROJECT_DIR / path
        if not target.exists():
            if path not in PROMISED:
                missing.append(path)
            continue
        if name and not re.search(rf"^def {name}\(", target.read_text(encoding="utf-8"), re.M):
            missing.append(f"{path}::{name}")
    assert missing == []
