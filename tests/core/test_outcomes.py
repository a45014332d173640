"""The kept outcomes on disk (``core.audit.outcomes``): a mapping in the order added, written as
the object ``claims.json`` has always held."""

from __future__ import annotations

import json
from pathlib import Path

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.audit.outcomes import KeptOutcomes, as_json_object
from sv_scrapy.core.audit.spool import Spool


def test_kept_outcomes_are_a_mapping_in_the_order_added(tmp_path: Path) -> None:
    kept = KeptOutcomes(tmp_path)
    plain: dict[str, dict[str, object]] = {}
    for i in range(5):
        kept.add(f"xx:{i}:ab", {"prior": "TOKENS_PRESENT", "n": i})
        plain[f"xx:{i}:ab"] = {"prior": "TOKENS_PRESENT", "n": i}
    kept["xx:2:ab"] = plain["xx:2:ab"] = {"prior": "TOKENS_ABSENT", "n": 2}  # set again: keeps its place
    kept["yy:1:cd"] = plain["yy:1:cd"] = {"prior": "DEAD"}  # new after the index was read
    kept.add("yy:2:cd", {"prior": "OK"})
    plain["yy:2:cd"] = {"prior": "OK"}
    assert dict(kept) == plain and list(kept) == list(plain) and len(kept) == len(plain)
    assert "xx:4:ab" in kept and "zz:1:ef" not in kept and kept.get("zz:1:ef") is None
    write_json(tmp_path / "a.json", {"outcomes": as_json_object(kept)})
    write_json(tmp_path / "b.json", {"outcomes": plain})
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    write_json(tmp_path / "empty.json", {"outcomes": as_json_object(KeptOutcomes(tmp_path))})
    assert json.loads((tmp_path / "empty.json").read_text(encoding="utf-8")) == {"outcomes": {}}


def test_a_spool_reads_its_values_back_in_blocks(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    values = [{"n": i, "text": "line\nbreak " * (i % 5)} for i in range(40)]
    for value in values:
        spool.add(value)
    assert list(spool.values(block=120)) == values == list(spool.values())  # many blocks, one block
