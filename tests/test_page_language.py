"""The page decides the locale: its declared language (``<html lang>``, ``Content-Language``)
reaches the matcher through the crawl, so "04/01/2025" is 1 April on an American page and
4 January on a British one."""

from __future__ import annotations

from pathlib import Path

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route

TEXT = "<p>The new schedule is effective 04/01/2025 for every deed registered from that day on.</p>" * 3
PAGES = {
    "https://us.lang-example.org/a": Route(body=f'<html lang="en-US"><body>{TEXT}</body></html>'),
    "https://uk.lang-example.org/a": Route(body=f'<html lang="en-GB"><body>{TEXT}</body></html>'),
    "https://hdr.lang-example.org/a": Route(body=f"<html><body>{TEXT}</body></html>",
                                            headers={"Content-Language": "en-US"}),
}


def test_the_pages_declared_language_reads_its_dates(tmp_path: Path) -> None:
    lines = "\n".join(f"- effective 1 April 2025 ([p]({url}))" for url in PAGES)
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": f"# L\n{lines}\n"})
    with MockWeb() as web:
        for url, route in PAGES.items():
            web.route(url, route)
        result = crawl_in_process("worklist", corpus=corpus, config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                       output=tmp_path / "out", proxy_env=web.env(), args={"sample": "10", "include_secondary": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    priors = {item["source_url"]: item["prior"] for item in result.worklist()["items"]}
    assert priors == {"https://us.lang-example.org/a": "TOKENS_PRESENT",
                      "https://uk.lang-example.org/a": "TOKENS_ABSENT",
                      "https://hdr.lang-example.org/a": "TOKENS_PRESENT"}
