"""Every knob sv_scrapy reads, declared once: environment variables, Scrapy settings and the keys
of the two config files, each with where it is read from, its type, its default and one line of doc.

The config files' checkers (``SOURCE_VERIFY_SPEC``, ``LIVENESS_SPEC``), the typed settings'
defaults (``default``), the numeric ``-s`` checks (``NUMERIC_SETTINGS``) and the docs' reference
pages all derive from ``ENTRIES``. ``env`` is the one road to the environment (the pure core's
few readers go through ``core/environment.py`` with declared names; tests/test_registry.py greps). No Scrapy import.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sv_scrapy.core import environment
from sv_scrapy.core.audit.archive.thennow import DEFAULT_MAX_LOOKUPS
from sv_scrapy.core.audit.discover.settings import DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_REQUESTS_PER_HOST
from sv_scrapy.core.hosts import DEFAULT_GOV_HOSTS, DEFAULT_GOV_NAMESPACES
from sv_scrapy.core.page.ocr import DEFAULT_LANGUAGES
from sv_scrapy.core.schema import INT, NUM, POS_INT, Bool, ListOf, MapOf, Num, Obj, Spec, Str

PROJECT_DIR = Path(__file__).resolve().parent.parent

# where an entry is read from
ENV = "environment"
SETTING = "Scrapy setting"  # settings.py or ``-s NAME=VALUE``
SETTING_ENV = "Scrapy setting, defaulting from the environment"  # ``-s`` wins over the variable
SOURCE_VERIFY = "_source-verify.json"
LIVENESS = "_url-liveness.json"
SOURCES = (ENV, SETTING_ENV, SETTING, SOURCE_VERIFY, LIVENESS)


class _Required:
    def __repr__(self) -> str:
        return "(required)"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Entry:
    """One knob. ``spec`` checks a config key's value (and an ``-s`` number's); ``ignored`` keys are
    accepted because a playbook repo's own tools read them, and do nothing here."""

    name: str
    source: str
    kind: str
    default: Any
    doc: str
    spec: Spec | None = None
    ignored: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def describe(spec: Spec) -> str:
    """A value's type in words, from its checker.

    >>> describe(ListOf(Str(choices=("a", "b"))))
    'list of (a | b)'
    """
    if isinstance(spec, Num):
        kind = "integer" if spec.integer else "number"
        return f"{kind} >= {spec.minimum:g}" if spec.minimum is not None else kind
    if isinstance(spec, Bool):
        return "true | false"
    if isinstance(spec, Str):
        return f"({' | '.join(spec.choices)})" if spec.choices else "string"
    if isinstance(spec, ListOf):
        return f"list of {describe(spec.item)}"
    if isinstance(spec, MapOf):
        return f"object of name: {describe(spec.value)}"
    if isinstance(spec, Obj):
        keys = [*spec.required, *(f"{k}?" for k in spec.optional)]
        return "object {" + ", ".join(keys) + "}"
    return type(spec).__name__  # pragma: no cover


def _env(name: str, kind: str, default: Any, doc: str) -> Entry:
    return Entry(name, ENV, kind, default, doc)


def _setting(name: str, kind: str, default: Any, doc: str, spec: Spec | None = None, source: str = SETTING) -> Entry:
    return Entry(name, source, kind, default, doc, spec)


def _sv(name: str, spec: Spec, default: Any, doc: str, ignored: bool = False) -> Entry:
    return Entry(name, SOURCE_VERIFY, describe(spec), default, doc, spec, ignored)


def _lv(name: str, spec: Spec, default: Any, doc: str, ignored: bool = False) -> Entry:
    return Entry(name, LIVENESS, describe(spec), default, doc, spec, ignored)


