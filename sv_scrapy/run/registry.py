"""Every environment variable and Scrapy setting sv_scrapy reads, declared once: where it is read
from, its type, its default and one line of doc.

The typed settings' defaults (``setting_default``), the numeric ``-s`` checks (``NUMERIC_SETTINGS``)
and the docs' reference tables derive from ``ENTRIES``. The config files' keys are not here: each is a
field of its section's model (``sv_scrapy/run/config.py``). ``env`` is the one road to the environment (the
pure core's few readers go through ``core/environment.py`` with declared names; tests/test_registry.py
greps). No Scrapy import.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sv_scrapy.core import environment

PROJECT_DIR = Path(__file__).resolve().parents[2]

# where an entry is read from
ENV = "environment"
SETTING = "Scrapy setting"  # settings.py or ``-s NAME=VALUE``
SETTING_ENV = "Scrapy setting, defaulting from the environment"  # ``-s`` wins over the variable
SOURCES = (ENV, SETTING_ENV, SETTING)


@dataclass(frozen=True)
class Entry:
    """One knob. ``minimum``: a numeric ``-s`` setting is checked against it before a crawl starts."""

    name: str
    source: str
    kind: str
    default: Any
    doc: str
    minimum: float | None = None


def _env(name: str, kind: str, default: Any, doc: str) -> Entry:
    return Entry(name, ENV, kind, default, doc)


def _setting(name: str, kind: str, default: Any, doc: str, minimum: float | None = None,
             source: str = SETTING) -> Entry:
    return Entry(name, source, kind, default, doc, minimum)


ENTRIES: tuple[Entry, ...] = (
    # -- locations: Scrapy settings whose default comes from the environment (relative to the project)
    _setting("SV_CORPUS_ROOT", "path", "examples/corpus", "The corpus: the folder holding the playbooks' Markdown.",
             source=SETTING_ENV),
    _setting("SV_CONFIG_DIR", "path", "config",
             "The folder of _source-verify.json, _url-liveness.json and primary-source-allowlist.txt.",
             source=SETTING_ENV),
    _setting("SV_OUTPUT_DIR", "path", "_local/source-verify",
             "Where worklist, audit, store, logs, metrics and the lock are written.", source=SETTING_ENV),
    _setting("SV_CI_DIR", "path", "_ci/source-verify", "Where `scrapy crawl audit -a ci=1` writes its reports.",
             source=SETTING_ENV),
    _setting("SV_TESSERACT", "command", "tesseract",
             "The OCR engine for scanned PDFs; a missing one leaves scans PDF_NO_TEXT.", source=SETTING_ENV),
    _setting("SV_PARTS_SEPARATE_MACHINES", "0 | 1", "0",
             "`-a part=I/N` on machines with their own addresses: each part may use the whole global cap and "
             "the Wayback's floor (0: parts share one address, each uses a Nth).", source=SETTING_ENV),
    # -- Scrapy settings (``-s NAME=VALUE``)
    _setting("SV_JOB", "(worklist | audit)", "",
             "Set by each spider: switches its job's pipelines on (never set by hand)."),
    _setting("SV_PROGRESS_INTERVAL", "number >= 0", 5.0, "Seconds between progress lines on stderr (0: none).",
             minimum=0),
    _setting("SV_REQ_PER_SEC", "number >= 0", None,
             "The crawl's global request rate cap (0: no cap); default: global.req_per_sec.", minimum=0),
    _setting("SV_RENDER_ENABLED", "bool", True,
             "Render JavaScript shells in Chromium (scrapy-playwright); off: shells stay SOURCE_UNAVAILABLE."),
    _setting("SV_NETWORK_HANDLER", "import path", None,
             "The download handler behind the paced handler; set by the add-on (never set by hand)."),
    _setting("TWISTED_DNS_RESOLVER", "import path", "sv_scrapy.resolver.PinnedResolver",
             "The run's one resolver: a host resolved once, a name with an unsafe answer refused, only the checked "
             "addresses connected (a subclass of it, or nothing)."),
    _setting("DNS_TIMEOUT", "seconds", 60.0, "How long the run's resolver waits for one host's lookup (Scrapy's)."),
    _setting("USER_AGENT", "string", None, "Derived by the add-on from global.user_agent; read by the renderer."),
    _setting("ROBOTSTXT_OBEY", "bool", True,
             "Set by the add-on: robots.txt is obeyed; off, the robots middleware stands aside (Scrapy's rule)."),
    _setting("ROBOTSTXT_USER_AGENT", "string", None, "The agent robots.txt rules are matched for (default USER_AGENT)."),
    _setting("ROBOTSTXT_PARSER", "import path", "scrapy.robotstxt.ProtegoRobotParser",
             "The robots.txt parser (Scrapy's); the robots middleware builds one per host with it."),
    _setting("AUTOTHROTTLE_START_DELAY", "seconds", 0.0,
             "The paced handler's first latency-based delay; the add-on sets global.default_per_host_interval_ms."),
    _setting("AUTOTHROTTLE_MAX_DELAY", "seconds", 60.0, "The paced handler's longest latency-based delay."),
    _setting("AUTOTHROTTLE_TARGET_CONCURRENCY", "number", 1.0, "Requests in flight per host the paced handler aims at."),
    _setting("LOG_FILE", "path", None, "Scrapy's log file; unset, a quiet command logs to SV_OUTPUT_DIR/logs/."),
    _setting("LOG_ENABLED", "bool", True,
             "Scrapy's switch for its log; off (as the project's non-crawl commands set it), the crawl stays quiet too."),
    _setting("LOG_LEVEL", "level", "INFO",
             "Scrapy's log level; set on the command line (`-L`, `-s`), the crawl logs to the console as Scrapy does."),
    # -- the environment only
    _env("SV_NOW", "ISO date or datetime", "", "Pretend the run starts at this instant (tests, replays); a bad one exits 2."),
    _env("SV_IGNORE_HTTPS_ERRORS", "1 | true | yes", "", "Accept self-signed certificates (the tests' mock web only)."),
    _env("SV_HEALTHCHECK_URL", "URL", "", "Pinged when a monthly run starts, succeeds or fails (healthchecks.io style)."),
    _env("SV_CHROMIUM_PATH", "path", "", "The Chromium the renderer launches (default: Debian's /usr/lib/chromium/chromium)."),
    _env("SV_LLM_POLL_SECONDS", "number", "", "Seconds between polls of a Message Batch (default: llm.poll_seconds)."),
    _env("SV_CORPUS_REPOSITORY", "owner/name", "", "The corpus's repository for report links (default GITHUB_REPOSITORY)."),
    _env("SV_CORPUS_COMMIT", "git commit", "", "The corpus commit report links point at (default: the checkout's HEAD)."),
    _env("ANTHROPIC_API_KEY", "secret", "", "The key of `scrapy verify` (`tools/with_stub.py` sets a placeholder for the stub)."),
    _env("GITHUB_OUTPUT", "path", "", "Set by GitHub Actions: where `-a ci=1` writes its step outputs."),
    _env("GITHUB_STEP_SUMMARY", "path", "",
         "Set by GitHub Actions: the pull-request check (`-a changed_since … -a ci=1`) appends changes.md there."),
    _env("GITHUB_REPOSITORY", "owner/name", "", "Set by GitHub Actions: the repository report links name."),
    _env("GITHUB_SERVER_URL", "URL", "", "Set by GitHub Actions: the server report links point at."),
    _env("GITHUB_SHA", "git commit", "", "Set by GitHub Actions: the commit report links name when the corpus is this repo."),
    _env("ANTHROPIC_BASE_URL", "URL", "", "Read by the anthropic SDK itself: where its requests go (the stub's address)."),
    _env("XDG_CACHE_HOME", "path", "", "Where the CLDR tables are cached (default ~/.cache/sv_scrapy)."),
    _env("https_proxy", "URL", "", "The proxy Chromium renders through (also HTTPS_PROXY, http_proxy, HTTP_PROXY)."),
    _env("HTTPS_PROXY", "URL", "", "As https_proxy."),
    _env("http_proxy", "URL", "", "As https_proxy, when no HTTPS proxy is set."),
    _env("HTTP_PROXY", "URL", "", "As http_proxy."),
    _env("no_proxy", "host list", "", "Hosts Chromium reaches without the proxy (also NO_PROXY)."),
    _env("NO_PROXY", "host list", "", "As no_proxy."),
)

BY_SOURCE: dict[str, tuple[Entry, ...]] = {s: tuple(e for e in ENTRIES if e.source == s) for s in SOURCES}
_BY_NAME = {(e.source, e.name): e for e in ENTRIES}
_ENV_NAMES = frozenset(e.name for e in ENTRIES if e.source in (ENV, SETTING_ENV))


def entry(source: str, name: str) -> Entry:
    return _BY_NAME[(source, name)]


# numeric -s settings a crawl reads, checked before it starts (runtime.check_settings): name -> minimum
NUMERIC_SETTINGS = {e.name: e.minimum for e in BY_SOURCE[SETTING] if e.minimum is not None}


def env(name: str) -> str:
    """The one reader of the environment: a registered variable's value, ``""`` when unset."""
    if name not in _ENV_NAMES:
        raise KeyError(f"{name}: not a registered environment variable (sv_scrapy/run/registry.py)")
    return environment.read(name)


