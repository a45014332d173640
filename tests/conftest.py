"""Shared fixtures: the project root, the shared corpus slice, and a `scrapy` runner."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from testing.crawl import PROJECT_DIR, SCRAPY

__all__ = ["PROJECT_DIR", "SCRAPY", "run_scrapy", "shared_corpus"]

SHARED_CORPUS = PROJECT_DIR.parent / "shared" / "corpus" / "property-deep-dive"


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    """The real corpus slice beside the checkout; tests needing it skip when it is absent."""
    if not (SHARED_CORPUS / "config" / "_source-verify.json").is_file():
        pytest.skip(f"shared corpus slice not found at {SHARED_CORPUS} (../shared is absent)")
    return SHARED_CORPUS


def run_scrapy(*args: str, env: dict[str, str] | None = None, cwd: Path = PROJECT_DIR, timeout: float = 120):
    """Run ``scrapy <args>`` in a subprocess (a fresh reactor each time)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SV_")}
    full_env.update(env or {})
    return subprocess.run(
        [SCRAPY, *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout
    )
