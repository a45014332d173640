"""One crawl's state, held by the crawler: the ``Run`` (config and clock, store, run id, claims
by URL (held as JSON: ``run.heldclaims``), output paths, the output folder's lock, progress
counters).

The spider's ``from_crawler`` creates it once from the arguments (``ClaimSpider.open_run``)
and ``attach``-es it to the crawler; every component finds it with ``run_of(crawler)``, typed,
instead of reading attributes off the spider. ``_RUNS`` is the package's one module-level
registry (``tests/test_no_module_state.py``): what lives as long as a crawl lives here, so two
crawls in one process share nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.run.heldclaims import HeldClaims
from sv_scrapy.run.runtime import Runtime, config_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from sv_scrapy.core.audit.reviewfile import Review
    from sv_scrapy.core.audit.runlock import RunLock
    from sv_scrapy.core.audit.store import ContentStore
    from sv_scrapy.core.audit.storeformat import Migration
    from sv_scrapy.run.changedsince import ChangeCheck
    from sv_scrapy.run.config import Config


@dataclass
class Run:
    job: str  # the spider's SV_JOB: worklist | audit
    runtime: Runtime  # config, corpus root, output folder
    params: dict[str, Any]  # the spider arguments, parsed
    claims: HeldClaims  # the selected claims (their record's first fields), in corpus order and by URL
    store: ContentStore
    out_dir: Path  # where the job's documents go (worklist.json; audit/ or the CI folder)
    run_id: str = ""  # the audit's journal run
    resumed: bool = False
    store_format: Migration | None = None  # what opening the store found (a migration, if any)
    document_stats: dict[str, Any] | None = None  # the audit document's counts, once it is written
    linter_rows: list[dict[str, object]] = field(default_factory=list)  # the portal-root backlog (audit)
    allowlist_rows: list[dict[str, object]] = field(default_factory=list)  # allowlist proposals (audit)
    reviews: list[Review] = field(default_factory=list)  # the maintainer's reviews (audit; core.audit.reviewfile)
    change_check: ChangeCheck | None = None  # the pull-request check's change set (worklist -a changed_since)
    change_failures: int = 0  # its failing findings, once written: exit 3 (sv_scrapy.core.errors.FindingsInChange)
    corpus_index: list[tuple[str, str]] = field(default_factory=list)  # a part's whole corpus: (claim id, host)
    pages_done: Counter[str] = field(default_factory=Counter)  # fetch_status (or "journal") -> pages
    lock: RunLock | None = None  # the output folder's, taken by preflight; let go by ``finish``
    @property
    def output_dir(self) -> Path:
        return self.runtime.output_dir

    def claims_of(self, url: str) -> list[ClaimRecord]:
        """The claims citing ``url`` (one request each URL), new dicts at each call."""
        return self.claims.of(url)


_RUNS: WeakKeyDictionary[Crawler, Run] = WeakKeyDictionary()


def attach(crawler: Crawler, run: Run) -> Run:
    """Hand the run to the crawler (once per crawl)."""
    if crawler in _RUNS:
        raise RuntimeError("a crawler runs one crawl: its Run is already attached")
    _RUNS[crawler] = run
    return run


def find_run(crawler: Crawler) -> Run | None:
    return _RUNS.get(crawler)


def crawl_config(crawler: Crawler) -> Config:
    """The crawl's config: the run's, loaded once when it started; a crawl with no run (``scrapy
    fetch``, ``scrapy shell``) loads ``SV_CONFIG_DIR`` when a component asks."""
    run = _RUNS.get(crawler)
    if run is not None:
        return run.runtime.config
    return config_of(crawler.settings)


def finish(crawler: Crawler) -> None:
    """The crawl has written everything it will: the output folder goes to the next run (in this
    process or another). Once more, or with no run, is a no-op."""
    run = _RUNS.get(crawler)
    if run is not None and run.lock is not None:
        run.lock.release()


def run_of(crawler: Crawler) -> Run:
    """The crawl's run; components of the claim jobs are only enabled for a ``ClaimSpider``."""
    run = _RUNS.get(crawler)
    if run is None:
        raise RuntimeError("no sv_scrapy run on this crawler (not a ClaimSpider crawl)")
    return run