_STRS = ListOf(Str())
_CODES = ListOf(INT)  # HTTP status codes
_VALUE_TYPES = ListOf(Str(choices=("pct", "money", "statute", "date")))
_HOST_POLICY = Obj(required={"concurrency": POS_INT, "interval_ms": INT}, optional={"reason": Str()})
THINKING = ("off", "default", "adaptive")
_LINES: dict[str, Spec] = {"cache_read": NUM, "cache_write_5m": NUM, "cache_write_1h": NUM}
# long_context: the tier a request is billed at, on every line, when its prompt (input + cache reads and
# writes) is over threshold_tokens (Haiku 5.5: 100,000 tokens, 5x)
_LONG = Obj(required={"threshold_tokens": POS_INT, "input": NUM, "output": NUM}, optional=_LINES)
_PRICES = Obj(required={"input": NUM, "output": NUM}, optional={**_LINES, "batch_discount": NUM, "long_context": _LONG})
# llm.models.<id>: what the Models API does not say about a model: its prices, its caching minimum, and
# the request shape (thinking off/default/adaptive; whether the verdict tool may be forced; output "json":
# the verdict as structured output through output_config.format instead of the tool)
_MODEL = Obj(required={}, optional={"prices_usd_per_mtok": _PRICES, "cache_min_tokens": POS_INT,
                                    "thinking": Str(choices=THINKING), "forced_tool": Bool(),
                                    "output": Str(choices=("tool", "json"))})
# Prices as published for claude-haiku-5-5 (prompts up to 100k tokens) in December 2026: update them with
# the model. Cache writes bill 1.25x input (5-minute TTL) or 2x (1-hour), reads 0.1x; batch_discount
# multiplies every line of a batch. Sonnet 5.5 ($2 / $10, cache reads $0.10 since 2026-10-07) does not
# take thinking disabled, so the tool is never forced there (the Models API says so too).
_HAIKU_PRICES = {"input": 0.10, "output": 0.50, "cache_read": 0.01, "cache_write_5m": 0.125, "cache_write_1h": 0.20,
                 "batch_discount": 0.5,
                 "long_context": {"threshold_tokens": 100_000, "input": 0.50, "output": 2.50, "cache_read": 0.05,
                                  "cache_write_5m": 0.625, "cache_write_1h": 1.00}}
_OTHER_MODELS = {"claude-sonnet-5-5": {"prices_usd_per_mtok": {"input": 2.0, "output": 10.0, "cache_read": 0.10,
                                                               "cache_write_5m": 2.50, "cache_write_1h": 4.0},
                                      "cache_min_tokens": 1024, "thinking": "adaptive", "forced_tool": False}}
