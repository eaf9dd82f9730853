"""YAML syntax errors in a contributor's words: what to type, at the line to change.

The parser says where it gave up and what it expected ("mapping values are not allowed in this
context"); a person editing a record in GitHub's web editor needs to know what to change ("the
title contains ': ', so put it in quotes"). :func:`syntax_problem` looks at the line the parser
names (and the lines around it) for the mistakes people make when they write YAML by hand: an
unquoted value holding ``: ``, tabs, curly quotes, a missing space after ``-`` or ``:``, an
unclosed or doubled quote, a list written on one line, a line indented by mistake. The parser's
own words stay below, on a second indented line, for whoever wants them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from survey_tools import hidden
from survey_tools.errors import Problem
from survey_tools.latex import plain_text

# The quotes word processors, phones and some keyboards type instead of ' and ".
CURLY_QUOTES = "\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b\u00ab\u00bb\u2033\u2032"
_CURLY = re.compile(f"[{CURLY_QUOTES}]")
# `key: value` (or `- key: value`): the indentation, the key and what follows the colon.
_KEY_LINE = re.compile(
    r"^(?P<indent>[ \t]*)(?:-[ \t]+)?(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?P<rest>.*)$"
)
# `key:value`: a key run into its value (no space after the colon).
_NO_SPACE_COLON = re.compile(
    r"^[ \t]*(?:-[ \t]+)?(?P<key>[A-Za-z_][\w-]*):(?P<value>[^\s:/][^\n]*)$"
)
_NO_SPACE_DASH = re.compile(r"^[ \t]*-(?P<value>[^\s-][^\n]*)$")
PARSER_LINE = "    YAML parser: "

# Spaces that look like a space and are not one (survey_tools.hidden): YAML does not separate
# with them, and a title holding one breaks (or refuses to break) where no plain space would,
# and compares unequal.
LOOKALIKE_SPACES = hidden.LOOKALIKE_SPACE_WORDS
# Invisible characters a pasted text carries (the hidden module's BIDI and ZERO_WIDTH classes:
# zero-width spaces and joiners, soft hyphens, the word joiner, a BOM, bidirectional controls
# and marks, U+061C among them): removed, the text reads the same.
INVISIBLE = hidden.pattern(hidden.BIDI, hidden.ZERO_WIDTH)


def cleaned(value: str) -> str:
    """``value`` with look-alike spaces made spaces, invisible characters dropped, composed."""
    for ch in LOOKALIKE_SPACES:
        value = value.replace(ch, " ")
    return unicodedata.normalize("NFC", INVISIBLE.sub("", value))


@dataclass(frozen=True)
class _Found:
    line: int  # 1-based
    col: int  # 1-based
    field: str
    message: str


def _raw(err: Any) -> str:
    """The parser's own message on one line, with the line it names."""
    parts = []
    if err.context:
        cm = err.context_mark
        parts.append(f"{err.context}" + (f" (line {cm.line + 1})" if cm is not None else ""))
    if err.problem:
        pm = err.problem_mark
        parts.append(f"{err.problem}" + (f" (line {pm.line + 1})" if pm is not None else ""))
    return "; ".join(parts) or " ".join(str(err).split())


def _key_of(lines: list[str], index: int) -> tuple[int, str]:
    """The line (0-based) and key of the field the text on line ``index`` belongs to: the line
    itself when it starts with ``key:``, else the nearest line above that is less indented."""
    if not 0 <= index < len(lines):
        return index, ""
    m = _KEY_LINE.match(lines[index])
    if m:
        return index, m.group("key")
    own = len(lines[index]) - len(lines[index].lstrip())
    for i in range(index - 1, -1, -1):
        text = lines[i]
        if not text.strip():
            continue
        indent = len(text) - len(text.lstrip())
        m = _KEY_LINE.match(text)
        if m and indent < own:
            return i, m.group("key")
    return index, ""


