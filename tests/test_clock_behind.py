"""A run whose clock is earlier than the previous finished audit's (``SV_NOW`` set back, or a
real clock behind a rehearsal's): one ⚠️ line in the report and one warning on stderr, through
the mock web; a run going forward says nothing of the kind."""

from __future__ import annotations

import json
from pathlib import Path

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route

PAGE = "https://www.impots.gouv.fr/taux"
WARNING = "This run's clock (2027-01-01T03:00:00+00:00) is earlier than the previous audit's finish (2027-03-01T03:00"


def one_page(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A one-claim corpus citing ``PAGE``, its config and its output folder."""
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/p.md": f"# France\n\n- Duty 5.81 % ([taux]({PAGE}))\n"})
    return config, corpus, tmp_path / "out"


def serve_page(web: MockWeb) -> None:
    web.route(PAGE, Route(body="<html><body>" + "Le taux est de 5,81 %. " * 20 + "</body></html>"))


def test_a_clock_behind_the_previous_audit_is_said_once(tmp_path: Path) -> None:
    config, corpus, out = one_page(tmp_path)
    runs = []
    with MockWeb() as web:
        serve_page(web)
        for now in ("2027-02-01T03:00:00Z", "2027-03-01T03:00:00Z", "2027-01-01T03:00:00Z"):
            result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                           extra_env={"SV_NOW": now})
            assert result.returncode == 0, result.stderr[-2000:]
            runs.append((result, (out / "audit" / "report.md").read_text(encoding="utf-8"),
                         json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))))
    for result, report, _ in runs[:2]:
        assert "clock" not in result.stderr and "This run's clock" not in report
    result, report, doc = runs[2]
    assert doc["run"]["previous_finished_at"].startswith("2027-03-01")
    assert [line for line in report.splitlines() if "This run's clock" in line] == [
        line for line in report.splitlines() if line.startswith("> ⚠️ This run")]
    assert sum("This run's clock" in line for line in report.splitlines()) == 1 and WARNING in report
    warned = [line for line in result.stderr.splitlines() if "This run's clock" in line]
    assert len(warned) == 1 and WARNING in warned[0] and "WARNING" in warned[0]
    assert warned[0].endswith("check SV_NOW or the system clock")
