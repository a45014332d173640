"""Extraction speed: claims per second over the corpus slice copied 20x, and the wall time
of one `scrapy extract` on the slice itself.

    python bench/extract.py [--copies 20] [--corpus ../shared/corpus/property-deep-dive]

Prints numbers; asserts nothing (performance lives here, not in timed tests).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.config import load_config  # noqa: E402
from sv_scrapy.core.claims import extract_corpus  # noqa: E402
from sv_scrapy.runtime import Runtime  # noqa: E402

DEFAULT_CORPUS = PROJECT_DIR.parent / "shared" / "corpus" / "property-deep-dive"


def replicate(corpus: Path, copies: int, into: Path) -> None:
    """Copy every scope dir's files `copies` times under new scope names (fr -> fr00, fr01…)."""
    cfg = load_config(corpus / "config")
    for scope_dir in cfg.extraction.scope_dirs:
        src = corpus / scope_dir
        if not src.is_dir():
            continue
        for child in sorted(src.iterdir()):
            for i in range(copies):
                dst = into / scope_dir / f"{child.name}{i:02d}"
                if child.is_dir():
                    shutil.copytree(child, dst)
                else:
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(child, dst.with_name(f"{child.stem}{i:02d}{child.suffix}"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not (args.corpus / "config").is_dir():
        print(f"skip: corpus slice not found at {args.corpus}", file=sys.stderr)
        return 0
    cfg = load_config(args.corpus / "config")
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp)
        replicate(args.corpus, args.copies, big)
        files = sum(1 for _ in big.rglob("*.md"))
        size_mb = sum(p.stat().st_size for p in big.rglob("*.md")) / 1e6
        rt = Runtime(config=cfg, corpus_root=big, output_dir=big / "out")
        best = float("inf")
        claims = 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = extract_corpus(big, cfg.hosts, rt.extract_options())
            best = min(best, time.perf_counter() - t0)
            claims = len(result.claims)
    print(f"corpus x{args.copies}: {files} files, {size_mb:.1f} MB, {claims} claims")
    print(f"extract (in-process, best of {args.repeat}): {best:.3f} s  ->  {claims / best:,.0f} claims/s, "
          f"{size_mb / best:.1f} MB/s")

    env = dict(os.environ, SV_CORPUS_ROOT=str(args.corpus), SV_CONFIG_DIR=str(args.corpus / "config"))
    scrapy = str(Path(sys.executable).with_name("scrapy"))
    t0 = time.perf_counter()
    proc = subprocess.run([scrapy, "extract"], cwd=PROJECT_DIR, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    print(f"`scrapy extract` on the slice (one subprocess, incl. interpreter + Scrapy start-up): {wall:.2f} s, "
          f"exit {proc.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
