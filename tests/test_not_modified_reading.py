"""A 304 month reads the page as its last 200 month did: the stored text comes back with the
language, the title and the HTML's line shapes, so a figure whose context is a table's column
header is judged in context both months (it was "other context" on every 304 before). An entry
of a release that kept no shapes has its page read in full once."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.store import ContentStore
from testing.crawl import FAST_ANY_HOST, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route

URL = "https://www.rates.gov.uk/t"
ROWS = "".join(f"<tr><th>Band {i}</th><td>{i}.10 %</td><td>{i + 20}.40 %</td></tr>" for i in range(1, 12))
PAGE = ("<html lang='en'><head><title>Property rates</title></head><body><h1>Taxes on property</h1>"
        "<table><caption>Annual rates</caption><tr><th>Band</th><th>Stamp duty</th><th>Land levy</th></tr>"
        f"{ROWS}</table><h2>Other</h2><p>Agents charge 3.10 % of the price.</p></body></html>")
CLAIMS = [f"- Land levy is 29.40 % ([t]({URL}))",  # its context is the column header, nine rows up
          f"- Stamp duty is 28.40 % ([t]({URL}))",  # that figure stands in the other column
          f"- Agents charge 3.10 % ([t]({URL}))"]
MONTHS = ["2027-01-01T03:00:00Z", "2027-02-01T03:00:00Z", "2027-03-01T03:00:00Z"]


def judged(out: Path) -> dict[str, Any]:
    doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
    return {i["id"]: (i["fetch_status"], i["context_match"], i["found_as"], i["excerpts"]) for i in doc["items"]}


def audit_months(tmp_path: Path, between: Any = None) -> tuple[list[dict[str, Any]], list[int]]:
    corpus = write_corpus(tmp_path / "corpus", {"countries/gb/playbook.md": "# GB\n" + "\n".join(CLAIMS) + "\n"})
    config = make_config(tmp_path / "config", liveness=FAST_ANY_HOST,
                         source_verify={"extraction": {"primary_only": False}})
    out, months = tmp_path / "out", []
    with MockWeb() as web:
        web.route(URL, Route(body=PAGE))
        for n, now in enumerate(MONTHS):
            if n == 1 and between is not None:
                between(out)
            result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                                      extra_env={"SV_NOW": now})
            assert result.returncode == 0, result.stderr[-2000:]
            months.append(judged(out))
        statuses = [e.status for e in web.log if e.method == "GET" and e.url == URL]
    return months, statuses


def test_a_304_month_judges_each_figure_as_the_200_month_did(tmp_path: Path) -> None:
    months, statuses = audit_months(tmp_path)
    assert statuses == [200, 304, 304]
    assert months[0] == months[1] == months[2]
    by_claim = sorted(months[1].values(), key=lambda v: str(v[3]))
    assert [context for _, context, _, _ in by_claim].count(True) == 2, by_claim  # land levy, agents


def test_an_entry_that_kept_no_shapes_is_read_in_full_once(tmp_path: Path) -> None:
    def as_an_older_release_wrote_it(out: Path) -> None:
        store = ContentStore(out / "store")
        entry = store.load(URL)
        assert entry is not None and entry.shapes
        store.save(replace(entry, shapes=None, lang="", title=""))

    months, statuses = audit_months(tmp_path, between=as_an_older_release_wrote_it)
    assert statuses == [200, 200, 304]
    assert months[0] == months[1] == months[2]


FRAMESET = "https://www.portail.gouv.fr/taux"
FRAME = "https://www.portail.gouv.fr/frames/taux.html"


def framed(said: str) -> str:
    return f"<html><body><p>Le taux applicable est de {said}.</p><p>{'Texte explicatif. ' * 20}</p></body></html>"


def test_a_static_frameset_is_read_in_full_so_its_frames_changes_are_seen(tmp_path: Path) -> None:
    """The frameset never changes; its content frame does. A 304 of the frameset restored the text
    joined with last month's frame, and the audit said the old figure still stood."""
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": f"# FR\n- Duty 5.81 % ([a]({FRAMESET}))\n"})
    config = make_config(tmp_path / "config", liveness=FAST_ANY_HOST,
                         source_verify={"extraction": {"primary_only": False}})
    priors = []
    with MockWeb() as web:
        web.route(FRAMESET, Route(body="<html><head><title>Portail</title></head><body><h1>Taux</h1>"
                                       "<iframe src='/frames/taux.html'></iframe></body></html>"))
        web.route(FRAME, Route(sequence=[Route(body=framed("5,81 %")), Route(body=framed("6,20 %"))]))
        for now in MONTHS:
            result = crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "out",
                                      proxy_env=web.env(), extra_env={"SV_NOW": now})
            assert result.returncode == 0, result.stderr[-2000:]
            (item,) = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))["items"]
            priors.append(item["prior"])
        asked = {url: [(e.status, "If-None-Match" in e.headers) for e in web.log if e.url == url and e.method == "GET"]
                 for url in (FRAMESET, FRAME)}
    assert priors == ["TOKENS_PRESENT", "TOKENS_ABSENT", "TOKENS_ABSENT"]
    assert asked[FRAMESET] == [(200, False)] * 3  # never asked conditionally: its text joins a frame's
    assert asked[FRAME] == [(200, False), (200, True), (304, True)]  # the frame is, each month
