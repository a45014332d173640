"""A held-out-style web for a page's journey through the crawl (tests/test_page_journey.py,
bench/journey.py): plain pages, thin pages whose figure is in a frame, pages whose figure is in
a linked PDF (a text one or a scan), pages without the figure and dead pages with archived
captures in a mock Wayback, and one host that never answers in time.

Every frame and linked document sends an ETag (a warm run can ask it conditionally); the pages
themselves send none, as many government sites, so a warm run fetches them whole again and must
not pay again for what they link to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from testing.crawl import write_corpus
from testing.mockweb import MockWeb, Route
from testing.mockweb.pdfgen import scan_pdf, text_pdf
from testing.mockweb.wayback import MockCapture, MockWayback

STAMP = "2026-05-20"
FILLER = "<p>" + "How the duty is assessed, who pays it and when it falls due. " * 6 + "</p>"
# one of each, per host, in this order
KINDS = ("plain", "frame", "linked", "scan", "changed", "dead")


def page(body: str, title: str = "Barème") -> str:
    return f"<html lang='fr'><head><title>{title}</title></head><body><h1>{title}</h1>{body}{FILLER}</body></html>"


@dataclass
class JourneyWeb:
    corpus: Path
    pages: list[str] = field(default_factory=list)  # the cited URLs
    extras: list[str] = field(default_factory=list)  # frames and linked documents (each answers 304 to its ETag)
    flagged: list[str] = field(default_factory=list)  # cited URLs whose claim the archive is asked about
    hanging: str = ""  # the cited URL of the host that never answers in time
    scans: list[str] = field(default_factory=list)  # the linked scans


def build(web: MockWeb, root: Path, *, hosts: int = 3, hang_seconds: float = 30.0, ocr: bool = True) -> JourneyWeb:
    """Route the web (and its Wayback) and write the corpus under ``root``."""
    wayback = MockWayback(web)
    built = JourneyWeb(root / "corpus")
    lines = []
    for h in range(hosts):
        site = f"https://h{h}.journey.gouv.fr"
        for n, kind in enumerate(KINDS):
            if kind == "scan" and not ocr:
                continue
            figure = f"{h + 1}.{n + 1}5 %"
            said = figure.replace(".", ",")
            url = f"{site}/{kind}"
            built.pages.append(url)
            lines.append(f"- Duty {kind} {h} {figure} ([a]({url}))")
            if kind == "plain":
                web.route(url, Route(body=page(f"<p>Le taux applicable est de {said}.</p>"), etag=False))
            elif kind == "frame":
                web.route(url, Route(body="<html><head><title>Portail</title></head><body><h1>Taux</h1>"
                                          "<iframe src='/frames/taux.html'></iframe></body></html>", etag=False))
                web.route(f"{site}/frames/taux.html", Route(body=page(f"<p>Le taux applicable est de {said}.</p>")))
                built.extras.append(f"{site}/frames/taux.html")
            elif kind in ("linked", "scan"):
                doc = f"{site}/docs/bareme-duty-{kind}-2026.pdf"
                web.route(url, Route(body=page(f"<p>Le barème est publié chaque année.</p><a href='{doc}'>"
                                               f"Barème duty {kind} 2026</a>"), etag=False))
                lines_of_doc = [f"Article 1. Le taux duty {kind} est fixé à {said}."]
                body = (scan_pdf([["Décret relatif aux droits de mutation", *lines_of_doc]]) if kind == "scan"
                        else text_pdf([lines_of_doc]))
                web.route(doc, Route(body=body, content_type="application/pdf"))
                built.extras.append(doc)
                built.flagged.append(url)  # absent from the page itself: flagged, then found one hop away
                if kind == "scan":
                    built.scans.append(doc)
                wayback.add(url, MockCapture("20260510000000", page(f"<p>Le taux applicable est de {said}.</p>")))
            elif kind == "changed":
                web.route(url, Route(body=page("<p>Le taux est fixé par décret.</p>"), etag=False))
                wayback.add(url, MockCapture("20260510000000", page(f"<p>Le taux applicable est de {said}.</p>")))
                built.flagged.append(url)
            else:  # dead
                web.route(url, Route(status=404, body=page("<p>Introuvable</p>", "Introuvable"), etag=False))
                wayback.add(url, MockCapture("20260401000000", page(f"<p>Le taux applicable est de {said}.</p>")))
                built.flagged.append(url)
    built.hanging = "https://slow.journey.gouv.fr/taux"
    web.route(built.hanging, Route(body=page("<p>Le taux applicable est de 9,95 %.</p>"), delay=hang_seconds))
    lines.append(f"- Duty hanging 9.95 % ([a]({built.hanging}))")
    built.pages.append(built.hanging)
    built.flagged.append(built.hanging)  # unavailable now: looked up too (no capture)
    text = "\n".join(lines)
    write_corpus(built.corpus, {"countries/fr/playbook.md": f"# France\n\n**Last verified**: {STAMP}\n\n## Tax\n\n{text}\n"})
    return built
