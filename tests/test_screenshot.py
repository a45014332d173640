"""report.html of the demo corpus, rendered by Debian's Chromium: the screenshot shows a page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testing.crawl import crawl_demo
from tools.screenshot import CHROMIUM, non_blank, screenshot

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"Debian's Chromium ({CHROMIUM}) not installed")]


def test_a_blank_page_is_told_apart(tmp_path: Path) -> None:
    page = tmp_path / "blank.html"
    page.write_text("<!doctype html><title>x</title><body style='background:#fff'></body>", encoding="utf-8")
    screenshot(page, tmp_path / "blank.png", 400, 300)
    assert "looks blank" in non_blank(tmp_path / "blank.png")


@pytest.mark.subprocess
def test_screenshot_of_the_demo_report(tmp_path: Path) -> None:
    result = crawl_demo(tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    png = tmp_path / "report.png"
    screenshot(tmp_path / "out" / "audit" / "report.html", png)
    assert png.stat().st_size > 10_000 and non_blank(png) == ""
