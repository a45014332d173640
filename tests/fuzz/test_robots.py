"""robots.txt (``core/page/robotsrule.py`` and the parser Scrapy is set to use, Protego) on
generated answers: any status, any bytes, rules full of wildcards, bad escapes and long lines.

Documented (RFC 9309 §2.3.1): 2xx its rules, kept for a later run; 3xx/4xx no rules, every URL
allowed; 429, 5xx complete disallow unless a stored copy stands in. The parser answers a bool for
any URL and never raises (Scrapy reads an undecodable file as empty).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from scrapy.settings import Settings
from scrapy.utils.misc import load_object

from sv_scrapy import __version__
from sv_scrapy.core.page.robotsrule import DISALLOW_ALL, reading_for
from sv_scrapy.run.config import load_config
from testing.commands import PROJECT_DIR
from tests.fuzz.profiles import fuzz_settings, within
from tests.fuzz.strategies import ROBOTS_BODY, ROBOTS_PATH

BOUND = 2.0  # s of CPU to parse one robots.txt and ask it about a handful of URLs


def _project_parser() -> type:
    settings = Settings()
    settings.setmodule("sv_scrapy.settings", priority="project")
    parser: type = load_object(settings["ROBOTSTXT_PARSER"])
    return parser


PARSER = _project_parser()
USER_AGENTS = (load_config(PROJECT_DIR / "config").liveness.user_agent(__version__), "*", "", "Scrapy", "sv-scrapy")
STORED = st.one_of(st.none(), st.tuples(ROBOTS_BODY, st.sampled_from(("2026-11-07T00:00:00+00:00", ""))))


@fuzz_settings()
@given(st.integers(200, 599), ROBOTS_BODY, STORED, st.lists(ROBOTS_PATH, min_size=1, max_size=4),
       st.sampled_from(USER_AGENTS))
def test_robots_answer_reads_as_rfc_9309_says(status: int, body: bytes, stored: tuple[bytes, str] | None,
                                              paths: list[str], agent: str) -> None:
    with within(BOUND, "robots.txt"):
        reading = reading_for(status, body, stored)
        parser = PARSER(reading.body, None)
        answers = [parser.allowed(f"https://a.gov{path}", agent) for path in paths]
        delay = parser.crawl_delay(agent)
    assert all(isinstance(a, bool) for a in answers)
    assert delay is None or isinstance(delay, float)
    if 200 <= status < 300:
        assert (reading.body, reading.store, reading.unreachable) == (body, True, "")
    elif status < 500 and status != 429:
        assert reading.body == b"" and all(answers)
    else:
        assert reading.unreachable == str(status) and reading.refusal()
        assert reading.body == (stored[0] if stored is not None else DISALLOW_ALL)
        if stored is None:
            assert not any(answers)
