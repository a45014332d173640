"""A corpus in a real git repository, for the pull-request check's tests and bench
(``scrapy crawl worklist -a changed_since=REF``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from testing.crawl import write_corpus

# an identity and no user or system config: the same commits on every machine
_GIT = ["git", "-c", "user.name=sv test", "-c", "user.email=sv@test.invalid", "-c", "init.defaultBranch=main",
        "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> str:
    out = subprocess.run([*_GIT, *args], cwd=repo, capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)})
    return out.stdout.strip()


def init_repo(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q")
    return repo


def commit(repo: Path, files: dict[str, str], message: str, delete: tuple[str, ...] = ()) -> str:
    """Write ``files`` (paths from the repository root), delete ``delete``, commit; the new hash."""
    write_corpus(repo, files)
    for rel in delete:
        (repo / rel).unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")
