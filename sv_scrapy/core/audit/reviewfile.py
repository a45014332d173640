"""The reviewed-findings file, ``source-verify-reviewed.json`` in the corpus's config folder:
what a maintainer decided about a finding, and what it was decided on.

It travels with the playbooks (committed beside ``_source-verify.json``), so it is written to
read well in a pull request: a format version, then one review per line, sorted by scope and
claim key (a moved line does not reorder the file), keys in a fixed order. A review names the claim by the key its history uses
(``core.audit.news.fingerprint``: scope, cited URL, figures), so a line that moves keeps its
review; ``claim`` (the id it had) and ``figures`` say what it was made on, with the page's
``content_hash``.

Reading is all or nothing: a malformed file, an unknown decision or finding, a missing reason
or a duplicate entry is one :class:`~sv_scrapy.core.audit.reviewfile.ReviewFileError` naming the file and the entry (exit 2),
and a file that was not read whole is never written back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_text
from sv_scrapy.core.errors import SvError

FILE_NAME = "source-verify-reviewed.json"
FORMAT = 1
DECISIONS = ("false_positive", "figure_elsewhere", "accepted", "wont_fix", "fix_pending")
# what can be reviewed: a prior, a change flag, a page that cannot be read, the linter's finding
FINDINGS = ("TOKENS_ABSENT", "WEAK_MATCH", "stale_changed", "CONTENT_CHANGED", "UNAVAILABLE", "DEAD", "PDF_NO_TEXT",
            "root_citation")
# the file's keys, in the order they are written
KEYS = ("key", "claim", "finding", "decision", "reason", "reviewer", "date", "until", "content_hash", "figures",
        "url", "at", "at_hash")
_REQUIRED = ("key", "claim", "finding", "decision", "reason", "date")
_HEX = re.compile(r"[0-9a-f]{8,64}")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class ReviewFileError(SvError):
    """The reviewed-findings file (or a value given for it) cannot be used as it is."""


@dataclass(frozen=True)
class Review:
    key: str  # the claim's history key (scope, URL, figures)
    claim: str  # the claim id when it was reviewed (scope:line:urlhash)
    finding: str
    decision: str
    reason: str
    date: str  # YYYY-MM-DD, from the run's clock
    reviewer: str = ""
    until: str = ""  # YYYY-MM-DD or ""
    content_hash: str = ""  # the page's cleaned-text hash it was made on ("" for a page not read)
    figures: tuple[str, ...] = ()  # the claim's salient figures (normalised) it was made on
    url: str = ""  # the cited page, for the reader of the file
    at: str = ""  # figure_elsewhere --at: the page where the figure stands (the review expires when it changes)
    at_hash: str = ""  # that page's text hash as the audit read it ("" when the audit had not read it)

    @property
    def ident(self) -> tuple[str, str, str]:
        """What makes two entries the same review."""
        return self.key, self.claim, self.finding

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in KEYS}
        out["figures"] = list(self.figures)
        out["reviewer"], out["until"] = self.reviewer or None, self.until or None
        out["at"], out["at_hash"] = self.at or None, self.at_hash or None
        return out


def parse_day(raw: str, what: str) -> str:
    """A ``YYYY-MM-DD`` day, checked.

    >>> parse_day("2027-02-30", "--until")
    Traceback (most recent call last):
    ...
    sv_scrapy.core.audit.reviewfile.ReviewFileError: --until '2027-02-30': expected a date YYYY-MM-DD
    """
    try:
        if not _DATE.fullmatch(raw):
            raise ValueError(raw)
        return date.fromisoformat(raw).isoformat()
    except ValueError:
        raise ReviewFileError(f"{what} {raw!r}: expected a date YYYY-MM-DD") from None


def check_reason(raw: str, what: str = "--reason") -> str:
    """A reason is required and must say something (not only dots or dashes).

    >>> check_reason("  the figure is in the PDF linked from this page ")
    'the figure is in the PDF linked from this page'
    >>> check_reason("…")
    Traceback (most recent call last):
    ...
    sv_scrapy.core.audit.reviewfile.ReviewFileError: --reason: required, say why in words (got '…')
    """
    text = " ".join(str(raw).split())
    if not re.search(r"\w", text):
        raise ReviewFileError(f"{what}: required, say why in words (got {text!r})")
    return text


def check_choice(raw: str, choices: Sequence[str], what: str) -> str:
    if raw not in choices:
        raise ReviewFileError(f"{what} {raw!r}: expected one of {', '.join(choices)}")
    return raw


def _entry(raw: Any, where: str) -> Review:
    if not isinstance(raw, dict):
        raise ReviewFileError(f"{where}: not an object")
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise ReviewFileError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    missing = [k for k in _REQUIRED if raw.get(k) in (None, "")]
    if missing:
        raise ReviewFileError(f"{where}: missing {missing[0]!r}")
    texts = {k: raw.get(k) for k in KEYS if k != "figures"}
    bad = next((k for k, v in texts.items() if v is not None and not isinstance(v, str)), None)
    if bad:
        raise ReviewFileError(f"{where}: {bad!r} must be a string")
    figures = raw.get("figures") or []
    if not isinstance(figures, list) or not all(isinstance(f, str) for f in figures):
        raise ReviewFileError(f"{where}: 'figures' must be a list of strings")
    if not _HEX.fullmatch(raw["key"]):
        raise ReviewFileError(f"{where}: key {raw['key']!r}: expected the claim's hex key")
    return Review(
        key=raw["key"], claim=raw["claim"],
        finding=check_choice(raw["finding"], FINDINGS, f"{where}: finding"),
        decision=check_choice(raw["decision"], DECISIONS, f"{where}: decision"),
        reason=check_reason(raw["reason"], f"{where}: reason"),
        date=parse_day(raw["date"], f"{where}: date"),
        reviewer=raw.get("reviewer") or "",
        until=parse_day(raw["until"], f"{where}: until") if raw.get("until") else "",
        content_hash=raw.get("content_hash") or "", figures=tuple(figures), url=raw.get("url") or "",
        at=raw.get("at") or "", at_hash=raw.get("at_hash") or "")


def parse(text: str, origin: str) -> list[Review]:
    """The reviews a file's text holds, or :class:`ReviewFileError` naming ``origin`` and the entry."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReviewFileError(f"{origin}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("reviews"), list):
        raise ReviewFileError(f"{origin}: expected {{\"format\": {FORMAT}, \"reviews\": [...]}}")
    fmt = doc.get("format")
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
        raise ReviewFileError(f"{origin}: 'format' must be a positive integer, got {fmt!r}")
    if fmt > FORMAT:
        raise ReviewFileError(f"{origin}: format {fmt} was written by a newer sv_scrapy (this one reads up to "
                              f"{FORMAT}); upgrade, the file is left as it is")
    unknown = sorted(set(doc) - {"format", "reviews", "_comment"})
    if unknown:
        raise ReviewFileError(f"{origin}: unknown top-level key {unknown[0]!r}")
    out: list[Review] = []
    seen: dict[tuple[str, str, str], int] = {}
    for n, raw in enumerate(doc["reviews"]):
        claim = raw.get("claim") if isinstance(raw, dict) else None
        where = f"{origin}: reviews[{n}]" + (f" ({claim})" if isinstance(claim, str) and claim else "")
        review = _entry(raw, where)
        if review.ident in seen:
            raise ReviewFileError(f"{where}: duplicate of reviews[{seen[review.ident]}] "
                                  f"(same claim key and finding {review.finding})")
        seen[review.ident] = n
        out.append(review)
    return out


