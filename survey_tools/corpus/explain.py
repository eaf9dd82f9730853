"""Messages a person can act on, from JSON Schema errors: one ``file:line:col: key: message`` each.

Shared by the record checks (:mod:`survey_tools.corpus.checks`) and the configuration checks
(:mod:`survey_tools.corpus.configs`): the nearest valid value (``did you mean``), value types in
plain words, values cut short so that one problem stays one line, and a schema's own wording of
a rule where it gives one (``x-messages``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import Problem


def show(value: object, limit: int = 60) -> str:
    """A value as messages print it: long values are cut so that one problem stays one line."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def suggest(value: object, choices: Iterable[str]) -> str | None:
    """The nearest valid value, by case-insensitive then fuzzy match."""
    if not isinstance(value, str):
        return None
    choices = list(choices)
    low = {c.lower(): c for c in choices}
    if value.lower() in low:
        return low[value.lower()]
    norm = {re.sub(r"[^a-z0-9]", "", c.lower()): c for c in choices}
    key = re.sub(r"[^a-z0-9]", "", value.lower())
    if key and key in norm:
        return norm[key]
    match = difflib.get_close_matches(value.lower(), list(low), n=1, cutoff=0.6)
    return low[match[0]] if match else None


def hint(value: object, choices: Iterable[str]) -> str:
    s = suggest(value, choices)
    return f" (did you mean {s!r}?)" if s else ""


def nearest(value: object, choices: Sequence[str], n: int = 3) -> list[str]:
    """The ``n`` choices closest to ``value`` (case- and punctuation-insensitive similarity)."""
    if not isinstance(value, str):
        return list(choices[:n])
    key = re.sub(r"[^a-z0-9]", "", value.lower())

    def score(choice: str) -> float:
        other = re.sub(r"[^a-z0-9]", "", choice.lower())
        return difflib.SequenceMatcher(None, key, other).ratio()

    return sorted(choices, key=lambda c: (-score(c), choices.index(c)))[:n]


def nearest_words(value: object, choices: Sequence[str], noun: str) -> str:
    """`` (did you mean 'x'?)`` for a near miss; otherwise the three nearest values and how a new
    value comes in when none fits (never every allowed value: a list of 50 helps nobody)."""
    choices = list(choices)
    best = suggest(value, choices)
    if best:
        return f" (did you mean {best!r}?)"
    if len(choices) <= 3:
        return f" (choose one of: {', '.join(choices)})"
    return (f" (the nearest are {', '.join(nearest(value, choices))}; CONTRIBUTING.md lists all "
            f"{len(choices)}, and if none fits, say so in the pull request: a maintainer adds a "
            f"new {noun} to the taxonomy)")


# `^[first][rest]{m,n}$`: the shape of every id pattern `survey init` and this survey write.
_SIMPLE_ID = re.compile(r"^\^\[([^\]]+)\]\[([^\]]+)\]\{\d+,\d+\}\$$")
_CHAR_NAMES = {"-": "hyphens", ".": "dots", "_": "underscores"}


def id_words(pattern: str) -> str | None:
    """The characters an id pattern allows, in words ("lower-case letters, digits and
    hyphens"), or None for a pattern of another shape. Contributors are never shown the
    regular expression itself."""
    m = _SIMPLE_ID.match(pattern)
    if m is None:
        return None
    cls = m.group(2)
    parts = []
    if "a-z" in cls and "A-Z" in cls:
        parts.append("letters")
    elif "a-z" in cls:
        parts.append("lower-case letters")
    elif "A-Z" in cls:
        parts.append("capital letters")
    if "0-9" in cls:
        parts.append("digits")
    for ch in cls.replace("a-z", "").replace("A-Z", "").replace("0-9", ""):
        if ch not in _CHAR_NAMES:
            return None
        parts.append(_CHAR_NAMES[ch])
    if not parts:
        return None
    return ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else parts[0]


def dotted(path: Sequence[Any]) -> str:
    return ".".join(str(p) for p in path)


def describe_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "empty" if value is None else type(value).__name__


TYPE_NAMES = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "empty",
}


