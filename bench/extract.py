"""Extraction speed: a generated corpus of 126 playbooks at the real corpus's size (goal: under
2 s), claims per second over the corpus slice copied 20x, the wall time of one `scrapy extract`
on the slice itself, one line dense with figures at 1 MB and 5 MB (extraction must grow
linearly), and the matcher's per-page cost (PageIndex + priors) against the code of a baseline
commit (``--baseline-ref``, exported with ``git archive`` into a temporary folder).

    python bench/extract.py [--playbooks 126] [--copies 20] [--corpus ../shared/corpus/property-deep-dive]

The generated corpus needs no ../shared: its playbooks are written from templates with the
slice's mix of lines (a tenth cite a link, a fifth are table rows, a tenth are headings) and
its mean size (51 KB a playbook); the slice's figures follow when ../shared is present.

Prints numbers; asserts nothing (performance lives here, not in timed tests).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.claims.claims import extract_corpus  # noqa: E402
from sv_scrapy.run.config import load_config  # noqa: E402
from sv_scrapy.run.runtime import Runtime  # noqa: E402

DEFAULT_CORPUS = PROJECT_DIR.parent / "shared" / "corpus" / "property-deep-dive"
# the matcher before issue #12 (CLDR figures); its per-page cost is the yardstick
BASELINE_REF = "76d1325"
# run in a subprocess against one checkout of the package: pages and claims on stdin,
# seconds per page on stdout (best of 3)
MATCHER_SNIPPET = """
import json, sys, time
try:
    from sv_scrapy.core.page.pagescan import PageIndex
    from sv_scrapy.core.page.prefilter import PrefilterSettings, prior_for_text
except ImportError:  # a checkout from before core was grouped by stage (issue #11)
    from sv_scrapy.core.pagescan import PageIndex
    from sv_scrapy.core.prefilter import PrefilterSettings, prior_for_text
pages, claims = json.load(sys.stdin)
settings = PrefilterSettings()
best = float("inf")
for _ in range(3):
    t0 = time.perf_counter()
    for i, text in enumerate(pages):
        index = PageIndex(text)
        for values in claims[i % len(claims):][:3]:
            prior_for_text(values, text, ["x.gov"], settings, index)
    best = min(best, time.perf_counter() - t0)
