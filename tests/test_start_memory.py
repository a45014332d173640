"""The start of a large audit holds a window of requests, not one per URL: Scrapy's engine
reads ``start()`` for as long as it yields, and at 100,000 URLs every request, its meta and its
URL's past stood in the scheduler from the first minute (1.3 GB). ``start()`` now waits while
the scheduler holds ``START_AHEAD``, and a URL's past is read from the store only when its
request is built."""

from __future__ import annotations

import asyncio
import contextlib
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from scrapy.utils.test import get_crawler

from sv_scrapy.core.audit.store import ContentStore
from sv_scrapy.run.heldclaims import HeldClaims
from sv_scrapy.run.runtime import PROJECT_DIR, resolve
from sv_scrapy.run.state import Run, attach
from sv_scrapy.spiders.audit import AuditSpider
from sv_scrapy.spiders.base import START_AHEAD

URLS = 20_000
HOSTS = 2_000
HELD_PER_URL = 400  # bytes: a window of START_AHEAD requests over 20,000 URLs held ~75; every request ~1,300


def test_the_start_of_a_large_audit_holds_a_window_not_every_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "corpus").mkdir()
    crawler: Any = get_crawler(AuditSpider, settings_dict={
        "SV_CONFIG_DIR": str(PROJECT_DIR / "config"), "SV_CORPUS_ROOT": str(tmp_path / "corpus"),
        "SV_OUTPUT_DIR": str(tmp_path / "out")})
    runtime = resolve(crawler.settings)
    store = ContentStore(tmp_path / "out" / "store", runtime.clock)
    claims: list[Any] = [{"id": f"c{i}", "source_url": f"https://h{i % HOSTS}.example.org/page/{i}"}
                         for i in range(URLS)]
    attach(crawler, Run("audit", runtime, {"country": None, "ci": False, "part": None}, HeldClaims(claims), store,
                        tmp_path / "out" / "audit"))
    spider = AuditSpider()
    spider._set_crawler(crawler)
    scheduler: list[Any] = []  # what the engine's scheduler holds (its len is what start() asks)
    crawler.engine = SimpleNamespace(scheduler=scheduler)
    loads = 0
    load = store.load

    def counted(url: str) -> Any:
        nonlocal loads
        loads += 1
        return load(url)

    monkeypatch.setattr(store, "load", counted)

    async def fill() -> None:
        """Take what start() yields, as the engine does, until it has nothing for a while."""
        start = spider.start()
        with contextlib.suppress(TimeoutError, StopAsyncIteration):
            while True:
                scheduler.append(await asyncio.wait_for(anext(start), 0.3))

    tracemalloc.start()
    try:
        asyncio.run(fill())
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held / URLS < HELD_PER_URL, f"{held / URLS:.0f} bytes held per URL at start-up"
    assert len(scheduler) == START_AHEAD  # start() waits while the scheduler is full
    assert loads == START_AHEAD  # each URL's past read when its request is built, not before
