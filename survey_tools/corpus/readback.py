"""What was written, read back: each text value YAML produced, compared with its source line.

The parser's value is not always what the contributor typed: `` #`` after a space starts a
comment and cuts an unquoted title; ``\\"`` inside double quotes is an escaped quote, so
``G\\"odel`` (TeX's umlaut) is read as ``G"odel``; a no-break space, a zero-width character or a
decomposed accent looks like ordinary text and is not. Every such value is named at its line,
with the line to write instead: the fix comes from what was written, not from the field's type.
"""

from __future__ import annotations

import datetime
import html
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from survey_tools.corpus.examples import record_template
from survey_tools.corpus.taxonomy import Collection, Taxonomy
from survey_tools.corpus.yaml_words import INVISIBLE, LOOKALIKE_SPACES, cleaned
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import WARNING, Problem
from survey_tools.latex import plain_text
from survey_tools.schema_words import dotted
from survey_tools.schema_words import noun as _noun

# BibTeX's umlaut without its backslash (babel's "o), or with a backslash YAML's double quotes
# consumed: a double quote glued between two letters.
_GLUED_QUOTE = re.compile(r'(?<=[A-Za-z])"(?=[A-Za-z])')
# Field types whose values are prose a person reads (not ids, dates or tags).
_PROSE_TYPES = ("string", "text", "person_list", "string_list")


_COMMENTS: dict[str, frozenset[str]] = {}


def _template_comments(tax: Taxonomy) -> frozenset[str]:
    """The comments the blank record writes after its values: left in place, they cut nothing."""
    kept = _COMMENTS.get(tax.digest)
    if kept is not None:
        return kept
    out = set()
    for line in record_template(tax).splitlines():
        if "  # " in line:
            out.add(line.split("  # ", 1)[1].strip())
    _COMMENTS[tax.digest] = frozenset(out)
    return _COMMENTS[tax.digest]


def _strings(data: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from _strings(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _strings(v, (*path, i))


def quoted(value: str, style: str) -> str:
    """``value`` written as YAML in the style the contributor used (or double quotes)."""
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# What an unquoted value may not hold or start with and stay the text it is.
_NEEDS_QUOTES = re.compile(r"^[-?:,\[\]{}#&*!|>'\"%@`\s]|: | #|:$|\s$")


def _line_with(line: str, col: int, value: str, style: str) -> str:
    """The source line with its value (starting at ``col``) replaced by ``value``, written in
    the contributor's style (unquoted stays unquoted where YAML reads it as the same text)."""
    if style not in ("'", '"') and not _NEEDS_QUOTES.search(value):
        return (line[: col - 1] + value).strip()
    return (line[: col - 1] + quoted(value, style)).strip()


def _character_words(value: str, line: str) -> str | None:
    """What is hidden in ``value``, pasted as it is into ``line``, in words, or None when it
    is plain text. A character written as an escape (``\\u202f`` in double quotes) was meant."""
    if value.isascii():
        # the look-alike spaces and invisible characters (BIDI, ZERO_WIDTH) are none of them
        # ASCII, and ASCII text is NFC: nearly every value, answered without the searches below
        return None
    for ch, words in LOOKALIKE_SPACES.items():
        if ch in value and ch in line:
            return f"{words} (U+{ord(ch):04X}), which looks like a space and is not one"
    m = INVISIBLE.search(value)
    if m is not None and m.group() in line:
        name = unicodedata.name(m.group(), "FORMAT CHARACTER")
        return f"an invisible character (U+{ord(m.group()):04X} {name})"
    if not unicodedata.is_normalized("NFC", value) and not unicodedata.is_normalized("NFC", line):
        return DECOMPOSED
    return None


# Accents typed decomposed are not refused: the record is published composed (NFC, see
# corpus/published.py), and the warning gives the line that makes the file say so too.
DECOMPOSED = (
    "accents written as a letter followed by a combining mark (decomposed, as macOS "
    "copies them), which look the same but compare and sort as other text"
)


def _cut_by_comment(line: str, col: int, value: str, comments: frozenset[str]) -> str | None:
    """The text a `` #`` comment cut from an unquoted value, or None."""
    start = col - 1
    if line[start : start + len(value)] != value:
        return None
    rest = line[start + len(value) :]
    # One space before the '#' is how a title is typed ("Machine #2"); a comment a person
    # means to write stands apart (the template's have two spaces).
    if not rest.startswith(" #"):
        return None
    comment = rest.strip()[1:].strip()
    if comment in comments:
        return None
    cut = rest.strip()
    for kept in comments:  # the template's own comment after the cut text stays a comment
        if cut.endswith(f"  # {kept}"):
            cut = cut[: -len(f"  # {kept}")].rstrip()
    return cut


# An HTML character reference left in a text copied from a web page or a feed (&amp; &#39;).
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,30});")


