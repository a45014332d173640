"""Load a sample site from a folder: ``<host>/<path>`` files plus ``_routes.json``.

``_routes.json`` maps a URL to a :class:`Route`'s fields (status, headers, delay, redirect,
content_type, …) and may add ``"file"`` (a path under the site folder) or ``"pdf_lines"``
(text lines rendered into a PDF at load time). A path ending in ``/`` is served from its
``index.html``. ``_wayback.json``, when present, puts a small Wayback Machine beside the site
(:class:`MockWayback`): a URL's captures, each a timestamp and a ``"file"``. Folders whose name
starts with ``_`` hold such files, not a host.
"""

from __future__ import annotations

import json
import mimetypes
from pathlib import Path
from typing import Any

from testing.mockweb.pdfgen import text_pdf
from testing.mockweb.server import MockWeb, Route
from testing.mockweb.wayback import MockCapture, MockWayback

_TYPES = {".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".pdf": "application/pdf"}


def _content_type(path: Path) -> str:
    if path.name == "robots.txt":
        return "text/plain; charset=utf-8"
    if not path.suffix:  # pages are saved under their URL path, which rarely has an extension
        return "text/html; charset=utf-8"
    return _TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def load_site(web: MockWeb, folder: Path) -> MockWeb:
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name == "_routes.json":
            continue
        rel = path.relative_to(folder)
        if len(rel.parts) < 2 or rel.parts[0].startswith("_"):
            continue  # README, notes and the Wayback's captures beside the host folders
        host, rest = rel.parts[0], "/".join(rel.parts[1:])
        url_path = "/" + (rest[: -len("index.html")] if rest.endswith("index.html") else rest)
        web.route(f"https://{host}{url_path}", Route(body=path.read_bytes(), content_type=_content_type(path)))
    routes = folder / "_routes.json"
    if routes.is_file():
        spec: dict[str, dict[str, Any]] = json.loads(routes.read_text(encoding="utf-8"))
        for url, fields in spec.items():
            if url.startswith("_"):
                continue
            fields = dict(fields)
            if "file" in fields:
                fields["body"] = (folder / fields.pop("file")).read_bytes()
            if "pdf_lines" in fields:
                fields["body"] = text_pdf([fields.pop("pdf_lines")])
                fields.setdefault("content_type", "application/pdf")
            web.route(url, Route(**fields))
    wayback = folder / "_wayback.json"
    if wayback.is_file():
        archived: dict[str, Any] = json.loads(wayback.read_text(encoding="utf-8"))
        mock = MockWayback(web)
        for url, captures in archived.items():
            if not url.startswith("_"):
                mock.add(url, *(MockCapture(c["timestamp"], (folder / c["file"]).read_bytes()) for c in captures))
    return web
