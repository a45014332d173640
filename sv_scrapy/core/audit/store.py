"""The content store: one JSON entry per URL (plus its text, and a PDF's bytes when we could
not read it), and a run journal so an audit killed halfway resumes where it stopped.

Layout under ``<SV_OUTPUT_DIR>/store/``::

    pages/<sha1(url)>.json   entry: hashes, validators, content state, fail streak, the
                             excerpts around each claim's figures, this run's claim results,
                             and what a 304 restores with the text (lang, title, line shapes)
    text/<sha1(url)>.txt     the cleaned text of the last fetch that had one
    pdf/<sha1(url)>.pdf      bytes of a PDF without a text layer (for the LLM layer)
    run.json                 the current run: id, parameters, finished or not
    claims.json              each claim's last outcome (next month's news compares with it)
    history.json             each finished audit's counts
    sites.json               sites joined by a redirect from one to the other: one part owns them
                             (written by ``scrapy merge``; ``core.audit.parts.joined_sites``)
    ocr/<sha256(pdf)>.json   what OCR read of a scan
    robots/<sha1(url)>.json  the last robots.txt a host answered 2xx with (stands in when it is unreachable)
    corrupt/                 entries and texts that failed their check, set aside
    FORMAT.json              the store's format version (``core.audit.storeformat``)

Every file is written atomically, so a kill at any instant leaves either the old or the new
version. File names are hashes, never page- or URL-derived text. Every entry carries a
checksum of itself and every text file a hash of its text, checked on read: a damaged one
(a disk error, a hand edit, a truncated copy) is moved to ``corrupt/``, named in
``quarantined`` (for the report) and read as absent, so that page is fetched fresh and no
other page's fail streak or baseline is touched.

A store written before formats were versioned has no ``FORMAT.json``; its files are read by
their own shape (an entry without a checksum, a text without its header: written by a release
that had none) — *lenient* — until ``core.audit.storeformat`` has migrated it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any, TypeVar

from sv_scrapy.core.atomic import write_bytes, write_json, write_text
from sv_scrapy.core.audit.news import shared_values
from sv_scrapy.core.audit.outcomes import as_json_object
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.clock import Clock
from sv_scrapy.core.digest import sha256_hex
from sv_scrapy.core.page.changes import ContentState

_T = TypeVar("_T")
logger = logging.getLogger(__name__)

TEXT_HEADER = "sv-text sha256="  # first line of a stored text: the hash of what follows


# one encoder for every entry's checksum: ``json.dumps`` with options builds a new one each call,
# half of the checksum's time (an entry is checked on each write and each read)
_CHECKSUM_TEXT = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode


def _entry_checksum(data: dict[str, Any]) -> str:
    return sha256_hex(_CHECKSUM_TEXT(data))


def seal_text(text: str) -> str:
    """A text as stored: a header line with its hash, then the text.

    >>> seal_text("Taux 5,81 %").splitlines()[0][:20]
    'sv-text sha256=c8a4b'
    """
    return f"{TEXT_HEADER}{sha256_hex(text)}\n{text}"


def open_text(stored: str) -> str | None:
    r"""The text of a stored file, or None when its hash does not match (or it has none).

    >>> open_text(seal_text("a\nb")), open_text(seal_text("a\nb")[:-1]), open_text("a")
    ('a\nb', None, None)
    """
    header, sep, text = stored.partition("\n")
    if not sep or not header.startswith(TEXT_HEADER) or sha256_hex(text) != header[len(TEXT_HEADER):]:
        return None
    return text


def url_key(url: str) -> str:
    return hashlib.sha1(url.encode("utf-8")).hexdigest()


def robots_txt_url(scheme: str, netloc: str) -> str:
    """The URL a host's robots.txt is asked at, and so the name its stored copy is kept under: the
    robots middleware saves and looks up by it, the store merge picks a part's copies by it."""
    return f"{scheme}://{netloc}/robots.txt"


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
    results: list[ClaimRecord] = field(default_factory=list)  # that run's claim records
    rendered: bool = False  # read through the browser: rendered again next run, never a 304
    # what a 304 restores besides the text, so that the page is judged as its last full read was
    # (store format 4): the language, the title and an HTML text's line shapes, one JSON text tied
    # to that text's hash (core.page.shape.shapes_to_json; None: none kept, the page is read in full)
    lang: str = ""
    title: str = ""
    shapes: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        """An entry as stored; a field an older release did not write takes its default, one a
        newer release added is ignored."""
        data = dict(data)
        state = data.get("state") or {}
        known_state = {f.name for f in dataclass_fields(ContentState)}
        data["state"] = ContentState(**{k: v for k, v in state.items() if k in known_state})
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_json(self) -> dict[str, Any]:
        """The entry as stored: its fields in order, the content state as an object of its own.
        Shallow: the records and excerpts are plain JSON values already, and ``dataclasses.asdict``
        deep-copied each of them once more for every page journalled (~130 calls an entry, 0.4 ms
        of the crawl's CPU a page: issue #42); the text written is the same."""
        data = {name: getattr(self, name) for name in _ENTRY_FIELDS}
        data["state"] = asdict(self.state)
        return data


