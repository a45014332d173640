"""The Scrapy-free middle layer: the run settings, the config, the crawl state, the pull-request check."""
