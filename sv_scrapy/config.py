"""Load and validate the three config files once, into typed, read-only objects.

The files keep the real corpus's own keys (``config/_source-verify.json``,
``config/_url-liveness.json``, ``primary-source-allowlist.txt``) so ``SV_CONFIG_DIR`` can
point straight at a playbook repo's ``config/`` and share one politeness policy with its
url-liveness tool. Keys sv_scrapy adds are optional with documented defaults, so the
corpus's files validate unchanged.

Each key, its type, default and doc is declared once in ``sv_scrapy/registry.py``; the checkers
and the dataclass defaults below derive from it. No Scrapy import: ``runtime.py`` calls
``load_config`` (once per folder and process) for the add-on, the commands and the spiders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy import registry
from sv_scrapy.core.audit.archive.politeness import with_archive_default
from sv_scrapy.core.audit.archive.thennow import ArchiveSettings
from sv_scrapy.core.audit.discover.rank import same_site
from sv_scrapy.core.audit.discover.settings import QUERY, DiscoverSettings
from sv_scrapy.core.errors import ConfigError
from sv_scrapy.core.hosts import HostRules
from sv_scrapy.core.page.ocr import LANGUAGE_CODE
from sv_scrapy.core.policy import HostPolicy, Liveness
from sv_scrapy.core.schema import validate
from sv_scrapy.llm.settings import LlmSettings, llm_settings

SOURCE_VERIFY_FILE = "_source-verify.json"
LIVENESS_FILE = "_url-liveness.json"
ALLOWLIST_FILE = "primary-source-allowlist.txt"

SOURCE_VERIFY_SPEC = registry.SOURCE_VERIFY_SPEC
LIVENESS_SPEC = registry.LIVENESS_SPEC


def _default(name: str) -> Any:
    """A ``_source-verify.json`` key's registered default (sv_scrapy/registry.py)."""
    return registry.default(registry.SOURCE_VERIFY, name)


@dataclass(frozen=True)
class Extraction:
    primary_only: bool
    min_salient_values: int
    claim_window_chars: int
    salient_value_types: tuple[str, ...]
    scope_dirs: tuple[str, ...]
    skip_files: frozenset[str]
    skip_headings: tuple[str, ...]
    code_urls: bool = _default("extraction.code_urls")


@dataclass(frozen=True)
class Fetch:
    max_body_bytes: int
    excerpt_window_chars: int
    max_excerpts_per_claim: int
    min_text_chars: int
    js_spa_hosts: tuple[str, ...]
    binary_content_prefixes: tuple[str, ...]


@dataclass(frozen=True)
class Pdf:
    enabled: bool
    max_pages: int
    max_bytes: int
    ocr: bool = _default("pdf.ocr")
    ocr_max_pages: int = _default("pdf.ocr_max_pages")
    ocr_languages: tuple[str, ...] = _default("pdf.ocr_languages")
    ocr_page_timeout_seconds: float = _default("pdf.ocr_page_timeout_seconds")
    ocr_min_confidence: float = _default("pdf.ocr_min_confidence")  # tesseract's word confidence; clean scans read 90+


@dataclass(frozen=True)
class Sampling:
    default_sample: int
    weights: dict[str, float]


@dataclass(frozen=True)
class Report:
    """``report``: where a report's ``where`` links to (``{commit}``, ``{path}``, ``{line}``), how
    many standing claims each backlog list shows in Markdown."""

    source_url_template: str = _default("report.source_url_template")
    backlog_top_n: int = _default("report.backlog_top_n")
    verify_reports: Path | None = None  # where `scrapy verify` reports are read from (default: beside the output)


def _report(raw: dict[str, Any], origin: Path) -> Report:
    template = str(raw.get("source_url_template", Report.source_url_template))
    if template and (not template.startswith(("https://", "http://")) or "{path}" not in template
                     or "{line}" not in template):
        raise ConfigError(f"{origin}: report.source_url_template: must be an http(s) URL with {{path}} and "
                          f"{{line}} (and usually {{commit}}), got {template!r}")
    reports = str(raw.get("verify_reports") or "")
    return Report(template, int(raw.get("backlog_top_n", Report.backlog_top_n)),
                  (origin.parent / reports) if reports else None)


