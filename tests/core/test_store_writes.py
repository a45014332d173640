"""What the journal writes a page, for less: an entry as ``dataclasses.asdict`` would give it,
without its deep copy; the latest and the baseline text, when they are one, as one file."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

import pytest

from sv_scrapy.core.audit.store import ContentStore, Entry, url_key
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


def test_the_baseline_written_with_the_text_is_that_file_and_outlives_the_next(tmp_path: Path) -> None:
    store, url = ContentStore(tmp_path), "https://a.gouv.fr/x"
    store.save_text(url, "Taux 5,5 %", stable_too=True)
    assert store.text(url) == store.stable_text(url) == "Taux 5,5 %"
    text_file, stable_file = (tmp_path / "text" / f"{url_key(url)}{suffix}" for suffix in (".txt", ".stable.txt"))
    assert os.path.samefile(text_file, stable_file)  # written and synced once
    store.save_text(url, "Taux 6 %")  # a new text replaces its name only: the baseline keeps its bytes
    assert (store.text(url), store.stable_text(url)) == ("Taux 6 %", "Taux 5,5 %")
    assert sorted(p.name for p in text_file.parent.iterdir()) == sorted([text_file.name, stable_file.name])


def test_without_hard_links_the_baseline_is_a_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_link(*args: object) -> None:
        raise OSError("no hard links on this filesystem")

    monkeypatch.setattr(os, "link", no_link)
    store, url = ContentStore(tmp_path), "https://a.gouv.fr/x"
    store.save_text(url, "Taux 5,5 %", stable_too=True)
    assert store.text(url) == store.stable_text(url) == "Taux 5,5 %"
