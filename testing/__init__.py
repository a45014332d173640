"""The test rig: never shipped in the scrapyd egg (``setup.py`` packages ``sv_scrapy`` only).

``testing.mockweb`` is the loopback mock web and the Messages/Batches API stub that the tests,
``make demo`` (``tools/demo.py``) and the benches run against.
"""
