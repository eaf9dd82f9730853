"""One JSON Schema validator for records and configuration files: jsonschema-rs answers
"valid?", jsonschema lists the errors of what it calls invalid.

Almost every file a run checks is valid, and answering that is where the time went: jsonschema
took 0.52 ms per record of this survey against 0.004 ms for jsonschema-rs (the in-process
`survey validate` of the real corpus spent half its CPU there; benchmarks/speed-machinery.md).
Only a file the answer calls invalid pays for jsonschema's error list, which the explainer turns
into messages, so the messages are exactly what they were.

The two must never disagree in the one direction that would let a mistake through (jsonschema-rs
calling valid what jsonschema calls invalid). Their regular expressions differ: Python's ``\\s``
is ``str.isspace`` (it includes U+001C-U+001F, which Unicode's White_Space does not), so the
copy of the schema jsonschema-rs compiles spells ``\\s``/``\\S`` out as Python's class. A ``$``
is stricter in Rust (no match before a final newline); that direction only costs the error
listing, which then finds nothing. tests/unit/core/test_schema_validator.py holds the two together
on every valid and invalid example of the test data, the hostile inputs and generated text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cached_property
from typing import Any

import jsonschema_rs

# Python's \s (str.isspace), as members of a character class: the characters themselves (none
# is special in a class), so no escape syntax has to agree. Written out because finding them
# takes 0.1 s, every start of the CLI; a test compares it with str.isspace over all of Unicode.
SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


class _Untranslatable(Exception):
    pass


def python_pattern_for_rust(pattern: str) -> str:
    """``pattern`` with ``\\s`` and ``\\S`` spelt out as Python's whitespace class, so that
    jsonschema-rs matches what Python's ``re`` matches; other escapes are left alone."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "s":
                out.append(SPACES if in_class else f"[{SPACES}]")
            elif nxt == "S":
                if in_class:  # a negated class inside a class has no plain spelling
                    raise _Untranslatable(pattern)
                out.append(f"[^{SPACES}]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            # A ']' right after '[' or '[^' is a literal member, not the end of the class.
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                out.append("]")
                i += 1
        elif ch == "]" and in_class:
            in_class = False
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _for_rust(node: Any) -> Any:
    if isinstance(node, Mapping):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                out[key] = python_pattern_for_rust(value)
            elif key == "patternProperties" and isinstance(value, Mapping):
                out[key] = {python_pattern_for_rust(k): _for_rust(v) for k, v in value.items()}
            else:
                out[key] = _for_rust(value)
        return out
    if isinstance(node, list):
        return [_for_rust(v) for v in node]
    return node


class SchemaValidator:
    """``is_valid`` and ``iter_errors`` of a Draft 2020-12 schema (see the module's docstring)."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        try:
            self.answering: Any = jsonschema_rs.validator_for(_for_rust(schema))
        except (_Untranslatable, ValueError):
            # A pattern only Python's re understands: jsonschema answers too (slower, same result).
            self.answering = None

    @cached_property
    def explaining(self) -> Any:
        """jsonschema's validator, made when a file is first called invalid: importing jsonschema
        took 76 ms of every command's start, and a run of valid files never needs it."""
        import jsonschema  # heavy (76 ms) and needed only to explain an invalid file

        return jsonschema.Draft202012Validator(self.schema)

    def is_valid(self, data: Any) -> bool:
        if self.answering is not None:
            try:
                return bool(self.answering.is_valid(data))
            except (ValueError, TypeError, OverflowError):
                pass  # a value JSON has no word for (an integer key, a huge number): ask jsonschema
        return bool(self.explaining.is_valid(data))

    def iter_errors(self, data: Any) -> Iterator[Any]:
        return self.explaining.iter_errors(data)
