"""`scrapy crawl worklist` through the mock web: every fetch status and prior, one crawl.

Each case is one playbook line citing its own host (so per-host floors do not serialise
the run); the crawl runs once for the module and each test reads its line's item.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, NO_OCR, make_config, write_corpus
from testing.inprocess import InProcessCrawl, crawl_in_process
from testing.mockweb import MockWeb, Route
from testing.mockweb.pdfgen import scanned_pdf, text_pdf

FILLER = "<p>" + "General information about the tax and its collection. " * 8 + "</p>"


def page(text: str, title: str = "Official page") -> str:
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p>{FILLER}</body></html>"


# (line text with {url}, url, route) — line numbers follow the order below, from 3
CASES: dict[str, tuple[str, str, Route | None]] = {
    "present": ("DMTO 5.81 % ([a]({url}))", "https://present.case.gouv.fr/dmto",
                Route(body=page("Le taux de 5,81 % s'applique."))),
    "absent": ("DMTO 5.81 % ([a]({url}))", "https://absent.case.gouv.fr/dmto",
               Route(body=page("Le taux de 6,32 % s'applique."))),
    "weak": ("see Art. 4 ([a]({url}))", "https://weak.case.gouv.fr/cgi", Route(body=page("Chapter 4 explains."))),
    "thin": ("DMTO 5.81 % ([a]({url}))", "https://thin.case.gouv.fr/x", Route(body="<html><body>Loading</body></html>")),
    "spa": ("Stamp duty 4.25 % ([a]({url}))", "https://spa.case.gov.hk/cap117", Route(body=page("Please wait."))),
    "robots": ("Fee €500 ([a]({url}))", "https://robots.case.gouv.fr/private/fees", None),
    "retry_after": ("Fee €510 ([a]({url}))", "https://ratelimit.case.gouv.fr/fees",
                    Route(sequence=[Route(status=429, headers={"Retry-After": "1"}), Route(body=page("Fee €510."))])),
    "flaky": ("Fee €520 ([a]({url}))", "https://flaky.case.gouv.fr/fees",
              Route(sequence=[Route(status=503), Route(body=page("Fee €520."))])),
    "down": ("Fee €530 ([a]({url}))", "https://down.case.gouv.fr/fees", Route(status=503)),
    "reset": ("Fee €540 ([a]({url}))", "https://reset.case.gouv.fr/fees", Route(body=page("Fee €540.") * 20, reset_after=300)),
    "timeout": ("Fee €550 ([a]({url}))", "https://slow.case.gouv.fr/fees", Route(body=page("Fee €550."), delay=3.5)),
    "huge": ("Fee €560 ([a]({url}))", "https://huge.case.gouv.fr/fees",
             Route(body=page("Fee €560.").replace("</body></html>", ""), stream_bytes=60_000_000)),
    "cp1252": ("Droit fixe €1,500 ([a]({url}))", "https://cp1252.case.gouv.fr/droits",
               Route(body=page("Droit fixe : € 1 500 par acte.").encode("cp1252"), content_type="text/html")),
    "gzip": ("Fee €570 ([a]({url}))", "https://gzip.case.gouv.fr/fees", Route(body=page("Fee €570."), gzip=True)),
    "redirect3": ("Fee €580 ([a]({url}))", "https://hops.case.gouv.fr/a",
                  Route(redirect="https://hops.case.gouv.fr/b")),
    "loop": ("Fee €590 ([a]({url}))", "https://loop.case.gouv.fr/a", Route(redirect="https://loop.case.gouv.fr/b")),
    "portal": ("Fee €600 ([a]({url}))", "https://portal.case.gouv.fr/deep/fees",
               Route(redirect="https://portal.case.gouv.fr/")),
    "pdf": ("Barème 5.81 % ([a]({url}))", "https://pdf.case.gouv.fr/bareme.pdf",
            Route(body=text_pdf([["Barème", ["Tranche", "Taux"], ["A", "5,81 %"]]]), content_type="application/pdf")),
    "scan": ("Barème 5.81 % ([a]({url}))", "https://scan.case.gouv.fr/bareme.pdf",
             Route(body=scanned_pdf(), content_type="application/pdf")),
    "octet_pdf": ("Barème 6.10 % ([a]({url}))", "https://octet.case.gouv.fr/download?id=7",
                  Route(body=text_pdf([["Taux 6,10 %"]]), content_type="application/octet-stream")),
    "html_pdf": ("Barème 6.20 % ([a]({url}))", "https://fakepdf.case.gouv.fr/bareme.pdf",
                 Route(body=page("Taux 6,20 % (page HTML)."), content_type="text/html")),
    "binary": ("Map 7.5 % ([a]({url}))", "https://img.case.gouv.fr/map.png",
               Route(body=b"\x89PNG\r\n\x1a\n" + b"\0" * 5000, content_type="image/png")),
    "excluded": ("Fee €610 ([a]({url}))", "https://blocked.case.gouv.fr/fees", None),
    "metadata": ("Fee €620 ([a]({url}))", "http://169.254.169.254/latest/meta-data/", None),
    "loopback": ("Fee €630 ([a]({url}))", "http://127.0.0.1/admin", None),
    "redirect_unsafe": ("Fee €640 ([a]({url}))", "https://sneaky.case.gouv.fr/fees",
                        Route(redirect="http://169.254.169.254/latest/meta-data/")),
    "dead404": ("Fee €650 ([a]({url}))", "https://gone.case.gouv.fr/fees", Route(status=404, body="not here")),
    "dead410": ("Fee €660 ([a]({url}))", "https://gone410.case.gouv.fr/fees", Route(status=410)),
    "challenge": ("Fee €670 ([a]({url}))", "https://waf.case.gouv.fr/fees",
                  Route(status=403, headers={"cf-ray": "1", "cf-mitigated": "challenge"},
                        body="<html><head><title>Just a moment...</title></head><body>checking</body></html>")),
}
LINE = {name: 3 + i for i, name in enumerate(CASES)}


def _site(web: MockWeb) -> None:
    for _, url, route in CASES.values():
        if route is not None:
            web.route(url, route)
    web.route("https://robots.case.gouv.fr/robots.txt", body="User-agent: *\nDisallow: /private/\n",
              content_type="text/plain")
    web.route("https://robots.case.gouv.fr/", body=page("home"))
    web.route("https://hops.case.gouv.fr/b", redirect="https://hops.case.gouv.fr/c")
    web.route("https://hops.case.gouv.fr/c", redirect="https://hops.case.gouv.fr/d")
    web.route("https://hops.case.gouv.fr/d", body=page("Fee €580 after three hops."))
    web.route("https://loop.case.gouv.fr/b", redirect="https://loop.case.gouv.fr/a")
    web.route("https://portal.case.gouv.fr/", body=page("Welcome to the portal. Choose a topic."))
    web.route("https://blocked.case.gouv.fr/fees", body=page("Fee €610."))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[InProcessCrawl, MockWeb]:
    tmp = tmp_path_factory.mktemp("worklist")
    lines = "\n".join(text.format(url=url) for text, url, _ in CASES.values())
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": f"# Test\n\n{lines}\n"})
    config = make_config(
        tmp / "config",
        liveness={**FAST_LIVENESS, "excluded_hosts": [{"host": "blocked.case.gouv.fr", "reason": "test exclusion"}]},
        # no Chromium and no tesseract: the shells and the scan keep their status and prior without them
        # (rendering and OCR are judged in test_spider_render and test_spider_ocr, marked for them)
        source_verify={"fetch": {"js_spa_hosts": ["spa.case.gov.hk"]}, **NO_OCR},
    )
    with MockWeb() as web:
        _site(web)
        result = crawl_in_process("worklist", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                                  args={"sample": "1000", "include_secondary": "1"}, settings={"SV_RENDER_ENABLED": False})
    assert result.returncode == 0, result.stderr[-3000:]
    return result, web


@pytest.fixture(scope="module")
def items(run: tuple[InProcessCrawl, MockWeb]) -> dict[int, dict[str, Any]]:
    return run[0].items_by_line()


def item(items: dict[int, dict[str, Any]], case: str) -> dict[str, Any]:
    return items[LINE[case]]


@pytest.mark.parametrize(
    ("case", "fetch_status", "prior"),
    [
        ("present", "OK", "TOKENS_PRESENT"),
        ("absent", "OK", "TOKENS_ABSENT"),
        ("weak", "OK", "WEAK_MATCH"),
        ("thin", "OK", "SOURCE_UNAVAILABLE"),
        ("spa", "OK", "SOURCE_UNAVAILABLE"),
        ("robots", "ROBOTS", "SOURCE_UNAVAILABLE"),
        ("retry_after", "OK", "TOKENS_PRESENT"),
        ("flaky", "OK", "TOKENS_PRESENT"),
        ("down", "UNAVAILABLE", "SOURCE_UNAVAILABLE"),
        ("reset", "UNAVAILABLE", "SOURCE_UNAVAILABLE"),
        ("timeout", "UNAVAILABLE", "SOURCE_UNAVAILABLE"),
        ("huge", "OK", "TOKENS_PRESENT"),
        ("cp1252", "OK", "TOKENS_PRESENT"),
        ("gzip", "OK", "TOKENS_PRESENT"),
        ("redirect3", "OK", "TOKENS_PRESENT"),
        ("loop", "UNAVAILABLE", "SOURCE_UNAVAILABLE"),
        ("portal", "OK", "TOKENS_ABSENT"),
        ("pdf", "OK", "TOKENS_PRESENT"),
        ("scan", "OK", "PDF_NO_TEXT"),
        ("octet_pdf", "OK", "TOKENS_PRESENT"),
        ("html_pdf", "OK", "TOKENS_PRESENT"),
        ("binary", "BINARY", "SOURCE_BINARY"),
        ("excluded", "EXCLUDED", "SOURCE_UNAVAILABLE"),
        ("metadata", "EXCLUDED", "SOURCE_UNAVAILABLE"),
        ("loopback", "EXCLUDED", "SOURCE_UNAVAILABLE"),
        ("redirect_unsafe", "EXCLUDED", "SOURCE_UNAVAILABLE"),
        ("dead404", "DEAD", "SOURCE_UNAVAILABLE"),
        ("dead410", "DEAD", "SOURCE_UNAVAILABLE"),
        ("challenge", "UNAVAILABLE", "SOURCE_UNAVAILABLE"),
    ],
)
def test_status_and_prior(items: dict[int, dict[str, Any]], case: str, fetch_status: str, prior: str) -> None:
    got = item(items, case)
    assert (got["fetch_status"], got["prior"]) == (fetch_status, prior), got["note"]


def test_every_claim_is_in_the_worklist_once(run: tuple[InProcessCrawl, MockWeb]) -> None:
    data = run[0].worklist()
    ids = [i["id"] for i in data["items"]]
    assert len(ids) == len(set(ids)) == len(CASES)
    for key in ("id", "scope", "section", "line_no", "claim_text", "values", "source_url", "source_host",
                "source_tier", "inline_stamp", "fetch_status", "prior", "matched_tokens", "strong_matched",
                "missing_tokens", "excerpts"):
        assert all(key in i for i in data["items"]), key
    assert data["stats"]["tokens_absent_count"] == 2


def test_tokens_absent_are_printed_with_a_warning(run: tuple[InProcessCrawl, MockWeb]) -> None:
    out = run[0].stdout
    assert "⚠️  2 claim(s) whose figure is ABSENT" in out
    assert "https://absent.case.gouv.fr/dmto" in out and "https://portal.case.gouv.fr/deep/fees" in out


def test_robots_disallowed_url_was_never_requested(run: tuple[InProcessCrawl, MockWeb]) -> None:
    _, web = run
    assert web.requests_for("https://robots.case.gouv.fr/robots.txt")
    assert not web.requests_for("https://robots.case.gouv.fr/private/")


def test_refused_targets_were_never_requested(run: tuple[InProcessCrawl, MockWeb], items: dict[int, dict[str, Any]]) -> None:
    _, web = run
    urls = [e.url for e in web.log]
    assert not any("169.254.169.254" in u or "127.0.0.1" in u or "blocked.case" in u for u in urls)
    assert "link-local" in item(items, "metadata")["note"]
    assert "loopback" in item(items, "loopback")["note"]
    assert "test exclusion" in item(items, "excluded")["note"]
    assert "link-local" in item(items, "redirect_unsafe")["note"]


def test_retry_after_is_honoured(run: tuple[InProcessCrawl, MockWeb]) -> None:
    _, web = run
    hits = [e for e in web.requests_for("https://ratelimit.case.gouv.fr/fees")]
    assert [h.status for h in hits] == [429, 200]
    assert hits[1].t - hits[0].t >= 0.95


def test_503_then_200_is_retried_with_backoff(run: tuple[InProcessCrawl, MockWeb], items: dict[int, dict[str, Any]]) -> None:
    _, web = run
    hits = web.requests_for("https://flaky.case.gouv.fr/fees")
    assert [h.status for h in hits] == [503, 200]
    assert hits[1].t - hits[0].t >= 0.18  # the test config's first backoff step, 0.2 s
    down = item(items, "down")
    assert "503" in down["note"] and "3 attempts" in down["note"]
    assert len(web.requests_for("https://down.case.gouv.fr/fees")) == 3


@pytest.mark.parametrize(("case", "words"), [("reset", "reset"), ("timeout", "timeout"), ("loop", "redirect"),
                                             ("challenge", "challenge")])
def test_unavailable_says_why(items: dict[int, dict[str, Any]], case: str, words: str) -> None:
    assert words in item(items, case)["note"].lower()


def test_body_far_over_the_cap_is_cut_and_memory_stays_flat(run: tuple[InProcessCrawl, MockWeb],
                                                            items: dict[int, dict[str, Any]]) -> None:
    huge = item(items, "huge")
    assert "cap" in huge["note"]
    # the 60 MB body never sits in memory: the process's peak rises less during the whole crawl (the
    # crawl's imports included: ~100 MB) than once the body is read whole (~480 MB without the cap)
    assert run[0].peak_growth_mb() < 200, run[0].peak_growth_mb()


def test_cp1252_without_charset_reads_the_euro(items: dict[int, dict[str, Any]]) -> None:
    got = item(items, "cp1252")
    assert any("€ 1 500" in e for e in got["excerpts"])


def test_redirects_record_the_final_url(items: dict[int, dict[str, Any]]) -> None:
    assert item(items, "redirect3")["final_url"] == "https://hops.case.gouv.fr/d"
    assert item(items, "portal")["final_url"] == "https://portal.case.gouv.fr/"


def test_pdf_text_methods(items: dict[int, dict[str, Any]]) -> None:
    assert item(items, "pdf")["text_method"] == "pdf:pypdfium2"
    assert item(items, "octet_pdf")["text_method"] == "pdf:pypdfium2"
    assert item(items, "html_pdf")["text_method"] == "html"
    assert "no text layer" in item(items, "scan")["note"]


def test_gzip_is_decoded(run: tuple[InProcessCrawl, MockWeb], items: dict[int, dict[str, Any]]) -> None:
    assert item(items, "gzip")["found_as"] == {"€570": "570"}
    assert gzip  # the route compresses; the item above proves it was decoded


def test_thin_and_spa_pages_say_indeterminate(items: dict[int, dict[str, Any]]) -> None:
    assert "thin page" in item(items, "thin")["note"]
    assert "JavaScript" in item(items, "spa")["note"]


def test_user_agent_comes_from_the_config(run: tuple[InProcessCrawl, MockWeb]) -> None:
    _, web = run
    agents = {e.user_agent for e in web.log if e.method == "GET"}
    assert agents and all(a.startswith("sv_scrapy/") for a in agents)


def test_corpus_is_untouched(run: tuple[InProcessCrawl, MockWeb], tmp_path: Path) -> None:
    # the playbook is read, never written: its text is exactly what the fixture wrote
    corpus_file = run[0].output_dir.parent / "corpus" / "countries" / "xx" / "playbook.md"
    assert corpus_file.read_text(encoding="utf-8").startswith("# Test")


def test_scans_keep_their_bytes_and_pages_their_text_for_verify(run: tuple[InProcessCrawl, MockWeb]) -> None:
    from sv_scrapy.core.audit.store import ContentStore

    store = ContentStore(run[0].output_dir / "store")
    assert store.pdf_path(CASES["scan"][1]).read_bytes().startswith(b"%PDF-")
    assert not store.pdf_path(CASES["pdf"][1]).exists()  # read as text: no bytes kept
    assert "5,81 %" in (store.text(CASES["present"][1]) or "")
