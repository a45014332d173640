"""Which components each spider really runs, read from its own start-up log.

A spider's ``custom_settings`` that sets a dict setting replaces the project's whole dict;
that silently swapped the audit's politeness pieces once. Any difference from these lists
must be intended: change the list here in the same commit.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from scrapy.settings import Settings, default_settings
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from sv_scrapy import settings as project
from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb

COMMON_EXTENSIONS = [
    "scrapy.extensions.corestats.CoreStats",
    "scrapy.extensions.logcount.LogCount",
    "scrapy.extensions.memusage.MemoryUsage",
    "scrapy.extensions.logstats.LogStats",
    "sv_scrapy.extensions.bodycap.BodyCapExtension",
    "sv_scrapy.extensions.progress.ProgressExtension",
    "sv_scrapy.extensions.gcpace.GcPaceExtension",
    "sv_scrapy.extensions.outcome.RunOutcomeExtension",
    "sv_scrapy.extensions.journey.Journey",
    "sv_scrapy.extensions.monitor.MonitorExtension",
]
MIDDLEWARES = [
    "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware",
    "sv_scrapy.downloadermiddlewares.robotstxt.SvRobotsTxtMiddleware",
    "scrapy.downloadermiddlewares.httpauth.HttpAuthMiddleware",
    "scrapy.downloadermiddlewares.downloadtimeout.DownloadTimeoutMiddleware",
    "scrapy.downloadermiddlewares.defaultheaders.DefaultHeadersMiddleware",
    "scrapy.downloadermiddlewares.useragent.UserAgentMiddleware",
    "sv_scrapy.downloadermiddlewares.retry.BackoffRetryMiddleware",
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware",
    "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware",
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware",
    "scrapy.downloadermiddlewares.httpproxy.HttpProxyMiddleware",
    "scrapy.downloadermiddlewares.stats.DownloaderStats",
    "sv_scrapy.downloadermiddlewares.guard.TargetGuardMiddleware",
]
READ = ["sv_scrapy.pipelines.read.ReadPipeline", "sv_scrapy.pipelines.outlinks.FramesPipeline",
        "sv_scrapy.pipelines.hashes.HashPipeline"]
LINKED = "sv_scrapy.pipelines.outlinks.LinkedPipeline"
DISCOVER = "sv_scrapy.pipelines.discover.DiscoverPipeline"  # where the figure went (worklist and audit alike)
PIPELINES = {
    # the pull-request check's conditional requests over the monthly store: the read stage restores a 304 too
    "worklist": [*READ, "sv_scrapy.pipelines.records.RecordsPipeline", LINKED, DISCOVER,
                 "sv_scrapy.pipelines.store.StoreTextPipeline",
                 "sv_scrapy.pipelines.export.WorklistExportPipeline"],
    # a 304 is restored from the past its request carried by the read stage; then and now after one hop
    "audit": [*READ, "sv_scrapy.pipelines.records.RecordsPipeline", LINKED,
              "sv_scrapy.pipelines.archive.ArchivePipeline", DISCOVER, "sv_scrapy.pipelines.store.StoreUpdatePipeline",
              "sv_scrapy.pipelines.auditexport.AuditExportPipeline"],
}


def enabled(log: str, kind: str) -> list[str]:
    found = re.search(rf"Enabled {kind}:\n(\[.*?\])", log, re.DOTALL)
    assert found, f"no 'Enabled {kind}' in the log"
    return list(ast.literal_eval(found.group(1)))


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp: Path = tmp_path_factory.mktemp("components")
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# C\n- fee €100 ([a](https://c.comp.gouv.fr/p))\n"})
    config = make_config(tmp / "config", liveness=FAST_LIVENESS)
    out = {}
    with MockWeb() as web:
        web.route("https://c.comp.gouv.fr/p", body="<html><body><p>Fee €100 and some words.</p></body></html>")
        for spider in ("worklist", "audit"):
            result = crawl_in_process(spider, corpus=corpus, config=config, output=tmp / spider, proxy_env=web.env(),
                                      args={"sample": "10"} if spider == "worklist" else {})
            assert result.returncode == 0, result.stderr[-2000:]
            out[spider] = "\n".join(result.log)  # its INFO log: what Scrapy says it enabled
    return out


@pytest.mark.parametrize("spider", ["worklist", "audit"])
def test_each_spider_runs_every_project_component(logs: dict[str, str], spider: str) -> None:
    assert enabled(logs[spider], "extensions") == COMMON_EXTENSIONS
    assert enabled(logs[spider], "downloader middlewares") == MIDDLEWARES
    assert enabled(logs[spider], "item pipelines") == PIPELINES[spider]


@pytest.mark.parametrize("spider", ["worklist", "audit"])
def test_every_request_leaves_through_the_paced_handler(logs: dict[str, str], spider: str) -> None:
    starts = re.search(r"'sv/pacing/starts': (\d+)", logs[spider])
    sent = re.search(r"'downloader/request_count': (\d+)", logs[spider])
    assert starts and sent and int(starts.group(1)) == int(sent.group(1)) == 2  # robots.txt + the page


@pytest.mark.parametrize("spider", ["worklist", "audit"])
def test_a_clean_run_logs_no_warning(logs: dict[str, str], spider: str) -> None:
    # every WARNING a maintainer sees should be actionable: a job-gated component switching
    # itself off (or progress lines turned off) is by design, not a warning
    warnings = [line for line in logs[spider].splitlines() if "] WARNING: " in line]
    assert warnings == []


# the modules of the extensions the project switches off, and what they import
_OFF_MODULES = ("scrapy.extensions.remote_control", "scrapy.extensions.telnet", "scrapy.extensions.throttle", "aiohttp")


def test_an_extension_switched_off_is_never_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scrapy imports each key of EXTENSIONS to match it with its base entry, a None one too: the
    remote control's import alone (aiohttp) cost every crawl process 0.17 s of CPU."""
    for name in [m for m in sys.modules if m.startswith(_OFF_MODULES)]:
        monkeypatch.delitem(sys.modules, name)  # put back after the test
    settings = Settings()
    settings.setmodule("sv_scrapy.settings", priority="project")
    # what Scrapy's extension manager loads: the component dict and then each of its classes
    for path in build_component_list(settings.get_component_priority_dict_with_base("EXTENSIONS")):
        load_object(path)
    assert [m for m in sys.modules if m.startswith(_OFF_MODULES)] == []


def test_the_extensions_switched_off_are_scrapy_s_own() -> None:
    """Left out of Scrapy's base by name: a name Scrapy no longer has would switch nothing off."""
    assert set(project._scrapy_extensions_off) <= set(default_settings.EXTENSIONS_BASE)
