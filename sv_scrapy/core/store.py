"""The content store: one JSON entry per URL (plus its text, and a PDF's bytes when we could
not read it), and a run journal so an audit killed halfway resumes where it stopped.

Layout under ``<SV_OUTPUT_DIR>/store/``::

    pages/<sha1(url)>.json   entry: hashes, validators, content state, fail streak, the
                             excerpts around each claim's figures, this run's claim results
    text/<sha1(url)>.txt     the cleaned text of the last fetch that had one
    pdf/<sha1(url)>.pdf      bytes of a PDF without a text layer (for the LLM layer)
    run.json                 the current run: id, parameters, finished or not

Every file is written atomically, so a kill at any instant leaves either the old or the new
version. File names are hashes, never page- or URL-derived text.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_json, write_text
from sv_scrapy.core.changes import ContentState


def url_key(url: str) -> str:
    return hashlib.sha1(url.encode("utf-8")).hexdigest()


@dataclass
class Entry:
    url: str
    fetched_at: str = ""
    http_status: int = 0
    fetch_status: str = ""
    content_hash: str = ""
    raw_hash: str = ""
    etag: str = ""
    last_modified: str = ""
    content_kind: str = ""
    state: ContentState = field(default_factory=ContentState)
    fail_streak: int = 0
    excerpts: dict[str, list[str]] = field(default_factory=dict)  # claim id -> excerpts of the stable text
    run_id: str = ""  # the run that wrote this entry
    results: list[dict[str, Any]] = field(default_factory=list)  # that run's claim records

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        data = dict(data)
        data["state"] = ContentState(**data.get("state", {}))
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


class ContentStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, kind: str, url: str, suffix: str) -> Path:
        return self.root / kind / f"{url_key(url)}{suffix}"

    def load(self, url: str) -> Entry | None:
        path = self._path("pages", url, ".json")
        try:
            return Entry.from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError):
            return None  # a damaged entry is treated as a URL never seen before

    def save(self, entry: Entry) -> None:
        write_json(self._path("pages", entry.url, ".json"), asdict(entry))

    def text(self, url: str) -> str | None:
        try:
            return self._path("text", url, ".txt").read_text(encoding="utf-8")
        except OSError:
            return None

    def save_text(self, url: str, text: str) -> None:
        write_text(self._path("text", url, ".txt"), text)

    def stable_text(self, url: str) -> str | None:
        """The text of the confirmed baseline (what "before" means when a change settles)."""
        try:
            return self._path("text", url, ".stable.txt").read_text(encoding="utf-8")
        except OSError:
            return None

    def save_stable_text(self, url: str, text: str) -> None:
        write_text(self._path("text", url, ".stable.txt"), text)

    def pdf_path(self, url: str) -> Path:
        return self._path("pdf", url, ".pdf")

    def save_pdf(self, url: str, data: bytes) -> None:
        path = self.pdf_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)

    # -- the run journal -----------------------------------------------------------------
    def begin_run(self, params: dict[str, Any]) -> tuple[str, bool]:
        """(run id, resumed): an unfinished run with the same parameters is resumed."""
        path = self.root / "run.json"
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            run = {}
        if run and not run.get("finished") and run.get("params") == params:
            return str(run["run_id"]), True
        run_id = uuid.uuid4().hex[:12]
        write_json(path, {"run_id": run_id, "params": params, "finished": False,
                          "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
                          "previous_finished_at": run.get("finished_at", "") if run.get("finished") else
                          run.get("previous_finished_at", "")})
        return run_id, False

    def run_info(self) -> dict[str, Any]:
        try:
            return dict(json.loads((self.root / "run.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}

    def finish_run(self, run_id: str) -> None:
        run = self.run_info()
        if run.get("run_id") == run_id:
            run.update(finished=True, finished_at=datetime.now(UTC).isoformat(timespec="seconds"))
            write_json(self.root / "run.json", run)

    # -- the OCR cache: ocr/<raw hash>.json, what OCR read of a scan (core/ocr.py) ----------
    def _ocr_path(self, raw_hash: str) -> Path | None:
        """The cache file of a PDF's raw hash; None for anything but a hex digest."""
        if not 16 <= len(raw_hash) <= 64 or raw_hash.strip("0123456789abcdef"):
            return None
        return self.root / "ocr" / f"{raw_hash}.json"

    def ocr_text(self, raw_hash: str) -> dict[str, Any] | None:
        """The cached OCR reading of the PDF whose bytes hash to ``raw_hash``, if any: an
        unchanged scan is OCR'd once, whatever its URL."""
        path = self._ocr_path(raw_hash)
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path else None
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save_ocr_text(self, raw_hash: str, data: dict[str, Any]) -> None:
        path = self._ocr_path(raw_hash)
        if path is not None:
            write_json(path, data)
