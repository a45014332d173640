"""Where the figure went (issue #38), the pure part: which claims want a search, how candidates are
ranked (the claim's words, the site's own words from the then-capture, newest first), which candidate is
accepted (the figure in the claim's context; a decoy never), and what the store keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.discover.accept import Page, judge
from sv_scrapy.core.audit.discover.memory import DiscoverMemory, Kept, KeptProposal, searched_line
from sv_scrapy.core.audit.discover.rank import (
    LINK,
    SEARCH,
    SITEMAP,
    Candidate,
    is_root,
    ranked,
    site_words,
    wants_discovery,
)
from sv_scrapy.core.audit.discover.settings import DiscoverSettings
from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.page.prefilter import PrefilterSettings
from sv_scrapy.core.page.text import html_lang, html_reading, html_title

SETTINGS = PrefilterSettings(min_text_chars=0)
CITED = "https://www.tax.example.gov/rates"


def claim(text: str, url: str = CITED, cid: str = "xx:1:abc") -> Any:
    values = [v.as_dict() for v in extract_values(text)]
    return {"id": cid, "claim_text": f"{text} ([source]({url}))", "values": values, "source_url": url}


def html_page(url: str, body: str, lang: str = "en", title: str = "Official page") -> Page:
    html = f'<!doctype html><html lang="{lang}"><head><title>{title}</title></head><body>{body}</body></html>'
    read = html_reading(html)
    return Page(url, read.text, html_lang(html), html_title(html), read.shapes)


# -- which claims want a search --------------------------------------------------------------------
@pytest.mark.parametrize(("record", "wanted"), [
    ({"fetch_status": "OK", "prior": "TOKENS_ABSENT", "source_url": CITED}, True),
    ({"fetch_status": "OK", "prior": "TOKENS_PRESENT", "source_url": CITED}, False),  # states its figure: 0 requests
    ({"fetch_status": "OK", "prior": "WEAK_MATCH", "source_url": "https://www.tax.example.gov/"}, True),  # a root
    ({"fetch_status": "OK", "prior": "WEAK_MATCH", "source_url": CITED, "final_url": "https://www.tax.example.gov/"},
     True),  # redirected to the root
    ({"fetch_status": "OK", "prior": "WEAK_MATCH", "source_url": CITED}, False),
    ({"fetch_status": "DEAD", "prior": "SOURCE_UNAVAILABLE", "source_url": CITED}, True),
    ({"fetch_status": "UNAVAILABLE", "http_status": 404, "prior": "SOURCE_UNAVAILABLE"}, True),  # first failure
    ({"fetch_status": "UNAVAILABLE", "http_status": 403, "prior": "SOURCE_UNAVAILABLE"}, False),  # a block
    ({"fetch_status": "ROBOTS", "prior": "SOURCE_UNAVAILABLE"}, False),
    ({"fetch_status": "EXCLUDED", "prior": "SOURCE_UNAVAILABLE"}, False),
])
def test_which_claims_want_a_search(record: dict[str, Any], wanted: bool) -> None:
    assert wants_discovery(record) is wanted


def test_a_root_is_the_path_slash() -> None:
    assert is_root("https://x.gov/") and is_root("https://x.gov") and not is_root("https://x.gov/?p=1")


# -- ranking -----------------------------------------------------------------------------------------
def test_ranked_by_the_claims_words_and_same_site_only() -> None:
    c = claim("Stamp duty surcharge for non-residents: 2 %")
    found = [Candidate("https://www.tax.example.gov/contact", SITEMAP),
             Candidate("https://www.tax.example.gov/stamp-duty/surcharge-non-residents", SITEMAP),
             Candidate("https://www.other.example.com/stamp-duty-surcharge", SITEMAP),  # another site
             Candidate("https://news.tax.example.gov/stamp-duty-surcharge", SITEMAP),  # same registrable domain
             Candidate("https://www.tax.example.gov/stamps", SITEMAP)]  # one word: under MIN_SHARED
    urls = [x.url for x in ranked(found, c, (), "www.tax.example.gov", 5)]
    assert urls == ["https://www.tax.example.gov/stamp-duty/surcharge-non-residents",
                    "https://news.tax.example.gov/stamp-duty-surcharge"]


def test_a_search_answer_needs_one_shared_word_a_link_two() -> None:
    c = claim("Stamp duty surcharge: 2 %")
    found = [Candidate("https://www.tax.example.gov/a", LINK, "Surcharge"),  # a navigation link: one word
             Candidate("https://www.tax.example.gov/b", SEARCH, "Contact us"),
             Candidate("https://www.tax.example.gov/c", SEARCH, "Surcharge"),
             Candidate("https://www.tax.example.gov/d", LINK, "Stamp duty surcharge rates")]
    assert [x.url[-1] for x in ranked(found, c, (), "www.tax.example.gov", 5)] == ["d", "c"]


def test_the_current_guidance_before_an_old_release_sharing_more_words() -> None:
    c = claim("Stamp duty surcharge for non-residents: 2 %")
    found = [Candidate("https://www.tax.example.gov/news/stamp-duty-surcharge-non-residents-announced", SITEMAP, "",
                       "2019-02-01"),
             Candidate("https://www.tax.example.gov/guidance/stamp-duty-surcharge", SITEMAP, "", "2026-10-01"),
             Candidate("https://www.tax.example.gov/forms/stamp-duty", SITEMAP, "", "2026-11-01")]
    assert [x.url.split("/")[3] for x in ranked(found, c, (), "www.tax.example.gov", 5)] == ["guidance", "news", "forms"]


def test_newest_first_among_equals() -> None:
    c = claim("Stamp duty surcharge: 2 %")
    found = [Candidate("https://www.tax.example.gov/news/2019/stamp-duty-surcharge", SITEMAP, "", "2019-03-01"),
             Candidate("https://www.tax.example.gov/guidance/stamp-duty-surcharge", SITEMAP, "", "2026-10-02T08:00:00Z"),
             Candidate("https://www.tax.example.gov/old/stamp-duty-surcharge", SITEMAP)]
    assert [x.url.split("/")[3] for x in ranked(found, c, (), "www.tax.example.gov", 5)] == ["guidance", "news", "old"]


def test_another_language_ranked_by_the_sites_own_words_from_the_then_capture() -> None:
    c = claim("Property wealth tax: applies above €1,300,000 of net property assets")
    then = {"excerpts": ["sont redevables les personnes dont le patrimoine immobilier net taxable dépasse 1 300 000 €"]}
    own = site_words(then, "IFI")
    found = [Candidate("https://www.impots.example.fr/particulier/taxe-fonciere", SITEMAP),
             Candidate("https://www.impots.example.fr/particulier/patrimoine-immobilier-taxable", SITEMAP)]
    assert ranked(found, c, (), "www.impots.example.fr", 5) == []  # the claim's English words meet neither
    assert [x.url for x in ranked(found, c, own, "www.impots.example.fr", 5)] == [found[1].url]


def test_at_most_limit_and_never_the_cited_page() -> None:
    c = claim("Stamp duty surcharge: 2 %")
    found = [Candidate(f"https://www.tax.example.gov/stamp-duty-surcharge-{n}", SITEMAP) for n in range(9)]
    found.append(Candidate("https://www.tax.example.gov/stamp-duty-surcharge", SITEMAP))
    out = ranked(found, c, (), "www.tax.example.gov", 3, skip=["https://www.tax.example.gov/stamp-duty-surcharge"])
    assert len(out) == 3 and all(x.url[-1].isdigit() for x in out)


# -- acceptance ----------------------------------------------------------------------------------------
def test_accepted_where_the_figure_stands_in_the_claims_context() -> None:
    c = claim("Stamp duty surcharge for non-residents: 2 %")
    page = html_page("https://www.tax.example.gov/guidance/surcharge",
                     "<h2>Stamp duty surcharge for non-residents</h2><p>The surcharge is 2 % of the price.</p>")
    proposal = judge(c, page, SETTINGS, SITEMAP, "2026-10-02")
    assert proposal is not None
    got = proposal.as_dict()
    assert got["url"] == page.url and got["found_via"] == "sitemap" and got["lastmod"] == "2026-10-02"
    assert got["context_match"] is True and "2 %" in got["excerpt"]
    assert got["link"].startswith(page.url + "#:~:text=")


def test_a_decoy_is_never_proposed() -> None:
    """The figure stands for another instrument while the page states the claim's subject elsewhere."""
    c = claim("Foreign-buyer surcharge: 3.5 %")
    decoy = html_page("https://www.tax.example.gov/agents",
                      "<p>VAT on an agent's services is 3.5 %.</p><p>The foreign-buyer surcharge is 4 %.</p>")
    assert judge(c, decoy, SETTINGS, SITEMAP) is None


