"""Property-based fuzzing of every reader of outside bytes (Hypothesis): the Markdown extractor,
the page reader (HTML, XHTML, text, charsets, PDF), robots.txt and the CDX reader.

One module per reader; each asserts only what the reader documents (a reading, or its documented
error) and a time bound per input. ``make test`` runs the short profile, ``make fuzz`` the long one
(``profiles.py``). The sitemap reader has its place in ``test_sitemap.py``.
"""
