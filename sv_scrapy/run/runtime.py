"""Resolve the SV_* settings into a loaded config and corpus location (no Scrapy import).

Commands and spiders both start here, so a bad config folder or corpus root reads the same
one line wherever it is found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sv_scrapy.core.claims.claims import ExtractOptions
from sv_scrapy.core.clock import Clock, clock_from
from sv_scrapy.core.errors import ArgumentError, CorpusError
from sv_scrapy.core.page.pagerecord import PageRules
from sv_scrapy.core.page.prefilter import PrefilterSettings
from sv_scrapy.run.config import Config, Reader, load_config
from sv_scrapy.run.registry import NUMERIC_SETTINGS, SETTING, entry, env

PROJECT_DIR = Path(__file__).resolve().parents[2]


def new_clock() -> Clock:
    """A new run's clock, from ``SV_NOW`` (it starts now and runs on from there): a run asks once
    and hands it down (``Runtime.clock``); a malformed ``SV_NOW`` raises ``ArgumentError`` (exit 2)."""
    return clock_from(env("SV_NOW"))


@dataclass(frozen=True)
class Runtime:
    config: Config
    corpus_root: Path
    output_dir: Path
    clock: Clock = field(default_factory=new_clock)  # the one clock of every date the run writes

    def extract_options(
        self, *, include_secondary: bool = False, country: str | None = None, section: str | None = None
    ) -> ExtractOptions:
        ex = self.config.extraction
        return ExtractOptions(
            scope_dirs=ex.scope_dirs,
            skip_files=ex.skip_files,
            skip_headings=ex.skip_headings,
            primary_only=ex.primary_only and not include_secondary,
            min_salient_values=ex.min_salient_values,
            claim_window_chars=ex.claim_window_chars,
            salient_types=ex.salient_value_types,
            country=country,
            section=section,
            code_urls=ex.code_urls,
        )


def ignore_https_errors() -> bool:
    """``SV_IGNORE_HTTPS_ERRORS=1``: the one switch that accepts a self-signed certificate
    (the mock web's) wherever it would be refused or warned about."""
    return env("SV_IGNORE_HTTPS_ERRORS").strip().lower() in ("1", "true", "yes")


def config_of(settings: Mapping[str, Any]) -> Config:
    """The one road to the typed config: ``SV_CONFIG_DIR``'s files, loaded and checked. A run
    loads it once (``resolve``) and hands it down; a crawl's components take the run's
    (``crawlstate.crawl_config``)."""
    return config_in(Path(settings["SV_CONFIG_DIR"]))


def config_in(config_dir: Path, read: Reader | None = None) -> Config:
    """A config folder's files as ``read`` gives them (default: on disk), loaded and checked: the
    pull-request check also reads the folder at REF (its rules, ``baserules.base_config``) and
    the working tree's (to say what the change does to them)."""
    return load_config(config_dir, read)


def page_rules(config: Config) -> PageRules:
    """What ``core.page.pagerecord`` needs of the config to judge a page."""
    fetch, lv = config.fetch, config.liveness
    return PageRules(
        prefilter=PrefilterSettings(excerpt_window_chars=fetch.excerpt_window_chars, max_excerpts=fetch.max_excerpts_per_claim,
                                    min_text_chars=fetch.min_text_chars, js_spa_hosts=fetch.js_spa_hosts),
        blocking_codes=lv.indeterminate_status_codes, challenge_headers=lv.cloudflare_headers,
        challenge_titles=lv.cloudflare_titles, dead_after=lv.fail_streak_for_dead, max_pdf_bytes=config.pdf.max_bytes,
        min_ocr_confidence=config.pdf.ocr_min_confidence)


def resolve(settings: Mapping[str, Any]) -> Runtime:
    """A run's start: load ``SV_CONFIG_DIR``, check ``SV_CORPUS_ROOT`` and ``SV_NOW`` (its clock
    starts here); raise an ``SvError`` subclass."""
    clock = new_clock()
    config = config_of(settings)
    corpus_root = Path(settings["SV_CORPUS_ROOT"])
    if not corpus_root.is_dir():
        raise CorpusError(f"{corpus_root}: corpus root not found (SV_CORPUS_ROOT)")
    return Runtime(config=config, corpus_root=corpus_root, output_dir=Path(settings["SV_OUTPUT_DIR"]), clock=clock)


def check_settings(settings: Mapping[str, Any]) -> None:
    """The numeric ``-s`` settings, checked before a crawl starts: one line, exit 2."""
    for name, minimum in NUMERIC_SETTINGS.items():
        raw = settings.get(name)
        if raw is None or raw == "":
            continue
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise ArgumentError(f"-s {name}={raw!r}: expected a number") from None
        if not value >= minimum or value != value or value == float("inf"):
            raise ArgumentError(f"-s {name}={raw!r}: must be a number >= {minimum:g} ({entry(SETTING, name).doc})")
