"""The pure core: no Scrapy import anywhere below this package."""
