"""The merged content store: next month's input for any N (``scrapy merge``).

Every part started from the same store (last month's merged one, restored) and wrote only its own
hosts' files, so the merge takes the first part's store whole — the memory of every page, cited
this month or not — and lays over it, part by part, the files of the URLs that part fetched
(``pages/``, ``text/``, ``pdf/``; ``robots/`` of its hosts). Content-addressed caches (``ocr/``,
``archive/``) are the union. A frame's or linked document's validators and text (``extras/``,
keyed by that document's URL, which any part may have fetched) are the newest of the parts'; so are
discovery's sitemaps, search answers and proposals (``discover/``: the part that wrote a file last,
by its modification time — every file is written by a rename, so that is when it was written).
``claims.json``, ``history.json`` and ``run.json`` are the merge's own (written by the caller
into the new store before it replaces the old one).

Built beside the target and swapped in with renames: a merge killed halfway leaves the old store.
"""

from __future__ import annotations

import filecmp
import json
import multiprocessing
import os
import pickle
import shutil
import signal
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy.core.audit.store import robots_txt_url, url_key

# the merge's own files, never copied from a part; corrupt/ stays with the part that set it aside
OWN = ("run.json", "claims.json", "history.json", "sites.json", "corrupt", ".lock")
UNION = ("ocr", "archive")
# a URL's files, by folder: the page entry, its texts, an unreadable PDF's bytes
PER_URL = (("pages", ".json"), ("text", ".txt"), ("text", ".stable.txt"), ("pdf", ".pdf"))


def _place(source: str, target: str, *, replace: bool) -> None:
    """``source`` at ``target``: a hard link where the filesystem allows one (every store file is
    replaced by a rename, never written in place, so sharing an inode with the part's copy is
    safe, and 20,000 pages are linked in a blink, not copied), else a copy. A file already at
    ``target`` is replaced, or kept when not ``replace`` (the union of content-addressed caches)."""
    _place_all(os.path.dirname(source), os.path.dirname(target), [os.path.basename(source)], replace=replace,
               rename=os.path.basename(target))


def _place_all(source: str, target: str, names: Iterable[str], *, replace: bool, rename: str = "") -> None:
    """Each of ``names`` in folder ``source`` placed (as ``_place`` says) under the same name in
    folder ``target`` (``rename``: under that name, for one file). Both folders are opened once and
    each file linked by its name in them: 100,000 pages cost no walk of their whole paths."""
    src, dst = os.open(source, os.O_RDONLY | os.O_DIRECTORY), -1
    try:
        dst = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
        for name in names:
            at = rename or name
            try:
                os.link(name, at, src_dir_fd=src, dst_dir_fd=dst)
            except FileExistsError:
                if not replace:
                    continue
                os.unlink(at, dir_fd=dst)  # never written through: the old file may be another store's inode
                _place_all(source, target, [name], replace=False, rename=at)
            except OSError:
                shutil.copyfile(os.path.join(source, name), os.path.join(target, at))
    finally:
        os.close(src)
        if dst >= 0:
            os.close(dst)


def _link_all(source: str, target: str, *, replace: bool, skip: Collection[str] = ()) -> None:
    """Every file under ``source`` placed at the same place under ``target`` (``skip``: names left
    out at the top). Linked as the folder is listed: 200,000 names are never held at once."""
    os.makedirs(target, exist_ok=True)
    folders: list[str] = []

    def files() -> Iterator[str]:
        with os.scandir(source) as entries:
            for entry in entries:
                if entry.name in skip:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
                elif entry.is_file():
                    yield entry.name

    _place_all(source, target, files(), replace=replace)
    for name in folders:
        _link_all(os.path.join(source, name), os.path.join(target, name), replace=replace)


def _url_files(urls: Iterable[str]) -> dict[str, set[str]]:
    """Folder -> names of the files of ``urls`` (and of their hosts' robots.txt) a store may hold."""
    wanted: dict[str, set[str]] = {folder: set() for folder in ("pages", "text", "pdf", "robots")}
    hosts = set()
    for url in urls:
        key = url_key(url)
        for folder, suffix in PER_URL:
            wanted[folder].add(key + suffix)
        hosts.add(urlsplit(url).netloc)  # as the robots middleware keys a host: its port and case kept
    for host in hosts:
        for scheme in ("https", "http"):
            wanted["robots"].add(f"{url_key(robots_txt_url(scheme, host))}.json")
    return wanted


