"""The Markdown extractor (``core/claims``) on generated playbooks: a pull request's lines are
written by anyone with a fork.

Documented: ``extract_file`` appends claims (or nothing) and never raises; a claim's id is
``scope:line:sha1(url)[:8]`` for a link on that line, its stamp a calendar date; the corpus walk
names a non-UTF-8 file in ``unreadable`` and reads on; ``plain`` gives one line of text.
"""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

from hypothesis import example, given

from sv_scrapy.core.claims.claims import Extraction, ExtractOptions, claim_id, extract_corpus, extract_file
from sv_scrapy.core.claims.markdown import plain
from sv_scrapy.core.hosts import HostRules
from tests.fuzz.profiles import fuzz_settings, within
from tests.fuzz.strategies import MARKDOWN, MARKDOWN_BYTES

BOUND = 2.0  # s of CPU for one document of at most 25 lines
OPTIONS = (ExtractOptions(scope_dirs=("countries",)),
           ExtractOptions(scope_dirs=("countries",), primary_only=False, code_urls=True, min_salient_values=0))


def _check(out: Extraction, lines: list[str]) -> None:
    ids = [c.id for c in out.claims]
    assert len(ids) == len(set(ids))
    for c in out.claims:
        assert 1 <= c.line_no <= len(lines)
        assert c.source_url in lines[c.line_no - 1]
        assert c.id == claim_id(c.scope, c.line_no, c.source_url)
        assert c.source_url.lower().startswith(("http://", "https://"))
        if c.inline_stamp:
            date.fromisoformat(c.inline_stamp["date"])  # a stamp is a calendar date every later stage can compare


@fuzz_settings()
@given(MARKDOWN)
@example("[Loi](https://[::1) 5.81 %")  # found: urlsplit raised ValueError (an IPv6 bracket left open)
@example("VAT 10 % [DGFiP](https://x.gouv.fr/a) (2026-13-45 verified)")  # found: a stamp that is no date
@example("art. 12² [Loi](https://x.gouv.fr/a)")  # found: "12²".isdigit() is True, int("12²") raised ValueError
@example("art. " + "9" * 5000 + " http://0")  # found: int() of a 5,000-digit statute number raised ValueError
def test_extract_file_reads_any_playbook(markdown: str) -> None:
    lines = markdown.splitlines()
    for opts in OPTIONS:
        out = Extraction()
        with within(BOUND, "extract_file"):
            extract_file(markdown, "xx", "countries/xx/playbook.md", HostRules(), opts, out)
        _check(out, lines)
    for line in lines:
        with within(BOUND, "plain"):
            text = plain(line)
        assert "\n" not in text and text == text.strip()


@fuzz_settings(short_examples=20)
@given(MARKDOWN_BYTES)
def test_corpus_walk_reads_any_bytes(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "countries" / "xx").mkdir(parents=True)
        (root / "countries" / "xx" / "playbook.md").write_bytes(raw)
        with within(BOUND, "extract_corpus"):
            out = extract_corpus(root, HostRules(), OPTIONS[0])
    assert out.files_read + len(out.unreadable) == 1
    if out.unreadable:
        assert "not UTF-8" in out.unreadable[0]
        assert not out.claims
    else:
        _check(out, raw.decode("utf-8").splitlines())
