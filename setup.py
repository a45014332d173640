"""Packaging for the scrapyd egg (`scrapyd-deploy` builds it from here)."""

from setuptools import find_packages, setup

setup(
    name="sv_scrapy",
    version="0.1.0",
    packages=find_packages(include=["sv_scrapy", "sv_scrapy.*"]),
    entry_points={"scrapy": ["settings = sv_scrapy.settings"]},
)
