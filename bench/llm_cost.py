"""What the LLM layer costs per claim, from usage as the API bills it: the requests for every
claim of the real corpus slice, sent with the real anthropic SDK to the local stub (which
keeps the API's rules and reports usage with its cache lines), once in sync mode and once
as Message Batches.

    python bench/llm_cost.py [--corpus ../shared/corpus/property-deep-dive]

No page of the slice is fetched: each claim gets a synthetic page, its own words stated as a
sentence of text (its Markdown rendered down: a page does not carry the playbook's link targets
or emphasis) amid ~6 KB of filler sentences, so the excerpts have the crawl's real window and
count. A second run gives each claim a page where its words stand with other figures (the
TOKENS_ABSENT flag `scrapy verify --from-audit` sends most). Goals (issue #20): ≤ 1,000 input
tokens a claim on average; > 80 % of input tokens read from the cache after the first request;
batch ≤ 0.5× sync.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.claims.claims import extract_corpus  # noqa: E402
from sv_scrapy.core.claims.markdown import plain  # noqa: E402
from sv_scrapy.core.page.prefilter import PrefilterSettings, prior_for_text  # noqa: E402
from sv_scrapy.llm.batch import BatchRunner  # noqa: E402
from sv_scrapy.llm.client import Outcome, make_client, run_sync  # noqa: E402
from sv_scrapy.llm.cost import Usage, billed, cache_hit_share, tokens_of, total  # noqa: E402
from sv_scrapy.llm.evidence import evidence  # noqa: E402
from sv_scrapy.llm.prompts import Shape, build_params, estimate_input_tokens, prefix_chars  # noqa: E402
from sv_scrapy.run.config import load_config  # noqa: E402
from sv_scrapy.run.llmconfig import for_model  # noqa: E402
from sv_scrapy.run.runtime import Runtime  # noqa: E402
from testing.mockweb.anthropic_stub import AnthropicStub  # noqa: E402

SENTENCE = "General guidance on the procedure, the forms to file and the deadlines that apply to each case. "
FILLER = SENTENCE * 30  # ~3 KB of the page's other sentences, either side of the claim's


def other_figures(text: str) -> str:
    """The claim's words with every digit moved on by one: the same subject, other figures."""
    return text.translate(str.maketrans("0123456789", "1234567890"))


def jobs_for(corpus: Path, shape: Shape, absent: bool = False) -> dict[str, dict[str, object]]:
    cfg = load_config(corpus / "config")
    claims = extract_corpus(corpus, cfg.hosts, Runtime(cfg, corpus, Path("/tmp")).extract_options()).claims
    settings = PrefilterSettings(cfg.fetch.excerpt_window_chars, cfg.fetch.max_excerpts_per_claim, 0, ())
    evidence_chars = load_config(PROJECT_DIR / "config").llm.evidence_chars
    jobs = {}
    for claim in claims:
        words = plain(claim.claim_text).rstrip(".") + ". "
        page = FILLER + (other_figures(words) if absent else words) + FILLER
        prior = prior_for_text(claim.values, page, [claim.source_host], settings)
        item = {**claim.as_dict(), "prior": prior.prior, "excerpts": prior.excerpts, "fetch_status": "OK"}
        jobs[claim.id] = build_params(item, shape, evidence(item, page, evidence_chars))
    return jobs


def parts(jobs: Iterable[dict[str, Any]]) -> tuple[float, float]:
    """Mean tokens of a request's claim facts and of its page evidence (2.5 characters a token)."""
    facts, pages = [], []
    for params in jobs:
        blocks = [b["text"] for b in params["messages"][0]["content"] if b["type"] == "text"]
        facts.append(tokens_of(len(blocks[0])))
        pages.append(tokens_of(sum(len(b) for b in blocks[1:])))
    return statistics.mean(facts), statistics.mean(pages)