def _fetched_at(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return str(json.load(fh).get("fetched_at") or "")
    except (OSError, ValueError, AttributeError):
        return ""  # damaged: any readable copy wins (the store's own check sets it aside on read)


def _place_newest_extras(stores: Sequence[Path], target: Path) -> None:
    """Each ``extras/`` file from the part that wrote it last. Every part holds last month's copy
    (restored with the store) and a part that fetched the document this month its new one; which
    part that is follows the citing page, not the document's host. A date is read only where two
    parts' copies differ."""
    newest: dict[str, tuple[str, str | None]] = {}  # name -> (path, its fetched_at once read)
    for store in stores:
        try:
            entries = list(os.scandir(store / "extras"))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            held = newest.get(entry.name)
            if held is None:
                newest[entry.name] = (entry.path, None)
                continue
            if _same_file(held[0], entry.path):
                continue
            held_at = held[1] if held[1] is not None else _fetched_at(held[0])
            at = _fetched_at(entry.path)
            newest[entry.name] = (entry.path, at) if at > held_at else (held[0], held_at)
    if newest:
        os.makedirs(target, exist_ok=True)
    for name, (path, _) in newest.items():
        _place(path, str(target / name), replace=True)


def _place_newest_written(stores: Sequence[Path], folder: str, target: Path) -> None:
    """Each file under ``folder`` (one level of subfolders) from the part that wrote it last."""
    newest: dict[str, tuple[str, float]] = {}  # "sub/name" -> (path, mtime)
    for store in stores:
        try:
            subs = [e for e in os.scandir(store / folder) if e.is_dir(follow_symlinks=False)]
        except (FileNotFoundError, NotADirectoryError):
            continue
        for sub in subs:
            for entry in os.scandir(sub.path):
                at = entry.stat().st_mtime
                key = f"{sub.name}/{entry.name}"
                if key not in newest or at > newest[key][1]:
                    newest[key] = (entry.path, at)
    for key, (path, _) in newest.items():
        os.makedirs(target / key.split("/")[0], exist_ok=True)
        _place(path, str(target / key), replace=True)


def _same_file(a: str, b: str) -> bool:
    """One inode, or the same bytes (the standard library's comparison, sizes first)."""
    try:
        return os.path.samefile(a, b) or filecmp.cmp(a, b, shallow=False)
    except OSError:
        return False


def _building(target: Path) -> Path:
    """Where the merged store is built, beside ``target``."""
    return target.with_name(target.name + ".merging")


def build_merged_store(base: Path | None, parts: Sequence[tuple[Path, Iterable[str]]], target: Path) -> Path:
    """The merged store, built in a fresh folder beside ``target`` (returned; ``swap_in`` puts it
    in place): ``base`` whole (None: empty), then each part store's files of its URLs over it.

    One listing per folder and one link per file: a part's store (last month's whole store
    restored, plus its own pages) is never probed file by file, and the parts' files are placed
    first, the base's filling the rest, so no page is linked and then replaced."""
    building = _building(target)
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    for store, urls in parts:
        if base is not None and store.resolve() == base.resolve():
            continue  # the base's own files come with it, below
        for folder, names in _url_files(urls).items():
            try:
                present = names.intersection(os.listdir(store / folder))
            except (FileNotFoundError, NotADirectoryError):
                continue
            if present:
                os.makedirs(building / folder, exist_ok=True)
                _place_all(str(store / folder), str(building / folder), present, replace=True)
        for name in UNION:
            if (store / name).is_dir():
                _link_all(str(store / name), str(building / name), replace=False)
    _place_newest_extras([store for store, _ in parts], building / "extras")
    _place_newest_written([store for store, _ in parts], "discover", building / "discover")
    if base is not None and base.is_dir():
        _link_all(str(base), str(building), replace=False, skip=OWN)  # a part's file stays over the base's
    return building


def _exit_with(sentinel: int) -> None:
    wait([sentinel])  # readable once the merge's process has ended
    os._exit(1)


def _build_and_send(sender: Connection, base: Path | None, parts: Sequence[tuple[Path, Collection[str]]],
                    target: Path) -> None:
    """The second process's work: the build, then what it returned or raised, sent once; then it
    exits, whether or not the merge is still there to read it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the merge's to answer, not this process's
    merge = multiprocessing.parent_process()
    if merge is not None:  # a merge killed (its lock let go) takes its build with it: a rerun builds alone
        threading.Thread(target=_exit_with, args=(merge.sentinel,), daemon=True).start()
    try:
        outcome: tuple[str, Any] = ("built", build_merged_store(base, parts, target))
    except Exception as exc:  # noqa: BLE001 - handed to the merge, which answers it as if raised there
        outcome = ("raised", exc)
    with suppress(OSError):  # the merge is gone (killed): nobody to tell
        try:
            sender.send(outcome)
        except (pickle.PicklingError, TypeError, AttributeError):  # an error that will not pickle: its words
            sender.send(("raised", OSError(repr(outcome[1]))))
    sender.close()


# the URLs from which the store is built in a second process: below, its few thousand links take
# less time than that process's start (0.3-0.5 s of CPU for an interpreter and its imports)
ASIDE_FROM_URLS = 10_000


def _started(base: Path | None, parts: Sequence[tuple[Path, Collection[str]]],
             target: Path) -> tuple[BaseProcess, Connection] | None:
    """The build's second process, started, and the end of the pipe it answers on; None where no
    process can be started (no semaphores: a sandbox without /dev/shm)."""
    context = multiprocessing.get_context("spawn")
    try:
        receiver, sender = context.Pipe(duplex=False)
        child = context.Process(target=_build_and_send, args=(sender, base, parts, target),
                                name="sv-merge-store", daemon=True)
        child.start()
    except OSError:
        return None
    sender.close()  # only the child's copy stays open: its end without a word reads as EOF here
    return child, receiver


@contextmanager
def building_aside(base: Path | None, parts: Sequence[tuple[Path, Collection[str]]], target: Path,
                   from_urls: int = ASIDE_FROM_URLS) -> Iterator[Callable[[], Path]]:
    """``build_merged_store`` in a second process while the caller goes on; the callable it
    yields waits for the built folder (or raises what the build raised). The build is mostly the
    kernel's work: a link(2) call a file, 300,000 of them for 100,000 pages, a fifth of a merge's
    time, done this way on another core beside the finish. A fresh interpreter (``spawn``), never
    a fork of this one: this process may hold threads. One process for one build, which exits
    when it is done (a pool's worker would wait for more work, and outlive a merge that was
    killed; this one ends with the merge). Below ``from_urls`` URLs, where no process can be
    started, or where it ends without a word, the build runs here when it is waited for. A block
    that raises stops the build and removes its folder; leaving the block waits for the process
    either way, so nothing writes the folder once the caller has moved on."""
    started = _started(base, parts, target) if sum(len(urls) for _, urls in parts) >= from_urls else None
    if started is None:
        yield lambda: build_merged_store(base, parts, target)
        return
    child, receiver = started

    def built() -> Path:
        try:
            outcome, value = receiver.recv()
        except EOFError:  # the process ended without a word (killed, or out of memory): build here
            child.join()
            return build_merged_store(base, parts, target)
        if outcome == "raised":
            raise value
        return Path(value)

    try:
        yield built
    except BaseException:  # the caller failed: no store is wanted, and none is left half-built
        child.terminate()
        child.join()
        shutil.rmtree(_building(target), ignore_errors=True)
        raise
    finally:  # (joining an ended process again returns at once)
        child.join()
        receiver.close()


def swap_in(building: Path, target: Path) -> None:
    """Replace ``target`` with the built store by renames (the old one removed last)."""
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(building, target)
    shutil.rmtree(old, ignore_errors=True)
