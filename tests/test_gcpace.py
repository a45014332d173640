"""An audit runs with the garbage collector's young generation sized for a crawl, and gives the
process its thresholds back when it ends (``sv_scrapy.extensions.gcpace``)."""

from __future__ import annotations

import gc
from pathlib import Path

from sv_scrapy.extensions.gcpace import YOUNG_THRESHOLD
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb

from .test_clock_behind import one_page, serve_page


def test_an_audit_collects_young_objects_less_often_and_puts_the_thresholds_back(tmp_path: Path) -> None:
    before = gc.get_threshold()
    assert before[0] != YOUNG_THRESHOLD
    config, corpus, out = one_page(tmp_path)
    with MockWeb() as web:
        serve_page(web)
        result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                                  extra_env={"SV_NOW": "2027-03-01T03:00:00+00:00"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stats["sv/gc/young_threshold"] == YOUNG_THRESHOLD
    assert "sv/gc/full_collections" in result.stats  # counted from the start, even when none ran
    assert gc.get_threshold() == before
    assert all(getattr(cb, "__self__", None).__class__.__name__ != "GcPaceExtension" for cb in gc.callbacks)
