"""A year in a minute: twelve monthly audits, ``SV_NOW`` on the 1st of each month, against a
mock web whose pages change between months. The story is read from ``audit.json`` and
``issue.md`` as a reviewer would read it, month by month."""

from __future__ import annotations

import json
from typing import Any

import pytest

from testing.crawl import FAST_ANY_HOST, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route

FILLER = "<p>" + "How the duty is assessed, who pays it and when it falls due. " * 6 + "</p>"
RATE = "https://www.impots.gouv.fr/taux"  # 5.81 % until month 3, then 6.00 %
FEE = "https://www.service-public.gouv.fr/frais"  # 404 in months 5-8
STAMPED = "https://www.economie.gouv.fr/timbre"  # verified 2026-09-01: its age grows
FRESH = "https://www.economie.gouv.fr/plafond"  # never verified: priority constant
MOVED = "https://www.legifrance.gouv.fr/droit"  # its line moves in month 6
MONTHS = [f"2027-{m:02d}-01T03:17:00Z" for m in range(1, 13)]


def page(figure: str) -> str:
    return f"<html lang='fr'><body><h1>Barème</h1><p>Le taux applicable est de {figure}.</p>{FILLER}</body></html>"


def playbook(month: int) -> str:
    moved_up = "" if month < 6 else "- Note added in month 6 pushes the next line down.\n"
    return (
        "# France\n\n**Last verified**: 2026-12-15\n\n## Tax\n\n"
        f"- Transfer duty 5.81 % ([taux]({RATE}))\n"
        f"- Filing fee €90 ([frais]({FEE}))\n"
        f"- Stamp duty €125 ([timbre]({STAMPED})) (verified 2026-09-01)\n"
        f"{moved_up}"
        f"- Registration duty 0.715 % ([droit]({MOVED}))\n"
    )


def serve(web: MockWeb, month: int) -> None:
    web.route(RATE, Route(body=page("5,81 %" if month < 3 else "6,00 %")))
    web.route(FEE, Route(status=404, body="<html><body>Introuvable</body></html>") if 5 <= month <= 8
              else Route(body=page("90 €")))
    web.route(STAMPED, Route(body=page("125 €")))
    web.route(FRESH, Route(body=page("4 000 €")))
    web.route(MOVED, Route(body=page("0,715 %")))


@pytest.fixture(scope="module")
def year(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Month n (1-12): its audit.json, issue.md, the 304 count of its crawl."""
    tmp = tmp_path_factory.mktemp("year")
    config = make_config(tmp / "config", liveness=FAST_ANY_HOST)  # MOVED is on legifrance
    out, corpus = tmp / "out", tmp / "corpus"
    months: list[dict[str, Any]] = []
    with MockWeb() as web:
        for month, now in enumerate(MONTHS, start=1):
            write_corpus(corpus, {"countries/fr/playbook.md": playbook(month),
                                  # no stamp anywhere in this file: never verified
                                  "countries/fr/notes.md": f"# Notes\n\n- Ceiling €4,000 ([plafond]({FRESH}))\n"})
            serve(web, month)
            web.clear_log()
            result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                           extra_env={"SV_NOW": now})
            assert result.returncode == 0, (month, result.stderr[-2000:])
            doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
            months.append({"doc": doc, "issue": (out / "audit" / "issue.md").read_text(encoding="utf-8"),
                           "items": {i["source_url"]: i for i in doc["items"]},
                           "304": sum(e.status == 304 for e in web.log)})
    return months


def month(year: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return year[n - 1]


def test_every_date_follows_sv_now(year: list[dict[str, Any]]) -> None:
    for n, m in enumerate(year, start=1):
        assert m["doc"]["generated_at"].startswith(f"2027-{n:02d}-01T03:1")
        assert all(i["fetched_at"].startswith(f"2027-{n:02d}-01") for i in m["doc"]["items"] if i["fetched_at"])
        assert m["doc"]["news_since"][:10] == ("" if n == 1 else f"2027-{n - 1:02d}-01")
    assert "New since 2027-03-01" in month(year, 4)["issue"]


def test_a_figure_changed_in_month_3_is_confirmed_in_month_4_and_news_once(year: list[dict[str, Any]]) -> None:
    assert [month(year, n)["items"][RATE]["prior"] for n in (2, 3, 4)] == ["TOKENS_PRESENT", "TOKENS_ABSENT",
                                                                             "TOKENS_ABSENT"]
    three, four = month(year, 3)["items"][RATE], month(year, 4)["items"][RATE]
    assert not three["content_changed"] and three["transition"] is None and three["transition_pending"] == "vanished"
    assert four["content_changed"] and four["stale_changed"] and four["changed_at"].startswith("2027-03-01")
    assert four["transition"] == "vanished"
    news_months = [n for n in range(1, 13) if month(year, n)["items"][RATE]["transition"] or
                   month(year, n)["items"][RATE]["stale_changed"]]
    assert news_months == [4]
    assert "Figure vanished" in month(year, 4)["issue"] and "Figure vanished" not in month(year, 5)["issue"]


def test_a_404_fails_three_months_then_is_dead_then_recovers(year: list[dict[str, Any]]) -> None:
    fee = {n: month(year, n)["items"][FEE] for n in range(4, 11)}
    assert fee[4]["fetch_status"] == "OK"
    assert [fee[n]["note"].split(":")[0] for n in (5, 6)] == ["failing (1 of 3)", "failing (2 of 3)"]
    assert [fee[n]["fetch_status"] for n in (5, 6, 7, 8, 9)] == ["UNAVAILABLE", "UNAVAILABLE", "DEAD", "DEAD", "OK"]
    assert [fee[n]["transition"] for n in (5, 6, 7, 8, 9, 10)] == ["newly_unavailable", None, "newly_dead", None,
                                                                    "recovered", None]
    assert "Newly DEAD" in month(year, 7)["issue"] and "Recovered" in month(year, 9)["issue"]


def test_a_claim_moved_to_another_line_keeps_its_history(year: list[dict[str, Any]]) -> None:
    before, after = month(year, 5)["items"][MOVED], month(year, 6)["items"][MOVED]
    assert after["line_no"] == before["line_no"] + 1 and after["id"] != before["id"]
    assert after["transition"] is None and after["previous_prior"] == "TOKENS_PRESENT"
    assert "New claims" not in month(year, 6)["issue"]


def test_the_history_has_a_point_per_month(year: list[dict[str, Any]]) -> None:
    trend = month(year, 12)["doc"]["history"]["trend"]
    assert [t["at"][:10] for t in trend] == [m[:10] for m in MONTHS]
    assert month(year, 12)["doc"]["history"]["previous"]["at"].startswith("2027-11-01")


def test_stamp_ages_and_so_the_triage_order_follow_sv_now(year: list[dict[str, Any]]) -> None:
    stamped = [month(year, n)["items"][STAMPED]["priority"] for n in range(1, 13)]
    fresh = [month(year, n)["items"][FRESH]["priority"] for n in range(1, 13)]
    assert stamped == sorted(stamped) and stamped[11] - stamped[0] > 25  # eight points a month older
    assert len(set(fresh)) == 1  # never verified: no age to grow
    # four months after its check the stamped claim is the less urgent one; a year on, the more
    assert stamped[0] < fresh[0] and stamped[11] > fresh[11]


def test_unchanged_pages_answer_304_every_month(year: list[dict[str, Any]]) -> None:
    assert all(m["304"] >= 3 for m in year[1:])