def _first_col(text: str) -> int:
    return len(text) - len(text.lstrip()) + 1


def _tab(lines: list[str], upto: int) -> _Found | None:
    """A line up to ``upto`` indented with a tab (the parser says nothing about tabs)."""
    for i, text in enumerate(lines[: upto + 1]):
        lead = text[: len(text) - len(text.lstrip(" \t"))]
        if "\t" in lead:
            _, key = _key_of(lines, i)
            return _Found(
                i + 1,
                lead.index("\t") + 1,
                key,
                "this line is indented with a tab: indent with spaces, not tabs "
                f"({_tab_fix(lines, i, text[len(lead) :])})",
            )
    return None


def _tab_fix(lines: list[str], index: int, rest: str) -> str:
    """What to type instead of the tab: the indentation of the line above when that line is
    of the same kind (another '- ' item, another field), else two spaces."""
    above = next((lines[j] for j in range(index - 1, -1, -1) if lines[j].strip()), "")
    if "\t" in above[: len(above) - len(above.lstrip())]:
        return "delete the tab and type two spaces"
    n = len(above) - len(above.lstrip(" "))
    if _strip_comment(above).rstrip().endswith(":"):  # the line opens what this one is in
        if n == 0:
            return "delete the tab and type two spaces"
        return f"delete the tab and type {_spaces(n + 2)}, two more than the line above"
    if above.lstrip().startswith("- ") == rest.startswith("- "):
        line = " " * n + rest
        return (
            f"delete the tab and start the line like the one above: {line.strip()}"
            if n == 0
            else f"delete the tab and type {_spaces(n)}, as on the line above"
        )
    return "delete the tab and type two spaces"


def _curly(lines: list[str], indices: list[int]) -> _Found | None:
    for i in indices:
        if 0 <= i < len(lines) and _CURLY.search(lines[i]):
            at, key = _key_of(lines, i)
            m = _CURLY.search(lines[i])
            col = m.start() + 1 if m else 1
            shown = f'{key}: "…"' if key else '"…"'
            return _Found(
                i + 1,
                col,
                key,
                "the value uses curly quotes (“ ” or ‘ ’), which YAML does not read as "
                f"quotes: replace them with straight ones, like {shown}",
            )
    return None


def _indent_trouble(lines: list[str], index: int) -> _Found | None:
    """A ``key:`` line indented unlike the lines around it: under a field that already has a
    value, or by a number of spaces no line above uses."""
    if not 0 <= index < len(lines):
        return None
    m = _KEY_LINE.match(lines[index])
    if not m or not m.group("indent") or lines[index].lstrip().startswith("-"):
        return None
    key, indent = m.group("key"), len(m.group("indent"))
    above = next(
        (
            i
            for i in range(index - 1, -1, -1)
            if lines[i].strip() and not lines[i].lstrip().startswith("#")
        ),
        None,
    )
    if above is None:
        return None
    pm = _KEY_LINE.match(lines[above])
    prev_indent = len(lines[above]) - len(lines[above].lstrip())
    rest = _strip_comment(pm.group("rest")) if pm else ""
    if pm and rest.strip() and prev_indent == 0 < indent:
        name = pm.group("key")
        return _Found(
            index + 1,
            1,
            key,
            f"this line is indented under {name}, which already has a value: if "
            f"{key} is a field of its own, remove the spaces before it; if the line "
            f"continues the {name}, put the whole {name} in quotes",
        )
    if prev_indent != indent:
        return _Found(
            index + 1,
            1,
            key,
            f"this line is indented by {_spaces(indent)} and the line above by "
            f"{_spaces(prev_indent)}: use the same number of spaces as the line above",
        )
    return None


def _strip_comment(text: str) -> str:
    """The value part of a line without a trailing `` # comment`` (outside quotes, roughly)."""
    m = re.search(r"\s#", text)
    return text[: m.start()] if m and text.count('"', 0, m.start()) % 2 == 0 else text


