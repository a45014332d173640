"""The audit proposes allowlist candidates (secondary hosts that look official, cited next to
a figure) in its report; it never promotes them."""

from __future__ import annotations

import json
from pathlib import Path

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb


def test_the_audit_report_lists_allowlist_candidates(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/in/playbook.md": (
        "# Rates\n"
        "- Stamp duty 5 % ([Finance Department](https://finance.cand.gov.in/duty))\n"
        "- Repo rate 6.5 % ([Reserve Bank of India](https://www.rbi-cand.org.in/policy))\n"
        "- Mortgage 9.1 % ([a blog](https://blog.cand-example.com/rates))\n")})
    with MockWeb() as web:
        web.route("https://finance.cand.gov.in/duty", body="<html><body><p>Stamp duty 5 % on deeds.</p></body></html>")
        result = crawl_in_process("audit", corpus=corpus, config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                       output=tmp_path / "out", proxy_env=web.env())
        hosts = {e.url.split("/")[2] for e in web.log if e.method == "GET"}
    assert result.returncode == 0, result.stderr[-2000:]
    doc = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert [c["host"] for c in doc["allowlist_candidates"]] == ["rbi-cand.org.in"]
    assert "www.rbi-cand.org.in" not in hosts  # proposed, not promoted: a secondary source is not fetched
    report = (tmp_path / "out" / "audit" / "report.md").read_text(encoding="utf-8")
    assert "Allowlist candidates" in report and "rbi-cand.org.in" in report and "blog.cand-example" not in report
    assert "Allowlist candidates" in (tmp_path / "out" / "audit" / "report.html").read_text(encoding="utf-8")