_ENTRY_FIELDS = tuple(f.name for f in dataclass_fields(Entry))


def sealed(stored: str, lenient: bool) -> str | None:
    """The text of a stored file: checked against its header; a text with no header at all is
    an older release's, taken as it is only when ``lenient`` (a pre-versioned store).

    >>> sealed(seal_text("x"), False), sealed("x", True), sealed("x", False)
    ('x', 'x', None)
    """
    if lenient and not stored.startswith(TEXT_HEADER):
        return stored
    return open_text(stored)


class ContentStore:
    def __init__(self, root: Path, clock: Clock | None = None, *, lenient: bool = False,
                 read_only: bool = False) -> None:
        self.root = root
        self.clock = clock or Clock()
        self.lenient = lenient  # a store from before formats were versioned, not yet migrated
        self.read_only = read_only  # a check: damage is named, nothing is moved
        self.quarantined: list[dict[str, str]] = []  # {"url", "file", "why"}: set aside this run

    def _path(self, kind: str, url: str, suffix: str) -> Path:
        return self.root / kind / f"{url_key(url)}{suffix}"

    def quarantine(self, path: Path, url: str, why: str) -> None:
        """Set a damaged file aside in ``corrupt/`` and name it for the report."""
        self.quarantined.append({"url": url, "file": path.name, "why": why})
        if self.read_only:
            return
        target = self.root / "corrupt" / f"{path.name}.{self.clock.now():%Y%m%dT%H%M%S}"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        except OSError:
            target = path  # could not move it: it is still read as absent
        logger.warning("content store: %(why)s for %(url)s; set aside as %(target)s, the page is fetched fresh",
                       {"why": why, "url": url, "target": target})

    def load(self, url: str) -> Entry | None:
        path = self._path("pages", url, ".json")
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.quarantine(path, url, f"unreadable entry ({exc.strerror})")
            return None
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not an entry")
            # an older release wrote no checksum; since formats are versioned every entry has one
            if ("checksum" in data or not self.lenient) and data.pop("checksum", None) != _entry_checksum(data):
                raise ValueError("checksum mismatch")
            entry = Entry.from_json(data)
            if entry.url != url:
                raise ValueError("entry of another URL")
        except (ValueError, TypeError, AttributeError) as exc:
            self.quarantine(path, url, f"corrupt entry ({str(exc)[:60]})")
            return None
        return entry

    def save(self, entry: Entry) -> None:
        data = entry.to_json()
        write_json(self._path("pages", entry.url, ".json"), {**data, "checksum": _entry_checksum(data)})

    def _read_text(self, url: str, suffix: str) -> str | None:
        return self.read_text_file(self._path("text", url, suffix), url)

    def read_text_file(self, path: Path, url: str) -> str | None:
        """A stored text checked (``sealed``); a damaged one is set aside and read as absent."""
        try:
            # bytes, then text: read_text would turn a plain-text page's "\r\n" into "\n", and its
            # hash check would fail every month
            stored = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError):
            stored = ""
        text = sealed(stored, self.lenient)
        if text is None:
            self.quarantine(path, url, "stored text fails its hash check")
        return text

    def text(self, url: str) -> str | None:
        return self._read_text(url, ".txt")

    def save_text(self, url: str, text: str) -> None:
        write_text(self._path("text", url, ".txt"), seal_text(text))

    def stable_text(self, url: str) -> str | None:
        """The text of the confirmed baseline (what "before" means when a change settles)."""
        return self._read_text(url, ".stable.txt")

    def has_stable_text(self, url: str) -> bool:
        """Whether the baseline's text is on disk (without reading it: when the entry says the
        baseline is the latest text, that text is the one already read)."""
        return self._path("text", url, ".stable.txt").is_file()

    def save_stable_text(self, url: str, text: str) -> None:
        write_text(self._path("text", url, ".stable.txt"), seal_text(text))

    def pdf_path(self, url: str) -> Path:
        return self._path("pdf", url, ".pdf")

    def save_pdf(self, url: str, data: bytes) -> None:
        write_bytes(self.pdf_path(url), data)

    def robots(self, robots_url: str) -> tuple[bytes, str] | None:
        """The robots.txt body (and its date) last stored for ``robots_url``; None when none is
        (or it fails its check: then it is set aside like any damaged file)."""

        def check(data: dict[str, Any]) -> tuple[bytes, str]:
            body, when = data["body"], data["fetched_at"]
            if data.get("checksum") != sha256_hex(body) or not isinstance(when, str):
                raise ValueError("checksum mismatch")
            return body.encode("utf-8"), when

        return self._checked(self._path("robots", robots_url, ".json"), robots_url, "stored robots.txt", check)

    def _checked(self, path: Path, url: str, what: str, check: Callable[[dict[str, Any]], _T]) -> _T | None:
        """A stored JSON file through ``check``; absent: None; failing its check: set aside, None."""
        try:
            return check(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError, UnicodeDecodeError):
            self.quarantine(path, url, f"{what} fails its check")
            return None

    def save_robots(self, robots_url: str, body: bytes) -> None:
        text = body.decode("utf-8", "replace")
        write_json(self._path("robots", robots_url, ".json"),
                   {"url": robots_url, "fetched_at": self.clock.iso(), "body": text, "checksum": sha256_hex(text)})

    def extra(self, url: str) -> tuple[dict[str, str], str] | None:
        """A frame's or linked document's validators (``etag``, ``last_modified``) and the text
        read from it last time; None when none is kept (or it fails its check: set aside)."""

        def check(data: dict[str, Any]) -> tuple[dict[str, str], str]:
            text = data["text"]
            if data.get("url") != url or not isinstance(text, str) or data.get("checksum") != sha256_hex(text):
                raise ValueError("checksum mismatch")
            return {k: str(data.get(k) or "") for k in ("etag", "last_modified")}, text

        return self._checked(self._path("extras", url, ".json"), url, "stored frame or linked document", check)

    def save_extra(self, url: str, etag: str, last_modified: str, text: str) -> None:
        write_json(self._path("extras", url, ".json"),
                   {"url": url, "fetched_at": self.clock.iso(), "etag": etag, "last_modified": last_modified,
                    "text": text, "checksum": sha256_hex(text)})

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
                          "started_at": self.clock.iso(),
                          "previous_finished_at": run.get("finished_at", "") if run.get("finished") else
                          run.get("previous_finished_at", "")})
        return run_id, False

    def run_info(self) -> dict[str, Any]:
        try:
            return dict(json.loads((self.root / "run.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}

    def finish_run(self, run_id: str, finished_at: str) -> None:
        """Close the run at ``finished_at``: the audit's ``generated_at``, so that the next audit's
        news is "since" the very instant this one's reports name (not a second read of the clock)."""
        run = self.run_info()
        if run.get("run_id") == run_id:
            run.update(finished=True, finished_at=finished_at)
            write_json(self.root / "run.json", run)

    # -- claims.json (each claim's last outcome) and history.json (each audit's counts): issue #14 --
    def _read_json_file(self, name: str, object_hook: Callable[[dict[str, Any]], Any] | None = None) -> Any:
        try:
            return json.loads((self.root / name).read_text(encoding="utf-8"), object_hook=object_hook)
        except (OSError, ValueError):
            return None  # missing or damaged: as if no audit had finished before

    def claim_outcomes(self) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """(claim id -> outcome kept by the last finished audit, scope -> when it was last audited)."""
        # each object's words shared as it is decoded: a second dict of every outcome made after
        # the decoding was the finish's peak on an audit after the first (~940 -> ~700 bytes a claim)
        data = self._read_json_file("claims.json", object_hook=shared_values)
        if not isinstance(data, dict):
            return {}, {}
        outcomes, scopes = data.get("outcomes"), data.get("scopes")
        if not isinstance(outcomes, dict):
            return {}, (scopes if isinstance(scopes, dict) else {})
        return outcomes, (scopes if isinstance(scopes, dict) else {})

    def save_claim_outcomes(self, outcomes: Mapping[str, Mapping[str, Any]], scopes: dict[str, str]) -> None:
        """Streamed from the finish's spool (``core.audit.outcomes``), never held whole."""
        write_json(self.root / "claims.json", {"version": 1, "scopes": scopes, "outcomes": as_json_object(outcomes)})

    def history(self) -> list[dict[str, Any]]:
        """Each finished audit's counts, oldest first."""
        data = self._read_json_file("history.json")
        return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []

    def save_history(self, history: list[dict[str, Any]]) -> None:
        write_json(self.root / "history.json", history)

    def joined_sites(self) -> dict[str, str]:
        """Site -> its group's first site, for the sites redirects join (empty: none, or unreadable)."""
        data = self._read_json_file("sites.json")
        joined = data.get("joined") if isinstance(data, dict) else None
        return {str(k): str(v) for k, v in joined.items()} if isinstance(joined, dict) else {}

    def save_joined_sites(self, joined: dict[str, str]) -> None:
        write_json(self.root / "sites.json", {"version": 1, "joined": joined})

    # -- the OCR cache: ocr/<raw hash>.json, what OCR read of a scan (core/page/ocr.py) ----------
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
