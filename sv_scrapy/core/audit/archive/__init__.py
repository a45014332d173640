"""Then and now (issue #22): the archived page as it was on a claim's ``Last verified`` date,
read through the same reading stages and matcher as today's page. Pure: the Scrapy side is
``sv_scrapy.pipelines.archive``."""
