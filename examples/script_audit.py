"""The monthly audit started from a script with Scrapy's ``CrawlerProcess`` instead of ``scrapy
crawl audit``: the same checks, quiet console, heartbeat (``SV_HEALTHCHECK_URL``),
``metrics.prom`` and exit status, since they belong to the crawl (``sv_scrapy.extensions.monitor``).

    python examples/script_audit.py   # from the project folder, SV_* set as for scrapy crawl audit
"""

from __future__ import annotations

import sys
from pathlib import Path

from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
from twisted.python.failure import Failure

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the project, as `scrapy` finds it

from sv_scrapy.core.errors import SvError  # noqa: E402
from sv_scrapy.extensions.outcome import exit_status  # noqa: E402
from sv_scrapy.extensions.quietlog import log_to_file  # noqa: E402
from sv_scrapy.run.registry import apply_environment  # noqa: E402


def main() -> int:
    settings = get_project_settings()
    apply_environment(settings)  # the SV_* locations, as scrapy crawl reads them when a run starts
    # quiet from Scrapy's first line (without this, the crawl goes quiet once its settings apply)
    log_to_file(settings, "audit")
    process = CrawlerProcess(settings)
    crawler = process.create_crawler("audit")
    refused: list[SvError] = []

    def refusal(failure: Failure) -> None:
        # a start refused by its checks already said so in one line; keep its exit status
        failure.trap(SvError)
        refused.append(failure.value)

    process.crawl(crawler).addErrback(refusal)
    process.start()
    if refused:
        return refused[0].exit_code
    code, line = exit_status(crawler)
    if line:
        print(f"scrapy crawl audit: error: {line}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
