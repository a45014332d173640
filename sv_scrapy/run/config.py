"""Load and validate the three config files once, into typed, read-only objects.

The files keep the real corpus's own keys (``config/_source-verify.json``,
``config/_url-liveness.json``, ``primary-source-allowlist.txt``) so ``SV_CONFIG_DIR`` can
point straight at a playbook repo's ``config/`` and share one politeness policy with its
url-liveness tool. Keys sv_scrapy adds are optional with documented defaults, so the
corpus's files validate unchanged.

Each key is declared once, as a field of its section's model below (its type, bounds, default and
doc in ``Field``); validation, the typed values and the docs' reference page read that field. Adding a
section is one small ``Section`` class and one field of ``SourceVerify``. No Scrapy import:
``runtime.py`` calls ``load_config`` (once per folder and process) for the add-on, the commands and
the spiders.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo, field_validator

from sv_scrapy.core.audit.archive.floor import with_archive_default
from sv_scrapy.core.audit.archive.thennow import ArchiveSettings
from sv_scrapy.core.audit.discover.settings import DiscoverSettings
from sv_scrapy.core.errors import ConfigError
from sv_scrapy.core.hosts import DEFAULT_GOV_HOSTS, DEFAULT_GOV_NAMESPACES, HostRules
from sv_scrapy.core.page.ocr import DEFAULT_LANGUAGES, LANGUAGE_CODE
from sv_scrapy.core.policy import HostPolicy, Liveness
from sv_scrapy.core.schema import Section, load, shown
from sv_scrapy.run.llmconfig import LlmSettings

SOURCE_VERIFY_FILE = "_source-verify.json"
LIVENESS_FILE = "_url-liveness.json"
ALLOWLIST_FILE = "primary-source-allowlist.txt"
# what an ignored key's doc says: the playbook repo's own tools read it
LIVENESS_TOOL = "Ignored: read by the playbook repo's url-liveness checker, not by sv_scrapy."


def _lower(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.lower() for v in values)


def _tesseract_code(code: str) -> str:
    if not LANGUAGE_CODE.match(code):
        raise ValueError(f'"{code}" is no tesseract language code (like "eng", "fra", "chi_sim")')
    return code


Lowered = Annotated[tuple[str, ...], AfterValidator(_lower)]
Strings = tuple[str, ...]


# -- _source-verify.json ---------------------------------------------------------------------

class Extraction(Section):
    """``extraction``: which corpus files and lines become claims."""

    primary_only: bool = Field(
        description="Extract only claims citing a primary source (a government or allowlisted host).")
    min_salient_values: int = Field(ge=0, description="A claim needs at least this many salient figures.")
    claim_window_chars: int = Field(ge=1, description="Characters of text around a citation read as its claim.")
    salient_value_types: tuple[Literal["pct", "money", "statute", "date"], ...] = Field(
        description="The figure kinds that make a claim checkable.")
    scope_dirs: Strings = Field(description="The corpus folders read (the rest is ignored).")
    skip_files: frozenset[str] = Field(description="File names never read (templates, READMEs).")
    skip_headings: Lowered = Field(
        description="Sections (by heading, case-insensitive) whose lines are no claims.")
    gov_namespaces: Strings = Field(
        DEFAULT_GOV_NAMESPACES,
        description="Replaces the built-in government namespaces ('*' is a two-letter country code).")
    gov_hosts: Strings = Field(DEFAULT_GOV_HOSTS,
                               description="Replaces the built-in government hosts on a plain ccTLD.")
    code_urls: bool = Field(False, description="Backticked and bare URLs cite like Markdown links.")


class Fetch(Section):
    """``fetch``: how much of a page is read and kept."""

    max_body_bytes: int = Field(ge=1, description="An HTML body is cut after this many bytes.")
    excerpt_window_chars: int = Field(ge=1, description="Characters of page text kept around a found figure.")
    max_excerpts_per_claim: int = Field(ge=1, description="Excerpts kept per claim.")
    content_cache_ttl_days: int | None = Field(
        None, ge=0,
        description="Ignored: every audit revalidates each page (a 304 reuses the stored copy), so no copy has a TTL.")
    min_text_chars: int = Field(
        ge=0, description="A page with less cleaned text was not really read: SOURCE_UNAVAILABLE, never TOKENS_ABSENT.")
    js_spa_hosts: Lowered = Field(description="Hosts whose pages are always rendered in Chromium.")
    binary_content_prefixes: Strings = Field(description="Content types never read as text (their bodies are dropped).")


class Pdf(Section):
    """``pdf``: the text layer and the OCR of scans."""

    enabled: bool = Field(description="Read PDFs' text layer.")
    max_pages: int = Field(ge=0, description="Pages of a PDF read (0: all).")
    max_bytes: int = Field(ge=1, description="Larger PDFs are not read (a truncated PDF does not parse).")
    ocr: bool = Field(True, description="OCR PDFs with no or almost no text layer (tesseract).")
    ocr_max_pages: int = Field(20, ge=0, description="Pages of a scan OCRed.")
    ocr_languages: tuple[Annotated[str, AfterValidator(_tesseract_code)], ...] = Field(
        DEFAULT_LANGUAGES, description="The tesseract language packs OCR may use; the first is the fallback.")
    ocr_page_timeout_seconds: float = Field(30.0, ge=0, description="One page's OCR is stopped after this long.")
    ocr_min_confidence: float = Field(  # tesseract's word confidence; clean scans read 90+
        70.0, ge=0, description="A scan's figure is called absent only if every page read with this word "
                                "confidence (0-100).")


class Linter(Section):
    """``linter``: what `scrapy check-citations` accepts."""

    root_url_allowlist: Strings = Field(description="Root URLs `scrapy check-citations` accepts as citations.")


class PriorityWeights(Section):
    """``sampling.priority_weights``: what makes a claim come up first in a sample."""

    stale_marker: float = Field(ge=0, description="Priority of a claim marked stale in the corpus.")
    never_verified: float = Field(ge=0, description="Priority of a claim with no Last verified stamp.")
    stamp_age_per_30d: float = Field(ge=0, description="Priority per 30 days of a stamp's age.")
    salient_statute_or_money: float = Field(ge=0, description="Priority of a statute or money figure.")


class Sampling(Section):
    """``sampling``: the worklist's sample."""

    default_sample: int = Field(ge=0, description="Claims a worklist samples when -a sample is not given.")
    priority_weights: PriorityWeights = Field(description="A claim's priority, by what it has.")

    @property
    def weights(self) -> dict[str, float]:
        """The priority weights by name (the sampler's and the report's table)."""
        return self.priority_weights.model_dump()


