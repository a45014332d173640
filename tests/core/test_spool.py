"""The spool (``core.audit.spool``): a value is read back as it was added, even one added since the
last read; a full disk is one line (``OutputError``), as any write's."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from sv_scrapy.core.audit.spool import Spool
from sv_scrapy.core.errors import OutputError


def test_each_value_reads_back_even_one_added_since_the_last_read(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    first = spool.add({"id": "a", "text": "é"})
    assert spool.get(first) == {"id": "a", "text": "é"}
    second = spool.add_encoded('{"id": "b"}')  # written after a read: the next read must see it
    assert spool.get(second) == {"id": "b"} and spool.get(first)["id"] == "a"


def test_a_value_on_several_lines_reads_back_alone_and_in_order(tmp_path: Path) -> None:
    # a record is spooled as its indented text (``SpooledItems``): newlines inside a value
    spool = Spool(tmp_path)
    texts = ['{\n  "id": "a"\n}', '[\n  1,\n  2\n]', '"one line"']
    numbers = [spool.add_encoded(text) for text in texts]
    assert [spool.text(k) for k in numbers] == texts
    assert [spool.get(k) for k in numbers] == list(spool.values(block=8)) == [{"id": "a"}, [1, 2], "one line"]


class FullDisk:
    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def close(self) -> None:
        pass


def test_a_full_disk_is_one_line_naming_the_folder(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool._file = FullDisk()  # type: ignore[assignment]
    with pytest.raises(OutputError, match=f"cannot spool claim records in {tmp_path}: No space left on device"):
        spool.add({"id": "a"})
    with pytest.raises(OutputError, match="cannot spool claim records in .*gone"):
        Spool(tmp_path / "gone")