@dataclass(frozen=True)
class Linked:
    """``linked``: documents one click from a ``TOKENS_ABSENT`` page read for the figure."""

    enabled: bool = _default("linked.enabled")
    max_per_page: int = _default("linked.max_per_page")


@dataclass(frozen=True)
class Config:
    """Everything sv_scrapy reads from ``SV_CONFIG_DIR``, validated."""

    config_dir: Path
    extraction: Extraction
    fetch: Fetch
    pdf: Pdf
    root_url_allowlist: tuple[str, ...]
    sampling: Sampling
    liveness: Liveness
    hosts: HostRules
    allowlist_path: Path | None
    llm: LlmSettings
    report: Report = Report()
    linked: Linked = Linked()
    archive: ArchiveSettings = ArchiveSettings()
    discover: DiscoverSettings = DiscoverSettings()

    @property
    def warnings(self) -> list[str]:
        """What a run should say once, up front, about this config (one line each)."""
        if self.allowlist_path is None:
            return [f"{self.config_dir / ALLOWLIST_FILE}: allowlist not found (nor ../scripts/{ALLOWLIST_FILE}); "
                    "only government hosts count as primary sources, so fewer claims are extracted"]
        return []


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found (set SV_CONFIG_DIR to the folder holding it)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from None


def find_allowlist(config_dir: Path) -> Path | None:
    """The allowlist sits in the config folder; a playbook repo keeps it in ``../scripts/``."""
    for candidate in (config_dir / ALLOWLIST_FILE, config_dir.parent / "scripts" / ALLOWLIST_FILE):
        if candidate.is_file():
            return candidate
    return None


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


def _policy(raw: dict[str, Any]) -> HostPolicy:
    return HostPolicy(int(raw["concurrency"]), int(raw["interval_ms"]), str(raw.get("reason", "")))


def _liveness(raw: dict[str, Any]) -> Liveness:
    g = raw["global"]
    return Liveness(
        concurrency=g["concurrency"],
        req_per_sec=float(g["req_per_sec"]),
        default_policy=HostPolicy(
            g["default_per_host_concurrency"], g["default_per_host_interval_ms"], "default"
        ),
        gov_policy=_policy(raw["gov_suffix_default"]),
        per_host=with_archive_default(
            {h.lower(): _policy(p) for h, p in raw["per_host_overrides"].items() if not h.startswith("_")}),
        request_timeout_seconds=float(g["request_timeout_seconds"]),
        max_retries=g["max_retries"],
        retry_backoff_seconds=tuple(float(s) for s in g["retry_backoff_seconds"]),
        retry_jitter_pct=float(g["retry_jitter_pct"]),
        fail_streak_for_dead=g["fail_streak_for_dead"],
        user_agent_template=g["user_agent"],
        follow_redirects_max=g["follow_redirects_max"],
        excluded_hosts={e["host"].lower(): e.get("reason", "") for e in raw["excluded_hosts"]},
        indeterminate_status_codes=frozenset(raw["indeterminate_status_codes"]),
        cloudflare_headers=tuple(h.lower() for h in raw["cloudflare_challenge_markers"]["headers"]),
        cloudflare_titles=tuple(raw["cloudflare_challenge_markers"]["body_titles"]),
    )


def _pdf(raw: dict[str, Any], origin: Path) -> Pdf:
    for i, code in enumerate(raw.get("ocr_languages", ())):
        if not LANGUAGE_CODE.match(code):
            raise ConfigError(f'{origin}: pdf.ocr_languages[{i}]: "{code}" is no tesseract language code '
                              '(like "eng", "fra", "chi_sim")')
    p = {k: v for k, v in raw.items() if not k.startswith("_")}
    for key, kind in (("ocr_languages", tuple), ("ocr_page_timeout_seconds", float), ("ocr_min_confidence", float)):
        if key in p:
            p[key] = kind(p[key])
    return Pdf(**p)


def _archive(raw: dict[str, Any]) -> ArchiveSettings:
    """``archive`` (checked by the registry's spec: ``max_lookups`` is 0 or more)."""
    return ArchiveSettings(bool(raw.get("enabled", _default("archive.enabled"))),
                           int(raw.get("max_lookups", _default("archive.max_lookups"))))


