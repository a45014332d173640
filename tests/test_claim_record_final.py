"""The claim record is final once ``RecordsPipeline`` hands it on (issue #40): the one hop and discovery
keep what they find in the item's own fields, and ``PageItem.records()`` puts it on new records. The
crawls that hold the rule end to end wrap ``RecordsPipeline`` in ``testing.frozenrecords.frozen_records``
(tests/test_discover_crawl.py: one hop, a 304's findings, discovery; tests/test_archive.py: then and now,
the finish)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from sv_scrapy.core.audit.discover.memory import KeptProposal
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome
from sv_scrapy.items import PageItem
from testing.frozenrecords import freeze

URL = "https://www.example.gov/fees"


def judged(writes: list[str]) -> PageItem:
    records = [cast(ClaimRecord, freeze({"id": f"xx:{n}:ab", "prior": "TOKENS_ABSENT", "found_linked": None,
                                         "excerpts": ["…"], "proposed_source": None, "note": ""}, writes))
               for n in (3, 4)]
    return PageItem(URL, [], Fetched(URL, "2026-12-01T00:00:00+00:00"), outcome=PageOutcome("OK", "", records))


def test_what_later_stages_found_goes_on_new_records() -> None:
    writes: list[str] = []
    page = judged(writes)
    page.linked["xx:3:ab"] = {"url": f"{URL}.pdf", "excerpt": "Fee $7"}
    page.proposed["xx:3:ab"] = KeptProposal({"url": f"{URL}/2026"}, "", text_hash="0123")
    page.proposed["xx:4:ab"] = KeptProposal(None, "searched the sitemap (4 pages): not found", text_hash="4567")
    first, second = page.records()
    assert first["found_linked"] == {"url": f"{URL}.pdf", "excerpt": "Fee $7"}
    assert (first["proposed_source"], first["proposed_hash"]) == ({"url": f"{URL}/2026"}, "0123")
    assert (second["found_linked"], second["proposed_source"], second["proposed_hash"]) == (None, None, None)
    assert second["proposed_note"] == "searched the sitemap (4 pages): not found"
    # the keys stand where the records always had them: audit.json's items are byte for byte the same
    assert list(first) == ["id", "prior", "found_linked", "excerpts", "proposed_source", "note", "proposed_note",
                           "proposed_hash"]
    assert writes == []
    judged_first = page.judged().records[0]
    assert (judged_first["found_linked"], judged_first["proposed_source"], "proposed_note" in judged_first) == (
        None, None, False)


def test_a_page_nothing_was_found_for_keeps_its_records_as_judged() -> None:
    page = judged([])
    assert page.records() == page.judged().records
    assert all(new is not old for new, old in zip(page.records(), page.judged().records, strict=True))


@pytest.mark.parametrize("write", [
    lambda r: r.__setitem__("found_linked", {}), lambda r: r.update(note="x"), lambda r: r.pop("note"),
    lambda r: r["excerpts"].append("more"), lambda r: r["excerpts"].__setitem__(0, "other")])
def test_a_frozen_record_refuses_a_write_and_says_where(write: Any) -> None:
    writes: list[str] = []
    record = judged(writes).judged().records[0]
    with pytest.raises(TypeError):
        write(record)
    assert len(writes) == 1 and __file__ in writes[0]
