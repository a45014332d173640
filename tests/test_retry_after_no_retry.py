"""A 503 with ``Retry-After`` holds its whole host even when the refused page is not asked again
(no retries left): the hold is the paced handler's own, not a side effect of the retry waiting at
the head of its host's line (tests/test_retry_after_hold.py covers the two together). Judged from
the mock web's own request log, in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route, gets_by_host

SITE = "www.impots.gouv.fr"
HELD = 1.0
TOLERANCE = 0.1  # the server's clock (tests/test_pacing_as_run.py)
LIVENESS: dict[str, Any] = {**FAST_LIVENESS, "global": {**FAST_LIVENESS["global"], "max_retries": 0},
                            "per_host_overrides": {SITE: {"concurrency": 1, "interval_ms": 100}}}
REFUSED = f"https://{SITE}/p1"


def test_a_retry_after_holds_the_host_with_no_retry_left(tmp_path: Path) -> None:
    lines = "".join(f"- Duty p{i} {i}.5 % ([s](https://{SITE}/p{i}))\n" for i in range(4))
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": f"# France\n\n## Tax\n\n{lines}"})
    config = make_config(tmp_path / "config", liveness=LIVENESS)
    with MockWeb() as web:
        for i in range(4):
            url = f"https://{SITE}/p{i}"
            web.route(url, Route(status=503, headers={"Retry-After": str(int(HELD))}, body="slow down")
                      if url == REFUSED else Route(body=f"<p>The duty is {i}.5 %.</p>"))
        result = crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "out",
                                  proxy_env=web.env())
        pages = [e for e in gets_by_host(list(web.log))[SITE] if "/p" in e.url]
    assert result.returncode == 0, result.stderr[-2000:]
    at = next(i for i, e in enumerate(pages) if e.url == REFUSED)
    refusal, later = pages[at], pages[at + 1:]
    assert [e.url for e in pages].count(REFUSED) == 1  # not asked again: no retry left
    assert later, "nothing asked of the host after its refusal"
    assert later[0].began - refusal.began >= HELD - TOLERANCE, [(e.url, round(e.began - refusal.began, 3))
                                                                 for e in later]
