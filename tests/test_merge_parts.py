"""``scrapy merge``'s judgement of the folders it is given, on hand-made parts: a folder that is no
part (exit 2), parts of different N, month or corpus commit, one index twice, a host in two parts;
and the stable ownership of a host."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.partfile import PART_FILE, write_part
from sv_scrapy.core.audit.parts import owner_of
from sv_scrapy.core.audit.partsmerge import judge, merged_inputs, read_part
from sv_scrapy.core.errors import ArgumentError
from testing.commands import scrapy_in_process

from .conftest import run_scrapy


def part_folder(root: Path, name: str, part: str, *, month: str = "2027-01", commit: str = "abc",
                hosts: tuple[str, ...] = (), finished: bool = True, failure: str = "") -> Path:
    folder = root / name
    (folder / "store").mkdir(parents=True)
    run = {"run_id": f"run-{name}", "params": {"part": part}, "finished": finished}
    (folder / "store" / "run.json").write_text(json.dumps(run), encoding="utf-8")
    claims: list[dict[str, Any]] = [{"id": f"fr:{i}:{h}", "source_host": h, "source_url": f"https://{h}/"}
                                    for i, h in enumerate(hosts)]
    if finished:
        (folder / "part.json").write_text(json.dumps({
            "version": 1, "part": part, "run_id": f"run-{name}", "generated_at": f"{month}-01T03:00:00+00:00",
            "corpus_commit": commit, "failure": failure, "claims": claims,
            "corpus": [[c["id"], c["source_host"]] for c in claims]}), encoding="utf-8")
    return folder


@pytest.mark.parametrize(("host", "count", "owner"), [
    ("www.impots.gouv.fr", 4, owner_of("impots.gouv.fr", 4)),  # one site, one part
    ("eur-lex.europa.eu", 1, 1),
])
def test_a_hosts_part_is_its_sites(host: str, count: int, owner: int) -> None:
    assert owner_of(host, count) == owner


def test_ownership_is_a_stable_hash_not_pythons() -> None:
    # fixed by SHA-256 of the registrable domain: the same on every machine and in every process
    assert [owner_of(f"www.site{k:02d}.gouv.fr", 3) for k in range(1, 9)] == [1, 3, 2, 2, 2, 3, 2, 1]


@pytest.mark.subprocess
def test_a_folder_that_is_no_part_is_the_users_mistake(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(ArgumentError, match="not an audit part"):
        read_part(tmp_path / "plain")
    result = run_scrapy("merge", str(tmp_path / "plain"), "--into", str(tmp_path / "out"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "not an audit part" in result.stderr
    assert not (tmp_path / "out").exists()
    assert run_scrapy("merge", "--into", str(tmp_path / "out")).returncode == 2


def test_parts_that_disagree_are_named_and_left_out(tmp_path: Path) -> None:
    parts = [read_part(part_folder(tmp_path, "a", "1/3", hosts=("a.gouv.fr",))),
             read_part(part_folder(tmp_path, "b", "2/3", month="2027-02", hosts=("b.gouv.fr",))),
             read_part(part_folder(tmp_path, "c", "3/4", hosts=("c.gouv.fr",))),
             read_part(part_folder(tmp_path, "d", "1/3", hosts=("d.gouv.fr",)))]
    found = judge(parts)
    assert [p.folder.name for p in found.merged] == ["a"]
    line = found.line()
    assert "audited month 2027-02" in line and "is of 4 parts, not 3" in line and "part 1/3 given twice" in line
    assert "part 2/3 missing" not in line and "part 3/3 missing" in line


def test_an_unfinished_or_failed_part_is_named_with_its_hosts(tmp_path: Path) -> None:
    hosts = ("www.one.gouv.fr", "www.two.gouv.fr", "www.three.gouv.fr", "www.four.gouv.fr")
    owners = {h: owner_of(h, 2) for h in hosts}
    assert set(owners.values()) == {1, 2}
    corpus_of_all = part_folder(tmp_path, "p1", "1/2", hosts=hosts)
    killed = part_folder(tmp_path, "p2", "2/2", finished=False)
    found = judge([read_part(corpus_of_all), read_part(killed)])
    assert found.line().startswith("merge incomplete: part 2/2 in ") and "did not finish" in found.line()
    assert found.unaudited == sorted(h for h, o in owners.items() if o == 2)
    failed = judge([read_part(part_folder(tmp_path, "f", "1/1", failure="the disk is full"))])
    assert failed.merged == [] and "part 1/1 failed (the disk is full)" in failed.line()


def test_a_host_claimed_by_two_parts_is_named(tmp_path: Path) -> None:
    found = judge([read_part(part_folder(tmp_path, "x", "1/2", hosts=("same.gouv.fr",))),
                   read_part(part_folder(tmp_path, "y", "2/2", hosts=("same.gouv.fr",)))])
    assert "host same.gouv.fr claimed by two parts" in found.line()


def test_a_merge_run_in_process_leaves_the_collector_on(tmp_path: Path) -> None:
    # the merge turns the cyclic collector off while it holds the parts; a caller's process gets it back
    (tmp_path / "plain").mkdir()
    assert scrapy_in_process("merge", str(tmp_path / "plain"), "--into", str(tmp_path / "out")).returncode == 2
    assert gc.isenabled()


def test_a_part_of_the_previous_release_reads_as_this_releases(tmp_path: Path) -> None:
    # part.json version 1 (one indented document, as the previous release wrote it) and version 2
    # (one member a line, read line by line) of the same part hand the merge the same part
    claims = [{"id": f"fr:{i}:x", "source_host": f"h{i % 2}.gouv.fr", "source_url": f"https://h{i % 2}.gouv.fr/{i}",
               "claim_text": "taux « 5,81 % »\nsur deux lignes"} for i in range(3)]
    inputs: dict[str, Any] = {
        "records": {c["id"]: {**c, "prior": "TOKENS_PRESENT", "final_url": "https://other.fr/x", "score": 0.1}
                    for c in claims[:2]},
        "urls": {c["source_url"]: {"fetch_status": "OK", "not_modified": False} for c in claims[:2]},
        "failure": "", "archive_counts": {"lookups": 2}, "claims": claims, "params": {"part": "1/2"},
        "run_id": "run-1", "generated_at": "2027-01-01T03:00:00+00:00", "corpus_commit": "abc", "joined": {}}
    corpus = [(c["id"], c["source_host"]) for c in claims]
    read = []
    for version in (1, 2):
        folder = tmp_path / f"v{version}"
        (folder / "store").mkdir(parents=True)
        (folder / "store" / "run.json").write_text(json.dumps({"run_id": "run-1", "finished": True}), encoding="utf-8")
        if version == 1:
            doc = {"version": 1, "part": "1/2", "corpus": [list(p) for p in corpus], **inputs}
            (folder / PART_FILE).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        else:
            write_part(folder / PART_FILE, part="1/2", inputs=inputs, corpus_index=corpus)
            assert json.loads((folder / PART_FILE).read_text(encoding="utf-8"))["records"] == inputs["records"]
        part = read_part(folder)
        assert part.doc is not None and not part.problem
        got = merged_inputs(judge([part]))
        read.append((part.doc.head | {"version": 0}, part.doc.hosts, part.doc.hops, part.doc.cited, list(got["claims"]),
                     dict(got["records"]), got["urls"], got["archive_counts"], judge([part]).corpus))
    assert read[0] == read[1]
    assert read[1][4] == claims and read[1][2] == [("h0.gouv.fr", "other.fr"), ("h1.gouv.fr", "other.fr")]


def test_equal_page_rows_of_a_part_are_read_as_one(tmp_path: Path) -> None:
    # 100,000 pages' counted fields take a few hundred values: each read once, not held per page
    urls = {f"https://h.gouv.fr/{i}": {"fetch_status": "OK" if i % 2 else "DEAD", "not_modified": False}
            for i in range(4)}
    inputs: dict[str, Any] = {"records": {}, "urls": urls, "failure": "", "claims": [], "params": {"part": "1/1"},
                              "run_id": "run-1", "generated_at": "2027-01-01T03:00:00+00:00", "corpus_commit": "abc"}
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "run.json").write_text(json.dumps({"run_id": "run-1", "finished": True}), encoding="utf-8")
    write_part(tmp_path / PART_FILE, part="1/1", inputs=inputs, corpus_index=[])
    read = read_part(tmp_path).doc
    assert read is not None and read.urls == urls
    assert len({id(row) for row in read.urls.values()}) == 2
