"""Sphinx configuration: MyST Markdown pages, the furo theme, the reference generated from the code
(``_ext/svref.py``). Nothing is fetched at build time: no intersphinx, no remote images."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS_DIR.parent))  # the package, from this checkout
sys.path.insert(0, str(DOCS_DIR / "_ext"))

import sv_scrapy  # noqa: E402

project = "sv_scrapy"
author = "the sv_scrapy maintainers"
copyright = "2026, the sv_scrapy maintainers"  # noqa: A001
release = getattr(sv_scrapy, "__version__", "")

extensions = ["myst_parser", "sphinx.ext.autodoc", "svref"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "conftest.py"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nitpicky = True
autodoc_typehints = "none"  # the signatures stay readable; the types live in the code
html_theme = "furo"
html_title = "sv_scrapy"
html_static_path = ["_static"]
html_css_files = ["sv.css"]
html_show_sourcelink = False
smartquotes = False  # option names keep their "--"
