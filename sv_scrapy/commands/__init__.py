"""sv_scrapy's own ``scrapy`` commands (``COMMANDS_MODULE``)."""
