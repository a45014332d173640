"""``python -m testing.storereads crawl audit …``: ``scrapy crawl`` with the content store's reads
counted, for the test that a page's past is read once. At exit it writes to ``$SV_STORE_READS``
``{"entry": {url: n}, "text": {url: n}, "journal": {url: n}}``: every read of a store entry for
the crawl, of a stored text (latest or baseline), and of a journalled entry read back for the
audit's documents at the finish (``JournalRecords``: the streamed export), by URL."""

from __future__ import annotations

import atexit
import json
import os
import sys
from collections import Counter
from pathlib import Path

from scrapy.cmdline import execute

from sv_scrapy.core.audit.journal import JournalRecords
from sv_scrapy.core.audit.store import ContentStore, Entry
from sv_scrapy.core.claims.record import ClaimRecord

READS: dict[str, Counter[str]] = {"entry": Counter(), "text": Counter(), "journal": Counter()}
READING_BACK: list[str] = []  # the URL whose journalled entry the finish is reading back, if any


def _counting() -> None:
    load, read_text_file, records = ContentStore.load, ContentStore.read_text_file, JournalRecords._records

    def counted_load(self: ContentStore, url: str) -> Entry | None:
        READS["journal" if READING_BACK else "entry"][url] += 1
        return load(self, url)

    def counted_records(self: JournalRecords, url: str) -> dict[str, ClaimRecord]:
        READING_BACK.append(url)
        try:
            return records(self, url)
        finally:
            READING_BACK.pop()

    def counted_read_text_file(self: ContentStore, path: Path, url: str) -> str | None:
        READS["text"][url] += 1
        return read_text_file(self, path, url)

    ContentStore.load = counted_load  # type: ignore[method-assign]
    ContentStore.read_text_file = counted_read_text_file  # type: ignore[method-assign]
    JournalRecords._records = counted_records  # type: ignore[method-assign]


def _write() -> None:
    Path(os.environ["SV_STORE_READS"]).write_text(json.dumps(READS), encoding="utf-8")


if __name__ == "__main__":
    _counting()
    atexit.register(_write)
    execute(["scrapy", *sys.argv[1:]])
