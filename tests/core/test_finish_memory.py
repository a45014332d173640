"""The audit's finish holds what its reports list, not every claim (issue #42): the memory the
finish and the writing of its documents and of the claims' kept outcomes take grows by a few
bytes for each claim more, not by a record or an outcome. Records come from a mapping that makes
each when asked, as the journal reads them."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.store import ContentStore
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.report.finish import AuditInputs, finish_audit
from sv_scrapy.core.report.outputs import write_documents
from sv_scrapy.core.report.sourcelinks import SourceLinks

NOW = "2027-02-01T03:17:00+00:00"
SMALL, LARGE = 500, 4_000
# what a claim more may cost the finish: its place in audit.json's spool and in the kept outcomes'
# (8 bytes each), its pointer in the counts; on an audit after the first, its id in the set that
# tells a moved claim (~50-100 bytes with the set's growth). Its outcome held until claims.json is
# written was ~360 more, each record held whole would be ~2,700
PER_CLAIM_BYTES = {"first": 40, "next": 120}


def claim(i: int) -> dict[str, Any]:
    url = f"https://h{i % 97}.example.gouv.fr/page/{i}"
    return {"id": f"fr:{i + 2}:{i:08x}", "scope": "fr", "section": "Tax", "line_no": i + 2,
            "claim_text": f"The rate is {i % 90 + 1}.25 % from 1 April 2025 under the general scheme.",
            "values": [{"raw": f"{i % 90 + 1}.25 %", "norm": f"{i % 90 + 1}.25%", "kind": "percent", "salient": True}],
            "source_url": url, "source_host": url.split("/")[2], "source_tier": "primary",
            "inline_stamp": {"date": "2025-04-01", "raw": "Last verified 2025-04-01"},
            "file": "countries/fr/playbook.md"}


class Made(Mapping[str, ClaimRecord]):
    """Claim id -> a page-read record, made when asked (none kept)."""

    def __init__(self, claims: list[dict[str, Any]]) -> None:
        self.claims = {c["id"]: c for c in claims}

    def __getitem__(self, cid: str) -> ClaimRecord:
        c = self.claims[cid]
        figure = c["values"][0]["raw"]
        excerpt = f"… the rate is {figure} from 1 April 2025. " + "Explanatory text about the tax. " * 8
        return {**c, "fetch_status": "OK", "prior": "TOKENS_PRESENT", "matched_tokens": [figure],  # type: ignore[typeddict-item]
                "strong_matched": [figure], "missing_tokens": [], "excerpts": [excerpt, excerpt], "found_as": {figure: figure},
                "note": "", "final_url": c["source_url"], "http_status": 200, "text_method": "html",
                "content_hash": f"{hash(cid) & 0xFFFFFFFF:08x}", "fetched_at": NOW, "context_match": True,
                "figure_link": c["source_url"] + "#:~:text=" + figure, "page_excerpt": "", "page_hint": ""}

    def __iter__(self) -> Iterator[str]:
        return iter(self.claims)

    def __len__(self) -> int:
        return len(self.claims)


def peak_of_finish(tmp_path: Path, n: int, audit: str = "next") -> int:
    claims = [claim(i) for i in range(n)]
    previous = {c["id"]: {"prior": "TOKENS_PRESENT", "fetch_status": "OK", "scope": "fr", "fp": "", "baseline":
                          "TOKENS_PRESENT", "pending": "", "proposed": ""} for c in claims} if audit == "next" else {}
    given = AuditInputs(
        claims=claims, records=Made(claims),  # type: ignore[arg-type]
        urls={c["source_url"]: {"fetch_status": "OK", "not_modified": False, "kind": "html"} for c in claims},
        params={"country": None, "ci": False}, run_id="r2", resumed=False, generated_at=NOW, links=SourceLinks(),
        weights={}, backlog_top_n=10, out_dir=tmp_path / f"out{n}", previous=previous,
        scopes={"fr": "2027-01-01"} if previous else {}, spool_dir=tmp_path,
        journal={"previous_finished_at": "2027-01-01T03:00:00+00:00"} if previous else {})
    tracemalloc.start()
    try:
        done = finish_audit(given)
        write_documents(done, given.out_dir, None)
        ContentStore(given.out_dir / "store").save_claim_outcomes(done.kept, done.scopes)
        assert done.doc["stats"]["claims"] == n
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("audit", ["first", "next"])
def test_the_finish_holds_a_few_bytes_a_claim(tmp_path: Path, audit: str) -> None:
    small, large = peak_of_finish(tmp_path, SMALL, audit), peak_of_finish(tmp_path, LARGE, audit)
    per_claim = (large - small) / (LARGE - SMALL)
    assert per_claim < PER_CLAIM_BYTES[audit], f"{per_claim:.0f} bytes a claim more"
    written = json.loads((tmp_path / f"out{LARGE}" / "audit.json").read_text(encoding="utf-8"))
    assert len(written["items"]) == LARGE and written["items"][-1]["excerpts"]  # every record, whole
    kept = json.loads((tmp_path / f"out{LARGE}" / "store" / "claims.json").read_text(encoding="utf-8"))
    assert len(kept["outcomes"]) == LARGE  # every outcome


def test_the_last_audits_outcomes_are_decoded_once(tmp_path: Path) -> None:
    """An audit after the first reads every claim's kept outcome (``ContentStore.claim_outcomes``):
    its peak is the file's text and one dict an outcome, not a second dict of each made after."""
    store = ContentStore(tmp_path / "store")
    store.save_claim_outcomes({c["id"]: {"prior": "TOKENS_PRESENT", "fetch_status": "OK", "scope": "fr",
                                         "fp": f"{i:016x}", "baseline": "TOKENS_PRESENT", "pending": "", "proposed": ""}
                               for i, c in enumerate(claim(i) for i in range(LARGE))}, {"fr": NOW})
    tracemalloc.start()
    try:
        outcomes, _ = store.claim_outcomes()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(outcomes) == LARGE and outcomes["fr:2:00000000"]["fp"] == f"{0:016x}"
    assert peak < 1.9 * held, f"peak {peak / held:.2f}× what is held"  # ~1.65×; a second dict of each: ~2.2×