def load(config_dir: Path) -> list[Review]:
    """The config folder's reviews; none when the file does not exist."""
    path = config_dir / FILE_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewFileError(f"{path}: cannot read: {exc}") from None
    return parse(text, str(path))


def ordered(reviews: Iterable[Review]) -> list[Review]:
    return sorted(reviews, key=lambda r: (r.claim.split(":", 1)[0], r.key, r.claim, FINDINGS.index(r.finding)))


def dumps(reviews: Iterable[Review]) -> str:
    """The file's text: the format, then one review per line, sorted — a diff shows one line per review.

    >>> text = dumps([Review("ab12cd34", "fr:3:0a1b2c3d", "TOKENS_ABSENT", "wont_fix", "see annex", "2027-01-01")])
    >>> lines = text.splitlines(); lines[:3], lines[3][:60], lines[-2:]
    (['{', '  "format": 1,', '  "reviews": ['], '    {"key": "ab12cd34", "claim": "fr:3:0a1b2c3d", "finding":', ['  ]', '}'])
    """
    rows = [json.dumps(r.as_dict(), ensure_ascii=False) for r in ordered(reviews)]
    body = ",\n".join(f"    {row}" for row in rows)
    return "{\n" + f'  "format": {FORMAT},\n  "reviews": [' + (f"\n{body}\n  " if rows else "") + "]\n}\n"


def merged(existing: Sequence[Review], new: Sequence[Review]) -> tuple[list[Review], list[Review]]:
    """``existing`` with ``new`` recorded: a new review of the same claim key and finding replaces
    the old one (as does one of the same claim id: its figures changed). Returns (all, replaced)."""
    out = list(existing)
    replaced: list[Review] = []
    for review in new:
        same = [r for r in out if r.finding == review.finding and (r.key == review.key or r.claim == review.claim)]
        replaced += same
        out = [r for r in out if r not in same] + [review]
    return ordered(out), replaced


def save(config_dir: Path, reviews: Sequence[Review]) -> Path:
    """Write the file atomically (the caller holds the output folder's lock)."""
    return write_text(config_dir / FILE_NAME, dumps(reviews))