def test_a_page_without_every_figure_is_refused() -> None:
    c = claim("Stamp duty surcharge: 2 % above €500,000")
    page = html_page("https://www.tax.example.gov/g", "<p>The stamp duty surcharge is 2 % of the price.</p>")
    assert judge(c, page, SETTINGS, LINK) is None


def test_another_language_accepted_only_in_the_sites_own_words() -> None:
    c = claim("Property wealth tax: applies above €1,300,000 of net property assets")
    own = site_words({"excerpts": ["le patrimoine immobilier net taxable dépasse 1 300 000 €"]}, "Impôt sur la fortune")
    good = html_page("https://www.impots.example.fr/ifi-seuil",
                     "<h1>Impôt sur la fortune immobilière</h1><p>Sont redevables les personnes dont le patrimoine "
                     "immobilier dépasse 1 300 000 € au 1er janvier.</p>", "fr", "IFI : le seuil")
    other = html_page("https://www.impots.example.fr/donations",
                      "<h1>Droits de donation</h1><p>Un abattement de 1 300 000 € s'applique aux donations "
                      "consenties aux enfants handicapés.</p>", "fr", "Donations")
    proposal = judge(c, good, SETTINGS, SITEMAP, "", own)
    assert proposal is not None and proposal.context_match is None and "1 300 000" in proposal.excerpt
    assert judge(c, other, SETTINGS, SITEMAP, "", own) is None  # the figure, for another instrument
    assert judge(c, good, SETTINGS, SITEMAP, "", ()) is None  # no words of the site's to judge by: abstain


