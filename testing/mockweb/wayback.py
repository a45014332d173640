"""A mock Wayback Machine on the mock web (the same loopback proxy as every cited page).

``https://web.archive.org/cdx/search/cdx`` answers like the CDX API: ``output=json`` rows under
a header row (``[]`` when nothing matches), ``fl`` fields, ``filter=statuscode:200``, ``from`` /
``to`` (padded to the lower / upper bound, as the real server does), ``collapse=digest``
(adjacent duplicates dropped) and ``limit`` (negative: the last rows). Each capture is served
raw at ``/web/<timestamp>id_/<url>``. A URL's CDX query can be made to fail first (a 429 with
``Retry-After``, malformed JSON, a delay past the client's timeout).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from testing.mockweb.server import MockWeb, Route

HOST = "https://web.archive.org"


@dataclass
class MockCapture:
    timestamp: str  # 14 digits
    body: bytes | str
    content_type: str = "text/html; charset=utf-8"
    serve_status: int = 200  # what the raw capture answers (404: listed in the CDX, gone from storage)

    @property
    def digest(self) -> str:
        data = self.body.encode("utf-8") if isinstance(self.body, str) else self.body
        return hashlib.sha1(data).hexdigest()[:32].upper()


@dataclass
class MockWayback:
    web: MockWeb
    captures: dict[str, list[MockCapture]] = field(default_factory=dict)
    cdx_first: dict[str, list[Route]] = field(default_factory=dict)  # URL -> answers for its first CDX hits
    cdx_always: dict[str, Route] = field(default_factory=dict)  # URL -> its CDX answer, every time

    def __post_init__(self) -> None:
        self.web.route(f"{HOST}/robots.txt", Route(body="User-agent: *\nAllow: /\n", content_type="text/plain"))
        self.web.route(f"{HOST}/cdx/search/cdx", Route(responder=self._cdx))

    def add(self, url: str, *captures: MockCapture) -> None:
        self.captures.setdefault(url, []).extend(captures)
        self.captures[url].sort(key=lambda c: c.timestamp)
        for cap in captures:
            self.web.route(f"{HOST}/web/{cap.timestamp}id_/{url}",
                           Route(status=cap.serve_status, body=cap.body, content_type=cap.content_type, etag=False))

    def cdx_requests(self, url: str = "") -> list[str]:
        """The CDX queries in the log (for ``url`` only, when given)."""
        out = []
        for entry in self.web.requests_for(f"{HOST}/cdx/"):
            query = parse_qs(urlsplit(entry.url).query)
            if not url or query.get("url", [""])[0] == url:
                out.append(entry.url)
        return out

    def _cdx(self, url: str, hit: int) -> Route:
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        original = query.get("url", "")
        if original in self.cdx_always:
            return self.cdx_always[original]
        first = self.cdx_first.get(original, [])
        if hit <= len(first):
            return first[hit - 1]
        rows = list(self.captures.get(original, []))  # every listed capture was archived with a 200
        if "from" in query:
            rows = [c for c in rows if c.timestamp[: len(query["from"])] >= query["from"]]
        if "to" in query:
            rows = [c for c in rows if c.timestamp[: len(query["to"])] <= query["to"]]
        if query.get("collapse") == "digest":
            rows = [c for i, c in enumerate(rows) if i == 0 or rows[i - 1].digest != c.digest]
        limit = int(query.get("limit", "0") or 0)
        if limit < 0:
            rows = rows[limit:]
        elif limit > 0:
            rows = rows[:limit]
        fields = (query.get("fl") or "urlkey,timestamp,original,mimetype,statuscode,digest,length").split(",")
        table = [[self._field(c, original, f) for f in fields] for c in rows]
        body = json.dumps([fields, *table]) if table else "[]"
        return Route(body=body, content_type="application/json", etag=False)

    @staticmethod
    def _field(cap: MockCapture, original: str, name: str) -> str:
        host = urlsplit(original).hostname or ""
        values = {"urlkey": ",".join(reversed(host.split("."))) + ")" + urlsplit(original).path,
                  "timestamp": cap.timestamp, "original": original, "mimetype": cap.content_type.split(";")[0],
                  "statuscode": "200", "digest": cap.digest, "length": str(len(cap.body))}
        return values.get(name, "-")