_LIVENESS_TOOL = "read by the playbook repo's url-liveness checker, not by sv_scrapy"

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
             "Set by each spider: switches its job's pipelines on (never set by hand).", spec=Str()),
    _setting("SV_PROGRESS_INTERVAL", "number >= 0", 5.0, "Seconds between progress lines on stderr (0: none).",
             spec=NUM),
    _setting("SV_REQ_PER_SEC", "number >= 0", None,
             "The crawl's global request rate cap (0: no cap); default: global.req_per_sec.", spec=NUM),
    _setting("SV_RENDER_ENABLED", "bool", True,
             "Render JavaScript shells in Chromium (scrapy-playwright); off: shells stay SOURCE_UNAVAILABLE."),
    _setting("SV_NETWORK_HANDLER", "import path", None,
             "The download handler behind the paced handler; set by the add-on (never set by hand)."),
    _setting("USER_AGENT", "string", None, "Derived by the add-on from global.user_agent; read by the renderer."),
    _setting("ROBOTSTXT_USER_AGENT", "string", None, "The agent robots.txt rules are matched for (default USER_AGENT)."),
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
    # -- _source-verify.json
    _sv("version", INT, REQUIRED, "The file format's version (1)."),
    _sv("extraction.primary_only", Bool(), REQUIRED,
        "Extract only claims citing a primary source (a government or allowlisted host)."),
    _sv("extraction.min_salient_values", INT, REQUIRED, "A claim needs at least this many salient figures."),
    _sv("extraction.claim_window_chars", POS_INT, REQUIRED, "Characters of text around a citation read as its claim."),
    _sv("extraction.salient_value_types", _VALUE_TYPES, REQUIRED, "The figure kinds that make a claim checkable."),
    _sv("extraction.scope_dirs", _STRS, REQUIRED, "The corpus folders read (the rest is ignored)."),
    _sv("extraction.skip_files", _STRS, REQUIRED, "File names never read (templates, READMEs)."),
    _sv("extraction.skip_headings", _STRS, REQUIRED, "Sections (by heading, case-insensitive) whose lines are no claims."),
    _sv("extraction.gov_namespaces", _STRS, DEFAULT_GOV_NAMESPACES,
        "Replaces the built-in government namespaces ('*' is a two-letter country code)."),
    _sv("extraction.gov_hosts", _STRS, DEFAULT_GOV_HOSTS, "Replaces the built-in government hosts on a plain ccTLD."),
    _sv("extraction.code_urls", Bool(), False, "Backticked and bare URLs cite like Markdown links."),
    _sv("fetch.max_body_bytes", POS_INT, REQUIRED, "An HTML body is cut after this many bytes."),
    _sv("fetch.excerpt_window_chars", POS_INT, REQUIRED, "Characters of page text kept around a found figure."),
    _sv("fetch.max_excerpts_per_claim", POS_INT, REQUIRED, "Excerpts kept per claim."),
    _sv("fetch.content_cache_ttl_days", INT, None,
        "Ignored: every audit revalidates each page (a 304 reuses the stored copy), so no copy has a TTL.", ignored=True),
    _sv("fetch.min_text_chars", INT, REQUIRED,
        "A page with less cleaned text was not really read: SOURCE_UNAVAILABLE, never TOKENS_ABSENT."),
    _sv("fetch.js_spa_hosts", _STRS, REQUIRED, "Hosts whose pages are always rendered in Chromium."),
    _sv("fetch.binary_content_prefixes", _STRS, REQUIRED, "Content types never read as text (their bodies are dropped)."),
    _sv("pdf.enabled", Bool(), REQUIRED, "Read PDFs' text layer."),
    _sv("pdf.max_pages", INT, REQUIRED, "Pages of a PDF read (0: all)."),
    _sv("pdf.max_bytes", POS_INT, REQUIRED, "Larger PDFs are not read (a truncated PDF does not parse)."),
    _sv("pdf.ocr", Bool(), True, "OCR PDFs with no or almost no text layer (tesseract)."),
    _sv("pdf.ocr_max_pages", INT, 20, "Pages of a scan OCRed."),
    _sv("pdf.ocr_languages", _STRS, DEFAULT_LANGUAGES, "The tesseract language packs OCR may use; the first is the fallback."),
    _sv("pdf.ocr_page_timeout_seconds", NUM, 30.0, "One page's OCR is stopped after this long."),
    _sv("pdf.ocr_min_confidence", NUM, 70.0,
        "A scan's figure is called absent only if every page read with this word confidence (0-100)."),
    _sv("linter.root_url_allowlist", _STRS, REQUIRED, "Root URLs `scrapy check-citations` accepts as citations."),
    _sv("sampling.default_sample", INT, REQUIRED, "Claims a worklist samples when -a sample is not given."),
    _sv("sampling.priority_weights.stale_marker", NUM, REQUIRED, "Priority of a claim marked stale in the corpus."),
    _sv("sampling.priority_weights.never_verified", NUM, REQUIRED, "Priority of a claim with no Last verified stamp."),
    _sv("sampling.priority_weights.stamp_age_per_30d", NUM, REQUIRED, "Priority per 30 days of a stamp's age."),
    _sv("sampling.priority_weights.salient_statute_or_money", NUM, REQUIRED, "Priority of a statute or money figure."),
    _sv("report.source_url_template", Str(), "",
        "Where a finding's line links to: an http(s) URL with {path}, {line} (and usually {commit})."),
    _sv("report.backlog_top_n", POS_INT, 15, "Standing claims each backlog list of the Markdown report shows."),
    _sv("report.verify_reports", Str(), "", "Where `scrapy verify` reports are read from (default: beside the output)."),
    _sv("archive.enabled", Bool(), True, "Then and now: look up a flagged claim's page in the Wayback Machine."),
    _sv("archive.max_lookups", INT, DEFAULT_MAX_LOOKUPS, "Archive lookups a run makes at most."),
    _sv("discover.enabled", Bool(), True,
        "Where the figure went: search the cited site (links, sitemaps, its search) for a page stating it."),
    _sv("discover.max_candidates", POS_INT, DEFAULT_MAX_CANDIDATES, "Candidate pages read for one claim, at most."),
    _sv("discover.max_requests_per_host", POS_INT, DEFAULT_MAX_REQUESTS_PER_HOST,
        "Discovery's requests to one host in a run (sitemaps, search, candidates), at most."),
    _sv("discover.search", MapOf(Str()), {},
        "A site's own search: {\"<host>\": \"https://<host>/...{q}...\"} (the same registrable domain)."),
    _sv("linked.enabled", Bool(), True, "Read documents one click from a TOKENS_ABSENT page for the figure."),
    _sv("linked.max_per_page", INT, 2, "Linked documents read per page."),
    _sv("llm.model", Str(), "claude-haiku-5-5", "The model `scrapy verify` asks (Haiku-class by default, never Opus)."),
    _sv("llm.max_tokens", POS_INT, 1024, "The output budget of one verdict."),
    _sv("llm.max_output_tokens", POS_INT, None, "The older name of max_tokens, read when max_tokens is absent."),
    _sv("llm.max_tokens_retry", POS_INT, 4096, "The output budget of a retry after a cut-off answer (>= max_tokens)."),
    _sv("llm.thinking", Str(choices=THINKING), "off", "off (the verdict tool forced), default, or adaptive thinking."),
    _sv("llm.concurrency", POS_INT, 8, "Requests in flight at once."),
    _sv("llm.max_retries", INT, 4, "Retries of a failed request."),
    _sv("llm.timeout_seconds", NUM, 120.0, "One request's time limit."),
    _sv("llm.evidence_chars", POS_INT, 1200, "Page characters sent as evidence for an absent figure."),
    _sv("llm.poll_seconds", NUM, 30.0, "Seconds between polls of a Message Batch (SV_LLM_POLL_SECONDS overrides)."),
    _sv("llm.batch_max_requests", POS_INT, 100_000, "Requests per Message Batch (the API's limit)."),
    _sv("llm.batch_max_bytes", POS_INT, 256_000_000, "Bytes per Message Batch (the API's limit)."),
    _sv("llm.count_tokens", Bool(), True, "Count a prompt's tokens before sending it (the estimate's source)."),
    _sv("llm.cache_min_tokens", POS_INT, 512, "The model's shortest cacheable prefix; below it no cache marker is sent."),
    _sv("llm.prices_usd_per_mtok", _PRICES, _HAIKU_PRICES,
        "llm.model's prices in USD per million tokens; cache lines default to 0.1x / 1.25x / 2x input."),
    _sv("llm.expected_output_tokens", POS_INT, 150, "The expected answer length of the cost estimate."),
    _sv("llm.files_api", Bool(), True, "Upload scans once (Files API) and name them by file_id."),
    _sv("llm.models", MapOf(_MODEL), _OTHER_MODELS,
        "Other models a run may name (--model): prices, caching minimum, thinking, forced_tool, output."),
    # -- _url-liveness.json (shared with the playbook repo's url-liveness checker)
    _lv("version", INT, REQUIRED, "The file format's version (1)."),
    _lv("global.concurrency", POS_INT, REQUIRED, "Requests in flight at once, all hosts together."),
    _lv("global.req_per_sec", NUM, REQUIRED, "The global request rate cap (SV_REQ_PER_SEC overrides)."),
    _lv("global.default_per_host_concurrency", POS_INT, REQUIRED, "Requests in flight per host without an override."),
    _lv("global.default_per_host_interval_ms", INT, REQUIRED, "The floor between two requests to one host."),
    _lv("global.request_timeout_seconds", NUM, REQUIRED, "One request's time limit."),
    _lv("global.max_retries", INT, REQUIRED, "Retries of a failed request."),
    _lv("global.retry_backoff_seconds", ListOf(NUM), REQUIRED, "Waits before each retry."),
    _lv("global.retry_jitter_pct", NUM, REQUIRED, "Random spread of each wait, in percent."),
    _lv("global.fail_streak_for_dead", POS_INT, REQUIRED, "Failed audits in a row after which a page is DEAD."),
    _lv("global.random_refresh_pct", NUM, None, f"Ignored: {_LIVENESS_TOOL}.", ignored=True),
    _lv("global.threshold_pct", NUM, None, f"Ignored: {_LIVENESS_TOOL}.", ignored=True),
    _lv("global.cache_ttl_days", MapOf(INT), None, f"Ignored: {_LIVENESS_TOOL}.", ignored=True),
    _lv("global.user_agent", Str(), REQUIRED, "The user agent; {version} becomes sv_scrapy's version."),
    _lv("global.follow_redirects_max", INT, REQUIRED, "Redirects followed at most."),
    _lv("per_host_overrides", MapOf(_HOST_POLICY), REQUIRED, "Per host (suffix-matched): concurrency, interval_ms, reason."),
    _lv("gov_suffix_default", _HOST_POLICY, REQUIRED, "The policy of a government host without its own override."),
    _lv("excluded_hosts", ListOf(Obj(required={"host": Str()}, optional={"reason": Str()})), REQUIRED,
        "Hosts never fetched (the claim is reported EXCLUDED)."),
    _lv("indeterminate_status_codes", _CODES, REQUIRED, "Statuses that say nothing about the page (a block, a limit)."),
    _lv("live_status_codes", _CODES, None, f"Ignored: {_LIVENESS_TOOL}.", ignored=True),
    _lv("auth_required_status_codes", _CODES, None, f"Ignored: {_LIVENESS_TOOL}.", ignored=True),
    _lv("cloudflare_challenge_markers.headers", _STRS, REQUIRED, "Response headers that mark a bot challenge."),
    _lv("cloudflare_challenge_markers.body_titles", _STRS, REQUIRED, "Page titles that mark a bot challenge."),
)