print(best / len(pages))
"""


# a playbook of the real corpus: 51 KB on average (the slice's MANIFEST), lines in its mix
PLAYBOOK_CHARS = 51_400
_FIGURES = ("{a}%", "{a},{c} %", "€{n:,}", "HK${n:,}", "SAR {n:,}", "{n:,} EUR", "{d} March {y}", "Oct {y}",
            "{y}-{m:02d}-{d:02d}", "(effective {y}-{m:02d})", "Cap. {n}", "S.I. {y} No. {a}", "Act No. {a} of {y}",
            "ss. {a}–{b}", "s. {a}", "Article {a}(1)(e)", "§ {n}", "Reg {n}/{y}", "(No. {c}) Regulations")
_WORDS = ("stamp", "duty", "rate", "buyer", "annual", "levy", "transfer", "tax", "resident", "owner", "schedule",
          "threshold", "applies", "from", "the", "on", "registration", "value", "property", "notary")
_HOSTS = ("www.ird.gov.hk", "www.gov.ky", "www.impots.gouv.fr", "www.nts.go.kr", "zatca.gov.sa", "www.bopa.ad",
          "www.example-broker.com", "taxsummaries.example.com")


def _figure(rng: random.Random) -> str:
    a = rng.randint(1, 98)
    return rng.choice(_FIGURES).format(a=a, b=a + 1, c=a % 9 + 1, n=rng.randint(100, 9_999_999), d=a % 28 + 1,
                                       m=a % 12 + 1, y=rng.randint(1990, 2030))


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _cited_line(rng: random.Random) -> str:
    link = f"[{_prose(rng, 2)}](https://{rng.choice(_HOSTS)}/{_prose(rng, 1)}/{rng.randint(1, 9999)})"
    kind = rng.random()
    if kind < 0.15:  # a pointer
        return f"- {_prose(rng, 4)} {_figure(rng)} — verify at {link}"
    if kind < 0.18:  # a roster a verify sentence announces
        roster = " · ".join(f"[{_prose(rng, 2)}](https://{rng.choice(_HOSTS)}/)" for _ in range(4))
        return f"> Confirm the {_prose(rng, 4)} at primary sources. Authoritative primary sources: {roster}."
    figures = " and ".join(_figure(rng) for _ in range(rng.randint(1, 3)))
    return f"- **{_prose(rng, 2)}**: {_prose(rng, 5)} {figures} {_prose(rng, 3)} ({link})"


def generated_playbook(rng: random.Random, chars: int) -> str:
    """One synthetic playbook of about ``chars`` characters, in the real corpus's mix of lines."""
    lines = [f"# {_prose(rng, 3)}", "", "**Last verified**: 2026-05-27", ""]
    size = 0
    while size < chars:
        kind = rng.random()
        if kind < 0.11:
            line = f"## {_prose(rng, 3)}" if rng.random() < 0.9 else "## Sources"
        elif kind < 0.22:
            line = _cited_line(rng)
        elif kind < 0.44:
            cell = _cited_line(rng) if rng.random() < 0.1 else f"{_prose(rng, 4)} {_figure(rng)}"
            line = f"| {_prose(rng, 2)} | {cell} | {_prose(rng, 3)} |"
        elif kind < 0.74:
            line = f"{_prose(rng, 10)} {_figure(rng)} {_prose(rng, 6)}."
        else:
            line = ""
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def bench_generated(playbooks: int, repeat: int) -> None:
    """Extraction over ``playbooks`` generated playbooks at the real corpus's size: goal under 2 s."""
    cfg = load_config(PROJECT_DIR / "config")
    rng = random.Random(39)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scope_dir = root / cfg.extraction.scope_dirs[0]
        size = 0
        for i in range(playbooks):
            path = scope_dir / f"g{i:03d}" / "playbook.md"
            path.parent.mkdir(parents=True)
            text = generated_playbook(rng, int(PLAYBOOK_CHARS * rng.uniform(0.3, 1.7)))
            path.write_text(text, encoding="utf-8")
            size += len(text.encode())
        opts = Runtime(config=cfg, corpus_root=root, output_dir=root / "out").extract_options()
        best_wall = best_cpu = float("inf")
        claims = 0
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            claims = len(extract_corpus(root, cfg.hosts, opts).claims)
            best_wall, best_cpu = min(best_wall, time.perf_counter() - t0), min(best_cpu, time.process_time() - c0)
    print(f"generated corpus: {playbooks} playbooks, {size / 1e6:.1f} MB, {claims} claims: extract best of {repeat} "
          f"{best_wall:.2f} s wall, {best_cpu:.2f} s CPU (goal < 2 s)")


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


EXTRACT_SNIPPET = """
import sys, time
from pathlib import Path
try:
    from sv_scrapy.run.config import load_config
    from sv_scrapy.run.runtime import Runtime
except ImportError:  # a checkout from before the Scrapy-free middle layer moved into run/ (issue #40)
    from sv_scrapy.config import load_config
    from sv_scrapy.runtime import Runtime
try:
    from sv_scrapy.core.claims.claims import extract_corpus
except ImportError:  # a checkout from before core was grouped by stage (issue #11)
    from sv_scrapy.core.claims import extract_corpus
corpus, big = Path(sys.argv[1]), Path(sys.argv[2])
cfg = load_config(corpus / "config")
opts = Runtime(config=cfg, corpus_root=big, output_dir=big / "out").extract_options()
best = float("inf")
for _ in range(3):
    t0 = time.process_time()
    claims = len(extract_corpus(big, cfg.hosts, opts).claims)
    best = min(best, time.process_time() - t0)
print(claims, best)
"""


def extract_cpu(package_root: Path, corpus: Path, big: Path) -> tuple[int, float]:
    """(claims, best CPU seconds) of one checkout's extraction over the replicated corpus."""
    env = dict(os.environ, PYTHONPATH=str(package_root))
    proc = subprocess.run([sys.executable, "-c", EXTRACT_SNIPPET, str(corpus), str(big)], env=env,
                          capture_output=True, text=True, cwd=package_root, check=True)
    claims, seconds = proc.stdout.split()
    return int(claims), float(seconds)


def matcher_pages(corpus: Path) -> list[str]:
    """Figure-dense page texts: the slice's playbooks cut into 8 KB pages, plus the sample site."""
    pages = []
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        pages.extend(text[i : i + 8000] for i in range(0, len(text), 8000))
    for path in sorted((PROJECT_DIR / "examples" / "site").rglob("*.html")):
        pages.append(path.read_text(encoding="utf-8", errors="replace"))
    return pages


