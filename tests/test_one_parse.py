"""One decode, one parse (issue #40): a page's body is decoded and parsed by lxml once, and that one
reading carries its text, its links, its frames and whether it looks like a JavaScript shell — counted
through an in-process crawl of one HTML page that has all four to look for (the JavaScript-shell check,
the frames, the one hop's links, the text). Before, the page was decoded four times and parsed four
times (the shell check, the reader, the frames, the links)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import lxml.html
import pytest

from sv_scrapy.core.page import charset
from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb

URL = "https://www.oneparse.gouv.fr/bareme"
MARK = "droits-7f3a"  # in the body only: the title's own small parse is not the page's
FILLER = "<p>" + "Le droit est dû à la signature de l'acte et payé par l'acquéreur. " * 5 + "</p>"
PAGE = (f"<html><head><title>Barème</title><script src='/app.js'></script></head><body id='{MARK}'>"
        "<h1>Droits</h1><p>Le taux départemental est de 5,81 %.</p>"
        "<iframe src='/frames/taux.html'></iframe><a href='/docs/bareme-2025.pdf'>Barème 2025</a>"
        f"{FILLER}</body></html>")


def _has_mark(data: Any) -> bool:
    return MARK in (data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data))


@pytest.fixture
def counted() -> Iterator[Counter[str]]:
    """How often the page's body was decoded (``core.page.charset``, all decodes go through it) and
    parsed (lxml.html's entry point, which its other parsers call too)."""
    calls: Counter[str] = Counter()
    parse, decode = lxml.html.document_fromstring, charset._w3lib

    def counted_parse(html: Any, *args: Any, **kwargs: Any) -> Any:
        calls["parse"] += _has_mark(html)
        return parse(html, *args, **kwargs)

    def counted_decode(body: bytes, content_type: str | None) -> tuple[str, str]:
        calls["decode"] += _has_mark(body)
        return decode(body, content_type)

    with patch.object(lxml.html, "document_fromstring", counted_parse), patch.object(charset, "_w3lib", counted_decode):
        yield calls


def test_a_page_is_decoded_once_and_parsed_once(tmp_path: Path, counted: Counter[str]) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": (
        f"# FR\n\n## Taxes\n\n- Droit départemental : 5,81 % ([barème]({URL}))\n")})
    with MockWeb() as web:
        web.route(URL, body=PAGE)
        result = crawl_in_process("worklist", corpus=corpus, config=make_config(tmp_path / "config", FAST_LIVENESS),
                                  output=tmp_path / "out", proxy_env=web.env(), args={"sample": "1000"})
    assert result.returncode == 0, result.stderr[-3000:]
    [item] = result.worklist()["items"]
    assert (item["fetch_status"], item["prior"]) == ("OK", "TOKENS_PRESENT")  # read, and read whole
    assert counted == {"decode": 1, "parse": 1}
