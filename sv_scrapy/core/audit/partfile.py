"""``<SV_OUTPUT_DIR>/part.json``: what a finished part (``-a part=I/N``) hands ``scrapy merge`` —
the crawl's side of the finish's inputs (``core.report.finish.AuditInputs``) as they were before
the part's own finish touched them, and the whole corpus's claim ids and hosts in corpus order
(so the merge orders the union and names the hosts of a part that never finished).

Written first at the part's finish; the part's journal (``store/run.json``) is closed last, so
a ``part.json`` whose run id is the journal's finished run is a complete part.

Version 2 is still one JSON document, laid out so it is written and read one member at a time:
every line is one member (``"key": value`` of the document or of a map, or one element of a
list) in compact JSON, except the lines that open (``"records": {``) and close (``}``) the four
large members — ``corpus``, ``records``, ``urls``, ``claims``. A 100,000-claim part is ~270 MB:
version 1 (indented, read whole) took the merge to 1.3 GB (issue #42). Version 1 is still read."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy.core.atomic import write_chunks
from sv_scrapy.core.audit.spool import Place, Spool

PART_FILE = "part.json"
VERSION = 2
READ_VERSIONS = (1, 2)
LISTS, MAPS = ("corpus", "claims"), ("records", "urls")  # the large members, one line per element
_KEYS = json.JSONDecoder()  # a member's key, read off the front of its line


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _section(name: str, members: Iterable[str], is_map: bool) -> Iterator[str]:
    yield f"{_dumps(name)}: {'{' if is_map else '['}"
    sep = "\n"
    for member in members:
        yield sep + member
        sep = ",\n"
    yield "\n" + ("}" if is_map else "]")


def write_part(path: Path, *, part: str, inputs: Mapping[str, Any], corpus_index: Iterable[tuple[str, str]]) -> None:
    """The part's file, atomically, one member at a time: ``inputs`` are the finish's crawl-side
    inputs (``records`` may read each record from the journal as it is written)."""
    def chunks() -> Iterator[str]:
        yield "{\n"
        for key, value in {"version": VERSION, "part": part, **inputs}.items():
            if key not in LISTS + MAPS:
                yield f"{_dumps(key)}: {_dumps(value)},\n"
        yield from _section("corpus", (_dumps(list(pair)) for pair in corpus_index), False)
        for name in ("records", "urls"):
            yield ",\n"
            yield from _section(name, (f"{_dumps(k)}: {_dumps(v)}" for k, v in inputs[name].items()), True)
        yield ",\n"
        yield from _section("claims", (_dumps(c) for c in inputs["claims"]), False)
        yield "\n}\n"
    write_chunks(path, chunks())


@dataclass
class PartData:
    """A part's file as the merge holds it: its small members in ``head``, its records and claims
    in a spool (by claim id), what the merge's checks need of them gathered as they were read."""

    head: dict[str, Any]
    spool: Spool = field(default_factory=Spool)
    corpus: list[tuple[str, str]] = field(default_factory=list)
    urls: dict[str, Any] = field(default_factory=dict)
    records: dict[str, Place] = field(default_factory=dict)  # claim id -> its record in the spool
    claims: dict[str, Place] = field(default_factory=dict)  # claim id -> the claim in the spool
    hosts: list[str] = field(default_factory=list)  # the claims' hosts, each once, in order
    cited: set[str] = field(default_factory=set)  # the claims' URLs
    hops: list[tuple[str, str]] = field(default_factory=list)  # (cited host, host the fetch ended on)

    def get(self, key: str, default: Any = None) -> Any:
        return self.head.get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.head[key]

    def add_record(self, claim_id: str, record: Any, encoded: str | None = None) -> None:
        """``record``; ``encoded``: its JSON text as read, spooled as it is."""
        number = self.spool.add(record) if encoded is None else self.spool.add_encoded(encoded)
        self.records[str(claim_id)] = (self.spool, number)
        cited, landed = str(record.get("source_host", "")), urlsplit(str(record.get("final_url") or "")).hostname or ""
        if cited and landed:
            self.hops.append((cited, landed))

    def add_claim(self, claim: Any, hosts: dict[str, None], encoded: str | None = None) -> None:
        """``claim`` (its host into ``hosts``); ``encoded``: its JSON text as read, spooled as it is."""
        number = self.spool.add(claim) if encoded is None else self.spool.add_encoded(encoded)
        self.claims[str(claim["id"])] = (self.spool, number)
        hosts[str(claim.get("source_host", ""))] = None
        self.cited.add(str(claim.get("source_url", "")))


def read_part_file(path: Path, spool: Spool) -> PartData | None:
    """The part's file (``None`` when there is none); raises ``ValueError`` (or ``OSError``) when
    it is unreadable. Records and claims go to ``spool``."""
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        return None
    with fh:
        first, second = fh.readline(), fh.readline()
        if first.strip() == b"{" and second.startswith(b'"version": 2,'):
            fh.seek(0)
            return _read_lines(fh, spool)
        fh.seek(0)
        doc = json.load(fh)  # version 1: one indented document, read whole
    if not isinstance(doc, dict):
        raise ValueError("not a part document")
    data, hosts = PartData({k: v for k, v in doc.items() if k not in LISTS + MAPS}, spool), dict[str, None]()
    data.corpus = [(str(i), str(h)) for i, h in doc.get("corpus", [])]
    data.urls = dict(doc.get("urls") or {})
    for cid, record in (doc.get("records") or {}).items():
        data.add_record(cid, record)
    for claim in doc.get("claims") or []:
        data.add_claim(claim, hosts)
    data.hosts = list(hosts)
    return data


def _member(line: str) -> tuple[str, str]:
    """A member's line (``"key": value``) -> its key and its value's JSON text (``ValueError``
    when it is no member: the text after the key is checked by whoever decodes it)."""
    key, end = _KEYS.raw_decode(line) if line.startswith('"') else (None, 0)
    if not isinstance(key, str) or line[end:end + 2] != ": ":
        raise ValueError(f"not a member of a part file: {line[:40]!r}")
    return key, line[end + 2:]


def _read_lines(lines: Iterable[bytes], spool: Spool) -> PartData:
    data, hosts = PartData({}, spool), dict[str, None]()
    rows: dict[str, Any] = {}  # a url row's text -> its one decoded dict (a few hundred among 100,000 pages)
    section, ended = "", False
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\n").removesuffix(",")
        if section and line in ("]", "}"):
            section = ""
        elif section in LISTS:
            value = json.loads(line)
            if section == "corpus":
                data.corpus.append((str(value[0]), str(value[1])))
            else:
                data.add_claim(value, hosts, line)
        elif section:
            key, text = _member(line)
            if section == "records":
                data.add_record(key, json.loads(text), text)
            else:  # a page's counted fields: equal rows are one shared dict, as the crawl holds them
                if text not in rows:
                    rows[text] = json.loads(text)
                data.urls[key] = rows[text]
        elif line.endswith((": [", ": {")):
            section = json.loads(line[:-3])
        elif line == "}":
            ended = True
        elif line != "{":
            key, text = _member(line)
            data.head[key] = json.loads(text)
    if not ended or "version" not in data.head:
        raise ValueError("a part file cut short")
    data.hosts = list(hosts)
    return data
