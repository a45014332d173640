"""What the LLM layer costs per claim: the requests for a worklist of the real corpus slice,
sent with the real anthropic SDK to the local stub, which counts their input tokens.

    python bench/llm_cost.py [--corpus ../shared/corpus/property-deep-dive]

No page of the slice is fetched: each claim gets a synthetic page (its own sentence amid
~6 KB of filler) so the excerpts have the crawl's real window and count. Goal: ≤ 3,000
input tokens a claim on average (the seed's agent fan-out spends ~30–40k).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.config import load_config  # noqa: E402
from sv_scrapy.core.claims import extract_corpus  # noqa: E402
from sv_scrapy.core.prefilter import PrefilterSettings, prior_for_text  # noqa: E402
from sv_scrapy.llm.client import actual_cost, make_client, run_sync  # noqa: E402
from sv_scrapy.llm.prompts import build_params, estimate_input_tokens, widen  # noqa: E402
from sv_scrapy.mockweb.anthropic_stub import AnthropicStub  # noqa: E402
from sv_scrapy.runtime import Runtime  # noqa: E402

FILLER = "General guidance on the procedure, the forms to file and the deadlines that apply to each case. " * 60


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=PROJECT_DIR.parent / "shared" / "corpus" / "property-deep-dive")
    args = ap.parse_args()
    if not (args.corpus / "config").is_dir():
        print(f"skip: corpus slice not found at {args.corpus}", file=sys.stderr)
        return 0
    cfg = load_config(args.corpus / "config")
    llm, fetch = cfg.llm, cfg.fetch
    claims = extract_corpus(args.corpus, cfg.hosts, Runtime(cfg, args.corpus, Path("/tmp")).extract_options()).claims
    settings = PrefilterSettings(fetch.excerpt_window_chars, fetch.max_excerpts_per_claim, 0, ())
    jobs = {}
    for claim in claims:
        page = FILLER[:3000] + " " + claim.claim_text + " " + FILLER[:3000]
        prior = prior_for_text(claim.values, page, [claim.source_host], settings)
        item = {**claim.as_dict(), "prior": prior.prior, "excerpts": prior.excerpts, "fetch_status": "OK"}
        jobs[claim.id] = build_params(item, llm["model"], llm["max_output_tokens"],
                                      evidence=widen(item, page, llm["evidence_chars"]))
    with AnthropicStub() as stub:
        os.environ.update(stub.env())
        outcomes = run_sync(make_client(0, 30), jobs, llm["concurrency"])
        counted = [r["_tokens"] for r in stub.requests]
    ours = [estimate_input_tokens(p) for p in jobs.values()]
    prices = llm["prices_usd_per_mtok"]
    print(f"{len(jobs)} claims of the slice, model {llm['model']}")
    print(f"  input tokens a claim (stub's count, 4 chars a token): mean {statistics.mean(counted):,.0f}, "
          f"median {statistics.median(counted):,.0f}, max {max(counted):,} (goal ≤ 3,000 on average)")
    print(f"  our pre-call estimate (3 chars a token, deliberately high): mean {statistics.mean(ours):,.0f}")
    print(f"  cost of the whole slice at {prices['input']}/{prices['output']} USD per MTok: "
          f"sync ${actual_cost(list(outcomes.values()), prices, False):.4f}, "
          f"batch ${actual_cost(list(outcomes.values()), prices, True):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