def _colon(lines: list[str], index: int, col: int) -> _Found | None:
    """``mapping values are not allowed here``: a value holding ``: `` or a line indented by
    mistake under a field that already has a value."""
    if not 0 <= index < len(lines):
        return None
    found = _indent_trouble(lines, index)
    if found is not None:
        return found
    line, key = _key_of(lines, index)
    if not key:
        return None
    item = lines[line].lstrip().startswith("-")
    what = f"the {key}" if not item else "this item"
    example = f'{key}: "…"' if not item else '- "…"'
    return _Found(
        line + 1,
        col if line == index else _first_col(lines[line]),
        key,
        f"{what} contains ': ' (a colon and a space), so put it in quotes: {example}",
    )


def _unclosed_above(lines: list[str], index: int) -> _Found | None:
    """A value above ``index`` whose opening quote is never closed on its line: the parser
    read on until the next quote, and stopped a few lines further down."""
    for i in range(index):
        m = _KEY_LINE.match(lines[i])
        value = m.group("rest").strip() if m else ""
        if value[:1] not in ("'", '"'):
            continue
        quote = value[0]
        inner = value.replace('\\"', "") if quote == '"' else value.replace("''", "")
        if inner.count(quote) % 2 == 1:
            return _Found(
                i + 1,
                len(lines[i]) - len(lines[i].lstrip()) + len(m.group("key")) + 3 if m else 1,
                m.group("key") if m else "",
                f"the quote ({quote}) that opens this value is never closed: end the "
                f"value with {quote} on the same line",
            )
    return None


def _quote_trouble(lines: list[str], index: int, col: int) -> _Found | None:
    """``did not find expected key``: text after a closing quote, mostly an apostrophe inside
    a single-quoted value (``title: 'Don't'``)."""
    if not 0 <= index < len(lines):
        return None
    line, key = _key_of(lines, index)
    text = lines[index]
    value = text.split(":", 1)[1].strip() if ":" in text else text.strip()
    if value.startswith("'"):
        return _Found(
            index + 1,
            col,
            key,
            "an apostrophe (') inside a value in single quotes ends it early: quote the "
            f'value with double quotes instead, like {key or "title"}: "Don\'t Stop", '
            "or write the apostrophe twice ('')",
        )
    if value.startswith('"'):
        return _Found(
            index + 1,
            col,
            key,
            'a double quote (") inside a value in double quotes ends it early: quote '
            f"the value with single quotes instead, like {key or 'title'}: '…', or "
            'write the inner quote as \\"',
        )
    if value.startswith(("{", "[")):
        return _Found(
            index + 1,
            col,
            key,
            f'a value starting with {value[0]} must be in quotes: {key or "title"}: "…"',
        )
    return None


def _no_space(lines: list[str], index: int) -> _Found | None:
    """``could not find expected ':'``: a ``-`` or ``:`` without the space YAML needs."""
    for i in (index, index - 1, index + 1):
        if not 0 <= i < len(lines):
            continue
        text = lines[i]
        m = _NO_SPACE_DASH.match(text)
        if m:
            return _Found(
                i + 1,
                _first_col(text),
                _key_of(lines, i)[1],
                f"put a space after '-': - {m.group('value').strip()}",
            )
        m = _NO_SPACE_COLON.match(text)
        if m:
            return _Found(
                i + 1,
                _first_col(text),
                m.group("key"),
                f"put a space after ':': {m.group('key')}: {m.group('value').strip()}",
            )
    return None


def _no_colon(lines: list[str], index: int) -> _Found | None:
    """A line with no ``field:`` in front of it, mostly the rest of the line above."""
    if not 0 <= index < len(lines) or ":" in lines[index]:
        return None
    above = next((i for i in range(index - 1, -1, -1) if lines[i].strip()), None)
    key = _key_of(lines, above)[1] if above is not None else ""
    joined = (
        f"if it continues the {key} on the line above, join the two lines (or put the whole {key} in quotes); "
        if key
        else ""
    )
    return _Found(
        index + 1,
        1,
        "",
        f"this line has no 'field:' in front of it: {joined}otherwise write it as field: value",
    )


