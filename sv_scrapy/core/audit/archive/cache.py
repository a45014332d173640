"""The archive's answers kept in the content store (``store/archive/``), so that a warm audit
asks the Wayback Machine nothing for a claim it already looked up:

    archive/cdx/<sha1(url + date)>.json        the two CDX answers for (URL, stamp date)
    archive/capture/<sha1(url + timestamp)>.json what the reading stages got out of a capture
    archive/failed/<sha1(url + date)>.json     a lookup that failed: why, and when it was asked

A capture never changes, so neither expires. A failed lookup is asked again on a schedule, not
every run: from ``RETRY_FAILED_AFTER_DAYS`` after it failed (the next monthly audit). File
names are hashes, never URL-derived text; a file that does not parse, or holds another key, is
read as absent (and simply rewritten).
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.audit.archive.cdx import Capture, captures_from_json, captures_to_json

FOLDER = "archive"
RETRY_FAILED_AFTER_DAYS = 28  # a monthly audit asks a failed lookup again the next month, not the same week


def _key(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


def read_keyed(root: Path, kind: str, key: str) -> dict[str, Any] | None:
    """``root/kind/<key>.json`` when it parses and holds ``key``; else None (absent, or to be rewritten)."""
    try:
        data = json.loads((root / kind / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("key") == key else None


class ArchiveCache:
    def __init__(self, store_root: Path) -> None:
        self.root = store_root / FOLDER

    def _read(self, kind: str, key: str) -> dict[str, Any] | None:
        return read_keyed(self.root, kind, key)

    def cdx(self, url: str, day: str) -> tuple[list[Capture], list[Capture]] | None:
        """The kept (before, after) CDX rows for the URL and stamp date, if any."""
        data = self._read("cdx", _key(url, day))
        if data is None:
            return None
        before, after = captures_from_json(data.get("before")), captures_from_json(data.get("after"))
        return (before, after) if before is not None and after is not None else None

    def save_cdx(self, url: str, day: str, before: list[Capture], after: list[Capture], at: str) -> None:
        key = _key(url, day)
        write_json(self.root / "cdx" / f"{key}.json", {"key": key, "url": url, "date": day, "asked_at": at,
                                                       "before": captures_to_json(before),
                                                       "after": captures_to_json(after)})

    def capture(self, url: str, timestamp: str) -> dict[str, Any] | None:
        """What was read of the capture (kind, text, method, …), if it was read before."""
        return self._read("capture", _key(url, timestamp))

    def save_capture(self, url: str, timestamp: str, reading: dict[str, Any]) -> None:
        key = _key(url, timestamp)
        write_json(self.root / "capture" / f"{key}.json", {**reading, "key": key, "url": url, "timestamp": timestamp})

    def failure(self, url: str, day: str, today: str) -> dict[str, Any] | None:
        """A failure of the (URL, stamp date) lookup not yet due to be asked again on ``today``
        (``YYYY-MM-DD``): its ``reason``, ``asked_at`` and ``retry_from``; None to ask."""
        data = self._read("failed", _key(url, day))
        if data is None or not str(data.get("reason") or ""):
            return None
        return data if str(data.get("retry_from") or "") > today[:10] else None

    def save_failure(self, url: str, day: str, reason: str, at: str) -> None:
        key = _key(url, day)
        retry_from = (date.fromisoformat(at[:10]) + timedelta(days=RETRY_FAILED_AFTER_DAYS)).isoformat()
        write_json(self.root / "failed" / f"{key}.json", {"key": key, "url": url, "date": day, "reason": reason,
                                                          "asked_at": at, "retry_from": retry_from})
