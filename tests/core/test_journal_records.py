"""The audit's documents read each page's journalled records back from the store: a URL's entry
once while its claims come, even when another URL's claims come between, and only a few pages'
records held at a time."""

from __future__ import annotations

from pathlib import Path

from sv_scrapy.core.audit.journal import RECENT_URLS, JournalRecords
from sv_scrapy.core.audit.store import ContentStore, Entry
from sv_scrapy.core.claims.record import ClaimRecord


class CountingStore(ContentStore):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.loads: list[str] = []

    def load(self, url: str) -> Entry | None:
        self.loads.append(url)
        return super().load(url)


def journalled(tmp_path: Path, urls: list[str]) -> tuple[CountingStore, list[ClaimRecord]]:
    """A store whose entries this run ("run-1") wrote, one claim a URL, and the claims in order."""
    store = CountingStore(tmp_path / "store")
    claims: list[ClaimRecord] = [{"id": f"xx:{n}:c", "source_url": url} for n, url in enumerate(urls)]
    for url in dict.fromkeys(urls):
        results: list[ClaimRecord] = [{**c, "prior": "TOKENS_PRESENT"} for c in claims if c["source_url"] == url]
        store.save(Entry(url=url, run_id="run-1", results=results))
    store.loads.clear()
    return store, claims


def test_a_url_cited_again_further_on_is_read_once(tmp_path: Path) -> None:
    a, b = "https://a.gouv.fr/x", "https://b.gouv.fr/y"
    store, claims = journalled(tmp_path, [a, b, a])
    records = JournalRecords(store, "run-1", claims)
    assert [records[str(c["id"])]["source_url"] for c in claims] == [a, b, a]
    assert store.loads == [a, b]


def test_only_the_recent_urls_records_are_kept(tmp_path: Path) -> None:
    urls = [f"https://h{n}.gouv.fr/" for n in range(RECENT_URLS + 1)]
    store, claims = journalled(tmp_path, [*urls, urls[0]])
    records = JournalRecords(store, "run-1", claims)
    for claim in claims:
        assert records[str(claim["id"])]["prior"] == "TOKENS_PRESENT"
    assert store.loads == [*urls, urls[0]]  # the first URL's records were let go, and read again
