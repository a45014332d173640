"""Words per sentence in the docs' prose: the average per page, the whole site's, and the longest.

    python tools/docs_sentences.py [--over 40] [--longest 3] [PAGE.md ...]
    python tools/docs_sentences.py --kept-since REVISION [PAGE.md ...]

Without pages it reads README.md and every page of docs/ but the generated reference
(docs/reference/). Prose only: fenced blocks (code, toctrees, autodoc) are skipped, except
admonitions (note, warning, …), whose text a reader reads. So are table rows, headings, anchors,
comments, directive options and a definition's term. A list item is a paragraph of its own. An inline
code span, a link or a MyST role counts as the words of its text. A sentence ends at ``.``, ``!`` or
``?`` (outside code spans and abbreviations such as "e.g.") before a space and a letter, a digit, a
quote or a backtick, or at the paragraph's end. The site's figure is the mean over all sentences, so
a long page weighs more. Prints, worst page first; asserts nothing.

``--kept-since`` is a rewrite's check: it lists what each page held at REVISION and holds no more
(fenced blocks, table rows and headings whole; code spans, link targets, roles, anchors and figures),
and exits 1 when anything was lost.
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
ROLE = re.compile(r"(?<!`)\{[\w:-]+\}`([^`]*)`")
WORD = re.compile(r"\w")
# what a rewrite keeps whole (fenced blocks, table rows, headings), then what it keeps in its prose
WHOLE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$|^\|[^\n]*\|[ \t]*$|^#{1,6} [^\n]*$", re.MULTILINE | re.DOTALL)
KEPT = re.compile(CODE_SPAN.pattern + r"|\]\([^)]*\)|(?<!`)\{[\w:-]+\}`[^`]*`|^\([^\n]*\)=$"
                  r"|\d(?:[\d.,:]*\d)?(?:\s?[%×])?", re.MULTILINE | re.DOTALL)
GUARDS = {".": "\0", "?": "\1", "!": "\2"}  # stand-ins for the stops that end no sentence


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
        elif line.startswith(": "):  # a definition: the paragraph so far is its term, a name
            current.clear()
            line = line[2:]
        current.append(line.strip())
    close()
    return found


def guard(match: re.Match[str]) -> str:
    text = match.group(0)
    for stop, stand_in in GUARDS.items():
        text = text.replace(stop, stand_in)
    return text


def unguard(text: str) -> str:
    for stop, stand_in in GUARDS.items():
        text = text.replace(stand_in, stop)
    return text.strip()


def sentences(paragraph: str) -> list[str]:
    plain = ROLE.sub(r"\1", LINK.sub(r"\1", paragraph))
    guarded = ABBREVIATIONS.sub(guard, CODE_SPAN.sub(guard, plain))
    return [unguard(s) for s in SENTENCE_END.split(guarded) if words(s)]


def read(path: Path) -> Page:
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(PROJECT_DIR)) if path.is_relative_to(PROJECT_DIR) else str(path)
    return Page(name, [s for p in paragraphs(text) for s in sentences(p)])


def default_pages() -> list[Path]:
    docs = PROJECT_DIR / "docs"
    pages = [p for p in sorted(docs.rglob("*.md")) if p.relative_to(docs).parts[0] != "reference"]
    return [PROJECT_DIR / "README.md", *pages]


def lost_since(revision: str, path: Path) -> list[str]:
    """What the page held at ``revision`` and holds no more (see the module's docstring)."""
    relative = path.relative_to(PROJECT_DIR).as_posix()
    shown = subprocess.run(["git", "show", f"{revision}:{relative}"], cwd=PROJECT_DIR,
                           capture_output=True, text=True, check=False)
    if shown.returncode != 0:  # a page the revision did not have lost nothing
        return []
    before, now = shown.stdout, path.read_text(encoding="utf-8")
    whole = dict.fromkeys(m.group(0) for m in WHOLE.finditer(before))
    kept = dict.fromkeys(" ".join(m.group(0).split()) for m in KEPT.finditer(WHOLE.sub("", before)))
    flat = " ".join(now.split())  # a span may have been wrapped at another place
    return [t for t in whole if t not in now] + [t for t in kept if t not in flat]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--over", type=int, default=40, help="list every sentence longer than this")
    parser.add_argument("--longest", type=int, default=0, help="also list each page's N longest")
    parser.add_argument("--kept-since", metavar="REVISION",
                        help="list instead what each page held at REVISION and lost since")
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
    every = [c for page in pages for c in page.words]
    print(f"{'all pages':<48} {len(every):>9} {sum(every) / max(len(every), 1):>7.1f} "
          f"{max(every, default=0):>7} {sum(1 for c in every if c > args.over):>5}")
    for page in pages:
        ranked = sorted(zip(page.words, page.sentences, strict=True), key=lambda pair: -pair[0])
        for count, sentence in [pair for i, pair in enumerate(ranked) if pair[0] > args.over or i < args.longest]:
            print(f"\n{page.name} ({count} words): {sentence}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
