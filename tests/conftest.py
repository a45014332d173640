"""Shared fixtures: the project root, the shared corpus slice, and the `scrapy` runner (testing.commands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from testing.commands import PROJECT_DIR, SCRAPY, run_scrapy

__all__ = ["PROJECT_DIR", "SCRAPY", "run_scrapy", "shared_corpus"]

SHARED_CORPUS = PROJECT_DIR.parent / "shared" / "corpus" / "property-deep-dive"


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    """The real corpus slice beside the checkout; tests needing it skip when it is absent."""
    if not (SHARED_CORPUS / "config" / "_source-verify.json").is_file():
        pytest.skip(f"shared corpus slice not found at {SHARED_CORPUS} (../shared is absent)")
    return SHARED_CORPUS


# a test module that drives a process (a `scrapy` command, the demo, a script) is `subprocess`: make
# test-fast leaves it out. Read from what the module uses, so a test file needs no marker of its own
_PROCESS_DRIVERS = ("subprocess", "crawl", "run_scrapy", "run_command", "SCRAPY")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and any(name in vars(module) for name in _PROCESS_DRIVERS):
            item.add_marker(pytest.mark.subprocess)
