"""The content store's format version, and the migration of a store an earlier release wrote.

``store/FORMAT.json`` says which format the store is in (``{"format": 2, …}``). Formats:

* **0** — releases up to 76d1325: entries without a checksum, texts without their hash
  header, no ``claims.json`` / ``history.json`` (no news yet) and no ``FORMAT.json``;
* **1** — checksummed entries, sealed texts, ``claims.json``, ``history.json``, ``ocr/``;
  still no ``FORMAT.json``;
* **2** — format 1 with ``FORMAT.json``: from here on every format change bumps the number
  and adds a step to :func:`migrate`;
* **3** — format 2 with ``archive/``: the Wayback Machine's answers for then and now
  (``core.audit.archive.cache``); a format-2 store needs nothing rewritten, the folder appears when
  first written;
* **4** — entries keep what a 304 restores with the text (language, title, an HTML text's line
  shapes tied to that text's hash: ``Entry``); nothing is rewritten: an entry without them has
  its HTML page read in full once, not asked conditionally.
* **5** — format 4 with ``discover/``: the sites' sitemaps and search answers with their validators,
  each claim's proposal of where its figure stands now (``core.audit.discover.memory``); nothing is
  rewritten: the folder appears when first written, and a claim's first search after the upgrade
  reads its site's sitemaps in full once.

A store without ``FORMAT.json`` is *pre-versioned* (0 or 1, told apart file by file): it is
read leniently and migrated once, in place, by the run that holds the output folder's lock.
Each file is rewritten atomically and ``FORMAT.json`` is written last, so a migration killed
halfway is simply done again (every step is idempotent). Old is never corrupt: only a file
that fails its own check (a checksum, a hash header, JSON that does not parse) is set aside.
A store from a *newer* release is refused, untouched.

What a format-0 store holds but does not say — each claim's last outcome and the audit's
counts — is rebuilt from the claim records every entry kept of the run that wrote it, so
the first audit after an upgrade still has last month's news, streaks and baselines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_json, write_text
from sv_scrapy.core.audit import history
from sv_scrapy.core.audit.news import judge
from sv_scrapy.core.audit.stats import audit_stats
from sv_scrapy.core.audit.store import TEXT_HEADER, ContentStore, Entry, seal_text, url_key
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.clock import Clock
from sv_scrapy.core.errors import SvError

#: The store format this release writes (older ones are migrated, a newer one refused).
FORMAT = 5
FORMAT_FILE = "FORMAT.json"


class StoreFormatError(SvError):
    """The store was written by a newer release of sv_scrapy: refused, left untouched."""


@dataclass
class Migration:
    """What opening the store found and did (for the log, ``audit.json`` and the report)."""

    found: int | None  # the format found; None: a new, empty store
    format: int = FORMAT
    entries: int = 0  # entries rewritten in the current format
    texts: int = 0  # stored texts given their hash header
    outcomes: int = 0  # claim outcomes rebuilt from the entries (format 0)
    history: int = 0  # history points rebuilt (format 0)
    quarantined: list[dict[str, str]] = field(default_factory=list)

    @property
    def migrated(self) -> bool:
        return self.found is not None and self.found < self.format

    def as_dict(self) -> dict[str, Any]:
        return {"format": self.format, "found": self.found, "migrated": self.migrated, "entries": self.entries,
                "texts": self.texts, "outcomes": self.outcomes, "history": self.history,
                "quarantined": len(self.quarantined)}

    def summary(self) -> str:
        """One line for the log: what the migration kept."""
        return (f"content store migrated from format {self.found} to {self.format}: {self.entries} entr(y/ies) and "
                f"{self.texts} text(s) rewritten, {self.outcomes} claim outcome(s) and {self.history} history "
                f"point(s) rebuilt, {len(self.quarantined)} damaged file(s) set aside")


def read_format(root: Path) -> int | None:
    """The format ``FORMAT.json`` names; None when there is none (or it is unreadable: then
    every file is judged by its own shape, as in a pre-versioned store)."""
    try:
        data = json.loads((root / FORMAT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("format") if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _has_content(root: Path) -> bool:
    return (root / "run.json").exists() or any(_files(root / "pages", "*.json"))


def _files(folder: Path, pattern: str) -> Iterator[Path]:
    return iter(sorted(folder.glob(pattern))) if folder.is_dir() else iter(())


def check_format(root: Path) -> int | None:
    """The store's format (None: pre-versioned or new); raise :class:`StoreFormatError` for a
    newer release's store (one line, exit 2; nothing is written)."""
    found = read_format(root)
    if found is not None and found > FORMAT:
        raise StoreFormatError(
            f"{root} was written by a newer sv_scrapy (store format {found}; this release reads formats up to "
            f"{FORMAT}): upgrade sv_scrapy, or point SV_OUTPUT_DIR at another folder; the store was left untouched")
    return found


def open_for_reading(root: Path, clock: Clock) -> ContentStore:
    """The store for a command that only reads it (``scrapy verify``): a pre-versioned store is
    read leniently as it is, never rewritten without the output folder's lock."""
    found = check_format(root)
    return ContentStore(root, clock, lenient=found is None and _has_content(root))


@dataclass(frozen=True)
class Survey:
    """A read-only check of a store (a restored CI artifact, before it is used)."""

    format: int | None  # None: pre-versioned
    entries: int
    texts: int
    damaged: list[dict[str, str]]

    def line(self) -> str:
        fmt = f"format {self.format}" if self.format is not None else "pre-versioned (migrated on the next audit)"
        return f"{fmt}, {self.entries} entr(y/ies), {self.texts} text(s), {len(self.damaged)} damaged"