def line(name: str, outcomes: dict[str, Outcome], prices: dict[str, Any], batch: bool) -> tuple[Usage, float]:
    usage = total(o.usage for o in outcomes.values())
    calls = [u for o in outcomes.values() for u in o.calls]
    dollars = billed(calls, prices, batch) or 0.0
    per_claim = [o.usage.prompt_tokens for o in outcomes.values()]
    later = total(calls[1:])  # after the first request, which writes the cache
    print(f"  {name:5} input tokens a claim (as billed: uncached + cache writes + reads) mean "
          f"{statistics.mean(per_claim):,.0f}, median {statistics.median(per_claim):,.0f}, max {max(per_claim):,}; "
          f"output {usage.output_tokens / len(outcomes):,.0f}; cache hit share {cache_hit_share(usage):.1%} "
          f"({cache_hit_share(later):.1%} after the first request); "
          f"cost ${dollars:.4f} (${dollars / len(outcomes) * 1000:.4f} per 1,000 claims)")
    return usage, dollars


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=PROJECT_DIR.parent / "shared" / "corpus" / "property-deep-dive")
    args = ap.parse_args()
    if not (args.corpus / "config").is_dir():
        print(f"skip: corpus slice not found at {args.corpus}", file=sys.stderr)
        return 0
    llm = load_config(PROJECT_DIR / "config").llm  # sv_scrapy's llm section (the slice's config has none)
    prices, cache_min = for_model(llm, llm.model)
    assert prices is not None
    prefix = tokens_of(prefix_chars())
    results = {}
    runs = (("sync", "5m", False), ("batch", "1h", False), ("absent", "5m", True))  # absent: sync, other figures
    with AnthropicStub(polls_before_end=0, cache_min_tokens=cache_min) as stub, tempfile.TemporaryDirectory() as tmp:
        os.environ.update(stub.env())
        client = make_client(0, 30)
        for mode, ttl, absent in runs:
            shape = Shape(llm.model, llm.max_tokens, llm.thinking, ttl if prefix >= cache_min else None)
            jobs = jobs_for(args.corpus, shape, absent)
            if mode == "batch":
                runner = BatchRunner(client, Path(tmp), 0.0, lambda _m: None, llm.batch_max_requests,
                                     llm.batch_max_bytes, llm.max_tokens_retry)
                outcomes = runner.run(jobs, {"bench": True})
            else:
                outcomes = run_sync(client, jobs, llm.concurrency, llm.max_tokens_retry,
                                    warm_first=prefix >= cache_min)
            results[mode] = (jobs, outcomes)
    jobs, _ = results["sync"]
    print(f"{len(jobs)} claims of the slice, model {llm.model} at {prices['input']}/{prices['output']} USD per "
          f"MTok (cache write 5m {prices['cache_write_5m']}, 1h {prices['cache_write_1h']}, read "
          f"{prices['cache_read']}; batch ×{prices['batch_discount']})")
    print(f"  cacheable prefix (tools + instructions) ~{prefix:,} tokens; the model caches from {cache_min:,}: "
          f"prompt cache {'on' if prefix >= cache_min else 'off (a marker would do nothing)'}")
    _, sync_cost = line("sync", results["sync"][1], prices, batch=False)
    _, batch_cost = line("batch", results["batch"][1], prices, batch=True)
    line("absent", results["absent"][1], prices, batch=False)
    for mode in ("sync", "absent"):
        facts, pages = parts(results[mode][0].values())
        print(f"  {mode:6} a claim's own part (never cacheable: it differs every request), mean: the claim's "
              f"facts {facts:,.0f} tokens + page evidence {pages:,.0f} tokens")
    print(f"  arithmetic: with a ~{prefix:,}-token cached prefix, > 80 % read from cache needs a claim's own part "
          f"under {prefix // 4:,} tokens, and ≤ 1,000 a claim needs it under {1000 - prefix:,}")
    ours = [estimate_input_tokens(p) for p in jobs.values()]
    print(f"  pre-call heuristic (when count_tokens is unreachable; 2.5 chars a token): mean "
          f"{statistics.mean(ours):,.0f}")
    print(f"  batch ÷ sync cost: {batch_cost / sync_cost:.2f} (goal ≤ 0.5); goals ≤ 1,000 input tokens a claim, "
          "> 80 % cache hit share after the first request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
