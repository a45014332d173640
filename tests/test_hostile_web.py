"""The web as government sites serve it (issue #19), through the mock web, judged from
``worklist.json``/``audit.json``, the exit status and the mock web's own request log.

One worklist crawl reads every case (each on its own host, so floors do not serialise it);
robots.txt's stored copy needs two audits, and the code-error case a crawl of its own.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, NO_OCR, crawl, make_config, write_corpus
from testing.inprocess import InProcessCrawl, crawl_in_process
from testing.mockweb import MockWeb, Route
from testing.mockweb.pdfgen import text_pdf

FILLER = "<p>" + "General information about the fee and how it is collected. " * 8 + "</p>"


def page(text: str, title: str = "Official page", lang: str = "en") -> str:
    return (f'<html lang="{lang}"><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p>'
            f"{FILLER}</body></html>")


def http_date(seconds_from_now: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_from_now), usegmt=True)


def limited(header: str, text: str) -> Route:
    """A 429 with this Retry-After, then the page."""
    return Route(sequence=[Route(status=429, headers={"Retry-After": header}), Route(body=page(text))])


# name -> (playbook line with {url}, url, route or None when the site sets it up itself)
CASES: dict[str, tuple[str, str, Route | None]] = {
    "robots503": ("Fee €500 ([a]({url}))", "https://r503.case.gouv.fr/fees", Route(body=page("Fee €500."))),
    "robots_reset": ("Fee €501 ([a]({url}))", "https://rreset.case.gouv.fr/fees", Route(body=page("Fee €501."))),
    "robots404": ("Fee €502 ([a]({url}))", "https://r404.case.gouv.fr/fees", Route(body=page("Fee €502."))),
    "robots3xx": ("Fee €503 ([a]({url}))", "https://r3xx.case.gouv.fr/private/fees", Route(body=page("Fee €503."))),
    "ra_seconds": ("Fee €510 ([a]({url}))", "https://ra1.case.gouv.fr/fees", limited("1", "Fee €510.")),
    "ra_7200": ("Fee €511 ([a]({url}))", "https://ra2.case.gouv.fr/fees", limited("7200", "Fee €511.")),
    "ra_date_far": ("Fee €512 ([a]({url}))", "https://ra3.case.gouv.fr/fees", None),
    "ra_date_near": ("Fee €513 ([a]({url}))", "https://ra4.case.gouv.fr/fees", None),
    "ra_past": ("Fee €514 ([a]({url}))", "https://ra5.case.gouv.fr/fees",
                limited("Sun, 06 Nov 1994 08:49:37 GMT", "Fee €514.")),
    "ra_huge": ("Fee €515 ([a]({url}))", "https://ra6.case.gouv.fr/fees", limited("9" * 40, "Fee €515.")),
    "ra_garbage": ("Fee €516 ([a]({url}))", "https://ra7.case.gouv.fr/fees", limited("soon, maybe ²", "Fee €516.")),
    "lying_charset": ("Droit fixe €1.250 (février 2025) ([a]({url}))", "https://latin.case.gouv.fr/droits",
                      Route(body=page("Droit fixe en février : € 1.250 par acte.", title="Droits à payer",
                                      lang="fr").encode("cp1252"), content_type="text/html; charset=utf-8")),
    "dollar7": ("Filing fee $7 ([a]({url}))", "https://usd.case.gov.ph/fees", Route(body=page("Filing fee: $7 per form."))),
    "dollar050": ("Stamp $0.50 ([a]({url}))", "https://usd2.case.gov.ph/stamp",
                  Route(body=page("Each stamp costs $0.50 at the counter."))),
    "euro20": ("Gebühr € 20 ([a]({url}))", "https://eur.case.gv.at/gebuehr",
               Route(body=page("Die Gebühr beträgt € 20 je Antrag.", lang="de"))),
    "zloty7": ("Opłata 7 zł ([a]({url}))", "https://pln.case.gov.pl/oplata",
               Route(body=page("Opłata wynosi 7 zł za wniosek.", lang="pl"))),
}
SHELL = ('<html><head><title>Portal</title></head><body><h1>Rates</h1>'
         '<iframe src="/frames/rates.html"></iframe><iframe src="/private/frame.html"></iframe>'
         '<iframe src="https://ads.example.net/banner"></iframe></body></html>')
LANDING = page("The schedule of registration fees is published every year. "
               '<a href="/docs/fee-schedule-2025.pdf">Download the 2025 fee schedule (PDF)</a> · '
               '<a href="/docs/annual-report-2019.pdf">Annual report 2019</a> · <a href="/contact">Contact</a>',
               title="Registration fees")
CASES.update({
    "frame": ("DMTO 5.81 % ([a]({url}))", "https://frames.case.gouv.fr/portal", Route(body=SHELL)),
    "linked": ("Registration fee schedule 2025: $45 per deed ([a]({url}))", "https://linked.case.gov.ph/fees",
               Route(body=LANDING)),
})
CASES.update({
    "soft404_en": ("Fee €900 ([a]({url}))", "https://soft.case.gov.uk/fees",
                   Route(body=page("Sorry, we could not find that page. Try the search.", title="Page not found"))),
    "soft404_es": ("Tasa 5.81 % ([a]({url}))", "https://soft.case.gob.es/tasas",
                   Route(body=page("Lo sentimos, la dirección no existe. Vuelva al inicio.",
                                   title="Página no encontrada", lang="es"))),
    "soft404_de": ("Gebühr 2,5 % ([a]({url}))", "https://soft.case.bund.de/gebuehr",
                   Route(body=page("Die angeforderte Adresse gibt es nicht (Fehler 404).", title="Seite nicht gefunden",
                                   lang="de"))),
    "not_soft": ("Fee €901 ([a]({url}))", "https://lost.case.gov.uk/fees",
                 Route(body=page("Lost property not found within a year is sold. The fee is €950.",
                                 title="Lost property"))),
})
GAP = "</p>" + FILLER * 2 + "<p>"
CASES.update({
    "decoy": ("Foreign-buyer surcharge 3.5 % ([a]({url}))", "https://decoy.case.gov.sg/stamp",
              # the page's heading holds a word of the claim's: it lends none to the VAT sentence below it
              Route(body=page(f"VAT 3.5 % on services applies to every supplier.{GAP}"
                              "The foreign-buyer surcharge is 4 % of the price.",
                              title="Guidance for non-resident buyers"))),
    "context": ("Foreign-buyer surcharge 3.5 % ([a]({url}))", "https://context.case.gov.sg/stamp",
                Route(body=page(f"VAT 3.5 % on services applies to every supplier.{GAP}"
                                "The foreign-buyer surcharge is 3.5 % of the price."))),
})
LINE = {name: 3 + i for i, name in enumerate(CASES)}


def _site(web: MockWeb) -> None:
    for _, url, route in CASES.values():
        if route is not None:
            web.route(url, route)
    web.route("https://r503.case.gouv.fr/robots.txt", status=503, body="busy")
    web.route("https://rreset.case.gouv.fr/robots.txt", body="User-agent: *\nAllow: /\n" * 50, reset_after=5)
    web.route("https://r404.case.gouv.fr/robots.txt", status=404, body="<html>Disallow: /</html>")
    web.route("https://r3xx.case.gouv.fr/robots.txt", redirect="https://r3xx.case.gouv.fr/site/robots.txt")
    web.route("https://r3xx.case.gouv.fr/site/robots.txt", body="User-agent: *\nDisallow: /private/\n",
              content_type="text/plain")
    web.route(CASES["ra_date_far"][1], limited(http_date(7200), "Fee €512."))
    web.route("https://frames.case.gouv.fr/robots.txt", body="User-agent: *\nDisallow: /private/\n",
              content_type="text/plain")
    web.route("https://frames.case.gouv.fr/frames/rates.html", body=page("Le taux de 5,81 % s'applique.", lang="fr"))
    web.route("https://frames.case.gouv.fr/private/frame.html", body=page("secret"))
    web.route("https://ads.example.net/banner", body=page("buy"))
    web.route("https://linked.case.gov.ph/docs/fee-schedule-2025.pdf", content_type="application/pdf",
              body=text_pdf([["Schedule of fees 2025", ["Deed registration", "$45"]]]))
    web.route("https://linked.case.gov.ph/docs/annual-report-2019.pdf", content_type="application/pdf",
              body=text_pdf([["Annual report 2019: $45 was the fee then"]]))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[InProcessCrawl, MockWeb]:
    tmp = tmp_path_factory.mktemp("hostile")
    lines = "\n".join(text.format(url=url) for text, url, _ in CASES.values())
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": f"# Test\n\n{lines}\n"})
    config = make_config(tmp / "config", liveness=FAST_LIVENESS, source_verify=NO_OCR)
    with MockWeb() as web:
        _site(web)
        # a date a few seconds ahead (Scrapy's start-up may eat it: then it is a past date, also fine)
        web.route(CASES["ra_date_near"][1], limited(http_date(5), "Fee €513."))
        result = crawl_in_process("worklist", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                                  args={"sample": "1000", "include_secondary": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    return result, web


@pytest.fixture(scope="module")
def items(run: tuple[InProcessCrawl, MockWeb]) -> dict[str, dict[str, Any]]:
    by_line = run[0].items_by_line()
    return {name: by_line[line] for name, line in LINE.items()}


# -- robots.txt, RFC 9309 ------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["robots503", "robots_reset"])
def test_robots_unreachable_means_disallow(run: tuple[InProcessCrawl, MockWeb], items: dict[str, dict[str, Any]],
                                           case: str) -> None:
    got, url = items[case], CASES[case][1]
    assert (got["fetch_status"], got["prior"]) == ("ROBOTS", "SOURCE_UNAVAILABLE")
    assert got["note"].startswith("robots.txt unavailable (") and got["note"].endswith("not fetched (RFC 9309)")
    assert not run[1].requests_for(url), "the page must never be requested"


def test_robots_503_note(items: dict[str, dict[str, Any]], run: tuple[InProcessCrawl, MockWeb]) -> None:
    assert items["robots503"]["note"] == "robots.txt unavailable (503): not fetched (RFC 9309)"
    assert "network error" in items["robots_reset"]["note"]
    # the 503 was retried like any 503 before it counted as unreachable
    assert [e.status for e in run[1].requests_for("https://r503.case.gouv.fr/robots.txt")] == [503, 503, 503]


def test_robots_4xx_allows_all(items: dict[str, dict[str, Any]]) -> None:
    assert (items["robots404"]["fetch_status"], items["robots404"]["prior"]) == ("OK", "TOKENS_PRESENT")


def test_robots_redirect_is_followed(items: dict[str, dict[str, Any]], run: tuple[InProcessCrawl, MockWeb]) -> None:
    assert items["robots3xx"]["fetch_status"] == "ROBOTS"
    assert items["robots3xx"]["note"] == "robots.txt disallows this URL"
    assert run[1].requests_for("https://r3xx.case.gouv.fr/site/robots.txt")
    assert not run[1].requests_for(CASES["robots3xx"][1])


# -- Retry-After in every form -------------------------------------------------------------------

@pytest.mark.parametrize("case", ["ra_seconds", "ra_date_near", "ra_past", "ra_garbage"])
def test_retry_after_waited_for(run: tuple[InProcessCrawl, MockWeb], items: dict[str, dict[str, Any]], case: str) -> None:
    assert (items[case]["fetch_status"], items[case]["prior"]) == ("OK", "TOKENS_PRESENT"), items[case]["note"]
    assert [e.status for e in run[1].requests_for(CASES[case][1])] == [429, 200]


@pytest.mark.parametrize(("case", "asked"), [("ra_7200", "7200 s"), ("ra_date_far", ""),
                                             ("ra_huge", "more than 10¹² s")])
def test_retry_after_above_the_limit_is_unavailable_at_once(run: tuple[InProcessCrawl, MockWeb],
                                                            items: dict[str, dict[str, Any]], case: str,
                                                            asked: str) -> None:
    got = items[case]
    assert got["fetch_status"] == "UNAVAILABLE"
    assert got["note"].startswith("Retry-After ") and "exceeds the 60 s limit" in got["note"], got["note"]
    assert asked in got["note"]
    assert "Error" not in got["note"]
    assert len(run[1].requests_for(CASES[case][1])) == 1  # not retried, not waited for


def test_retry_after_7200_note(items: dict[str, dict[str, Any]]) -> None:
    assert items["ra_7200"]["note"].startswith("Retry-After 7200 s exceeds the 60 s limit")


# -- charset ------------------------------------------------------------------------------------

def test_lying_charset_falls_back(items: dict[str, dict[str, Any]], run: tuple[InProcessCrawl, MockWeb]) -> None:
    from sv_scrapy.core.audit.store import ContentStore

    stored = ContentStore(run[0].output_dir / "store").text(CASES["lying_charset"][1])
    assert stored and "février" in stored and "\ufffd" not in stored  # what scrapy verify checks quotes against
    got = items["lying_charset"]
    assert got["prior"] == "TOKENS_PRESENT"
    assert got["excerpts"] and not any("\ufffd" in e for e in got["excerpts"])
    assert any("février" in e and "€ 1.250" in e for e in got["excerpts"]), got["excerpts"]
    assert got["charset"] in ("cp1252", "latin_1", "iso8859-15") and got["charset_source"].startswith("fallback:")


def test_an_honest_charset_says_header(items: dict[str, dict[str, Any]]) -> None:
    assert (items["dollar7"]["charset"], items["dollar7"]["charset_source"]) == ("utf-8", "header")


# -- small money with its symbol -----------------------------------------------------------------

@pytest.mark.parametrize("case", ["dollar7", "dollar050", "euro20", "zloty7"])
def test_small_money_with_its_symbol_is_strong(items: dict[str, dict[str, Any]], case: str) -> None:
    got = items[case]
    assert got["prior"] == "TOKENS_PRESENT", got
    assert got["strong_matched"] == got["matched_tokens"]


# -- frames ---------------------------------------------------------------------------------------

def test_a_frame_of_a_thin_page_is_read(run: tuple[InProcessCrawl, MockWeb], items: dict[str, dict[str, Any]]) -> None:
    got = items["frame"]
    assert (got["fetch_status"], got["prior"]) == ("OK", "TOKENS_PRESENT"), got["note"]
    assert got["excerpts"][0].startswith("(frame https://frames.case.gouv.fr/frames/rates.html) ")
    assert "5,81 %" in got["excerpts"][0]
    web = run[1]
    assert web.requests_for("https://frames.case.gouv.fr/frames/rates.html")
    assert not web.requests_for("https://frames.case.gouv.fr/private/"), "robots.txt is obeyed for frames"
    assert not web.requests_for("https://ads.example.net/"), "another site's frame is never fetched"


# -- one hop for the figure ------------------------------------------------------------------------

def test_the_figure_one_click_away(run: tuple[InProcessCrawl, MockWeb], items: dict[str, dict[str, Any]]) -> None:
    got = items["linked"]
    assert got["prior"] == "TOKENS_ABSENT"  # the cited page does not say it
    assert got["found_linked"]["url"] == "https://linked.case.gov.ph/docs/fee-schedule-2025.pdf"
    assert "$45" in got["found_linked"]["excerpt"]
    web = run[1]
    assert not web.requests_for("https://linked.case.gov.ph/contact")  # shares nothing with the claim
    assert items["dollar7"]["found_linked"] is None


@pytest.fixture(scope="module")
def extras_web(tmp_path_factory: pytest.TempPathFactory) -> MockWeb:
    """A crawl of the frame and linked-document cases alone (the timing tests, run in make test's
    `pacing` pass, cost this small crawl, not the module's)."""
    tmp = tmp_path_factory.mktemp("extras")
    lines = "\n".join(CASES[name][0].format(url=CASES[name][1]) for name in ("frame", "linked"))
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": f"# Test\n\n{lines}\n"})
    with MockWeb() as web:
        _site(web)
        result = crawl_in_process("worklist", corpus=corpus,
                                  config=make_config(tmp / "config", liveness=FAST_LIVENESS, source_verify=NO_OCR),
                                  output=tmp / "out", proxy_env=web.env(), args={"sample": "1000"})
    assert result.returncode == 0, result.stderr[-3000:]
    return web


@pytest.mark.pacing  # a floor on new connections: the server's accept clock (pyproject.toml)
@pytest.mark.parametrize("host", ["https://frames.case.gouv.fr/", "https://linked.case.gov.ph/"])
def test_extra_requests_keep_the_host_floor(extras_web: MockWeb, host: str) -> None:
    """Frames and linked documents wait their turn in the paced handler: the gov floor of the test
    config (100 ms between request starts to one host) holds across page, robots.txt and extras."""
    starts = sorted(e.began for e in extras_web.requests_for(host))
    assert len(starts) >= 3
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert min(gaps) >= 0.09, gaps


# -- context ---------------------------------------------------------------------------------------

def test_a_decoy_figure_is_other_context(items: dict[str, dict[str, Any]]) -> None:
    got = items["decoy"]
    assert (got["prior"], got["context_match"]) == ("TOKENS_PRESENT", False)  # the prior is unchanged
    assert "foreign-buyer surcharge is 4 %" in got["excerpts"][0]  # where the claim's words are, first
    assert any("VAT 3.5 %" in e for e in got["excerpts"][1:])


def test_the_best_context_excerpt_comes_first(items: dict[str, dict[str, Any]]) -> None:
    got = items["context"]
    assert (got["prior"], got["context_match"]) == ("TOKENS_PRESENT", True)
    assert "foreign-buyer surcharge is 3.5 %" in got["excerpts"][0]
    assert items["dollar7"]["context_match"] is True  # "Filing fee: $7": the claim's words beside it


# -- soft 404 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["soft404_en", "soft404_es", "soft404_de"])
def test_a_soft_404_is_flagged(items: dict[str, dict[str, Any]], case: str) -> None:
    got = items[case]
    assert (got["fetch_status"], got["prior"], got["soft_404"]) == ("OK", "TOKENS_ABSENT", True)
    assert got["note"] == "the page says it was not found"


def test_not_found_in_prose_is_no_soft_404(items: dict[str, dict[str, Any]]) -> None:
    got = items["not_soft"]
    assert (got["prior"], got["soft_404"]) == ("TOKENS_ABSENT", False)
    assert items["dollar7"]["soft_404"] is False


def test_every_request_left_through_the_paced_handler(run: tuple[InProcessCrawl, MockWeb]) -> None:
    """Frames, linked documents, robots.txt, retries: each request the downloader sent took its
    turn in the paced handler (its count of starts equals Scrapy's count of requests sent)."""
    stats = run[0].stats
    assert stats["sv/pacing/starts"] == stats["downloader/request_count"] > 0
    assert stats["sv/frame/requested"] >= 2 and stats["sv/linked/requested"] >= 1


# -- our own exceptions are code errors ----------------------------------------------------------

@pytest.mark.subprocess
def test_a_raising_component_is_a_code_error(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": (
        "# Test\n\nFee €700 ([a](https://bug.case.gouv.fr/boom))\n\nFee €701 ([a](https://fine.case.gouv.fr/ok))\n")})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    from sv_scrapy import settings as project

    components = {**project.DOWNLOADER_MIDDLEWARES, "tests.raising_component.RaisingMiddleware": 560}
    with MockWeb() as web:
        web.route("https://bug.case.gouv.fr/boom", body=page("Fee €700."))
        web.route("https://fine.case.gouv.fr/ok", body=page("Fee €701."))
        result = crawl("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env(),
                       settings={"DOWNLOADER_MIDDLEWARES": json.dumps(components)})
    assert result.returncode == 1, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.strip() and "warning" not in line.lower()]
    assert lines and "error in sv_scrapy's own code" in lines[-1] and "AttributeError" in lines[-1], result.stderr
    assert "Traceback" not in result.stderr
    logs = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out").rglob("*.log"))
    assert "Traceback" in logs and "no_such_attribute" in logs and "raising_component.py" in logs
    doc = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
    items = {i["source_url"]: i for i in doc["items"]}
    assert "AttributeError" not in items["https://bug.case.gouv.fr/boom"]["note"]  # not a page fact
    assert items["https://fine.case.gouv.fr/ok"]["prior"] == "TOKENS_PRESENT"