# -- memory and the plain sentence -----------------------------------------------------------------------
def test_the_store_keeps_answers_proposals_and_failures(tmp_path: Path) -> None:
    memory = DiscoverMemory(tmp_path)
    kept = Kept("https://x.gov/sitemap.xml", '"v1"', "", [("https://x.gov/a", "2026-01-01")])
    memory.save_answer("sitemap", kept, "2026-11-01T00:00:00Z")
    back = memory.answer("sitemap", kept.url)
    assert back == kept and back.conditional() == {"If-None-Match": '"v1"'}
    assert memory.answer("search", kept.url) is None

    c = claim("Stamp duty surcharge: 2 %")
    found = KeptProposal({"url": "https://x.gov/a"}, "", '"p1"', "", "texthash")
    memory.save_proposal(c, "hash1", found, "2026-11-01T00:00:00Z")
    assert memory.proposal(c, "hash1", "2026-12-01") == found
    assert found.conditional() == {"If-None-Match": '"p1"'}
    assert memory.proposal(c, "hash2", "2026-12-01") is None  # the cited page changed
    assert memory.proposal(claim("Stamp duty surcharge: 3 %"), "hash1", "2026-12-01") is None  # the claim changed

    none = KeptProposal(None, "searched the sitemap (3 pages): not found")
    memory.save_proposal(c, "hash1", none, "2026-11-01T00:00:00Z")
    assert memory.proposal(c, "hash1", "2026-11-15") == none
    assert memory.proposal(c, "hash1", "2026-12-01") is None  # due again on the archive's schedule

    memory.save_failure("https://x.gov/search?q=a", "HTTP 503", "2026-11-01T00:00:00Z")
    assert memory.failure("https://x.gov/search?q=a", "2026-11-10") is not None
    assert memory.failure("https://x.gov/search?q=a", "2026-11-29") is None


def test_nothing_found_said_plainly() -> None:
    assert searched_line([("sitemap", 1), ("search", 0)]) == \
        "searched the sitemap (1 pages) and the site's search (0 results): not found"


def test_a_search_template_by_host_or_parent() -> None:
    s = DiscoverSettings(search={"tax.example.gov": "https://www.tax.example.gov/search?q={q}"})
    assert s.search_template("www.tax.example.gov").endswith("{q}") and s.search_template("other.gov") == ""
