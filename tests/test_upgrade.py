"""Upgrading sv_scrapy keeps the audit's memory: a store written by the release before store
formats were versioned (tests/fixtures/upgrade-76d1325, two audits by 76d1325) is migrated, not
set aside, and today's audit of it confirms the change the old release saw pending, makes the
404 DEAD on its third failing month and says "New since" the old audit. Its HTML pages are read
in full once (the old release kept no line shapes, without which a 304 would judge a figure's
context unlike a 200); its PDF answers 304, and so do its unchanged pages the month after."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.store import url_key
from testing.crawl import FAST_ANY_HOST, make_config
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb
from testing.mockweb.site import load_site

from .conftest import PROJECT_DIR

FIXTURE = PROJECT_DIR / "tests" / "fixtures" / "upgrade-76d1325"
LAST_OLD_AUDIT = json.loads((FIXTURE / "store" / "run.json").read_text(encoding="utf-8"))["finished_at"]
SURTAXE = "https://www.collectivites-locales.gouv.fr/surtaxe"
ARCHIVES = "https://www.legifrance.gouv.fr/archives"
DMTO = "https://www.impots.gouv.fr/dmto"
NOW = "2027-01-01T03:17:00Z"
MONTH_AFTER = "2027-02-01T03:17:00Z"


def audit_upgraded(tmp_path: Path, damage: str = "") -> tuple[Any, dict[str, Any], MockWeb]:
    out = tmp_path / "out"
    shutil.copytree(FIXTURE / "store", out / "store")
    if damage:
        entry = out / "store" / "pages" / f"{url_key(damage)}.json"
        entry.write_text(entry.read_text(encoding="utf-8").replace('"fetch_status": "OK"', '"fetch_status": "OK",'),
                         encoding="utf-8")  # a hand edit that broke the JSON
    config = make_config(tmp_path / "config", liveness=FAST_ANY_HOST)  # ARCHIVES is on legifrance
    with MockWeb() as web:
        load_site(web, FIXTURE / "site")
        result = crawl_in_process("audit", corpus=FIXTURE / "corpus", config=config, output=out, proxy_env=web.env(),
                                  extra_env={"SV_NOW": NOW})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    return result, json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8")), web


def audit_the_month_after(tmp_path: Path) -> list[Any]:
    """The next month's audit of the upgraded store, the site unchanged: the mock web's log."""
    with MockWeb() as web:
        load_site(web, FIXTURE / "site")
        result = crawl_in_process("audit", corpus=FIXTURE / "corpus", config=tmp_path / "config",
                                  output=tmp_path / "out", proxy_env=web.env(), extra_env={"SV_NOW": MONTH_AFTER})
    assert result.returncode == 0, result.stderr[-3000:]
    return list(web.log)


def test_an_old_releases_store_keeps_its_304s_baselines_streaks_and_news(tmp_path: Path) -> None:
    result, doc, web = audit_upgraded(tmp_path)
    assert doc["store_quarantined"] == [] and not (result.output_dir / "store" / "corrupt").exists()
    assert doc["store"]["found"] == 0 and doc["store"]["migrated"] and doc["store"]["entries"] == 11
    assert json.loads((result.output_dir / "store" / "FORMAT.json").read_text())["migrated_from"] == 0
    # judged from the mock web's log: the HTML pages read in full once, the PDF asked conditionally
    pages = [e for e in web.log if e.method == "GET" and not e.url.endswith("/robots.txt")]
    unchanged = [e for e in pages if e.url != ARCHIVES]
    html = [e for e in unchanged if not e.url.endswith(".pdf")]
    assert len(pages) == 11 and html and not any("If-None-Match" in e.headers for e in html)
    assert [e.status for e in unchanged if e.url.endswith(".pdf")] == [304]
    items = {i["source_url"]: i for i in doc["items"]}
    # the change the old release saw once (0,7 % -> 0,8 %) is confirmed now: the baseline was kept
    surtaxe = items[SURTAXE]
    assert surtaxe["content_changed"] and surtaxe["stale_changed"] and surtaxe["changed_at"][:10] == LAST_OLD_AUDIT[:10]
    # the 404's fail streak of 2 was kept: this third failing month makes it DEAD, and that is news
    archives = items[ARCHIVES]
    assert (archives["fetch_status"], archives["fail_streak"], archives["transition"]) == ("DEAD", 3, "newly_dead")
    # "New since" the old release's last audit; its counts are the history's previous point
    assert doc["news_since"] == LAST_OLD_AUDIT
    assert doc["history"]["previous"]["at"] == LAST_OLD_AUDIT and len(doc["history"]["trend"]) == 2
    assert doc["generated_at"].startswith("2027-01-01T03:1")
    issue = (result.output_dir / "audit" / "issue.md").read_text(encoding="utf-8")
    report = (result.output_dir / "audit" / "report.md").read_text(encoding="utf-8")
    assert f"New since {LAST_OLD_AUDIT[:10]}" in issue
    assert "hash check" not in report and "⚠️ " + "stored" not in report
    assert doc["stats"]["new_findings"] >= 2  # newly DEAD + changed after Last verified
    # the month after, the unchanged pages answer 304 to the validators the upgrade month kept
    after = [e for e in audit_the_month_after(tmp_path)
             if e.method == "GET" and not e.url.endswith("/robots.txt") and e.url != ARCHIVES]
    assert after and sum(e.status == 304 for e in after) >= 0.9 * len(after)
    assert all("If-None-Match" in e.headers for e in after)


def test_a_hand_damaged_entry_in_the_old_store_is_the_only_one_set_aside(tmp_path: Path) -> None:
    result, doc, web = audit_upgraded(tmp_path, damage=DMTO)
    assert [q["url"] for q in doc["store_quarantined"]] == [f"{url_key(DMTO)}.json"]
    assert len(list((result.output_dir / "store" / "corrupt").iterdir())) == 1
    fresh = [e for e in web.log if e.url == DMTO]
    assert [e.status for e in fresh] == [200] and "If-None-Match" not in fresh[0].headers
    # the others keep their memory: the PDF's validators answer 304 (the HTML pages are read in
    # full once, as in the test above)
    others = [e for e in web.log if e.method == "GET" and e.url not in (DMTO, ARCHIVES) and "robots" not in e.url]
    assert [e.status for e in others if e.url.endswith(".pdf")] == [304]
    assert all(e.status == 200 and "If-None-Match" not in e.headers for e in others if not e.url.endswith(".pdf"))


def test_a_store_from_a_newer_release_is_refused_in_one_line_and_left_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(FIXTURE / "store", out / "store")
    (out / "store" / "FORMAT.json").write_text('{"format": 99}', encoding="utf-8")
    before = {p: p.read_bytes() for p in (out / "store").rglob("*") if p.is_file()}
    config = make_config(tmp_path / "config", liveness=FAST_ANY_HOST)  # ARCHIVES is on legifrance
    with MockWeb() as web:
        result = crawl_in_process("audit", corpus=FIXTURE / "corpus", config=config, output=out, proxy_env=web.env())
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.strip()]
    assert "store format 99" in line and "newer sv_scrapy" in line
    assert web.log == [] and {p: p.read_bytes() for p in (out / "store").rglob("*") if p.is_file()} == before