def _pasted_form(name: str, value: str, line: str, col: int, style: str, title: bool) -> str | None:
    """A text in a form copied from elsewhere: an HTML entity, spaces inside the quotes at its
    ends, a title in capitals (a PDF's first page)."""
    m = _ENTITY.search(value) if "&" in value else None  # (a reference starts with "&")
    if m is not None and html.unescape(m.group()) != m.group():
        fixed = html.unescape(value)
        return (f"the {name} holds {m.group()!r}, which is how a web page writes "
                f"{html.unescape(m.group())!r}: write the line as: {_line_with(line, col, fixed, style)}")
    if style in ("'", '"') and value.strip() and value != value.strip(" "):
        return (f"the {name} has a space at its start or end inside the quotes: write the line "
                f"as: {_line_with(line, col, value.strip(' '), style)}")
    if not title:  # the last question is a title's (its words found only for a title)
        return None
    words = re.findall(r"[^\W\d_]+", value)
    if len(words) >= 4 and sum(map(len, words)) >= 12 and value.upper() == value:
        example = re.sub(r"[^\W\d_]+", lambda w: w.group().capitalize(), value)
        return (f"the {name} is written in capitals: write it as the paper's abstract page gives "
                f"it, with capitals only where the paper has them, like: "
                f"{_line_with(line, col, example, style)}")
    return None


def _problem_for(
    path: tuple[Any, ...], value: str, line: str, col: int, comments: frozenset[str],
    title: bool = False,
) -> str | None:
    style = line[col - 1 : col]
    if style not in "\"'" or not style:
        cut = _cut_by_comment(line, col, value, comments)
        if cut is not None:
            whole = line[col - 1 :].split(cut, 1)[0] + cut
            return (
                f"YAML read this line only up to the ' #', which starts a comment, so "
                f"{cut!r} was dropped: put the whole value in quotes: "
                f"{line[: col - 1].strip()} {quoted(whole, chr(34))}"
            )
    name = str(path[-1]) if isinstance(path[-1], str) else _noun(str(path[0]))
    if '"' in value and _GLUED_QUOTE.search(value):
        tex = _GLUED_QUOTE.sub(lambda m: '\\"', value)
        letter = plain_text(tex)
        how = (
            'inside double quotes YAML reads \\" as a quote'
            if style == '"' and '\\"' in line
            else 'a " between two letters is no accent'
        )
        return (
            f'the {name} holds {value!r}: {how}, so the umlaut TeX writes as \\"o is lost; '
            f"write the letter itself: {_line_with(line, col, letter, style)}"
        )
    pasted = _pasted_form(name, value, line, col, style, title)
    if pasted is not None:
        return pasted
    hidden = _character_words(value, line)
    if hidden == DECOMPOSED and cleaned(value) == unicodedata.normalize("NFC", value):
        return (
            f"{WARNING}the {name} holds {hidden}: it is published composed; to make the file "
            f"say so too, write the line as: {_line_with(line, col, cleaned(value), style)}"
        )
    if hidden is not None:
        return (
            f"the {name} holds {hidden}; write the line as: "
            f"{_line_with(line, col, cleaned(value), style)}"
        )
    return None


def readback_problems(
    tax: Taxonomy, coll: Collection, rel: str, text: str, doc: YamlDocument
) -> list[Problem]:
    """Each prose value of the record whose text is not what its line says (see the module)."""
    data = doc.data
    if not isinstance(data, dict):
        return []
    prose = {f.name for f in coll.fields if f.type in _PROSE_TYPES}
    lines = text.lstrip("\ufeff").splitlines()
    comments = _template_comments(tax)
    title = coll.title_field
    out: list[Problem] = []
    for name in prose:
        if name not in data:
            continue
        for path, value in _strings(data[name], (name,)):
            line_no, col = doc.values.get(path, (0, 0))
            if not 0 < line_no <= len(lines) or "\n" in value:
                continue
            why = _problem_for(path, value, lines[line_no - 1], col, comments, path == (title,))
            if why:
                out.append(Problem(rel, line_no, col, dotted(path), why))
    return out