def survey(root: Path, clock: Clock) -> Survey:
    """Every entry and text checked as the audit will read them; nothing is moved or written.
    A damaged file is named (the audit sets it aside and fetches that page fresh); a folder that
    is no store, or a newer release's store, raises :class:`StoreFormatError`."""
    if not root.is_dir():
        raise StoreFormatError(f"{root}: not a content store (no such folder)")
    found = check_format(root)
    store = ContentStore(root, clock, lenient=found is None, read_only=True)
    entries = texts = 0
    for path in _files(root / "pages", "*.json"):
        try:
            url = json.loads(path.read_text(encoding="utf-8")).get("url")
        except (OSError, ValueError, AttributeError):
            url = None
        if not isinstance(url, str) or url_key(url) != path.stem:
            store.quarantine(path, path.name, "corrupt entry (no URL of its own)")
        elif store.load(url) is not None:
            entries += 1
    for path in _files(root / "text", "*.txt"):
        texts += store.read_text_file(path, path.name) is not None
    return Survey(found, entries, texts, list(store.quarantined))


def migrate(root: Path, clock: Clock) -> Migration:
    """Bring the store to :data:`FORMAT` (the caller holds the output folder's lock)."""
    found = check_format(root)
    if found == FORMAT:
        return Migration(found)
    if found in (2, 3, 4):  # archive/ (3), the entries' new fields (4) and discover/ (5) appear as written
        result = Migration(found)
        _write_format(root, clock, result)
        return result
    if found is None and not _has_content(root):
        _write_format(root, clock, Migration(None))
        return Migration(None)
    # pre-versioned (0 or 1, file by file); later formats add their steps here
    store = ContentStore(root, clock, lenient=True)
    result = Migration(1)
    entries = _migrate_entries(store, result)
    _migrate_texts(store, {url_key(e.url): e.url for e in entries}, result)
    _rebuild_memory(store, entries, result)
    result.quarantined = list(store.quarantined)
    _write_format(root, clock, result)
    return result


def _migrate_entries(store: ContentStore, result: Migration) -> list[Entry]:
    entries = []
    for path in _files(store.root / "pages", "*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            url = data.get("url") if isinstance(data, dict) else None
        except (OSError, ValueError):
            data, url = None, None
        if not isinstance(url, str) or url_key(url) != path.stem:
            store.quarantine(path, str(url or path.name), "corrupt entry (no URL of its own)")
            continue
        entry = store.load(url)  # lenient: a checksum is checked where there is one
        if entry is None:
            continue
        if "checksum" not in data:  # an entry of format 0
            store.save(entry)
            result.entries += 1
            result.found = 0
        entries.append(entry)
    return entries


def _migrate_texts(store: ContentStore, urls: dict[str, str], result: Migration) -> None:
    for path in _files(store.root / "text", "*.txt"):
        url = urls.get(path.name.split(".", 1)[0], path.name)
        try:
            old = not path.read_text(encoding="utf-8").startswith(TEXT_HEADER)
        except (OSError, UnicodeDecodeError):
            old = False  # unreadable: read_text_file sets it aside
        text = store.read_text_file(path, url)
        if text is not None and old:
            write_text(path, seal_text(text))
            result.texts += 1
            result.found = 0


def _rebuild_memory(store: ContentStore, entries: list[Entry], result: Migration) -> None:
    """Format 0 kept no claim outcomes and no history, only each entry's claim records of the
    run that wrote it: the outcomes and one history point are rebuilt from those."""
    if store.root.joinpath("claims.json").exists() or not entries:
        return
    run = store.run_info()
    last = str(run.get("finished_at") or max(e.fetched_at for e in entries)) if run.get("finished") else ""
    records: dict[str, ClaimRecord] = {}
    for entry in sorted(entries, key=lambda e: e.fetched_at):  # the latest record of a claim wins
        for record in entry.results:
            if isinstance(record, dict) and {"id", "prior", "fetch_status", "scope"} <= set(record):
                records[str(record["id"])] = record
    if not records:
        return
    outcomes = {cid: _outcome(record) for cid, record in records.items()}
    # "New since <the last audit>" needs the date each scope was audited: a finished run's
    scopes = {str(r["scope"]): last for r in records.values()} if last else {}
    store.save_claim_outcomes(outcomes, scopes)
    result.outcomes = len(outcomes)
    if last and not store.history():
        items = list(records.values())
        urls = {e.url: {"fetch_status": e.fetch_status, "not_modified": e.http_status == 304} for e in entries}
        doc = {"generated_at": last, "run": {"run_id": run.get("run_id", "")}, "params": run.get("params") or {},
               "stats": audit_stats(items, urls), "items": items}
        store.save_history([{**history.entry(doc), "rebuilt": f"from the format-{result.found} store"}])
        result.history = 1


def _outcome(record: ClaimRecord) -> dict[str, Any]:
    """The outcome a format-0 record says. A page in flux was judged on text that never
    settled: its prior is only pending, the confirmed baseline unknown (no vanished figure is
    claimed from it)."""
    outcome = judge(None, record, False)[3]
    if record.get("in_flux") and outcome["baseline"]:
        outcome["baseline"], outcome["pending"] = "", outcome["baseline"]
    return outcome


def _write_format(root: Path, clock: Clock, result: Migration) -> None:
    data: dict[str, Any] = {"format": FORMAT, "written_at": clock.iso()}
    if result.migrated:
        data["migrated_from"] = result.found
    write_json(root / FORMAT_FILE, data)
