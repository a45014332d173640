"""A page's past is read once: the audit loads a URL's store entry and stored text when it
builds the URL's request, carries them on the request and then on the item, and no later stage
reads the page's past again. The finish reads what this run journalled back once a page, for the
documents it streams (counted in the crawl's own process: ``testing/storereads.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.mockweb import MockWeb
from testing.mockweb.pdfgen import text_pdf

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

PAGES = {f"https://h{i % 3}.past.gouv.fr/p{i}": f"<html><body><h1>Fees</h1><p>The fee is €{100 + i}.</p>"
         f"<p>{'How the fee is assessed and paid. ' * 8}</p></body></html>" for i in range(6)}
PDF_URL = "https://docs.past.gouv.fr/schedule.pdf"


def test_a_warm_audit_reads_each_page_past_once(tmp_path: Path) -> None:
    lines = [f"- fee €{100 + i} ([p]({url}))" for i, url in enumerate(PAGES)]
    lines.append(f"- duty 5.81 % ([schedule]({PDF_URL}))")
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# P\n" + "\n".join(lines) + "\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    counts = tmp_path / "reads.json"
    with MockWeb() as web:
        for url, page in PAGES.items():
            web.route(url, body=page)
        web.route(PDF_URL, body=text_pdf([["Schedule of duties", "Transfer duty 5,81 % of the price."]]),
                  content_type="application/pdf")
        cold = crawl("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env())
        web.clear_log()
        warm = crawl("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env(),
                     launcher=[sys.executable, "-m", "testing.storereads"], extra_env={"SV_STORE_READS": str(counts)})
        answers = [e.status for e in web.log if e.method == "GET" and not e.url.endswith("/robots.txt")]
    assert cold.returncode == warm.returncode == 0, warm.stderr[-2000:]
    assert answers == [304] * (len(PAGES) + 1)  # every page restored from the store
    doc = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert {item["prior"] for item in doc["items"]} == {"TOKENS_PRESENT"}
    reads = json.loads(counts.read_text(encoding="utf-8"))
    urls = [*PAGES, PDF_URL]
    assert {url: reads["entry"].get(url, 0) for url in urls} == dict.fromkeys(urls, 1)
    assert {url: reads["text"].get(url, 0) for url in urls} == dict.fromkeys(urls, 1)
    # the finish reads each page's journalled records back once for the documents, not once a claim
    assert {url: reads["journal"].get(url, 0) for url in urls} == dict.fromkeys(urls, 1)


def test_an_absent_claim_gets_the_pages_words_without_a_second_read(tmp_path: Path) -> None:
    # the report's "page now says" comes with the page's records, while its text is in hand:
    # the audit's finish reads no stored text again (it did, once per flagged URL)
    url = "https://words.past.gouv.fr/duty"
    page = ("<html><body><h1>Transfer duty</h1><p>The transfer duty on resales is 6,45 % since March.</p>"
            f"<p>{'How the duty is assessed and paid. ' * 8}</p></body></html>")
    line = f"- transfer duty on resales 5.81 % ([d]({url}))"
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": f"# P\n{line}\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    counts = tmp_path / "reads.json"
    with MockWeb() as web:
        web.route(url, body=page)
        cold = crawl("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env())
        warm = crawl("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env(),
                     launcher=[sys.executable, "-m", "testing.storereads"], extra_env={"SV_STORE_READS": str(counts)})
    assert cold.returncode == warm.returncode == 0, warm.stderr[-2000:]
    item = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))["items"][0]
    assert item["prior"] == "TOKENS_ABSENT" and item["not_modified"] is True
    assert "6,45 %" in item["page_excerpt"] and item["page_hint"] == "6,45 %"
    reads = json.loads(counts.read_text(encoding="utf-8"))
    assert (reads["entry"].get(url, 0), reads["text"].get(url, 0), reads["journal"].get(url, 0)) == (1, 1, 1)
