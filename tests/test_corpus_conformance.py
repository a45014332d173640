"""Conformance on the real corpus slice (../shared): pinned counts, explained differences.

The reference script finds 85 primary claims (hk 41, sa 22, ky 13, bs 5, fr 2, ae 1, kr 1).
sv_scrapy finds 104. Every difference is one of these kinds, each asserted below:

* fewer — pointer links ("verify at", "confirm via", "verify [X]", and the roster of sources a
  "Confirm … at primary sources" sentence announces), which the reference keeps;
* fewer — lines whose only figure was a stamp date ("(verified 2026-06-13)",
  "as researched 2026-05-28"), the ordinal "(No.2)" or a Hijri year naming a law
  ("AML Law 1439 AH", sa:103), a provenance date ("cross-checked Cayman Compass 18 Dec 2025"),
  or a code after a lone "1" ("1 SAR", hk:12);
* more — government namespaces and hosts the reference's ``.gov|.gouv|.gob`` regex misses:
  ``.go.kr``, ``korea.kr``, Andorra's ``.ad`` portals, bare ``gov.ky``, ``cima.ky``, ``najiz.sa``,
  and official bodies outside them (``rcips.ky``, ``ourcayman.ky``, ``eaa.org.hk``, ``sgs.org.sa``);
* more — statute ids the reference cannot read: "Chapter 375", "Royal Decree M/9", "Llei 10/2012",
  "Reg 883/2004", "(No.2) Regulations";
* more — dates written with any CLDR month name (issue #12): "del 29 desembre 2000"
  (Catalan) on ad:104.

With ``--include-secondary`` 124: a date that closes a link's text after a source's name
labels the page, no figure of it ("[SCMP 2024-09]" on hk:211, "[2026-05-09]" on kr:184).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sv_scrapy.core.claims.claims import Extraction, ExtractOptions, extract_corpus
from sv_scrapy.run.config import load_config

EXPECTED_PRIMARY = {"hk": 40, "sa": 24, "ad": 15, "ky": 11, "kr": 6, "bs": 4, "fr": 3, "ae": 1}


def extract(corpus: Path, include_secondary: bool = False) -> Extraction:
    cfg = load_config(corpus / "config")
    ex = cfg.extraction
    opts = ExtractOptions(
        scope_dirs=ex.scope_dirs, skip_files=ex.skip_files, skip_headings=ex.skip_headings,
        primary_only=not include_secondary, min_salient_values=ex.min_salient_values,
        claim_window_chars=ex.claim_window_chars, salient_types=ex.salient_value_types,
    )
    return extract_corpus(corpus, cfg.hosts, opts)


@pytest.fixture(scope="module")
def primary(shared_corpus: Path) -> Extraction:
    return extract(shared_corpus)


def lines_of(ex: Extraction) -> set[str]:
    return {f"{c.scope}:{c.line_no}" for c in ex.claims}


def test_pinned_counts(primary: Extraction, shared_corpus: Path) -> None:
    by_scope: dict[str, int] = {}
    for c in primary.claims:
        by_scope[c.scope] = by_scope.get(c.scope, 0) + 1
    assert by_scope == EXPECTED_PRIMARY
    assert len(primary.claims) == 104
    assert len(extract(shared_corpus, include_secondary=True).claims) == 124


@pytest.mark.parametrize(
    "where", ["bs:5", "bs:10", "bs:23", "bs:27", "ky:35", "ky:67", "ky:207", "ky:230", "ky:587", "hk:129", "sa:147",
              "sa:364"]
)
def test_pointer_lines_are_not_claims(primary: Extraction, where: str) -> None:
    assert where not in lines_of(primary)


def test_trailing_pointer_does_not_drop_the_real_citation(primary: Extraction) -> None:
    hosts = {c.source_host for c in primary.claims if f"{c.scope}:{c.line_no}" == "ky:199"}
    assert hosts == {"www.gov.ky", "www.radiocayman.gov.ky"}  # legislation.gov.ky there is a pointer


@pytest.mark.parametrize("where", ["sa:307", "ky:211", "hk:12"])
def test_stamp_dates_alone_make_no_claim(primary: Extraction, where: str) -> None:
    assert where not in lines_of(primary)


def test_a_hijri_year_naming_a_law_is_no_statute_id(primary: Extraction) -> None:
    """sa:103 "[AML Law 1439 AH (2017)](…)": 1439 is the law's year (anno Hegirae), as in "Act 1993"."""
    assert "sa:103" not in lines_of(primary)
    assert "sa:653" in lines_of(primary)  # the same law cited beside a real figure (SAR 60,000)


def test_government_namespaces_the_reference_misses(primary: Extraction) -> None:
    hosts = {c.source_host for c in primary.claims}
    assert {"www.nts.go.kr", "www.molit.go.kr", "www.minimumwage.go.kr", "www.korea.kr"} <= hosts
    assert {"www.bopa.ad", "www.govern.ad", "portaljuridicandorra.ad", "www.estadistica.ad"} <= hosts
    assert {"gov.ky", "www.cima.ky", "www.najiz.sa", "www.rcips.ky", "www.eaa.org.hk", "www.sgs.org.sa"} <= hosts


def test_statute_ids_the_reference_misses(primary: Extraction) -> None:
    statutes = {v["raw"] for c in primary.claims for v in c.values if v["type"] == "statute"}
    assert {"Chapter 375", "Decree M/9", "Llei 10/2012", "Reg 883/2004", "No.2"} <= statutes


def test_skipped_pointer_count_is_reported(primary: Extraction) -> None:
    assert primary.skipped_pointer_links == 40
