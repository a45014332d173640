"""The reports' pure parts: escaping that keeps prose, claims as text, the page's words, links to
the playbook line, and the issue body that always fits."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.claims.markdown import plain
from sv_scrapy.core.escape import md_text
from sv_scrapy.core.page.subject import page_words
from sv_scrapy.core.report.claimtext import claim_html, claim_md
from sv_scrapy.core.report.issuecut import GITHUB_ISSUE_LIMIT, gh_len
from sv_scrapy.core.report.report_html import render_html
from sv_scrapy.core.report.report_md import issue_markdown, markdown_sections, render_markdown
from sv_scrapy.core.report.sourcelinks import git_checkout, resolve_links

PROSE = "DMTO 5.81 % (art. 1594 D, since 2026-12-03) — per-sale, 3-5 days; see note 2."


def test_prose_with_hyphens_dates_and_parentheses_is_not_escaped() -> None:
    assert md_text(PROSE) == PROSE
    item = {"claim_text": f"- {PROSE} ([impots.gouv.fr](https://www.impots.gouv.fr/dmto))",
            "values": [{"raw": "5.81 %", "salient": True}, {"raw": "2026-12-03", "salient": True}]}
    assert claim_md(item) == ("DMTO **5.81 %** (art. 1594 D, since **2026-12-03**) — per-sale, 3-5 days; "
                              "see note 2. (impots.gouv.fr)")


@pytest.mark.parametrize(("raw", "inert", "gone"), [
    ("a | b", "a \\| b", "a | b"),
    ("# Heading", "\\# Heading", None),
    ("- item", "\\- item", None),
    ("> quote", "\\> quote", None),
    ("1. first", "1\\. first", None),
    ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>", "<script"),
    ("<img src=x onerror=alert(1)>", "&lt;img src=x", "<img"),
    ("[click](https://evil.example/x)", "\\[click\\](https:\\/\\/evil.example/x)", "[click]("),
    ("![img](https://evil.example/i.png)", "!\\[img\\]", "![img]"),
    ("ping @maintainer now", "&#64;maintainer", "@maintainer"),
    ("`code` **bold** ~~gone~~", "\\`code\\` \\*\\*bold\\*\\* \\~\\~gone\\~\\~", "**bold**"),
    ("visit www.evil.example", "www\\.evil.example", "www.evil"),
    ("&lt;b&gt; entity", "&amp;lt;b&amp;gt; entity", "&lt;b"),
])
def test_what_markdown_would_act_on_is_escaped(raw: str, inert: str, gone: str | None) -> None:
    out = md_text(raw)
    assert inert in out
    if gone:
        assert gone not in out


def test_claims_render_as_text_with_the_figure_marked() -> None:
    assert plain("**Rate** _x_ [Loi 2024-1039](https://www.legifrance.gouv.fr/a) `c`") == "Rate x Loi 2024-1039 c"
    item = {"claim_text": "Fee <b>€ 500</b> [a](https://x.gouv.fr)", "values": [{"raw": "€ 500", "salient": True}]}
    assert claim_html(item) == "Fee <mark>€ 500</mark> a"


def test_the_pages_words_and_a_hint_never_the_claimed_figure() -> None:
    item = {"claim_text": "- Registration duty (DMTO) on resales: 5.81 % ([a](https://x.gouv.fr))",
            "values": [{"type": "pct", "raw": "5.81 %", "norm": "5.81", "salient": True}]}
    text = ("Accueil. " * 80 + "Les droits de mutation (DMTO) sur les reventes : taux de 6,45 % au 1er mars. "
            + "Autres impôts : 20 % de TVA. " * 40)
    words = page_words(item, text)
    assert "DMTO" in words.excerpt and "6,45 %" in words.excerpt and words.hint == "6,45 %"
    assert page_words(item, "Nothing about it here, 7 % elsewhere.").excerpt == ""
    claimed_still_there = page_words(item, "Le taux des DMTO est 5,81 %.")
    assert claimed_still_there.hint == ""  # the hint is never the claimed figure itself


# -- links -------------------------------------------------------------------------------------

def test_links_in_actions_are_blob_urls_with_the_line(tmp_path: Path) -> None:
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/playbooks", "GITHUB_SHA": "f" * 40}
    links = resolve_links(env, None, tmp_path)
    assert links.url("countries/fr/playbook.md", 12) == \
        f"https://github.com/acme/playbooks/blob/{'f' * 40}/countries/fr/playbook.md#L12"
    other = resolve_links({**env, "SV_CORPUS_REPOSITORY": "acme/corpus", "SV_CORPUS_COMMIT": "a" * 40}, None, tmp_path)
    assert other.url("x.md", 3) == f"https://github.com/acme/corpus/blob/{'a' * 40}/x.md#L3"


def test_links_from_the_config_template_and_the_checkouts_head(tmp_path: Path) -> None:
    git = tmp_path / "repo" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "packed-refs").write_text(f"# pack-refs\n{'b' * 40} refs/heads/main\n")
    corpus = tmp_path / "repo" / "skills" / "pb"
    corpus.mkdir(parents=True)
    assert git_checkout(corpus) == (tmp_path / "repo", "b" * 40)
    links = resolve_links({}, "https://git.example/o/r/blob/{commit}/{path}#L{line}", corpus)
    assert links.url("countries/fr/a.md", 4) == f"https://git.example/o/r/blob/{'b' * 40}/skills/pb/countries/fr/a.md#L4"
    assert resolve_links({}, None, corpus).url("countries/fr/a.md", 4) is None


# -- the issue body ----------------------------------------------------------------------------

def synthetic_doc(n: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    transitions = ["vanished", "newly_unavailable", "new_claim", "recovered", None, None, None]
    items = []
    for i in range(n):
        prior = rng.choice(["TOKENS_ABSENT", "TOKENS_PRESENT", "SOURCE_UNAVAILABLE", "WEAK_MATCH"])
        transition = rng.choice(transitions)
        items.append({
            "id": f"c{i}", "scope": rng.choice(["fr", "kr", "ad", "shared/exit/eu"]), "line_no": i + 1,
            "claim_text": f"- Droits | de mutation ✓ {i} — taux 5,{i % 100:02d} % ([é](https://x{i}.gouv.fr/a))",
            "values": [{"type": "pct", "raw": f"5,{i % 100:02d} %", "norm": "5.1", "salient": True}],
            "source_url": f"https://x{i}.gouv.fr/a", "final_url": f"https://x{i}.gouv.fr/a", "prior": prior,
            "fetch_status": "UNAVAILABLE" if prior == "SOURCE_UNAVAILABLE" else "OK",
            "transition": transition, "stale_changed": transition is None and rng.random() < 0.1,
            "content_changed": False, "previous_prior": "TOKENS_PRESENT", "inline_stamp": {"date": "2025-01-01"},
            "excerpts": [], "previous_excerpts": ["…avant 😀 " * 30], "page_excerpt": "Le taux | 6,45 % " * 20,
            "page_hint": "6,45 %", "note": "timeout after 3 attempt(s)", "priority": rng.random(),
            "source_line_url": f"https://github.com/o/r/blob/{'c' * 40}/countries/fr/p.md#L{i + 1}",
        })
    stats = {"claims": n, "urls": n, "not_modified_urls": 0, "not_modified_pct": 0.0, "new_findings": 1,
             "tokens_absent": 1, "stale_changed": 0, "content_changed": 0, "unavailable": 0, "pdf_no_text": 0, "dead": 0}
    line = {"at": "2026-12-01T03:17:00+00:00", "signals": {"tokens_absent": 3}}
    return {"generated_at": "2026-12-01T03:17:00+00:00", "news_since": "2026-11-01T03:17:00+00:00",
            "run": {"previous_finished_at": "2026-11-01T03:17:00+00:00"}, "stats": stats, "items": items,
            "history": {"previous": {**line, "at": "2026-11-01"}, "current": line, "trend": [line, line]}}


def test_a_thousand_claims_fit_the_issue_cut_on_a_whole_row() -> None:
    doc = synthetic_doc(1000)
    full = render_markdown(doc)
    issue = issue_markdown(doc)
    assert gh_len(full) > GITHUB_ISSUE_LIMIT  # the cut is exercised
    assert len(issue) <= gh_len(issue) <= GITHUB_ISSUE_LIMIT
    issue.encode("utf-8")  # valid UTF-8: no lone surrogate, no split character
    lines = issue.rstrip("\n").splitlines()
    assert lines[-1].startswith("_… ") and "more row(s) in the artifact" in lines[-1]
    assert lines[-2] == ""
    kept = issue[: issue.rindex("\n\n_… ")]
    assert full.startswith(kept)  # what is kept is the report's beginning, cut between rows
    assert full[len(kept)] == "\n" and full[len(kept) + 1] in "-|#\n"
    assert all(line.endswith("|") for line in lines if line.startswith("|"))
    rows = [row for section in markdown_sections(doc) for row in section.rows]
    kept_rows = sum(1 for row in rows if row in kept)
    assert 50 < kept_rows < len(rows) and int(lines[-1].split()[1]) == len(rows) - kept_rows


def test_a_small_report_is_the_issue_unchanged() -> None:
    doc = synthetic_doc(20)
    assert issue_markdown(doc) == render_markdown(doc)


def test_where_links_to_the_line_in_both_reports() -> None:
    doc = synthetic_doc(30)
    md = render_markdown(doc)
    assert f"[`{doc['items'][0]['scope']}:1`](https://github.com/o/r/blob/{'c' * 40}/countries/fr/p.md#L1)" in md
    html_report = render_html(doc)
    assert 'href="https://github.com/o/r/blob/' in html_report and "#L1\"" in html_report
    assert "<script" not in html_report


def test_report_config_is_optional_and_checked(tmp_path: Path) -> None:
    from sv_scrapy.core.errors import ConfigError
    from sv_scrapy.run.config import load_config
    from testing.crawl import make_config

    assert load_config(make_config(tmp_path / "plain")).report.source_url_template == ""
    good = "https://github.com/acme/pb/blob/{commit}/{path}#L{line}"
    cfg = load_config(make_config(tmp_path / "good", source_verify={"report": {"source_url_template": good}}))
    assert cfg.report.source_url_template == good
    with pytest.raises(ConfigError, match=r"report\.source_url_template: must be an http\(s\) URL with \{path\}"):
        load_config(make_config(tmp_path / "bad", source_verify={"report": {"source_url_template": "blob/{path}"}}))
    with pytest.raises(ConfigError, match=r"report\.colour: unknown key"):
        load_config(make_config(tmp_path / "unknown", source_verify={"report": {"colour": "red"}}))