def _start_char(lines: list[str], index: int, col: int) -> _Found | None:
    """``found character that cannot start any token``: a value starting with @, `, % or |."""
    if not 0 <= index < len(lines) or col - 1 >= len(lines[index]):
        return None
    ch = lines[index][col - 1]
    _, key = _key_of(lines, index)
    return _Found(
        index + 1,
        col,
        key,
        f"a value cannot start with {ch}: put the whole value in quotes, like "
        f'{key or "title"}: "{ch}…"',
    )


def _one_line_list(lines: list[str], index: int) -> _Found | None:
    line, key = _key_of(lines, index)
    noun = _singular(key) if key else "item"
    return _Found(
        line + 1,
        _first_col(lines[line]) if 0 <= line < len(lines) else 1,
        key,
        f"write {key or 'the field'}: alone on its line, then each {noun} on its own "
        "line starting with '- '",
    )


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") and len(name) > 3 else name


@dataclass(frozen=True)
class _Err:
    """What the parser said, in the terms the rules below read: the problem's and the context's
    lines (0-based), the problem's column (1-based) and the two texts."""

    lines: list[str]
    pi: int
    ci: int
    pcol: int
    problem: str
    context: str
    cm: Any


def _tab_at_problem(e: _Err) -> _Found | None:
    if 0 <= e.pi < len(e.lines) and e.lines[e.pi][e.pcol - 1 : e.pcol] == "\t":
        return _Found(
            e.pi + 1,
            e.pcol,
            _key_of(e.lines, e.pi)[1],
            "this line has a tab where YAML needs a space: replace the tab with one space",
        )
    return None


def _unclosed_quote(e: _Err) -> _Found:
    _, key = _key_of(e.lines, e.ci)
    cm = e.cm
    quote = e.lines[e.ci][cm.column] if cm is not None and cm.column < len(e.lines[e.ci]) else '"'
    return _Found(
        e.ci + 1,
        cm.column + 1 if cm is not None else 1,
        key,
        f"the quote ({quote}) that opens this value is never closed: end the value "
        f"with {quote} on the same line",
    )


def _bad_escape(e: _Err) -> _Found:
    _, key = _key_of(e.lines, e.pi)
    return _Found(
        e.pi + 1,
        e.pcol,
        key,
        "a backslash (\\) inside double quotes starts an escape code, and this one is not "
        f"a character: put the value in single quotes instead, like {key or 'title'}: '…', "
        "or write each backslash twice",
    )


def _unclosed_flow(e: _Err) -> _Found:
    _, key = _key_of(e.lines, e.ci)
    return _Found(
        e.ci + 1,
        1,
        key,
        f"the [ or {{ on this line is never closed: write {key or 'the field'}: "
        "alone on its line, then each item on its own line starting with '- ' "
        "(or put a text value in quotes)",
    )


def _indented_start(e: _Err) -> _Found | None:
    first = next((i for i, t in enumerate(e.lines) if t.strip() and t[:1] == " "), None)
    if first is None:
        return None
    return _Found(
        first + 1,
        1,
        _key_of(e.lines, first)[1],
        "this line starts with a space: start every field name at the very "
        "beginning of its line (only the lines inside a list or under a field "
        "are indented)",
    )


