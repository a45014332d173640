"""The store's format version and the migration of an older release's store: old is never corrupt."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from sv_scrapy.core.audit.store import ContentStore, Entry, seal_text, url_key
from sv_scrapy.core.audit.storeformat import FORMAT, StoreFormatError, migrate, open_for_reading, read_format
from sv_scrapy.core.clock import clock_from

CLOCK = clock_from("2027-01-01T03:00:00Z")
URLS = [f"https://www.example.gouv.fr/p{i}" for i in range(3)]


def record(i: int, prior: str = "TOKENS_PRESENT", status: str = "OK") -> dict[str, object]:
    return {"id": f"fr:{10 + i}:{url_key(URLS[i])[:8]}", "scope": "fr", "prior": prior, "fetch_status": status,
            "source_url": URLS[i], "values": [{"type": "pct", "norm": f"{i}.5", "salient": True}]}


def format0_store(root: Path) -> Path:
    """What releases up to 76d1325 wrote: no checksums, bare texts, no claims/history/FORMAT."""
    for i, url in enumerate(URLS):
        status = "DEAD" if i == 2 else "OK"
        entry = Entry(url=url, fetched_at="2026-12-04T10:00:00+00:00", http_status=404 if i == 2 else 200,
                      fetch_status=status, content_hash=f"h{i}", etag=f'"e{i}"', fail_streak=2 if i == 2 else 0,
                      run_id="r0", results=[record(i, "SOURCE_UNAVAILABLE" if i == 2 else "TOKENS_PRESENT", status)])
        data = asdict(entry)
        del data["rendered"]  # a field format 0 did not have
        (root / "pages").mkdir(parents=True, exist_ok=True)
        (root / "pages" / f"{url_key(url)}.json").write_text(json.dumps(data), encoding="utf-8")
        if i < 2:
            (root / "text").mkdir(parents=True, exist_ok=True)
            (root / "text" / f"{url_key(url)}.txt").write_text(f"Taux {i},5 %", encoding="utf-8")
    (root / "run.json").write_text(json.dumps({"run_id": "r0", "params": {"country": None}, "finished": True,
                                               "finished_at": "2026-12-04T10:05:00+00:00"}), encoding="utf-8")
    return root


def test_a_format0_store_is_migrated_not_quarantined_and_keeps_what_it_holds(tmp_path: Path) -> None:
    root = format0_store(tmp_path / "store")
    result = migrate(root, CLOCK)
    assert (result.found, result.format, result.entries, result.texts) == (0, FORMAT, 3, 2)
    assert result.quarantined == [] and not (root / "corrupt").exists()
    assert read_format(root) == FORMAT
    store = ContentStore(root, CLOCK)  # strict from now on: every file passes its check
    assert [store.load(u).etag for u in URLS] == ['"e0"', '"e1"', '"e2"']  # type: ignore[union-attr]
    assert store.load(URLS[2]).fail_streak == 2  # type: ignore[union-attr]
    assert store.text(URLS[0]) == "Taux 0,5 %" and store.quarantined == []
    outcomes, scopes = store.claim_outcomes()
    assert outcomes[str(record(0)["id"])]["baseline"] == "TOKENS_PRESENT" and scopes == {"fr": "2026-12-04T10:05:00+00:00"}
    (point,) = store.history()
    assert point["at"] == "2026-12-04T10:05:00+00:00" and point["signals"]["claims"] == 3


def test_only_the_damaged_file_is_set_aside(tmp_path: Path) -> None:
    root = format0_store(tmp_path / "store")
    bad = root / "pages" / f"{url_key(URLS[1])}.json"
    bad.write_text(bad.read_text(encoding="utf-8")[:40], encoding="utf-8")  # truncated by a disk error
    result = migrate(root, CLOCK)
    assert [q["url"] for q in result.quarantined] == [bad.name] and not bad.exists()
    assert ContentStore(root, CLOCK).load(URLS[0]) is not None


def test_a_format1_store_with_a_flipped_checksum_loses_only_that_entry(tmp_path: Path) -> None:
    root = tmp_path / "store"
    store = ContentStore(root, CLOCK)
    for url in URLS:
        store.save(Entry(url=url, content_hash="h"))
        store.save_text(url, "text")
    flipped = root / "pages" / f"{url_key(URLS[0])}.json"
    flipped.write_text(flipped.read_text(encoding="utf-8").replace('"h"', '"x"'), encoding="utf-8")
    result = migrate(root, CLOCK)
    assert result.found == 1 and (result.entries, result.texts) == (0, 0)
    assert [q["url"] for q in result.quarantined] == [URLS[0]]


def test_a_migration_killed_halfway_is_done_again(tmp_path: Path) -> None:
    root = format0_store(tmp_path / "store")
    migrate(root, CLOCK)
    (root / "FORMAT.json").unlink()  # killed before its last step
    first = root / "text" / f"{url_key(URLS[0])}.txt"
    first.write_text("Taux 0,5 %", encoding="utf-8")  # one text not yet rewritten
    result = migrate(root, CLOCK)
    assert result.quarantined == [] and result.texts == 1
    assert ContentStore(root, CLOCK).text(URLS[0]) == "Taux 0,5 %"


def test_a_newer_releases_store_is_refused_and_left_untouched(tmp_path: Path) -> None:
    root = format0_store(tmp_path / "store")
    (root / "FORMAT.json").write_text(json.dumps({"format": FORMAT + 1}), encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    for call in (lambda: migrate(root, CLOCK), lambda: open_for_reading(root, CLOCK)):
        with pytest.raises(StoreFormatError) as err:
            call()
        assert err.value.exit_code == 2 and f"store format {FORMAT + 1}" in str(err.value)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_a_reader_reads_a_pre_versioned_store_as_it_is(tmp_path: Path) -> None:
    root = format0_store(tmp_path / "store")
    store = open_for_reading(root, CLOCK)
    assert store.text(URLS[1]) == "Taux 1,5 %" and store.quarantined == []
    assert read_format(root) is None  # a reader without the lock never rewrites


def test_a_new_store_is_born_versioned(tmp_path: Path) -> None:
    root = tmp_path / "store"
    assert migrate(root, CLOCK).found is None and read_format(root) == FORMAT
    assert ContentStore(root, CLOCK).load(URLS[0]) is None
    (root / "text").mkdir()
    (root / "text" / "x.txt").write_text("bare", encoding="utf-8")
    assert ContentStore(root, CLOCK).read_text_file(root / "text" / "x.txt", "u") is None  # strict now
    assert seal_text("a").startswith("sv-text")


@pytest.mark.parametrize("found", [2, 3])
def test_a_format2_or_3_store_becomes_the_current_format_untouched(tmp_path: Path, found: int) -> None:
    """Format 3 only adds archive/ (then and now), format 4 the entries' 304 fields (an entry
    without them is read in full once): the store keeps every file as it was."""
    root = tmp_path / "store"
    store = ContentStore(root, CLOCK)
    store.save_text("https://a.gouv.fr/x", "texte")
    (root / "FORMAT.json").write_text(json.dumps({"format": found}), encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != "FORMAT.json"}
    result = migrate(root, CLOCK)
    assert (result.found, result.format, result.migrated) == (found, FORMAT, True)
    assert read_format(root) == FORMAT and json.loads((root / "FORMAT.json").read_text())["migrated_from"] == found
    assert {p: p.read_bytes() for p in before} == before
