"""Item pipelines, thin glue over ``core``; their order is ``ITEM_PIPELINES`` in ``settings.py``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.exceptions import NotConfigured

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


def require_job(crawler: Crawler, job: str | tuple[str, ...]) -> None:
    """A job-specific pipeline switches itself on by the spider's ``SV_JOB`` (a scalar
    setting; ``ITEM_PIPELINES`` itself is never replaced by a spider); ``job`` names its job or jobs."""
    if crawler.settings.get("SV_JOB") not in ((job,) if isinstance(job, str) else job):
        # off by design, not a warning: Scrapy logs a NotConfigured's message at WARNING,
        # so the reason goes to DEBUG and the exception carries none
        logger.debug("pipeline for SV_JOB=%(job)s off in this job", {"job": job})
        raise NotConfigured


class JobPipeline:
    """A pipeline of one job (``job``, matched against ``SV_JOB``) built from the crawler alone;
    the crawl's state it reads is the crawler's ``Run`` (``sv_scrapy.run.state.run_of``)."""

    job: str | tuple[str, ...] = ""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        require_job(crawler, cls.job)
        return cls(crawler)
