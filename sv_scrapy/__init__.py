"""sv_scrapy — re-read the pages a playbook cites and report whether they still say its figures.

Decision support for a human reviewer: it never edits a playbook and never re-stamps
``Last verified``.
"""

__version__ = "0.1.0"
