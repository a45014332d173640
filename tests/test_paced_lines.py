"""The paced handler keeps a host's line only while the host has a request in it: kept after
the last, a line (its lock, its event, its counts) was ~760 bytes for every host of a run,
7.6 MB at 10,000 hosts, for nothing (a host's next start waits on the pacer's book)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from scrapy import Request
from scrapy.http import Response
from scrapy.settings import Settings
from scrapy.signalmanager import SignalManager
from scrapy.statscollectors import MemoryStatsCollector

from sv_scrapy.core.politeness import HostFloors, Pacer
from sv_scrapy.downloadhandlers.paced import PacedDownloadHandler
from sv_scrapy.run.config import load_config
from sv_scrapy.run.runtime import PROJECT_DIR

HOSTS = 300


class Answering:
    """Answers at once, and notes how many lines the handler holds while a request is in it."""

    def __init__(self) -> None:
        self.paced: PacedDownloadHandler | None = None
        self.lines_seen = 0

    async def download_request(self, request: Request) -> Response:
        await asyncio.sleep(0)
        assert self.paced is not None
        self.lines_seen = max(self.lines_seen, len(self.paced._lines))
        return Response(request.url, status=200, request=request)

    async def close(self) -> None:
        pass


def test_a_host_s_line_goes_with_its_last_request() -> None:
    cfg = load_config(PROJECT_DIR / "config")
    crawler: Any = SimpleNamespace(signals=SignalManager(), settings=Settings(), stats=None, spider=None)
    crawler.stats = MemoryStatsCollector(crawler)
    inner = Answering()
    paced = inner.paced = PacedDownloadHandler(crawler, inner, Pacer(HostFloors(cfg.liveness, cfg.hosts), min_gap=0))

    async def run() -> list[Response]:
        return await asyncio.gather(*(paced.download_request(Request(f"https://h{i}.example.org/p"))
                                      for i in range(HOSTS)))

    answers = asyncio.run(run())
    assert [a.status for a in answers] == [200] * HOSTS
    assert inner.lines_seen > 1  # the lines were there while their requests were
    assert paced._lines == {}
