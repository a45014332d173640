"""The run's claims are held as JSON, not as dicts, for as long as the crawl runs
(``sv_scrapy/run/heldclaims.py``): at 100,000 URLs the dicts alone were 150 MB."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from sv_scrapy.run.heldclaims import HeldClaims

CLAIMS = 20_000
HELD_PER_CLAIM = 700  # bytes: ~500 as JSON; the same claims as dicts held ~1,400


def claim(i: int, url: str | None = None) -> Any:
    """A claim's first fields as ``Claim.as_dict`` gives them (new strings each, as a corpus's)."""
    url = url or f"https://h{i % 2000:04d}.scale.gouv.fr/page/{i}"
    return {"id": f"xx:{i + 2}:{i * 2654435761 % 2**32:08x}", "scope": "xx", "section": "Scale", "line_no": i + 2,
            "claim_text": f"- rate {i % 90 + 1}.25 % ([src]({url}))",
            "values": [{"type": "pct", "raw": f"{i % 90 + 1}.25 %", "norm": f"{i % 90 + 1}.25",
                        "needles": [f"{i % 90 + 1},25", f"{i % 90 + 1}.25", f"{i % 90 + 1}.25 %"], "salient": True}],
            "source_url": url, "source_host": url.split("/")[2], "source_tier": "primary-gov", "inline_stamp": None,
            "file": "countries/xx/playbook.md"}


def test_the_claims_come_back_as_given_in_corpus_order_and_by_url() -> None:
    given = [claim(0, "https://a.example/x"), claim(1, "https://b.example/y"), claim(2, "https://a.example/x")]
    given[1]["inline_stamp"] = {"date": "2025-04-01", "by": "ré"}
    held = HeldClaims(given)
    assert list(held) == given and len(held) == 3
    assert held[-1] == given[2] and held[0:2] == given[:2]
    with pytest.raises(IndexError):
        held[3]
    assert list(held.urls()) == ["https://a.example/x", "https://b.example/y"] and held.url_count() == 2
    assert held.of("https://a.example/x") == [given[0], given[2]]
    assert held.of("https://c.example/") == []
    assert held.citing(lambda url: url.startswith("https://b.")) == [given[1]]
    held.of("https://b.example/y")[0]["values"].clear()  # a caller's copy: the run's claims stay as they were
    assert held[1] == given[1]


def test_a_large_corpus_s_claims_are_held_in_a_few_hundred_bytes_each() -> None:
    claims = (claim(i) for i in range(CLAIMS))
    tracemalloc.start()
    try:
        held = HeldClaims(claims)
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(held) == CLAIMS
    assert size / CLAIMS < HELD_PER_CLAIM, f"{size / CLAIMS:.0f} bytes held per claim"