def matcher_cost(package_root: Path, pages: list[str], claims: list[list[dict[str, object]]]) -> float:
    env = dict(os.environ, PYTHONPATH=str(package_root))
    proc = subprocess.run([sys.executable, "-c", MATCHER_SNIPPET], input=json.dumps([pages, claims]),
                          env=env, capture_output=True, text=True, cwd=package_root, check=True)
    return float(proc.stdout.strip())


def baseline_tree(ref: str, into: Path) -> bool:
    archive = subprocess.run(["git", "archive", ref, "sv_scrapy"], cwd=PROJECT_DIR, capture_output=True)
    if archive.returncode:
        return False
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return True


def bench_matcher(corpus: Path, claims: list[list[dict[str, object]]], ref: str) -> None:
    pages = matcher_pages(corpus)
    now = matcher_cost(PROJECT_DIR, pages, claims)
    with tempfile.TemporaryDirectory() as tmp:
        before = matcher_cost(Path(tmp), pages, claims) if baseline_tree(ref, Path(tmp)) else None
    line = f"matcher: {len(pages)} pages, {now * 1e3:.2f} ms a page (PageIndex + 3 claims' priors)"
    if before is not None:
        line += f"; baseline {ref}: {before * 1e3:.2f} ms a page  ->  ratio {now / before:.2f} (goal <= 2)"
    print(line)


DENSE_UNIT = "rate 5.81 % and €1,500 since 1 April 2025 (Law 7464) in 2024; "


def bench_dense_line() -> None:
    """One line dense with figures, 1 MB then 5 MB: claim extraction must grow linearly."""
    from sv_scrapy.core.figures.values import extract_values

    times = {}
    for mb in (1, 5):
        line = DENSE_UNIT * (mb * 1_000_000 // len(DENSE_UNIT))
        t0, c0 = time.perf_counter(), time.process_time()
        count = len(extract_values(line))
        wall, times[mb] = time.perf_counter() - t0, time.process_time() - c0
        print(f"dense line {mb} MB: {count:,} values in {times[mb]:.2f} s CPU ({wall:.2f} s wall)")
    print(f"dense line 5 MB / 1 MB: {times[5] / times[1]:.1f}x CPU (goal <= 6x, 5 MB under 10 s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--playbooks", type=int, default=126, help="generated playbooks (the real corpus's count)")
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline-ref", default=BASELINE_REF, help="git ref whose matcher is the yardstick")
    args = ap.parse_args()
    bench_generated(args.playbooks, args.repeat)
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
        # the same work in CPU seconds, now and at the baseline commit: wall time on a shared
        # machine moves with the neighbours' load, the ratio does not
        now_claims, now_cpu = extract_cpu(PROJECT_DIR, args.corpus, big)
        with tempfile.TemporaryDirectory() as base:
            before = extract_cpu(Path(base), args.corpus, big) if baseline_tree(args.baseline_ref, Path(base)) else None
    print(f"corpus x{args.copies}: {files} files, {size_mb:.1f} MB, {claims} claims")
    print(f"extract (in-process, best of {args.repeat}): {best:.3f} s  ->  {claims / best:,.0f} claims/s, "
          f"{size_mb / best:.1f} MB/s")
    line = f"extract CPU: {now_cpu:.3f} s  ->  {now_claims / now_cpu:,.0f} claims/s"
    if before is not None:
        line += (f"; baseline {args.baseline_ref}: {before[1]:.3f} s  ->  {before[0] / before[1]:,.0f} claims/s"
                 f"  ({before[0]} claims)  ->  ratio {now_cpu / before[1]:.2f}")
    print(line)

    env = dict(os.environ, SV_CORPUS_ROOT=str(args.corpus), SV_CONFIG_DIR=str(args.corpus / "config"))
    scrapy = str(Path(sys.executable).with_name("scrapy"))
    t0 = time.perf_counter()
    proc = subprocess.run([scrapy, "extract"], cwd=PROJECT_DIR, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    bench_dense_line()
    slice_claims = extract_corpus(args.corpus, cfg.hosts, Runtime(
        config=cfg, corpus_root=args.corpus, output_dir=args.corpus / "out").extract_options()).claims
    bench_matcher(args.corpus, [c.values for c in slice_claims], args.baseline_ref)
    print(f"`scrapy extract` on the slice (one subprocess, incl. interpreter + Scrapy start-up): {wall:.2f} s, "
          f"exit {proc.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