class Report(Section):
    """``report``: where a report's ``where`` links to (``{commit}``, ``{path}``, ``{line}``), how
    many standing claims each backlog list shows in Markdown."""

    source_url_template: str = Field(
        "", description="Where a finding's line links to: an http(s) URL with {path}, {line} (and usually {commit}).")
    backlog_top_n: int = Field(15, ge=1, description="Standing claims each backlog list of the Markdown report shows.")
    verify_reports: Path | None = Field(
        None, description="Where `scrapy verify` reports are read from (default: beside the output).")

    @field_validator("source_url_template")
    @classmethod
    def _link(cls, template: str) -> str:
        if template and (not template.startswith(("https://", "http://")) or "{path}" not in template
                         or "{line}" not in template):
            raise ValueError("must be an http(s) URL with {path} and {line} (and usually {commit}), "
                             f"got {template!r}")
        return template

    @field_validator("verify_reports", mode="plain", json_schema_input_type=str)
    @classmethod
    def _beside_the_config(cls, value: Any, info: ValidationInfo) -> Path | None:
        """A folder relative to the config file's own folder (the loader's ``context``)."""
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {shown(value)}")
        return Path((info.context or {}).get("folder", ".")) / value if value else None


class Linked(Section):
    """``linked``: documents one click from a ``TOKENS_ABSENT`` page read for the figure."""

    enabled: bool = Field(True, description="Read documents one click from a TOKENS_ABSENT page for the figure.")
    max_per_page: int = Field(2, ge=0, description="Linked documents read per page.")


