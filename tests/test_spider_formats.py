"""Locale-aware matching end to end: each figure format a real page uses, through a crawl."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb

PAGE = """<html><head><title>Barème</title></head><body>
<h1>Droits et taux applicables</h1>
<table>
<tr><th>Droit</th><th>Taux</th></tr>
<tr><td>Départemental</td><td>5,81&nbsp;%</td></tr>
<tr><td>Majoré</td><td>6.32 pour cent</td></tr>
<tr><td>Social</td><td>17,2 per cent</td></tr>
<tr><td>Local</td><td>1.2 percent</td></tr>
</table>
<dl><dt>Seuil</dt><dd>1 300 000 €</dd><dt>Forfait</dt><dd>1&#8239;500 EUR</dd><dt>Plafond</dt><dd>CHF 2'500</dd>
<dt>Minimum</dt><dd>€ 10.000</dd><dt>Franchise</dt><dd>USD 7,250</dd><dt>Cap</dt><dd>4&#8201;800 €</dd></dl>
<ul>
<li>En vigueur depuis le 1er avril 2025.</li>
<li>Gültig ab 1. Juli 2025.</li>
<li>Vigente desde el 1 de abril de 2024.</li>
<li>Effective from April 1, 2023.</li>
<li>Effective 1 March 2022.</li>
<li>Publié le 15/09/2021.</li>
<li>Updated 2020-02-29.</li>
<li>In vigore dal 3 gennaio 2019.</li>
<li>Em vigor desde 2 de maio de 2018.</li>
<li>Van kracht sinds 4 juni 2017.</li>
</ul>
<p>Autres montants : 15,81 % et 5,812 % ne sont pas le taux cité.</p>
</body></html>"""

# (claim line, expected prior)
CLAIMS = [
    ("DMTO 5.81 % (decimal comma, NBSP)", "TOKENS_PRESENT"),
    ("majoré 6.32 % (pour cent)", "TOKENS_PRESENT"),
    ("prélèvements 17.2 % (per cent, comma)", "TOKENS_PRESENT"),
    ("local 1.2 % (percent)", "TOKENS_PRESENT"),
    ("seuil €1,300,000 (space grouping, symbol after)", "TOKENS_PRESENT"),
    ("forfait EUR 1,500 (narrow NBSP grouping, code after)", "TOKENS_PRESENT"),
    ("plafond CHF 2,500 (apostrophe grouping)", "TOKENS_PRESENT"),
    ("minimum €10,000 (dot grouping)", "TOKENS_PRESENT"),
    ("franchise $7,250 (comma grouping)", "TOKENS_PRESENT"),
    ("cap €4,800 (thin space grouping)", "TOKENS_PRESENT"),
    ("since 1 April 2025 (1er avril)", "TOKENS_PRESENT"),
    ("from 1 July 2025 (1. Juli)", "TOKENS_PRESENT"),
    ("since 1 April 2024 (1 de abril de)", "TOKENS_PRESENT"),
    ("from 1 April 2023 (April 1, 2023)", "TOKENS_PRESENT"),
    ("from 2022-03-01 (1 March 2022)", "TOKENS_PRESENT"),
    ("on 15 September 2021 (15/09/2021)", "TOKENS_PRESENT"),
    ("on 29 Feb 2020 (ISO on the page)", "TOKENS_PRESENT"),
    ("from 3 January 2019 (gennaio)", "TOKENS_PRESENT"),
    ("from 2 May 2018 (maio)", "TOKENS_PRESENT"),
    ("from 4 June 2017 (juni)", "TOKENS_PRESENT"),
    ("rate 5.8 % (only 5,81 / 15,81 / 5,812 on the page)", "TOKENS_ABSENT"),
    ("rate 15.8 % (boundary)", "TOKENS_ABSENT"),
]
URL = "https://formats.case.gouv.fr/bareme"


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    tmp: Path = tmp_path_factory.mktemp("formats")
    body = "\n".join(f"- {text} ([bareme]({URL}))" for text, _ in CLAIMS)
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": f"# Formats\n\n{body}\n"})
    config = make_config(tmp / "config", liveness=FAST_LIVENESS)
    with MockWeb() as web:
        web.route(URL, body=PAGE)
        result = crawl_in_process("worklist", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                                  args={"sample": "100"})
        assert len(web.requests_for(URL)) == 1  # one request per distinct URL
    assert result.returncode == 0, result.stderr[-2000:]
    return result.items_by_line()


@pytest.mark.parametrize(("index", "claim", "expected"), [(i, c, e) for i, (c, e) in enumerate(CLAIMS)],
                         ids=[c.split(" (")[0] for c, _ in CLAIMS])
def test_format(items: dict[int, dict[str, Any]], index: int, claim: str, expected: str) -> None:
    got = items[3 + index]
    assert got["prior"] == expected, (claim, got["found_as"], got["missing_tokens"])


def test_excerpts_quote_the_page_as_written(items: dict[int, dict[str, Any]]) -> None:
    assert any("5,81\u00a0%" in e for e in items[3]["excerpts"])
    assert items[3]["found_as"] == {"5.81 %": "5,81"}
