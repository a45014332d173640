"""What the journal writes a page, for less: an entry as ``dataclasses.asdict`` would give it,
without its deep copy."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from sv_scrapy.core.audit.store import ContentStore, Entry
from sv_scrapy.core.page.changes import ContentState


def full_entry() -> Entry:
    record = {"id": "xx:3:c", "values": [{"raw": "5.5 %", "salient": True}], "excerpts": ["Taux 5,5 %"],
              "found_as": {"5.5 %": "5,5 %"}, "frames": [], "ocr_confidence": None}
    return Entry(url="https://a.gouv.fr/x", fetched_at="2026-12-01T00:00:00+00:00", http_status=200,
                 fetch_status="OK", content_hash="ab" * 8, etag='"e"', content_kind="html",
                 state=ContentState(stable_hash="ab" * 8, stable_since="2026-11-01T00:00:00+00:00"),
                 excerpts={"xx:3:c": ["Taux 5,5 %"]}, run_id="run-1", results=[record], lang="fr",
                 title="Taux", shapes='[["h1"]]')


def test_an_entry_is_stored_as_asdict_gives_it(tmp_path: Path) -> None:
    entry = full_entry()
    assert json.dumps(entry.to_json()) == json.dumps(asdict(entry))
    store = ContentStore(tmp_path)
    store.save(entry)
    assert store.load(entry.url) == entry