# The parser's error -> the rule that words it: (words in the problem, words in the context,
# rule); the first entry whose words both appear wins ("" matches anything).
_RULES: tuple[tuple[tuple[str, ...], str, Callable[[_Err], _Found | None]], ...] = (
    (("mapping values are not allowed",), "", lambda e: _colon(e.lines, e.pi, e.pcol)),
    (("end of stream",), "quoted scalar", _unclosed_quote),
    (("escape", "hexdecimal"), "quoted scalar", _bad_escape),
    (("block sequence entries are not allowed",), "", lambda e: _one_line_list(e.lines, e.pi)),
    (("",), "flow sequence", _unclosed_flow),
    (("",), "flow mapping", _unclosed_flow),
    (
        ("could not find expected ':'",),
        "",
        lambda e: _no_space(e.lines, e.ci) or _no_space(e.lines, e.pi) or _no_colon(e.lines, e.ci),
    ),
    (("document start",), "", _indented_start),
    (
        ("did not find expected key",),
        "",
        lambda e: (
            _unclosed_above(e.lines, e.pi)
            or _indent_trouble(e.lines, e.pi)
            or _quote_trouble(e.lines, e.pi, e.pcol)
        ),
    ),
    (
        ("cannot start any token", "undefined alias"),
        "",
        lambda e: _start_char(e.lines, e.pi, e.pcol),
    ),
)


def _lookalike_after_colon(lines: list[str], indices: list[int]) -> _Found | None:
    """``title:`` followed by a no-break (or other look-alike) space: YAML needs a plain one
    after the colon, so the whole line is read as one key with no value."""
    for i in indices:
        if not 0 <= i < len(lines):
            continue
        m = re.match(
            r"^(?P<indent>[ \t]*(?:-[ \t]+)?)(?P<key>[A-Za-z_][\w-]*):(?P<odd>[^\S\n]?)", lines[i]
        )
        odd = m.group("odd") if m else ""
        if m and odd in LOOKALIKE_SPACES:
            fixed = lines[i][: m.end("key") + 1] + " " + lines[i][m.end() :].lstrip()
            return _Found(
                i + 1,
                m.end("key") + 1,
                m.group("key"),
                (
                    f"the space after '{m.group('key')}:' is {LOOKALIKE_SPACES[odd]} "
                    f"(U+{ord(odd):04X}), which YAML does not read as a space: retype it as a plain "
                    f"space: {fixed.strip()}"
                ),
            )
    return None


# Colons an input method types instead of ':' (full-width, ratio, modifier letter).
LOOKALIKE_COLONS = {
    "\uff1a": "a full-width colon",
    "\u2236": "a ratio sign",
    "\ua789": "a modifier letter colon",
    "\ufe55": "a small colon",
}


def _lookalike_colon(lines: list[str], indices: list[int]) -> _Found | None:
    """``title：`` (an input method's colon): YAML sees no field name on the line."""
    for i in indices:
        if not 0 <= i < len(lines):
            continue
        m = re.match(
            r"^(?P<indent>[ \t]*(?:-[ \t]+)?)(?P<key>[A-Za-z_][\w-]*)[ \t]*(?P<odd>\S)", lines[i]
        )
        if m and m.group("odd") in LOOKALIKE_COLONS:
            odd = m.group("odd")
            fixed = lines[i][: m.end("key")] + ": " + lines[i][m.end() :].lstrip()
            return _Found(
                i + 1,
                m.start("odd") + 1,
                m.group("key"),
                (
                    f"the colon after '{m.group('key')}' is {LOOKALIKE_COLONS[odd]} ({odd}, "
                    f"U+{ord(odd):04X}), which YAML does not read as one: type a plain colon and a "
                    f"space: {fixed.strip()}"
                ),
            )
    return None


def _folded_start(lines: list[str], index: int) -> _Found | None:
    """``title: >Relay``: a value starting with > or | is read as the start of a block."""
    if not 0 <= index < len(lines):
        return None
    m = _KEY_LINE.match(lines[index])
    rest = m.group("rest").strip() if m else ""
    if not m or rest[:1] not in (">", "|") or len(rest) < 2 or rest[1:2] in " -+":
        return None
    value = rest.replace("\\", "\\\\").replace('"', '\\"')
    return _Found(
        index + 1,
        len(m.group("indent")) + 1,
        m.group("key"),
        (
            f"a value starting with {rest[0]} must be in quotes (YAML reads {rest[0]} as the start "
            f'of a block of lines): {m.group("key")}: "{value}"'
        ),
    )


