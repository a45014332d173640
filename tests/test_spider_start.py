"""``start()`` gives the event loop a turn every ``START_BATCH`` URLs: Scrapy's engine reads it
without one while the downloader is full, which the paced handler makes it at once."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from sv_scrapy.spiders.base import START_BATCH, ClaimSpider


def test_start_lets_the_loop_turn_while_it_reads_a_large_corpus() -> None:
    urls = [f"https://h{i}.example.org/p" for i in range(4 * START_BATCH)]
    spider: Any = SimpleNamespace(
        run=SimpleNamespace(claims=SimpleNamespace(urls=lambda: iter(urls)), claims_of=lambda url: [],
                            runtime=SimpleNamespace(config=SimpleNamespace(liveness=SimpleNamespace(excluded_hosts=[])))),
        crawler=SimpleNamespace(engine=None),
        past_of=lambda url: None, done_earlier=lambda url, past: None, request_for=lambda url, past=None: url)

    async def read() -> tuple[list[Any], int]:
        loop, turns = asyncio.get_running_loop(), 0

        def tick() -> None:
            nonlocal turns
            turns += 1
            loop.call_soon(tick)

        loop.call_soon(tick)
        return [x async for x in ClaimSpider.start(spider)], turns

    read_out, turns = asyncio.run(read())
    assert read_out == urls
    assert turns >= 4  # one a batch; none at all before
