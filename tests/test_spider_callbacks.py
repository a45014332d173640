"""The check that the project's settings turn off (``WARN_ON_GENERATOR_RETURN_VALUE``: Scrapy re-read
the callback's source for every response), made once here for every callback the spiders name."""

from __future__ import annotations

import pytest
from scrapy.utils.misc import is_generator_with_return_value
from scrapy.utils.project import get_project_settings

from sv_scrapy.spiders.base import ClaimSpider


@pytest.mark.parametrize("name", ["parse_page", "on_error"])
def test_no_callback_is_a_generator_that_returns_a_value(name: str) -> None:
    assert not is_generator_with_return_value(getattr(ClaimSpider, name))


def test_the_project_turns_scrapys_per_response_check_off() -> None:
    assert get_project_settings().getbool("WARN_ON_GENERATOR_RETURN_VALUE") is False
