"""JavaScript-only pages through Debian's Chromium (scrapy-playwright), via the mock web."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.downloadhandlers.render import chromium_path
from testing.crawl import FAST_LIVENESS, CrawlResult, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route

pytestmark = [pytest.mark.browser, pytest.mark.subprocess, pytest.mark.skipif(
    not Path(chromium_path()).exists() and not shutil.which("chromium"),
    reason="Debian chromium is not installed (make install installs it as root)",
)]

FILLER = "Explanation of the duty, who pays it and when it is due. " * 6
SHELL = '<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>'
APP_JS = f"document.getElementById('root').innerHTML = '<h1>Taux</h1><p>Le taux est de 5,81 %. {FILLER}</p>';"
SPA_PAGE = ("<html><body><div id='app'></div><script>document.getElementById('app').textContent = "
            f"'Stamp duty 4.25 % applies. {FILLER}';</script></body></html>")

LINES = {
    "shell": "- DMTO 5.81 % ([a](https://jsapp.render.gouv.fr/rates))",
    "spa": "- duty 4.25 % ([a](https://spa.render.gov.hk/cap117))",
    "slow": "- duty 4.30 % ([a](https://slow.render.gov.hk/cap118))",
    "robots": "- duty 4.40 % ([a](https://spa.render.gov.hk/private/cap119))",
}


def site(web: MockWeb) -> None:
    web.route("https://jsapp.render.gouv.fr/rates", body=SHELL)
    web.route("https://jsapp.render.gouv.fr/app.js", body=APP_JS, content_type="application/javascript")
    web.route("https://spa.render.gov.hk/cap117", body=SPA_PAGE)
    web.route("https://spa.render.gov.hk/robots.txt", body="User-agent: *\nDisallow: /private/\n",
              content_type="text/plain")
    web.route("https://slow.render.gov.hk/cap118", body='<html><body><script src="/slow.js"></script></body></html>')
    web.route("https://slow.render.gov.hk/slow.js", Route(body="1;", content_type="application/javascript", delay=8))
    web.route("https://plain.render.gouv.fr/fees", body="<html><body><p>Fee €500 for a plain page.</p></body></html>")


def run(tmp: Path, lines: list[str], **env: str) -> tuple[CrawlResult, MockWeb]:
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# R\n" + "\n".join(lines) + "\n"})
    config = make_config(tmp / "config", liveness=FAST_LIVENESS,
                         source_verify={"fetch": {"js_spa_hosts": ["spa.render.gov.hk", "slow.render.gov.hk"]}})
    with MockWeb() as web:
        site(web)
        result = crawl("worklist", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                       args={"sample": "100"}, extra_env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return result, web


def stat(result: CrawlResult, name: str) -> int:
    m = re.search(rf"'{re.escape(name)}': (\d+)", result.stderr)
    return int(m.group(1)) if m else 0


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[CrawlResult, MockWeb, dict[int, dict[str, Any]]]:
    result, web = run(tmp_path_factory.mktemp("render"), list(LINES.values()))
    return result, web, result.items_by_line()


def test_a_figure_that_only_javascript_writes_is_present_and_rendered(rendered) -> None:
    item = rendered[2][2]
    assert (item["prior"], item["rendered"]) == ("TOKENS_PRESENT", True), item["note"]
    assert "looks client-rendered" in item["note"]


def test_a_js_spa_host_is_rendered_from_the_start(rendered) -> None:
    result, web, items = rendered
    item = items[3]
    assert (item["prior"], item["rendered"]) == ("TOKENS_PRESENT", True), item["note"]
    plain_fetches = [e for e in web.requests_for("https://spa.render.gov.hk/cap117") if "HeadlessChrome" in e.user_agent]
    assert plain_fetches == []  # the browser says who we are too
    assert len(web.requests_for("https://spa.render.gov.hk/cap117")) == 1


def test_render_timeout_is_unavailable(rendered) -> None:
    item = rendered[2][4]
    assert (item["fetch_status"], item["prior"]) == ("UNAVAILABLE", "SOURCE_UNAVAILABLE")
    assert "timeout" in item["note"].lower()


def test_robots_applies_to_rendered_requests(rendered) -> None:
    _, web, items = rendered
    assert items[5]["fetch_status"] == "ROBOTS"
    assert web.requests_for("https://spa.render.gov.hk/private/") == []


def test_every_page_is_closed(rendered) -> None:
    result = rendered[0]
    assert stat(result, "playwright/page_count") == stat(result, "playwright/page_count/closed") >= 3


def test_no_browser_when_no_page_needs_one(tmp_path: Path) -> None:
    result, _ = run(tmp_path, ["- fee €500 ([a](https://plain.render.gouv.fr/fees))"])
    assert stat(result, "playwright/browser_count") == 0
    assert "Launching browser" not in result.stderr


def test_without_a_browser_the_shell_stays_unavailable(tmp_path: Path) -> None:
    result, _ = run(tmp_path, [LINES["shell"]], SV_CHROMIUM_PATH="/nonexistent/chromium")
    (item,) = result.worklist()["items"]
    assert (item["fetch_status"], item["prior"]) == ("UNAVAILABLE", "SOURCE_UNAVAILABLE")
    assert "browser not available" in item["note"]


def test_the_audit_renders_shells_too(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# R\n" + LINES["shell"] + "\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    with MockWeb() as web:
        site(web)
        result = crawl("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env())
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    (item,) = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))["items"]
    assert (item["prior"], item["rendered"]) == ("TOKENS_PRESENT", True)


def test_a_script_only_redirect_is_rendered(tmp_path: Path) -> None:
    """Issue #19: a thin page whose only content is ``location.replace('/moved/page')`` is a
    client-rendered shell: rendered once, and the figure on the page it navigates to is read."""
    line = "- Fee €845 ([a](https://nav.render.gouv.fr/old))"
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# R\n" + line + "\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    with MockWeb() as web:
        web.route("https://nav.render.gouv.fr/old",
                  body="<html><head><script>location.replace('/moved/page')</script></head><body></body></html>")
        web.route("https://nav.render.gouv.fr/moved/page",
                  body=f"<html><body><h1>Fees</h1><p>The fee is €845. {FILLER}</p></body></html>")
        result = crawl("worklist", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env(),
                       args={"sample": "100"})
        moved = web.requests_for("https://nav.render.gouv.fr/moved/page")
    assert result.returncode == 0, result.stderr[-3000:]
    (got,) = result.worklist()["items"]
    assert (got["prior"], got["rendered"]) == ("TOKENS_PRESENT", True), got["note"]
    assert "script navigates" in got["note"]
    assert moved, "the browser followed the script's navigation"