def type_words(want: Any) -> str:
    if isinstance(want, str):
        return TYPE_NAMES.get(want, want)
    return " or ".join(TYPE_NAMES.get(w, str(w)) for w in want)


class SchemaExplainer:
    """Turns the errors of a JSON Schema validator into one :class:`Problem` each."""

    def __init__(self, doc: YamlDocument, rel: str) -> None:
        self.doc = doc
        self.rel = rel

    def problem(self, path: Sequence[Any], message: str, key: bool = False,
                field: str | None = None) -> Problem:
        line, col = self.doc.position(tuple(path), key=key)
        return Problem(self.rel, line, col, field if field is not None else dotted(path), message)

    def explain(self, err: Any) -> list[Problem]:
        path = list(err.absolute_path)
        v = err.validator
        inst = err.instance
        # A schema may word the failure of one of its keywords itself: `x-messages: {keyword:
        # message}` beside the keyword (a rule such as "the paper's words need `value`", which
        # a generic "required key is missing" would not explain).
        own = err.schema.get("x-messages") if isinstance(err.schema, dict) else None
        if isinstance(own, dict) and v in own:
            return [self.problem(path, str(own[v]))]
        if v in ("anyOf", "oneOf"):
            return self.any_of(err)
        if v == "required":
            missing = [m for m in err.validator_value if not isinstance(inst, dict) or m not in inst]
            return [self.problem(path, "required key is missing", field=dotted([*path, m]))
                    for m in missing]
        if v == "additionalProperties":
            props = err.schema.get("properties") or {}
            extras = [k for k in inst if k not in props] if isinstance(inst, dict) else []
            return [self.problem([*path, k], "unknown key" + hint(str(k), list(props)), key=True)
                    for k in extras]
        if v == "enum":
            choices = [str(c) for c in err.validator_value]
            if len(choices) > 6:  # never every value of a long list: the nearest, and where all are
                near = suggest(inst, choices)
                shown = f"did you mean {near!r}?" if near else f"the nearest are {', '.join(nearest(inst, choices))}"
                return [self.problem(path, f"{show(repr(inst))} is not one of the {len(choices)} "
                                           f"allowed values ({shown}; taxonomy/README.md lists them all)")]
            return [self.problem(path, f"{show(repr(inst))} is not one of {', '.join(choices)}"
                                 f"{hint(inst, choices)}")]
        if v == "type":
            return [self.problem(path, f"expected {type_words(err.validator_value)}, "
                                       f"got {describe_type(inst)}")]
        if v == "pattern":
            return [self.problem(path, f"{show(repr(inst))} does not match {err.validator_value}")]
        if v in ("minItems", "minLength", "minProperties"):
            return [self.problem(path, "must not be empty")]
        if v == "maxProperties":
            return [self.problem(path, f"has {len(inst)} entries; at most {err.validator_value} allowed")]
        if v == "uniqueItems":
            return [self.problem(path, "values must not repeat")]
        if v == "minimum":
            return [self.problem(path, f"{show(inst)} is below the minimum {err.validator_value}")]
        if v == "maximum":
            return [self.problem(path, f"{show(inst)} is above the maximum {err.validator_value}")]
        return [self.problem(path, err.message)]

    def any_of(self, err: Any) -> list[Problem]:
        """Explain the branch whose shape fits the value (the first one failing deeper down)."""
        path = list(err.absolute_path)
        by_branch: dict[int, list[Any]] = {}
        for sub in err.context or []:
            by_branch.setdefault(sub.schema_path[0], []).append(sub)
        for subs in by_branch.values():
            if any(s.validator in ("type", "enum") and list(s.absolute_path) == path for s in subs):
                continue
            out: list[Problem] = []
            for s in subs:
                out.extend(self.explain(s))
            return out
        wants = []
        for subs in by_branch.values():
            for s in subs:
                if s.validator == "type":
                    wants.append(type_words(s.validator_value))
                elif s.validator == "enum":
                    wants.append(" or ".join(repr(x) for x in s.validator_value))
        want = " or ".join(dict.fromkeys(wants)) or "another value"
        return [self.problem(path, f"expected {want}, got {show(repr(err.instance))}")]
