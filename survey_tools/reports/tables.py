"""Markdown text for every report: escaping of inline text and the one table writer.

Every Markdown table the toolkit writes (README, STATS, GAPS, CLAIMS, AGREEMENT, CORRECTIONS,
taxonomy/README.md, ``survey diff``, ``survey links``, ``survey refresh``) goes through
:func:`md_table`, every cell that holds free text goes through :func:`md` first and every cell
that is already Markdown through :func:`md_cell`, so that a ``|``, a backslash or a newline in
a title or label can never split a row or start Markdown markup.
``tests/unit/architecture/test_one_table_writer.py`` fails on a table written by hand elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from survey_tools.columns import column_widths, pad_columns

# Characters that start or end Markdown constructs inline. Escaping each with a backslash
# (CommonMark allows it for any ASCII punctuation) keeps a title like "a | [b] *c* <d>" as text,
# both in list items and in table cells, where an unescaped "|" would split the cell.
# One table lookup a character (str.translate) rather than a regular expression's substitution
# template expanded at every match: the README of a 10,000-paper list escapes 155,000 texts.
_MD_ESCAPES = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|&~!#$"})


def md(text: Any) -> str:
    """Inline text that renders literally in a paragraph, a list item or a table cell."""
    flat = " ".join(str(text).split())  # a newline would end a table row or list item
    return flat.translate(_MD_ESCAPES)


def md_code(text: Any) -> str:
    """A code span; the fence is longer than any run of backticks inside."""
    s = str(text)
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def md_cell(markdown: Any) -> str:
    """Markdown that is already markup (a code span, an autolink, a schema description with its
    own code spans) made safe as one table cell: on one line, and every ``|`` escaped, since GFM
    splits a row at a bare pipe even inside a code span."""
    return " ".join(str(markdown).split()).replace("|", "\\|")


def md_table(
    headers: Sequence[Any], rows: Sequence[Sequence[Any]], align: str = "", pad: bool = True
) -> str:
    """A GFM table; cells must already be Markdown (escape free text with :func:`md`).

    ``align`` has one letter per column, "l" or "r" (missing letters mean "l"). With ``pad``
    every pipe is aligned, as awesome-lint requires of the README; reports that are read as
    text diffs use ``pad=False`` so that one longer cell does not rewrite every line.
    """
    cols = len(headers)
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    for row in cells:
        if len(row) != cols:
            raise ValueError(f"a table row has {len(row)} cells, the header {cols}")
    align = align.ljust(cols, "l")
    # Unpadded columns still get a rule of three dashes ("---" / "---:").
    widths = column_widths(cells, 3) if pad else [0] * cols
    padded = pad_columns(cells, align, minimum=3) if pad else cells

    def line(row: Sequence[str]) -> str:
        return "| " + " | ".join(row) + " |"

    rules = [
        ("-" * (max(w - 1, 3)) + ":") if a == "r" and not pad else
        ("-" * (w - 1) + ":") if a == "r" else "-" * max(w, 3)
        for w, a in zip(widths, align, strict=True)
    ]
    return "\n".join([line(padded[0]), "| " + " | ".join(rules) + " |", *(line(r) for r in padded[1:])])


# GitHub turns text into links and notifications after Markdown is rendered: "@name" mentions
# (a backslash escape does not stop it), bare "https://..." and "www." addresses, e-mail
# addresses. A zero-width space (as an HTML entity, so the source stays ASCII) after "@",
# between ":" and "//" and after "www" leaves the text readable and matches none of them.
_ZWSP = "&#8203;"
_AUTOLINKED = re.compile(r"(@)|(:)(//)|\b(www)(\.)", re.IGNORECASE)
# What may stay literal in an autolink's URL; everything else is percent-encoded, so that a
# ">" cannot end the autolink and no character can start markup after it.
_URL_SAFE = "/:?#[]!$&'()*+,;=%~-._"


def md_inert(text: Any) -> str:
    """Text from strangers (a record, a server's answer) for an issue or pull-request body: as
    :func:`md`, and no mention, bare link or e-mail link either."""
    def inert(m: re.Match[str]) -> str:
        if m.group(1):
            return "@" + _ZWSP
        if m.group(2):
            return ":" + _ZWSP + "//"
        return m.group(4) + _ZWSP + "."

    return _AUTOLINKED.sub(inert, md(text))


def md_autolink(url: str) -> str:
    """A URL as a clickable autolink ``<...>`` whatever it holds: characters outside the
    URL-safe set are percent-encoded, so the link cannot be closed early."""
    return f"<{quote(' '.join(url.split()), safe=_URL_SAFE)}>"