class SourceVerify(Section):
    """``_source-verify.json``: extraction, fetch, PDF, linter, sampling and the optional sections."""

    version: int = Field(ge=0, description="The file format's version (1).")
    extraction: Extraction
    fetch: Fetch
    pdf: Pdf
    linter: Linter
    sampling: Sampling
    report: Report = Report()
    archive: ArchiveSettings = ArchiveSettings()
    linked: Linked = Linked()
    llm: LlmSettings = LlmSettings()
    discover: DiscoverSettings = DiscoverSettings()


# -- _url-liveness.json (shared with the playbook repo's url-liveness checker) ------------------

class Global(Section):
    """``global``: the crawl's caps, retries and user agent."""

    concurrency: int = Field(ge=1, description="Requests in flight at once, all hosts together.")
    req_per_sec: float = Field(ge=0, description="The global request rate cap (SV_REQ_PER_SEC overrides).")
    default_per_host_concurrency: int = Field(ge=1, description="Requests in flight per host without an override.")
    default_per_host_interval_ms: int = Field(ge=0, description="The floor between two requests to one host.")
    request_timeout_seconds: float = Field(ge=0, description="One request's time limit.")
    max_retries: int = Field(ge=0, description="Retries of a failed request.")
    retry_backoff_seconds: tuple[Annotated[float, Field(ge=0)], ...] = Field(description="Waits before each retry.")
    retry_jitter_pct: float = Field(ge=0, description="Random spread of each wait, in percent.")
    fail_streak_for_dead: int = Field(ge=1, description="Failed audits in a row after which a page is DEAD.")
    random_refresh_pct: float | None = Field(None, ge=0, description=LIVENESS_TOOL)
    threshold_pct: float | None = Field(None, ge=0, description=LIVENESS_TOOL)
    cache_ttl_days: dict[str, Annotated[int, Field(ge=0)]] | None = Field(None, description=LIVENESS_TOOL)
    user_agent: str = Field(description="The user agent; {version} becomes sv_scrapy's version.")
    follow_redirects_max: int = Field(ge=0, description="Redirects followed at most.")


class ExcludedHost(Section):
    """One entry of ``excluded_hosts``."""

    host: str = Field(description="The host never fetched.")
    reason: str = Field("", description="Why (shown with the claim).")


class ChallengeMarkers(Section):
    """``cloudflare_challenge_markers``: how a bot challenge is recognised."""

    headers: Lowered = Field(description="Response headers that mark a bot challenge.")
    body_titles: Strings = Field(description="Page titles that mark a bot challenge.")


_CODES = tuple[Annotated[int, Field(ge=0)], ...]  # HTTP status codes


class LivenessFile(Section):
    """``_url-liveness.json``: the politeness policy, shared with the playbook repo's url-liveness tool."""

    version: int = Field(ge=0, description="The file format's version (1).")
    global_: Global = Field(alias="global")
    per_host_overrides: dict[str, HostPolicy] = Field(
        description="Per host (suffix-matched): concurrency, interval_ms, reason.")
    gov_suffix_default: HostPolicy = Field(description="The policy of a government host without its own override.")
    excluded_hosts: tuple[ExcludedHost, ...] = Field(description="Hosts never fetched (the claim is reported EXCLUDED).")
    indeterminate_status_codes: frozenset[Annotated[int, Field(ge=0)]] = Field(
        description="Statuses that say nothing about the page (a block, a limit).")
    live_status_codes: _CODES | None = Field(None, description=LIVENESS_TOOL)
    auth_required_status_codes: _CODES | None = Field(None, description=LIVENESS_TOOL)
    cloudflare_challenge_markers: ChallengeMarkers


# the files' models, by file name (the docs' reference tables and the declared-once test read them)
MODELS: dict[str, type[Section]] = {SOURCE_VERIFY_FILE: SourceVerify, LIVENESS_FILE: LivenessFile}