# -- robots.txt: the copy stored by an earlier run stands in -------------------------------------

def test_stored_robots_stands_in_when_unreachable(tmp_path: Path) -> None:
    urls = {"public": "https://stored.case.gouv.fr/public/fees", "private": "https://stored.case.gouv.fr/private/fees",
            "nocopy": "https://nocopy.case.gouv.fr/fees", "soft": "https://gone.case.gouv.fr/fees",
            "decoy": CASES["decoy"][1], "linked": CASES["linked"][1]}
    lines = "\n".join(f"Fee €{800 + i} ([a]({url}))" for i, url in enumerate(urls.values())
                      if url not in (CASES["decoy"][1], CASES["linked"][1]))
    lines += "\n" + "\n".join(CASES[name][0].format(url=CASES[name][1]) for name in ("decoy", "linked"))
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": f"# Test\n\n{lines}\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS, source_verify=NO_OCR)
    out = tmp_path / "out"

    def audit(web: MockWeb, now: str) -> dict[str, dict[str, Any]]:
        result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                                  extra_env={"SV_NOW": now})
        assert result.returncode == 0, result.stderr[-2000:]
        doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
        return {i["source_url"]: i for i in doc["items"]}

    with MockWeb() as web:
        for i, url in enumerate(urls.values()):
            web.route(url, body=page(f"Fee €{800 + i}."))
        _site(web)
        web.route(urls["soft"], body=page("Cette adresse n'existe plus.", title="Page introuvable", lang="fr"))
        web.route("https://stored.case.gouv.fr/robots.txt", body="User-agent: *\nDisallow: /private/\n",
                  content_type="text/plain")
        web.route("https://nocopy.case.gouv.fr/robots.txt", status=404)
        first = audit(web, "2026-11-01T03:00:00Z")
        assert first[urls["public"]]["prior"] == "TOKENS_PRESENT" and first[urls["nocopy"]]["prior"] == "TOKENS_PRESENT"
        assert first[urls["private"]]["fetch_status"] == "ROBOTS"
        web.route("https://stored.case.gouv.fr/robots.txt", status=503)
        web.route("https://nocopy.case.gouv.fr/robots.txt", status=503)
        before = len(web.log)
        second = audit(web, "2026-12-01T03:00:00Z")
        sent = [e.url for e in web.log[before:]]
    assert second[urls["public"]]["fetch_status"] == "OK"  # the stored copy allows it, and the note says so
    assert second[urls["public"]]["note"] == "robots.txt unavailable (503): the copy stored 2026-11-01 allows this URL"
    assert second[urls["private"]]["note"] == ("robots.txt unavailable (503): the copy stored 2026-11-01 disallows "
                                               "this URL (RFC 9309)")
    assert second[urls["nocopy"]]["note"] == "robots.txt unavailable (503): not fetched (RFC 9309)"
    assert urls["public"] in sent and urls["nocopy"] not in sent and urls["private"] not in sent
    report = (out / "audit" / "report.md").read_text(encoding="utf-8")
    assert "2 page(s) not fetched because their host's robots.txt was unavailable" in report
    # the soft 404 stands with the dead and unavailable links, not with the figure checks
    assert second[urls["soft"]]["soft_404"] is True
    absent = report.split("### `TOKENS_ABSENT`", 1)[1].split("###", 1)[0]
    unavailable = report.split("### Unavailable, by reason", 1)[1].split("###", 1)[0]
    assert "the page says it was not found" in unavailable and "gone.case" not in absent
    assert "the figure is in <https://linked.case.gov.ph/docs/fee-schedule-2025.pdf> linked from this page — cite " \
           "that instead?" in absent
    assert "### Figure found, other context — 1" in report
    html_report = (out / "audit" / "report.html").read_text(encoding="utf-8")
    assert "Figure found, other context" in html_report and "cite that instead?" in html_report


