"""Scans sent once: a PDF without a text layer goes up through the Files API and every
request that carries it (the token count, the send, its retries, a batch's second round)
names its ``file_id`` instead of repeating the base64 bytes. Each distinct PDF is uploaded
once (by content hash) with an expiry that outlives the run (an hour in sync mode, two days
in batch mode, where a batch may take 24 hours) and deleted when the run has its answers. An
upload the API refuses leaves that request as it was (base64), said so once.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from sv_scrapy.llm.client import from_exception

SYNC_TTL_S = 3600  # the API's shortest expiry
BATCH_TTL_S = 2 * 86_400


def _documents(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The document blocks of the request's messages (a message's content may be a plain string)."""
    blocks = [m["content"] for m in params.get("messages", []) if isinstance(m.get("content"), list)]
    return [b for content in blocks for b in content if b.get("type") == "document"]


def upload_scans(client: Any, jobs: Mapping[str, dict[str, Any]], batch: bool, log: Callable[[str], None]
                 ) -> list[str]:
    """Replace every base64 PDF in ``jobs`` by its uploaded ``file_id``; the ids uploaded."""
    by_hash: dict[str, str] = {}
    saved = 0
    for params in jobs.values():
        for block in _documents(params):
            source = block.get("source") or {}
            if source.get("type") != "base64":
                continue
            data = base64.b64decode(source["data"])
            digest = hashlib.sha256(data).hexdigest()
            if digest not in by_hash:
                try:
                    meta = client.files.upload(file=(f"scan-{digest[:16]}.pdf", data, "application/pdf"),
                                               expires_in_seconds=BATCH_TTL_S if batch else SYNC_TTL_S)
                except Exception as exc:  # the Files API refused: this scan stays base64
                    log(f"Files API upload failed ({from_exception(exc).error}): the scan is sent as base64")
                    by_hash[digest] = ""
                    continue
                by_hash[digest] = str(meta.id)
            if by_hash[digest]:
                saved += len(source["data"])
                block["source"] = {"type": "file", "file_id": by_hash[digest]}
    ids = [i for i in by_hash.values() if i]
    if ids:
        log(f"{len(ids)} scan(s) uploaded once through the Files API ({saved:,} bytes of base64 no longer "
            f"repeated in each request)")
    return ids


def delete_files(client: Any, ids: list[str]) -> None:
    """Best effort: a file left behind expires by itself."""
    for file_id in ids:
        try:
            client.files.delete(file_id)
        except Exception:  # noqa: S112 — the expiry deletes it anyway
            continue
