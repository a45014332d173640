"""Markdown -> claims: gating, attribution, pointers, headings, stamps, scopes, ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from sv_scrapy.core.claims.claims import (
    Extraction,
    ExtractOptions,
    claim_id,
    extract_corpus,
    extract_file,
    extraction_stats,
    scope_for,
)
from sv_scrapy.core.errors import CorpusError
from sv_scrapy.core.hosts import HostRules

OPTS = ExtractOptions(scope_dirs=("countries", "shared"), skip_headings=("sources", "where to verify"))


def claims_of(markdown: str, opts: ExtractOptions = OPTS) -> Extraction:
    out = Extraction()
    extract_file(markdown, "xx", "countries/xx/playbook.md", HostRules(), opts, out)
    return out


def test_primary_link_with_figure_is_a_claim() -> None:
    (claim,) = claims_of("- DMTO 5.81 % ([impots](https://www.impots.gouv.fr/dmto))\n").claims
    assert claim.source_tier == "primary-gov"
    assert claim.source_host == "www.impots.gouv.fr"
    assert claim.line_no == 1
    assert claim.id == claim_id("xx", 1, "https://www.impots.gouv.fr/dmto")
    assert [v["norm"] for v in claim.values] == ["5.81"]


def test_secondary_link_needs_include_secondary() -> None:
    md = "- 36.2 % in total ([blog](https://www.example-immo.fr/x))\n"
    assert claims_of(md).claims == []
    (claim,) = claims_of(md, ExtractOptions(scope_dirs=(), primary_only=False)).claims
    assert claim.source_tier == "secondary"


def test_link_without_salient_figure_is_not_a_claim() -> None:
    assert claims_of("- Population ~412,000 in 2022 ([NSI](https://www.bahamas.gov.bs/s))\n").claims == []


def test_roster_link_on_multi_link_line_is_not_a_claim() -> None:
    md = "VAT 10% ([DIR](https://a.gov.bs/vat)); see also [portal](https://www.gov.bs/) for forms.\n"
    assert [c.source_url for c in claims_of(md).claims] == ["https://a.gov.bs/vat"]


def test_pointer_link_is_skipped_and_counted() -> None:
    md = "VAT 10% ([DIR](https://a.gov.bs/vat)); 12% band — verify at [BIA](https://www.gov.bs/bia).\n"
    out = claims_of(md)
    assert [c.source_url for c in out.claims] == ["https://a.gov.bs/vat"]
    assert out.skipped_pointer_links == 1


def test_skipped_headings_cover_their_subsections_only_by_word() -> None:
    md = (
        "## Sources\n- [a](https://a.gov/x) 10 %\n### Sub of sources\n- [b](https://b.gov/x) 11 %\n"
        "## Resources for buyers\n- [c](https://c.gov/x) 12 %\n"
    )
    assert [c.source_host for c in claims_of(md).claims] == ["c.gov"]


def test_fenced_code_is_ignored() -> None:
    md = "```\n[a](https://a.gov/x) 10 %\n```\n[b](https://b.gov/x) 11 %\n"
    assert [c.source_host for c in claims_of(md).claims] == ["b.gov"]


def test_section_is_the_nearest_heading_and_filters() -> None:
    md = "# Top\n## Tax\n- 5 % ([a](https://a.gov/x))\n## Market\n- 6 % ([b](https://b.gov/x))\n"
    assert [(c.section, c.source_host) for c in claims_of(md).claims] == [("Tax", "a.gov"), ("Market", "b.gov")]
    only_tax = ExtractOptions(scope_dirs=(), section="tax")
    assert [c.source_host for c in claims_of(md, only_tax).claims] == ["a.gov"]


def test_stamp_precedence_line_then_heading_then_file() -> None:
    md = (
        "## Tax (verified 2026-04-15)\n"
        "- 5 % ([a](https://a.gov/x)) (2026-05-27 verified)\n"
        "- 6 % ([b](https://b.gov/x))\n"
        "## Other\n"
        "- 7 % ([c](https://c.gov/x))\n"
        "**Last verified**: 2026-01-01\n"
    )
    stamps = [(c.inline_stamp or {}).get("origin") for c in claims_of(md).claims]
    dates = [(c.inline_stamp or {}).get("date") for c in claims_of(md).claims]
    assert stamps == ["line", "heading", "file"]
    assert dates == ["2026-05-27", "2026-04-15", "2026-01-01"]


def test_same_url_twice_on_a_line_is_one_claim() -> None:
    md = "5 % ([a](https://a.gov/x)) and 6 % ([again](https://a.gov/x))\n"
    assert len(claims_of(md).claims) == 1


def test_long_line_is_windowed_around_the_link() -> None:
    md = "x" * 500 + " 5 % ([a](https://a.gov/x)) " + "y" * 500 + "\n"
    (claim,) = claims_of(md, ExtractOptions(scope_dirs=(), claim_window_chars=100)).claims
    assert len(claim.claim_text) <= 102 and "https://a.gov/x" in claim.claim_text


@pytest.mark.parametrize(
    ("rel", "scope_dir", "scope"),
    [
        ("countries/fr/playbook.md", "countries", "fr"),
        ("skills/p/countries/KR/notes/extra.md", "skills/p/countries", "kr"),
        ("shared/exit/western-europe.md", "shared", "shared/exit/western-europe"),
        ("shared/glossary.md", "shared", "shared/glossary"),
    ],
)
def test_scope(rel: str, scope_dir: str, scope: str) -> None:
    assert scope_for(Path(rel), scope_dir) == scope


def write(root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_corpus_walk_skips_files_and_reports_unreadable(tmp_path: Path) -> None:
    write(tmp_path, "countries/fr/playbook.md", b"5 % ([a](https://a.gouv.fr/x))\n")
    write(tmp_path, "countries/fr/test-fixtures.md", b"6 % ([a](https://a.gouv.fr/y))\n")
    write(tmp_path, "countries/de/playbook.md", "Gebühr 5 % ([a](https://a.gv.at/x)) \xe4\n".encode("latin-1"))
    write(tmp_path, "shared/exit/eu.md", b"7 % ([a](https://eur-lex.europa.eu/x))\n")
    opts = ExtractOptions(scope_dirs=("countries", "shared"), skip_files=frozenset({"test-fixtures.md"}))
    out = extract_corpus(tmp_path, HostRules(), opts)
    assert [c.scope for c in out.claims] == ["fr", "shared/exit/eu"]
    assert len(out.unreadable) == 1 and "countries/de/playbook.md" in out.unreadable[0]
    stats = extraction_stats(out)
    assert (stats["unreadable_files"], stats["files_read"], stats["total_claims"]) == (1, 2, 2)


def test_country_filter(tmp_path: Path) -> None:
    write(tmp_path, "countries/fr/playbook.md", b"5 % ([a](https://a.gouv.fr/x))\n")
    write(tmp_path, "countries/kr/playbook.md", b"6 % ([a](https://a.go.kr/x))\n")
    out = extract_corpus(tmp_path, HostRules(), ExtractOptions(scope_dirs=("countries",), country="kr"))
    assert [c.scope for c in out.claims] == ["kr"]
    assert out.scopes_seen == {"fr", "kr"}


def test_missing_corpus_root_is_a_corpus_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="corpus root not found"):
        extract_corpus(tmp_path / "nope", HostRules(), OPTS)
