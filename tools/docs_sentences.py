"""Words per sentence in the docs' prose: the average per page, the whole site's, and the longest.

    python tools/docs_sentences.py [--over 40] [--longest 3] [PAGE.md ...]

Without pages it reads README.md and every page of docs/ but the generated reference (docs/reference/).
Prose only: fenced blocks (code, toctrees, autodoc) are skipped, except admonitions (note, warning, …),
whose text a reader reads; so are table rows, headings, anchors, comments, directive options and a definition's term.
A list item is a paragraph of its own. An inline code span, a link or a MyST role counts as the words of its
text. A sentence ends at ``.``, ``!`` or ``?`` (outside code spans and abbreviations such as "e.g.")
before a space and a letter, a digit, a quote or a backtick, or at the paragraph's end. The site's figure is the mean over all sentences (a long page weighs
more). Prints, worst page first; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
ADMONITIONS = {"note", "warning", "tip", "important", "caution", "attention", "danger", "error", "hint",
               "seealso", "admonition", "versionadded", "versionchanged", "deprecated"}
FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(\{([\w-]+)\})?")
ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s+")
SKIPPED_LINE = re.compile(r"^\s*(#|\||%|\(.*\)=\s*$|<!--|:[\w-]+:|\.\. )")
ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|Dr|Mr|no)\.", re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.!?])[)\"'*_]*\s+(?=[A-Za-z0-9`\"'(*\[{])")
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
ROLE = re.compile(r"\{[\w:-]+\}`([^`]*)`")
WORD = re.compile(r"\w")
# what a rewrite must keep whole: fenced blocks and table rows; then code spans, link targets, roles, anchors, figures (numbers with their units)
BLOCKS = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$|^\|[^\n]*\|[ \t]*$", re.MULTILINE | re.DOTALL)
KEPT = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)|\]\([^)]*\)|\{[\w:-]+\}`[^`]*`|^\([^\n]*\)=$"
                  r"|\d(?:[\d.,:]*\d)?(?:\s?[%×])?", re.MULTILINE | re.DOTALL)


@dataclass
class Page:
    name: str
    sentences: list[str]

    @property
    def words(self) -> list[int]:
        return [words(s) for s in self.sentences]

    @property
    def average(self) -> float:
        counts = self.words
        return sum(counts) / len(counts) if counts else 0.0


def words(sentence: str) -> int:
    return sum(1 for token in sentence.split() if WORD.search(token))


def paragraphs(text: str) -> list[str]:
    """The prose paragraphs of a MyST page: list items apart, fenced blocks out but admonitions."""
    found: list[str] = []
    current: list[str] = []
    fences: list[tuple[str, bool]] = []  # (the fence's marker, whether its body is prose)

    def close() -> None:
        if current:
            found.append(" ".join(current))
            current.clear()

    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence and fence.group(1)[0] == "`" and "`" in line[fence.end():]:
            fence = None  # a code span opening the line: a backtick fence's info string holds no backtick
        if fence:
            marker, name = fence.group(1), fence.group(3)
            if fences and marker == fences[-1][0] and not name:
                close()
                fences.pop()
                continue
            if name or not fences or marker != fences[-1][0]:
                close()
                fences.append((marker, name in ADMONITIONS))
                continue
        if fences and not fences[-1][1]:
            continue
        if not line.strip() or SKIPPED_LINE.match(line):
            close()
            continue
        if ITEM.match(line):
            close()
            line = ITEM.sub("", line, count=1)
        elif line.startswith(": "):  # a definition: its term (the paragraph so far) is a name, not a sentence
            current.clear()
            line = line[2:]
        current.append(line.strip())
    close()
    return found


def sentences(paragraph: str) -> list[str]:
    plain = ROLE.sub(r"\1", LINK.sub(r"\1", paragraph))
    def guard(match: re.Match[str]) -> str:
        return match.group(0).replace(".", "\0").replace("?", "\1").replace("!", "\2")

    guarded = ABBREVIATIONS.sub(guard, CODE_SPAN.sub(guard, plain))
    unguarded = (s.replace("\0", ".").replace("\1", "?").replace("\2", "!") for s in SENTENCE_END.split(guarded))
    return [s.strip() for s in unguarded if words(s)]


def read(path: Path) -> Page:
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(PROJECT_DIR)) if path.is_relative_to(PROJECT_DIR) else str(path)
    return Page(name, [s for p in paragraphs(text) for s in sentences(p)])


def default_pages() -> list[Path]:
    docs = PROJECT_DIR / "docs"
    return [PROJECT_DIR / "README.md", *(p for p in sorted(docs.rglob("*.md"))
                                         if "reference" not in p.relative_to(docs).parts[:1])]


def lost_since(revision: str, path: Path) -> list[str]:
    """What the page held at ``revision`` (code spans, link targets, roles, anchors, figures) and holds no more."""
    relative = path.relative_to(PROJECT_DIR).as_posix()
    shown = subprocess.run(["git", "show", f"{revision}:{relative}"], cwd=PROJECT_DIR, capture_output=True,
                           text=True, check=False)
    if shown.returncode != 0:
        return []
    before, now = shown.stdout, path.read_text(encoding="utf-8")
    blocks = [m.group(0) for m in BLOCKS.finditer(before)]
    spans = [" ".join(t.split()) for t in (m.group(0) for m in KEPT.finditer(BLOCKS.sub("", before)))]
    flat = " ".join(now.split())
    return [t for t in dict.fromkeys(blocks) if t not in now] + [t for t in dict.fromkeys(spans) if t not in flat]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--over", type=int, default=40, help="list every sentence longer than this (words)")
    parser.add_argument("--longest", type=int, default=0, help="also list each page's N longest sentences")
    parser.add_argument("--kept-since", metavar="REVISION",
                        help="instead, list what each page held at REVISION and lost since (a rewrite's check)")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in (args.pages or default_pages())]
    if args.kept_since:
        lost = {p: lost_since(args.kept_since, p) for p in paths}
        for path, tokens in lost.items():
            for token in tokens:
                print(f"{path.relative_to(PROJECT_DIR)}: lost {token[:100]!r}")
        return 1 if any(lost.values()) else 0
    pages = [read(p) for p in paths]
    print(f"{'page':<48} {'sentences':>9} {'average':>7} {'longest':>7} {'>' + str(args.over):>5}")
    for page in sorted(pages, key=lambda p: -p.average):
        counts = page.words
        print(f"{page.name:<48} {len(counts):>9} {page.average:>7.1f} {max(counts, default=0):>7} "
              f"{sum(1 for c in counts if c > args.over):>5}")
    everything = [c for page in pages for c in page.words]
    print(f"{'all pages':<48} {len(everything):>9} {sum(everything) / max(len(everything), 1):>7.1f} "
          f"{max(everything, default=0):>7} {sum(1 for c in everything if c > args.over):>5}")
    for page in pages:
        ranked = sorted(zip(page.words, page.sentences, strict=True), key=lambda pair: -pair[0])
        shown = [pair for i, pair in enumerate(ranked) if pair[0] > args.over or i < args.longest]
        for count, sentence in shown:
            print(f"\n{page.name} ({count} words): {sentence}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