def env_values(names: Iterable[str]) -> dict[str, str]:
    """Several registered variables at once, the unset ones left out."""
    return {n: v for n in names if (v := env(n))}


def apply_environment(settings: Any) -> None:
    """Set each location setting (``SV_CORPUS_ROOT``, ``SV_OUTPUT_DIR``, …) from its environment
    variable, else its registered default, at the add-on priority: ``-s NAME=VALUE`` (the command
    line's, higher) still wins. Called where a run starts (the add-on's pre-crawler hook, the
    commands), not when the settings module is imported, so a test sets the environment and
    reloads nothing."""
    for e in ENTRIES:
        if e.source == SETTING_ENV:
            settings.set(e.name, setting_from_env(e.name), priority="addon")


def setting_from_env(name: str) -> str:
    """A location setting's default: its environment variable, else the registered path under the project."""
    e = entry(SETTING_ENV, name)
    value = env(name)
    if value:
        return value
    return str(PROJECT_DIR / e.default) if e.kind == "path" else str(e.default)


# what a report's links are made of (core/report/sourcelinks.py reads them from this mapping)
LINK_VARIABLES = ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA", "SV_CORPUS_REPOSITORY", "SV_CORPUS_COMMIT")


def setting_default(name: str) -> Any:
    """A Scrapy setting's registered default, for ``settings.get*(name, setting_default(name))``."""
    return entry(SETTING, name).default