def pacer_view(lf: LivenessFile) -> Liveness:
    """The pacer's view of the file (``core/policy.py``): per-host policies by lowercased host, the
    archive's floor unless the file names one, the default policy of ``global``."""
    g = lf.global_
    return Liveness(
        concurrency=g.concurrency,
        req_per_sec=g.req_per_sec,
        default_policy=HostPolicy(g.default_per_host_concurrency, g.default_per_host_interval_ms, "default"),
        gov_policy=lf.gov_suffix_default,
        per_host=with_archive_default({h.lower(): p for h, p in lf.per_host_overrides.items()}),
        request_timeout_seconds=g.request_timeout_seconds,
        max_retries=g.max_retries,
        retry_backoff_seconds=g.retry_backoff_seconds,
        retry_jitter_pct=g.retry_jitter_pct,
        fail_streak_for_dead=g.fail_streak_for_dead,
        user_agent_template=g.user_agent,
        follow_redirects_max=g.follow_redirects_max,
        excluded_hosts={e.host.lower(): e.reason for e in lf.excluded_hosts},
        indeterminate_status_codes=lf.indeterminate_status_codes,
        cloudflare_headers=lf.cloudflare_challenge_markers.headers,
        cloudflare_titles=lf.cloudflare_challenge_markers.body_titles,
    )


class Config(SourceVerify):
    """Everything sv_scrapy reads from ``SV_CONFIG_DIR``, validated: ``_source-verify.json``'s sections
    and what the loader adds (built by ``load_config``, never read from a file)."""

    config_dir: Path
    liveness: Liveness
    hosts: HostRules
    allowlist_path: Path | None

    @property
    def warnings(self) -> list[str]:
        """What a run should say once, up front, about this config (one line each)."""
        if self.allowlist_path is None:
            return [f"{self.config_dir / ALLOWLIST_FILE}: allowlist not found (nor ../scripts/{ALLOWLIST_FILE}); "
                    "only government hosts count as primary sources, so fewer claims are extracted"]
        return []


# a config file's text, or None when there is none: the folder on disk (``read_file``), or the folder
# as a revision of its repository holds it (``corpusgit.reader_at``: the pull-request check's rules)
Reader = Callable[[Path], str | None]


def read_file(path: Path) -> str | None:
    """A config file's text on disk; None when absent. Unreadable: ``ConfigError``."""
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError):
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None


def _read_json(path: Path, read: Reader = read_file) -> Any:
    text = read(path)
    if text is None:
        raise ConfigError(f"{path}: file not found (set SV_CONFIG_DIR to the folder holding it)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from None


def read_allowlist(config_dir: Path, read: Reader = read_file) -> tuple[Path | None, frozenset[str]]:
    """The allowlist (its path, its hosts): in the config folder, or where a playbook repo keeps
    it, ``../scripts/``; none found: ``(None, frozenset())``."""
    for candidate in (config_dir / ALLOWLIST_FILE, config_dir.parent / "scripts" / ALLOWLIST_FILE):
        text = read(candidate)
        if text is not None:
            return candidate, parse_allowlist(text)
    return None, frozenset()


def parse_allowlist(text: str) -> frozenset[str]:
    """One host per line; ``#`` starts a comment; blank lines ignored; case-insensitive.

    >>> sorted(parse_allowlist("bom.mu   # Bank of Mauritius\\n\\n# note\\nCBS.nl\\n"))
    ['bom.mu', 'cbs.nl']
    """
    hosts = set()
    for line in text.splitlines():
        host = line.split("#", 1)[0].strip().lower()
        if host:
            hosts.add(host)
    return frozenset(hosts)


def load_config(config_dir: str | Path, read: Reader | None = None) -> Config:
    """Read, validate and type the config folder; raise ``ConfigError`` with one line. ``read``
    (default: the files on disk) gives each file's text, or None for a file that is not there."""
    cdir = Path(config_dir)
    if read is None:
        if not cdir.is_dir():
            raise ConfigError(f"{cdir}: config folder not found (SV_CONFIG_DIR)")
        read = read_file
    sv_path, ul_path = cdir / SOURCE_VERIFY_FILE, cdir / LIVENESS_FILE
    sv = load(SourceVerify, _read_json(sv_path, read), str(sv_path), context={"folder": cdir})
    ul = load(LivenessFile, _read_json(ul_path, read), str(ul_path))

    allowlist_path, allowlist = read_allowlist(cdir, read)

    rules = HostRules(allowlist=allowlist, gov_namespaces=sv.extraction.gov_namespaces,
                      gov_hosts=sv.extraction.gov_hosts)
    # the file's sections as validated, with what the loader adds (nothing here is read twice)
    return Config.model_construct(**dict(sv), config_dir=cdir, liveness=pacer_view(ul), hosts=rules,
                                  allowlist_path=allowlist_path)
