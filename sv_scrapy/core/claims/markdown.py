"""A playbook line's Markdown rendered down to text (links and images keep their label, emphasis
and code their content, tags and list markers go): what the claim says, for every stage that
reads its words (the page's subject words, the reports)."""

from __future__ import annotations

import re

from sv_scrapy.core.escape import one_line

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_CODE = re.compile(r"`+([^`]+?)`+")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPH = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_STRIKE = re.compile(r"~~(.+?)~~")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LEAD = re.compile(r"^\s*(?:[-*+]\s+|\d{1,9}[.)]\s+|>\s*|#{1,6}\s+)+")


def plain(text: str) -> str:
    """The claim's Markdown as text: links and images keep their label, emphasis and code
    their content, raw HTML tags and list or heading markers go.

    >>> plain("- **Rate**: *5.81 %* per `art. 1594` [Loi](https://x.gouv.fr/a_(b)) <br> ~~old~~")
    'Rate: 5.81 % per art. 1594 Loi old'
    """
    out = _IMAGE.sub(r"\1", one_line(text))
    out = _LINK.sub(r"\1", out)
    out = _REF_LINK.sub(r"\1", out)
    out = _AUTOLINK.sub(r"\1", out)
    out = _CODE.sub(r"\1", out)
    for rx in (_STRONG, _STRONG, _EMPH, _STRIKE):
        out = rx.sub(lambda m: m.group(m.lastindex or 1), out)
    out = _HTML_TAG.sub(" ", out)
    return " ".join(_LEAD.sub("", out).split())