BY_SOURCE: dict[str, tuple[Entry, ...]] = {s: tuple(e for e in ENTRIES if e.source == s) for s in SOURCES}
_BY_NAME = {(e.source, e.name): e for e in ENTRIES}
_ENV_NAMES = frozenset(e.name for e in ENTRIES if e.source in (ENV, SETTING_ENV))


def entry(source: str, name: str) -> Entry:
    return _BY_NAME[(source, name)]


def default(source: str, name: str) -> Any:
    """The registered default of one key (a copy is the caller's business for dicts)."""
    return entry(source, name).default


def section_defaults(source: str, section: str) -> dict[str, Any]:
    """``{key: default}`` of one config section's optional keys (``llm`` -> model, max_tokens, ...)."""
    prefix = section + "."
    return {e.name[len(prefix):]: e.default for e in BY_SOURCE[source]
            if e.name.startswith(prefix) and not e.required and not e.ignored and e.default is not None}


def _obj(entries: Iterable[tuple[list[str], Entry]]) -> tuple[Obj, bool]:
    """An ``Obj`` of dotted keys; a section is required when one of its keys is."""
    groups: dict[str, list[tuple[list[str], Entry]]] = {}
    for parts, e in entries:
        groups.setdefault(parts[0], []).append((parts[1:], e))
    required: dict[str, Spec] = {}
    optional: dict[str, Spec] = {}
    for key, members in groups.items():
        if len(members) == 1 and not members[0][0]:
            leaf = members[0][1]
            assert leaf.spec is not None
            spec, needed = leaf.spec, leaf.required
        else:
            spec, needed = _obj(members)
        (required if needed else optional)[key] = spec
    return Obj(required=required, optional=optional), bool(required)


def spec_of(source: str, section: str = "") -> Obj:
    """The checker of one config file (or of one section of it) derived from its entries."""
    prefix = section + "." if section else ""
    members = [(e.name[len(prefix):].split("."), e) for e in BY_SOURCE[source] if e.name.startswith(prefix)]
    return _obj(members)[0]


SOURCE_VERIFY_SPEC = spec_of(SOURCE_VERIFY)
LIVENESS_SPEC = spec_of(LIVENESS)
# numeric -s settings a crawl reads, checked before it starts (runtime.check_settings): name -> minimum
NUMERIC_SETTINGS = {e.name: e.spec.minimum or 0.0 for e in BY_SOURCE[SETTING] if isinstance(e.spec, Num)}


def env(name: str) -> str:
    """The one reader of the environment: a registered variable's value, ``""`` when unset."""
    if name not in _ENV_NAMES:
        raise KeyError(f"{name}: not a registered environment variable (sv_scrapy/registry.py)")
    return environment.read(name)


def env_values(names: Iterable[str]) -> dict[str, str]:
    """Several registered variables at once, the unset ones left out."""
    return {n: v for n in names if (v := env(n))}


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
