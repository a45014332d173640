"""What one `scrapy verify` request carries for a claim (``sv_scrapy.llm.evidence``, ``prompts.claim_block``):
the figure's sentences rather than the crawl's fixed window, the page's words on the claim's subject
rather than its first characters, the claim's facts as one compact line. Pure: no network."""

from __future__ import annotations

import json
from typing import Any, cast

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.llm.evidence import MIN_CONTEXT, evidence, figure_sentences
from sv_scrapy.llm.guardrails import quote_on_page
from sv_scrapy.llm.prompts import Shape, build_params, claim_block

PCT = {"type": "pct", "raw": "5.81 %", "norm": "5.81", "needles": ["5.81"], "salient": True}
NAV = "Accueil Particulier Professionnel Partenaire Collectivité International Rechercher Menu " * 20
OTHER = "Les formulaires sont en ligne sur le portail des impôts. Les délais varient selon le cas. " * 8


def item(**over: Any) -> ClaimRecord:
    base: dict[str, Any] = {
        "id": "fr:9:c3632fba", "scope": "fr", "line_no": 9, "source_host": "www.impots.gouv.fr",
        "source_url": "https://www.impots.gouv.fr/dmto", "source_tier": "primary-gov", "prior": "TOKENS_PRESENT",
        "claim_text": "- **DMTO** (droits de mutation) [impots.gouv.fr](https://www.impots.gouv.fr/dmto): **5.81 %**",
        "values": [PCT, PCT, {**PCT, "raw": "1594", "salient": False}], "excerpts": [], "inline_stamp": {"date": "2026-01-15"},
    }
    return cast(ClaimRecord, {**base, **over})


def test_a_figure_goes_with_its_sentence_not_the_crawls_fixed_window() -> None:
    before = "La taxe foncière est due au 1er janvier par le propriétaire du bien. "
    after = " Les frais d'assiette s'ajoutent au droit. Le barème change chaque année au printemps. Les notai"
    excerpt = "…" + before + "Droits de mutation : le taux de 5,81 % s'applique au droit commun." + after + "…"
    out = figure_sentences(excerpt, [PCT], "www.impots.gouv.fr")
    assert "le taux de 5,81 % s'applique au droit commun." in out  # the page's own writing, whole
    assert "Les notai" not in out and "printemps" not in out  # the window's cut-off words are gone
    assert len(out) >= MIN_CONTEXT and out.startswith("…") and out.endswith("…")


def test_a_short_table_row_keeps_the_sentence_before_it_which_names_the_figure() -> None:
    excerpt = ("…Barème des droits de mutation à titre onéreux applicable aux ventes d'immeubles anciens.\n"
               "Taux : 5,81 %.\nFrais : 2,37 %.\nVoir aussi la fiche sur les donations et les successions du "
               "patrimoine familial ou professionnel…")
    out = figure_sentences(excerpt, [PCT])
    assert "Barème des droits de mutation" in out and "Taux : 5,81 %." in out


def test_an_excerpt_without_the_figure_goes_whole() -> None:
    subject = "…où la page parle des droits de mutation sans le chiffre de la ligne…"
    assert figure_sentences(subject, [PCT]) == subject


def test_an_absent_figure_sends_where_the_page_speaks_of_the_subject_not_its_navigation() -> None:
    page = NAV + "Droits de mutation (DMTO) : le taux est désormais de 6,45 % dans la plupart des départements. " + OTHER
    blocks = evidence(item(prior="TOKENS_ABSENT"), page, 400)
    assert len(blocks) == 1 and "le taux est désormais de 6,45 % dans la plupart des départements" in blocks[0]
    assert blocks[0].startswith("…")  # a window in the page, not its first characters (its navigation)
    assert len(blocks[0]) <= 400 + 2 * 30 + 2  # the window, widened to whole words, and its "…" marks


def test_a_page_that_never_uses_the_claims_words_sends_its_start_within_the_budget() -> None:
    page = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 100
    blocks = evidence(item(prior="TOKENS_ABSENT"), page, 300)
    assert blocks == [page[:300] + "…"]


def test_figure_excerpts_stop_at_the_budget_the_first_always_goes() -> None:
    excerpts = [f"…Le droit {n} : le taux de 5,81 % s'applique au cas numéro {n} de la liste publiée. " * 3 + "…"
                for n in range(6)]
    blocks = evidence(item(excerpts=excerpts), None, 10)
    assert len(blocks) == 1
    blocks = evidence(item(excerpts=excerpts), None, 10_000)
    assert len(blocks) == 6


def test_what_is_sent_is_the_pages_text_so_a_quote_of_it_passes_the_check() -> None:
    page = OTHER + "Droits de mutation : le taux de 5,81 % s'applique au droit commun. " + OTHER
    excerpt = "…" + page[len(OTHER) - 150:len(OTHER) + 220].strip() + "…"
    blocks = evidence(item(excerpts=[excerpt]), page, 1200)
    assert len(blocks) == 1 and len(blocks[0]) < len(excerpt)  # cut to the figure's sentences
    assert blocks[0].startswith("…Les formulaires") and blocks[0].endswith("impôts.…")
    assert quote_on_page(blocks[0].strip("…"), page)


def test_the_claims_facts_are_one_compact_line_of_its_words() -> None:
    line = claim_block(item(source_tier=None))
    facts = json.loads(line)
    assert "\n" not in line and '": ' not in line
    assert facts["claim"] == "DMTO (droits de mutation) impots.gouv.fr: 5.81 %"  # no link target, no emphasis
    assert facts["figures"] == ["5.81 %"] and "source_tier" not in facts  # each once; no empty field
    assert facts["claim_id"] == "fr:9:c3632fba" and facts["last_verified"] == "2026-01-15"
    request = build_params(item(), Shape("claude-haiku-5-5", 1024))
    assert request["messages"][0]["content"][0]["text"] == "Claim:\n" + claim_block(item())
