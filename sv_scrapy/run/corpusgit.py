"""The corpus's own history, read with ``git`` (an argument list, never a shell): which repository
holds the corpus, whether REF is one of its revisions, and the corpus as it stood at REF.

REF comes from the user (or a pull request's base): it is checked with ``git rev-parse --verify
REF^{commit}`` and never read as an option. A corpus outside any repository, or a REF that is no
revision of it, is the user's mistake: one line, exit 2. The config folder, when the repository
holds it, is read at REF too (``reader_at``): the pull-request check's rules are the base's.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from sv_scrapy.core.errors import ArgumentError, ConfigError, CorpusError
from sv_scrapy.run.config import Reader, read_file

GIT_TIMEOUT = 120.0


@dataclass(frozen=True)
class Revision:
    ref: str  # as the user wrote it
    commit: str  # the full hash it names
    top: Path  # the repository's work tree
    prefix: str  # the corpus root under it ("" or "playbooks/")


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise CorpusError("git not found: -a changed_since needs git on PATH") from None


def _text(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stdout.decode("utf-8", "replace").strip()


def resolve_revision(corpus_root: Path, ref: str) -> Revision:
    """REF as a commit of the repository holding ``corpus_root``."""
    label = "-a changed_since="
    if not ref or ref.startswith("-") or any(ch.isspace() or not ch.isprintable() for ch in ref):
        raise ArgumentError(f"{label}{ref!r}: expected a git revision (a branch, tag or commit)")
    top = _git(corpus_root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise CorpusError(f"{corpus_root}: the corpus (SV_CORPUS_ROOT) is not in a git repository; "
                          "-a changed_since needs its history")
    prefix = _text(_git(corpus_root, "rev-parse", "--show-prefix"))
    commit = _git(corpus_root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if commit.returncode != 0:
        raise ArgumentError(f"{label}{ref!r}: not a revision of the corpus's repository {_text(top)} "
                            "(fetch it first, e.g. git fetch origin main)")
    return Revision(ref, _text(commit), Path(_text(top)), prefix)


def corpus_at(rev: Revision, dest: Path) -> Path:
    """Write the corpus as it stood at the revision under ``dest``; returns its root there (which
    may not exist: the corpus folder was added after the revision)."""
    args = ["archive", "--format=tar", rev.commit]
    if rev.prefix:
        listed = _git(rev.top, "ls-tree", "--name-only", rev.commit, "--", rev.prefix.rstrip("/"))
        if not listed.stdout.strip():
            return dest / rev.prefix
        args += ["--", rev.prefix]
    proc = _git(rev.top, *args)
    if proc.returncode != 0:
        raise CorpusError(f"git archive {rev.commit[:12]} failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(dest, filter=_inside)
    return dest / rev.prefix


def _inside(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """The "data" filter (no absolute paths, no links out of dest, no device files), a member it
    refuses skipped rather than raised: the working tree's walk skips a link out of the corpus too."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def repo_path(rev: Revision, path: Path) -> str | None:
    """``path`` as the repository names it (``config/_source-verify.json``); None when it lies
    outside the repository's work tree (no change of the repository can edit it)."""
    # the path as written first: a symlink the change puts in the work tree must not choose which
    # file of the revision is read; then with links resolved (a checkout under a linked folder)
    for candidate in (Path(os.path.abspath(path)), path.resolve()):
        if candidate.is_relative_to(rev.top):
            return candidate.relative_to(rev.top).as_posix()
    return None


def file_at(rev: Revision, path: str) -> str | None:
    """The text of the repository's file ``path`` at the revision; None when it has none there."""
    proc = _git(rev.top, "cat-file", "blob", f"{rev.commit}:{path}")
    if proc.returncode != 0:
        return None
    try:
        return proc.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} at {rev.commit[:12]}: cannot read: {exc}") from None


def reader_at(rev: Revision) -> Reader:
    """A config reader (``config.Reader``) of the files as they stood at the revision: a file inside
    the repository's work tree is read at REF, whatever the work tree holds now; one outside it
    (SV_CONFIG_DIR beside the corpus's repository) is read from disk."""

    def read(path: Path) -> str | None:
        inside = repo_path(rev, path)
        return read_file(path) if inside is None else file_at(rev, inside)

    return read
