"""The scrapyd egg holds what runs in production only: no mock web, no API stub, no test rig."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .conftest import PROJECT_DIR

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

RIG_MODULES = ("mockweb", "anthropic_stub", "pdfgen", "testing/", "tests/")


def test_the_built_egg_lists_no_mock_web_or_stub_module(tmp_path: Path) -> None:
    # build from a copy, so that egg-info and build/ never land in the checkout
    shutil.copy(PROJECT_DIR / "setup.py", tmp_path / "setup.py")
    shutil.copytree(PROJECT_DIR / "sv_scrapy", tmp_path / "sv_scrapy", ignore=shutil.ignore_patterns("__pycache__"))
    build = subprocess.run([sys.executable, "setup.py", "-q", "bdist_egg", "-d", "dist"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    (egg,) = (tmp_path / "dist").glob("*.egg")
    names = zipfile.ZipFile(egg).namelist()
    assert "sv_scrapy/settings.py" in names and "sv_scrapy/spiders/audit.py" in names
    shipped_rig = [n for n in names if any(part in n for part in RIG_MODULES)]
    assert shipped_rig == []