def _discover(raw: dict[str, Any], origin: Path) -> DiscoverSettings:
    """``discover`` (its keys checked by the registry's spec); a search template is an http(s) URL on
    its host's site with ``{q}`` where the query goes."""
    search = {str(h).lower(): str(t) for h, t in (raw.get("search") or {}).items() if not str(h).startswith("_")}
    for host, template in search.items():
        parts = urlsplit(template.replace(QUERY, "q"))
        if parts.scheme not in ("http", "https") or QUERY not in template or not same_site(template.replace(QUERY, "q"), host):
            raise ConfigError(f"{origin}: discover.search.{host}: must be an http(s) URL on {host}'s site with {QUERY} "
                              f"where the query goes, got {template!r}")
    return DiscoverSettings(bool(raw.get("enabled", _default("discover.enabled"))),
                            int(raw.get("max_candidates", _default("discover.max_candidates"))),
                            int(raw.get("max_requests_per_host", _default("discover.max_requests_per_host"))),
                            search)


def load_config(config_dir: str | Path) -> Config:
    """Read, validate and type the config folder; raise ``ConfigError`` with one line."""
    cdir = Path(config_dir)
    if not cdir.is_dir():
        raise ConfigError(f"{cdir}: config folder not found (SV_CONFIG_DIR)")
    sv_path, ul_path = cdir / SOURCE_VERIFY_FILE, cdir / LIVENESS_FILE
    sv = _read_json(sv_path)
    validate(sv, SOURCE_VERIFY_SPEC, str(sv_path))
    ul = _read_json(ul_path)
    validate(ul, LIVENESS_SPEC, str(ul_path))

    allowlist_path = find_allowlist(cdir)
    allowlist: frozenset[str] = frozenset()
    if allowlist_path is not None:
        try:
            allowlist = parse_allowlist(allowlist_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{allowlist_path}: cannot read: {exc}") from None

    ex = sv["extraction"]
    hosts = HostRules(
        allowlist=allowlist,
        gov_namespaces=tuple(ex.get("gov_namespaces", _default("extraction.gov_namespaces"))),
        gov_hosts=tuple(ex.get("gov_hosts", _default("extraction.gov_hosts"))),
    )
    f, p = sv["fetch"], sv["pdf"]
    return Config(
        config_dir=cdir,
        extraction=Extraction(
            primary_only=ex["primary_only"],
            min_salient_values=ex["min_salient_values"],
            claim_window_chars=ex["claim_window_chars"],
            salient_value_types=tuple(ex["salient_value_types"]),
            scope_dirs=tuple(ex["scope_dirs"]),
            skip_files=frozenset(ex["skip_files"]),
            skip_headings=tuple(h.lower() for h in ex["skip_headings"]),
            code_urls=bool(ex.get("code_urls", Extraction.code_urls)),
        ),
        fetch=Fetch(
            max_body_bytes=f["max_body_bytes"],
            excerpt_window_chars=f["excerpt_window_chars"],
            max_excerpts_per_claim=f["max_excerpts_per_claim"],
            min_text_chars=f["min_text_chars"],
            js_spa_hosts=tuple(h.lower() for h in f["js_spa_hosts"]),
            binary_content_prefixes=tuple(f["binary_content_prefixes"]),
        ),
        pdf=_pdf(p, sv_path),
        root_url_allowlist=tuple(sv["linter"]["root_url_allowlist"]),
        sampling=Sampling(
            default_sample=sv["sampling"]["default_sample"],
            weights={k: float(v) for k, v in sv["sampling"]["priority_weights"].items() if not k.startswith("_")},
        ),
        liveness=_liveness(ul),
        hosts=hosts,
        allowlist_path=allowlist_path,
        llm=llm_settings(sv.get("llm", {})),
        report=_report(sv.get("report", {}), sv_path),
        linked=Linked(bool(sv.get("linked", {}).get("enabled", Linked.enabled)),
                      int(sv.get("linked", {}).get("max_per_page", Linked.max_per_page))),
        archive=_archive(sv.get("archive", {})),
        discover=_discover(sv.get("discover", {}), sv_path),
    )