# A date with a time after it (copied from `git log` or a timestamp): YAML's timestamp, read as text.
_DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T]\d{1,2}:\d{2}")
# An arXiv id typed with another mark in place of its dot (2606:01001, 2606,01001).
_ARXIV_SLIP = re.compile(r"^(\d{4})[:,;/ ](\d{4,5})$")
# YAML 1.1's other words for yes and no (true and false have their own message).
_YES_NO = {"on": "yes", "off": "no", "y": "yes", "n": "no"}


def _value_words(coll: Collection, name: str, value: Any, this_year: int) -> str | None:
    f = next((f for f in coll.fields if f.name == name), None)
    if f is not None and f.type == "year" and type(value) is int and 0 <= value < 100:
        full = 2000 + value if 2000 + value <= this_year else 1900 + value
        return f"{value} is the year's last two digits: write all four: {name}: {full}"
    if f is not None and f.type == "date" and isinstance(value, str):
        m = _DATE_TIME.match(value)
        if m is not None:
            return (f"{value!r} has a time after the date: write the date alone, in quotes: "
                    f"{name}: '{m.group(1)}'")
    cf = next((c for c in coll.controlled if c.name == name and c.kind == "single"), None)
    if cf is not None and {"yes", "no"} <= set(cf.ids) and isinstance(value, str):
        word = _YES_NO.get(value.strip().lower())
        if word is not None:
            return (f"{value!r} is not a value of {name} ({', '.join(cf.ids)}): if it means "
                    f"{word}, write {name}: '{word}'")
    return None


def _unquoted_ids(rel: str, doc: YamlDocument, ids: dict[Any, Any], lines: list[str]) -> list[Problem]:
    """An identifier YAML read as a number (0704.0001 as 704.0001, 0x1Ab2 as a hexadecimal
    number): the id as it was written, in quotes."""
    out: list[Problem] = []
    for kind, value in ids.items():
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        line_no, col = doc.values.get(("identifiers", kind), (0, 0))
        if not 0 < line_no <= len(lines):
            continue
        written = lines[line_no - 1][col - 1 :].split(" #", 1)[0].strip()
        if not written or written[0] in "'\"":
            continue
        out.append(Problem(rel, line_no, col, f"identifiers.{kind}", (
            f"without quotes YAML reads {written} as the number {value!r}, not as the id: put "
            f"the id in quotes, as written: {kind}: '{written}'")))
    return out


def value_problems(coll: Collection, rel: str, doc: YamlDocument, text: str = "") -> list[Problem]:
    """Values whose type YAML changed or that were typed in another form than the field's
    (a two-digit year, a date with a time, an arXiv id with a colon for its dot, on and off for
    yes and no, an id read as a number): the line to write, from the value written."""
    data = doc.data
    if not isinstance(data, dict):
        return []
    this_year = datetime.date.today().year
    out: list[Problem] = []
    for name, value in data.items():
        why = _value_words(coll, str(name), value, this_year)
        if why:
            line, col = doc.values.get((name,), (0, 0))
            out.append(Problem(rel, line, col, str(name), why))
    ids = data.get("identifiers")
    if isinstance(ids, dict):
        out.extend(_unquoted_ids(rel, doc, ids, text.lstrip("\ufeff").splitlines()))
    arxiv = ids.get("arxiv") if isinstance(ids, dict) else None
    m = _ARXIV_SLIP.match(arxiv) if isinstance(arxiv, str) else None
    if m is not None:
        line, col = doc.values.get(("identifiers", "arxiv"), (0, 0))
        out.append(Problem(rel, line, col, "identifiers.arxiv", (
            f"{m.string!r} has {m.string[4]!r} where an arXiv id has a dot: write arxiv: "
            f"'{m.group(1)}.{m.group(2)}'")))
    return out
