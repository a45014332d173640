"""The merged content store: next month's input for any N (``scrapy merge``).

Every part started from the same store (last month's merged one, restored) and wrote only its own
hosts' files, so the merge takes the first part's store whole — the memory of every page, cited
this month or not — and lays over it, part by part, the files of the URLs that part fetched
(``pages/``, ``text/``, ``pdf/``; ``robots/`` of its hosts). Content-addressed caches (``ocr/``,
``archive/``) are the union. ``claims.json``, ``history.json`` and ``run.json`` are the merge's
own (written by the caller into the new store before it replaces the old one).

Built beside the target and swapped in with renames: a merge killed halfway leaves the old store.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from sv_scrapy.core.audit.store import url_key

# the merge's own files, never copied from a part; corrupt/ stays with the part that set it aside
OWN = ("run.json", "claims.json", "history.json", "sites.json", "corrupt", ".lock")
UNION = ("ocr", "archive")


def _link_or_copy(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """A hard link where the filesystem allows one: every store file is replaced by a rename,
    never written in place, so sharing an inode with the part's copy is safe (and 20,000 pages
    are linked in a blink, not copied)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    _link_or_copy(source, target)


def _url_files(store: Path, urls: Iterable[str]) -> Iterable[Path]:
    """The files of ``urls`` (and of their hosts' robots.txt) that ``store`` may hold."""
    hosts = set()
    for url in urls:
        key = url_key(url)
        yield from (store / "pages" / f"{key}.json", store / "text" / f"{key}.txt",
                    store / "text" / f"{key}.stable.txt", store / "pdf" / f"{key}.pdf")
        hosts.add(urlsplit(url).hostname or "")
    for host in hosts:
        for scheme in ("https", "http"):
            yield store / "robots" / f"{url_key(f'{scheme}://{host}/robots.txt')}.json"


def _union(source: Path, target: Path) -> None:
    for path in source.rglob("*"):
        if path.is_file():
            dest = target / path.relative_to(source)
            if not dest.exists():
                _copy(path, dest)


def build_merged_store(base: Path | None, parts: Sequence[tuple[Path, Iterable[str]]], target: Path) -> Path:
    """The merged store, built in a fresh folder beside ``target`` (returned; ``swap_in`` puts it
    in place): ``base`` whole (None: empty), then each part store's files of its URLs over it."""
    building = target.with_name(target.name + ".merging")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    if base is not None and base.is_dir():
        for item in base.iterdir():
            if item.name in OWN:
                continue
            if item.is_dir():
                shutil.copytree(item, building / item.name, copy_function=_link_or_copy)
            else:
                _link_or_copy(item, building / item.name)
    for store, urls in parts:
        if base is not None and store.resolve() == base.resolve():
            continue  # the base's own files are all in already
        for path in _url_files(store, urls):
            if path.is_file():
                _copy(path, building / path.relative_to(store))
        for name in UNION:
            if (store / name).is_dir():
                _union(store / name, building / name)
    return building


def swap_in(building: Path, target: Path) -> None:
    """Replace ``target`` with the built store by renames (the old one removed last)."""
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(building, target)
    shutil.rmtree(old, ignore_errors=True)
