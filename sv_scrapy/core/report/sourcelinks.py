"""Links from a report's ``where`` to the playbook line that makes the claim.

Resolved once per audit, in this order:

1. in GitHub Actions (``GITHUB_SERVER_URL`` set): ``{server}/{repo}/blob/{commit}/{path}#L{line}``
   with ``repo`` = ``SV_CORPUS_REPOSITORY`` (the playbook repo, when it is not the workflow's
   own) or ``GITHUB_REPOSITORY``, and ``commit`` = ``SV_CORPUS_COMMIT``, else the corpus
   checkout's ``HEAD``, else ``GITHUB_SHA`` when the corpus is the workflow's own repo;
2. elsewhere, the optional config key ``report.source_url_template``
   (``https://github.com/o/r/blob/{commit}/{path}#L{line}``; ``{commit}`` is the corpus
   checkout's ``HEAD``, or ``HEAD`` when the corpus is not a git checkout);
3. neither: no link, the report shows plain ``scope:line``.

``path`` is the playbook's path inside the repository (the corpus root may be a folder of it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True)
class SourceLinks:
    template: str = ""  # with {commit}, {path}, {line}; "" = no links
    commit: str = "HEAD"
    prefix: str = ""  # the corpus root inside its repository, "" or "a/b/"

    def url(self, file: str, line: int) -> str | None:
        """The line's URL, or None when no link is known.

        >>> links = SourceLinks("https://g.example/o/r/blob/{commit}/{path}#L{line}", "abc", "pb/")
        >>> links.url("countries/fr/a b.md", 7)
        'https://g.example/o/r/blob/abc/pb/countries/fr/a%20b.md#L7'
        >>> SourceLinks().url("x.md", 1) is None
        True
        """
        if not self.template or not file:
            return None
        path = quote((self.prefix + file.replace("\\", "/")).lstrip("/"), safe="/-._~")
        return (self.template.replace("{commit}", quote(self.commit, safe=""))
                .replace("{path}", path).replace("{line}", str(int(line))))


def git_checkout(start: Path) -> tuple[Path, str] | None:
    """(work tree root, HEAD commit) of the git checkout holding ``start``, read from its files
    (no ``git`` process: a detached HEAD, a branch ref, packed refs, a worktree's ``.git`` file)."""
    for folder in (start.resolve(), *start.resolve().parents):
        dotgit = folder / ".git"
        try:
            if dotgit.is_file():
                found = re.match(r"gitdir:\s*(.+)", dotgit.read_text(encoding="utf-8").strip())
                if not found:
                    return None
                gitdir = (folder / found.group(1)).resolve()
            elif dotgit.is_dir():
                gitdir = dotgit
            else:
                continue
            commit = _resolve_head(gitdir)
        except OSError:
            return None
        return (folder, commit) if commit else None
    return None


def _resolve_head(gitdir: Path) -> str:
    head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
    if _SHA.fullmatch(head):
        return head
    if not head.startswith("ref:"):
        return ""
    ref = head[4:].strip()
    common = gitdir
    commondir = gitdir / "commondir"
    if commondir.is_file():
        common = (gitdir / commondir.read_text(encoding="utf-8").strip()).resolve()
    for base in (gitdir, common):
        path = base / ref
        if path.is_file():
            value = path.read_text(encoding="utf-8").strip()
            return value if _SHA.fullmatch(value) else ""
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref and _SHA.fullmatch(parts[0]):
                return parts[0]
    return ""


def corpus_commit(env: Mapping[str, str], corpus_root: Path) -> str:
    """The corpus's commit: ``SV_CORPUS_COMMIT``, else its checkout's ``HEAD``, else "" (no git)."""
    if env.get("SV_CORPUS_COMMIT"):
        return env["SV_CORPUS_COMMIT"]
    checkout = git_checkout(corpus_root) if corpus_root.is_dir() else None
    return checkout[1] if checkout else ""


def resolve_links(env: Mapping[str, str], template: str | None, corpus_root: Path) -> SourceLinks:
    """The links of one audit, from the environment, the config and the corpus checkout."""
    checkout = git_checkout(corpus_root) if corpus_root.is_dir() else None
    prefix = ""
    if checkout is not None:
        inner = corpus_root.resolve().relative_to(checkout[0]).as_posix()
        prefix = "" if inner == "." else inner + "/"
    server = env.get("GITHUB_SERVER_URL", "").rstrip("/")
    repo = env.get("SV_CORPUS_REPOSITORY") or env.get("GITHUB_REPOSITORY", "")
    if server.startswith(("https://", "http://")) and re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
        commit = env.get("SV_CORPUS_COMMIT") or (checkout[1] if checkout else "")
        if not commit and not env.get("SV_CORPUS_REPOSITORY"):
            commit = env.get("GITHUB_SHA", "")
        return SourceLinks(f"{server}/{repo}/blob/{{commit}}/{{path}}#L{{line}}", commit or "HEAD", prefix)
    if template:
        return SourceLinks(template, checkout[1] if checkout else "HEAD", prefix)
    return SourceLinks()
