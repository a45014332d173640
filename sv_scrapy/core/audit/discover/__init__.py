"""Where the figure went: for a claim whose cited page does not state its figure, the page on the same
official site that does — found through the cited page's links, the site's sitemaps and its own search,
judged like any page (the figure in the claim's context), proposed, never edited in.

* ``settings``: the ``discover`` config section as one typed value;
* ``rank``: which claims want a search, the words a candidate is ranked by, the candidates in order;
* ``accept``: whether a candidate page states the claim's figure in the claim's context (the proposal);
* ``memory``: what the store keeps between runs (sitemaps and search answers with their validators,
  proposals, failed searches on the archive's schedule).

Pure: reading a sitemap's bytes is Scrapy's parser's job (``sv_scrapy/pipelines/sitemaps.py``) and fetching the
pipeline's (``pipelines/discover.py``), through the one page journey.
"""
