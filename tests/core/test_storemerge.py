"""The merged store (``core.audit.storemerge``) on hand-made stores: the base whole but the merge's
own files, each part's files of its URLs laid over it (its other files left out), the caches'
union, every file shared by a hard link and no part's file ever written through."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sv_scrapy.core.audit import storemerge
from sv_scrapy.core.audit.store import robots_txt_url, url_key
from sv_scrapy.core.audit.storemerge import build_merged_store, building_aside, swap_in
from sv_scrapy.run.runtime import PROJECT_DIR

A, B, C = "https://a.example/x", "https://b.example/y", "https://c.example/z"


def put(store: Path, rel: str, text: str) -> Path:
    path = store / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def url_files(store: Path, url: str, text: str) -> None:
    key = url_key(url)
    for rel in (f"pages/{key}.json", f"text/{key}.txt", f"text/{key}.stable.txt"):
        put(store, rel, f"{text} {rel}")


def tree(store: Path) -> dict[str, str]:
    return {str(p.relative_to(store)): p.read_text(encoding="utf-8") for p in sorted(store.rglob("*")) if p.is_file()}


def test_the_base_whole_then_each_parts_own_urls_over_it(tmp_path: Path) -> None:
    base, other = tmp_path / "p1" / "store", tmp_path / "p2" / "store"
    for store, mark in ((base, "last month"), (other, "last month")):  # both restored from one store
        for url in (A, B, C):
            url_files(store, url, mark)
        put(store, "claims.json", "{}")
        put(store, "corrupt/x.json.20270101T030000", "damaged")
        put(store, "ocr/" + "a" * 40 + ".json", "ocr a")
    url_files(base, A, "part 1")  # part 1 fetched A
    url_files(other, B, "part 2")  # part 2 fetched B; C is nobody's this month
    put(other, "ocr/" + "b" * 40 + ".json", "ocr b")
    put(other, f"robots/{url_key('https://b.example/robots.txt')}.json", "robots b")
    built = build_merged_store(base, [(base, [A]), (other, [B])], tmp_path / "out" / "store")

    got = tree(built)
    key_a, key_b, key_c = url_key(A), url_key(B), url_key(C)
    assert got[f"pages/{key_a}.json"].startswith("part 1")
    assert got[f"text/{key_b}.stable.txt"].startswith("part 2")
    assert got[f"pages/{key_c}.json"].startswith("last month")
    assert got[f"robots/{url_key('https://b.example/robots.txt')}.json"] == "robots b"
    assert {got["ocr/" + "a" * 40 + ".json"], got["ocr/" + "b" * 40 + ".json"]} == {"ocr a", "ocr b"}
    assert "claims.json" not in got and not any(k.startswith("corrupt") for k in got)  # the merge's own
    assert os.path.samefile(built / "pages" / f"{key_b}.json", other / "pages" / f"{key_b}.json")  # linked

    swap_in(built, tmp_path / "out" / "store")
    assert tree(tmp_path / "out" / "store") == got and not built.exists()
    # the merged store's files are replaced by renames later: the parts' copies never change
    assert tree(other)[f"pages/{key_a}.json"].startswith("last month")


def test_a_part_without_the_base_is_laid_over_an_empty_store(tmp_path: Path) -> None:
    part = tmp_path / "p" / "store"
    url_files(part, A, "part")
    url_files(part, B, "not this part's")
    built = build_merged_store(None, [(part, [A])], tmp_path / "out" / "store")
    assert sorted(tree(built)) == sorted(f"{rel}" for rel in (f"pages/{url_key(A)}.json", f"text/{url_key(A)}.txt",
                                                               f"text/{url_key(A)}.stable.txt"))


def test_a_frame_or_linked_documents_copy_is_the_newest_of_the_parts(tmp_path: Path) -> None:
    """``extras/`` is keyed by the document's URL, which any part may fetch: the part that fetched
    it this month wins over the copy every part restored, whichever part comes first."""
    stores = [tmp_path / f"p{i}" / "store" for i in (1, 2, 3)]
    frame, linked = url_key("https://f.example/frame"), url_key("https://g.example/doc.pdf")

    def extra(store: Path, key: str, at: str) -> None:
        put(store, f"extras/{key}.json", json.dumps({"fetched_at": at, "text": at}))

    for store in stores:  # all restored from last month's store
        extra(store, frame, "2027-01-01T03:00:00+00:00")
        extra(store, linked, "2027-01-01T03:00:00+00:00")
    extra(stores[0], frame, "2027-02-01T03:10:00+00:00")  # part 1 (the base) fetched the frame
    extra(stores[2], linked, "2027-02-01T03:20:00+00:00")  # part 3 fetched the linked document
    built = build_merged_store(stores[0], [(s, []) for s in stores], tmp_path / "out" / "store")
    got = tree(built)
    assert json.loads(got[f"extras/{frame}.json"])["fetched_at"].startswith("2027-02")
    assert json.loads(got[f"extras/{linked}.json"])["fetched_at"].startswith("2027-02")


def test_discovery_memory_is_the_newest_parts(tmp_path: Path) -> None:
    """``discover/`` (issue #38): every part restored last month's copy; the part that searched a site
    this month wrote its sitemap and its claims' proposals anew, and that copy is the merged one."""
    base, other = tmp_path / "p1" / "store", tmp_path / "p2" / "store"
    for store in (base, other):
        put(store, "discover/sitemap/s1.json", "last month")
        put(store, "discover/proposal/c1.json", "last month")
    os.utime(base / "discover/sitemap/s1.json", (1_000_000, 1_000_000))
    os.utime(base / "discover/proposal/c1.json", (1_000_000, 1_000_000))
    put(other, "discover/sitemap/s1.json", "this month")  # part 2 searched that site
    put(other, "discover/proposal/c1.json", "this month")
    merged = tree(build_merged_store(base, [(base, [A]), (other, [B])], tmp_path / "merged"))
    assert merged["discover/sitemap/s1.json"] == merged["discover/proposal/c1.json"] == "this month"


def test_a_url_two_parts_fetched_is_the_later_parts_and_the_earlier_copy_unchanged(tmp_path: Path) -> None:
    """A part's file already placed is replaced by a later part's (unlinked, then linked anew):
    never written through, since the placed file is the earlier part's own inode."""
    first, second = tmp_path / "p1" / "store", tmp_path / "p2" / "store"
    url_files(first, A, "part 1")
    url_files(second, A, "part 2")
    built = build_merged_store(None, [(first, [A]), (second, [A])], tmp_path / "out" / "store")
    page = f"pages/{url_key(A)}.json"
    assert tree(built)[page].startswith("part 2")
    assert os.path.samefile(built / page, second / page)
    assert tree(first)[page].startswith("part 1")


def test_a_parts_robots_copy_is_kept_under_the_name_the_robots_middleware_gives_it(tmp_path: Path) -> None:
    """A host with a port: the middleware asks (and stores) ``scheme://host:port/robots.txt``,
    so the merge must pick the part's copy by that name, not by the bare host name."""
    url = "https://d.example:8443/fees"
    part = tmp_path / "p" / "store"
    url_files(part, url, "part")
    name = f"robots/{url_key(robots_txt_url('https', 'd.example:8443'))}.json"
    put(part, name, "robots d")
    built = build_merged_store(None, [(part, [url])], tmp_path / "out" / "store")
    assert tree(built)[name] == "robots d"


def two_part_stores(root: Path) -> tuple[Path, Path]:
    base, other = root / "p1" / "store", root / "p2" / "store"
    for store in (base, other):
        for url in (A, B):
            url_files(store, url, "last month")
    url_files(other, B, "part 2")
    return base, other


def test_a_store_built_aside_is_the_one_built_here(tmp_path: Path) -> None:
    base, other = two_part_stores(tmp_path)
    alone = tree(build_merged_store(base, [(base, {A}), (other, {B})], tmp_path / "here" / "store"))
    with building_aside(base, [(base, {A}), (other, {B})], tmp_path / "aside" / "store", from_urls=0) as built:
        building = built()
    assert tree(building) == alone and tree(building)[f"pages/{url_key(B)}.json"].startswith("part 2")
    assert building.parent == tmp_path / "aside"


def test_a_small_store_is_built_here_without_a_second_process(tmp_path: Path) -> None:
    base, other = two_part_stores(tmp_path)
    with building_aside(base, [(base, {A}), (other, {B})], tmp_path / "out" / "store") as built:
        assert multiprocessing.active_children() == []
        assert tree(built())[f"pages/{url_key(B)}.json"].startswith("part 2")


def test_what_the_build_aside_raised_is_raised_when_waited_for(tmp_path: Path) -> None:
    base, _ = two_part_stores(tmp_path)
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    with building_aside(base, [(base, {A})], tmp_path / "file" / "store", from_urls=0) as built, \
            pytest.raises(NotADirectoryError):
        built()


def test_a_caller_that_fails_leaves_no_store_half_built(tmp_path: Path) -> None:
    base, other = two_part_stores(tmp_path)
    with pytest.raises(ValueError, match="the finish failed"), \
            building_aside(base, [(base, {A}), (other, {B})], tmp_path / "out" / "store", from_urls=0) as built:
        assert built().is_dir()
        raise ValueError("the finish failed")
    assert not (tmp_path / "out" / "store.merging").exists()


class NoSemaphores:
    """A platform where no process can be started (no /dev/shm for multiprocessing's locks)."""

    def Pipe(self, duplex: bool = True) -> None:  # noqa: N802 - multiprocessing's name
        raise OSError(38, "Function not implemented")


def test_where_no_process_can_start_the_build_runs_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storemerge.multiprocessing, "get_context", lambda method: NoSemaphores())
    base, other = two_part_stores(tmp_path)
    with building_aside(base, [(base, {A}), (other, {B})], tmp_path / "out" / "store", from_urls=0) as built:
        assert tree(built())[f"pages/{url_key(B)}.json"].startswith("part 2")


KILLED_MERGE = """
import multiprocessing, os, signal, sys
from pathlib import Path
from sv_scrapy.core.audit.storemerge import building_aside
base = Path(sys.argv[1])
with building_aside(base, [(base, {"https://a.example/x"})], Path(sys.argv[2]), from_urls=0) as built:
    print(*(child.pid for child in multiprocessing.active_children()), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # killed while the store is built
"""


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/status").read_text(encoding="utf-8").split("State:")[1].split()[0] == "Z"
    except (FileNotFoundError, IndexError):
        return True


@pytest.mark.subprocess
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's state in /proc")
def test_a_killed_merge_leaves_no_process_behind(tmp_path: Path) -> None:
    base, _ = two_part_stores(tmp_path)
    done = subprocess.run([sys.executable, "-c", KILLED_MERGE, str(base), str(tmp_path / "out" / "store")],
                          capture_output=True, text=True, timeout=60, cwd=PROJECT_DIR)
    assert done.returncode == -signal.SIGKILL, done.stderr
    pids = [int(pid) for pid in done.stdout.split()]
    assert pids  # the build's process, and multiprocessing's resource tracker
    deadline = time.monotonic() + 30
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in pids if not gone(pid)] == []