def _tex_in_single_quotes(lines: list[str], index: int, col: int) -> _Found | None:
    """``'Caf{\\'e}'``: a TeX accent's apostrophe ends a value in single quotes."""
    if not 0 <= index < len(lines) or "\\'" not in lines[index]:
        return None
    m = _KEY_LINE.match(lines[index])
    if not m or not m.group("rest").strip().startswith("'"):
        return None
    from_tex = plain_text(m.group("rest").strip()[1:].rsplit("'", 1)[0].replace("''", "'"))
    return _Found(
        index + 1,
        col,
        m.group("key"),
        (
            f"\\' is TeX's acute accent, and its apostrophe ends a value in single quotes: write "
            f'the accented letter itself: {m.group("key")}: "{from_tex}"'
        ),
    )


# A link written as Markdown (an awesome list's README line): `- [Paper](https://...)`.
_MARKDOWN_LINK = re.compile(r"^(?P<lead>\s*-\s+|\s*[A-Za-z_]\w*:\s+)\[[^\]]*\]\((?P<url>https?://[^\s)]+)\)\s*$")


def _markdown_link(lines: list[str], indices: list[int]) -> _Found | None:
    for index in indices:
        if not 0 <= index < len(lines):
            continue
        m = _MARKDOWN_LINK.match(_strip_comment(lines[index]))
        if m is not None:
            return _Found(index + 1, len(m.group("lead")) + 1, "", (
                "this line is a link written in Markdown ([text](address)), which YAML does not "
                f"read: write the address alone: {m.group('lead').strip()} {m.group('url')}"))
    return None


def _explain(err: Any, lines: list[str]) -> _Found | None:
    pm = err.problem_mark
    pi = pm.line if pm is not None else 0
    cm = err.context_mark
    e = _Err(
        lines,
        pi,
        cm.line if cm is not None else pi,
        pm.column + 1 if pm is not None else 1,
        str(err.problem or ""),
        str(err.context or ""),
        cm,
    )
    # Tabs and curly quotes first: they are what the parser trips over, whatever it says.
    found = (
        _tab(lines, max(e.pi, e.ci)) or _tab_at_problem(e) or _curly(lines, sorted({e.ci, e.pi}))
    )
    if found is not None:
        return found
    found = (
        _lookalike_after_colon(lines, sorted({e.ci, e.pi, e.ci - 1}))
        or _lookalike_colon(lines, sorted({e.ci, e.pi, e.ci - 1}))
        or _folded_start(lines, e.pi)
        or _tex_in_single_quotes(lines, e.pi, e.pcol)
        or _markdown_link(lines, sorted({e.ci, e.pi, e.pi - 1}))
    )
    if found is not None:
        return found
    for problem_words, context_words, rule in _RULES:
        if context_words in e.context and any(w in e.problem for w in problem_words):
            return rule(e)
    return None


def syntax_problem(text: str, err: Any, rel: str) -> Problem:
    """One problem for a YAML syntax error: the fix in plain words at the line to change, the
    parser's own message on a second, indented line."""
    lines = text.splitlines()
    found = _explain(err, lines)
    raw = _raw(err)
    if found is None:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        _, key = _key_of(lines, line - 1)
        found = _Found(
            line,
            col,
            key,
            "this line is not valid YAML: check its quotes, colons and indentation "
            "against the lines around it (put a value holding : # ' or \" in quotes)",
        )
    return Problem(rel, found.line, found.col, found.field, f"{found.message}\n{PARSER_LINE}{raw}")


def _spaces(n: int) -> str:
    return f"{n} space{'s' if n != 1 else ''}"