# -- the linked.* config keys ----------------------------------------------------------------------

def test_linked_config_keys(tmp_path: Path) -> None:
    import asyncio

    from sv_scrapy.core.errors import ConfigError
    from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome
    from sv_scrapy.core.page.reader import Reading
    from sv_scrapy.items import PageItem
    from sv_scrapy.pipelines.outlinks import LinkedPipeline
    from sv_scrapy.run.config import load_config

    assert (load_config(make_config(tmp_path / "default")).linked.enabled,
            load_config(make_config(tmp_path / "default2")).linked.max_per_page) == (True, 2)
    off = load_config(make_config(tmp_path / "off", source_verify={"linked": {"enabled": False, "max_per_page": 1}}))
    assert (off.linked.enabled, off.linked.max_per_page) == (False, 1)
    with pytest.raises(ConfigError, match="linked.max_per_page"):
        load_config(make_config(tmp_path / "bad", source_verify={"linked": {"max_per_page": -1}}))
    # switched off: nothing is fetched (no crawler is even asked) and no record gains found_linked
    record = {"id": "x", "prior": "TOKENS_ABSENT", "values": [], "found_linked": None}
    item = PageItem(url="https://x.gov/a", claims=[], fetched=Fetched("https://x.gov/a", "", http_status=200),
                    reading=Reading(kind="html", links=(("https://x.gov/fees-2025.pdf", "Fees 2025"),)),
                    outcome=PageOutcome("OK", "", [record]))
    asyncio.run(LinkedPipeline(None, off).process_item(item))  # type: ignore[arg-type]
    assert item.linked == {} and item.records()[0]["found_linked"] is None
