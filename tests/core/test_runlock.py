"""The output folder's lock belongs to the run that took it: a second run is refused while it
holds it (in this process too: nothing is shared by folder), and takes it once it is let go."""

from __future__ import annotations

from pathlib import Path

import pytest

from sv_scrapy.core.audit.runlock import acquire
from sv_scrapy.core.errors import LockHeld


def test_a_second_run_is_refused_while_the_first_holds_the_folder(tmp_path: Path) -> None:
    first = acquire(tmp_path / "out", "scrapy crawl audit", "2027-03-01T03:17:00+00:00")
    try:
        with pytest.raises(LockHeld, match=r"`scrapy crawl audit`, started 2027-03-01T03:17:00\+00:00"):
            acquire(tmp_path / "out", "scrapy review", "2027-03-01T03:18:00+00:00")
    finally:
        first.release()


def test_the_next_run_takes_the_folder_once_it_is_let_go(tmp_path: Path) -> None:
    with acquire(tmp_path / "out", "scrapy merge", "2027-03-01T03:17:00+00:00") as lock:
        pass
    lock.release()  # once more: a no-op
    second = acquire(tmp_path / "out", "scrapy crawl audit", "2027-03-01T03:19:00+00:00")
    second.release()
