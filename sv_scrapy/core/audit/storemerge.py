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


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def _url_files(store: Path, url: str) -> Iterable[Path]:
    key = url_key(url)
    yield from (store / "pages" / f"{key}.json", store / "text" / f"{key}.txt",
                store / "text" / f"{key}.stable.txt", store / "pdf" / f"{key}.pdf")
    host = urlsplit(url).hostname or ""
    for scheme in ("https", "http"):
        robots = url_key(f"{scheme}://{host}/robots.txt")
        yield store / "robots" / f"{robots}.json"


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
                shutil.copytree(item, building / item.name)
            else:
                shutil.copyfile(item, building / item.name)
    for store, urls in parts:
        for url in urls:
            for path in _url_files(store, url):
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
