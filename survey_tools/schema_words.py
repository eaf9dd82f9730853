"""The one explainer: a JSON Schema error in the words of whoever wrote the file.

Records (:mod:`survey_tools.corpus.checks`), configuration files (:mod:`survey_tools.corpus.configs`),
traces (:mod:`survey_tools.traces.validate`, :mod:`survey_tools.traces.survey_v1`) and trace rules
files (:mod:`survey_tools.traces.importers.frameworks`) hand their validator's errors here, and
nowhere else is an error read by its keyword (``tests/unit/architecture/test_statements.py``).

* :data:`KEYWORDS` is the table: for each JSON Schema keyword, the rule that explains it, its
  message templates and where its ``did you mean`` comes from.
* A :class:`Vocabulary` is what the caller knows and this module does not: the survey's words
  (field nouns, the ``untagged`` sentinel, identifier labels, the conditions of its schema), all
  of it data read from ``taxonomy/``, or a file format's own wording (templates, type names).
  Nothing here is about one survey.
* :func:`failure` reads an error of either validator the toolkit runs (jsonschema, which
  explains records and configuration, and jsonschema-rs, which checks traces) into one
  :class:`Failure`; :meth:`Explainer.explain` turns it into :class:`Said` lines, which the caller
  places at its file's line (:func:`problems`) or JSON path.

A schema may also word one of its rules itself, beside the keyword: ``x-messages: {keyword:
message}``.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from survey_tools.errors import Problem

# ---------------------------------------------------------------------------
# values and near misses in words


def show(value: object, limit: int = 60) -> str:
    """A value as messages print it: long values are cut so that one problem stays one line."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def json_short(value: Any, width: int = 60) -> str:
    """A value as JSON writes it (a string in quotes), cut at ``width`` characters."""
    if isinstance(value, str):
        text = repr(value if len(value) <= width else value[:width])
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= width + 2 else text[:width] + "…"


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
    return (
        f" (the nearest are {', '.join(nearest(value, choices))}; CONTRIBUTING.md lists all "
        f"{len(choices)}, and if none fits, say so in the pull request: a maintainer adds a "
        f"new {noun} to the taxonomy)"
    )


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


def value_kind(value: object) -> str:
    """What a value is, as a key of :attr:`Vocabulary.value_kinds`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number" if math.isfinite(value) else "nonfinite"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "other"


# What a value is, for people writing YAML (the default); a JSON format names its own.
VALUE_KINDS = {
    "null": "empty",
    "boolean": "a boolean",
    "integer": "a number",
    "number": "a number",
    "nonfinite": "a number",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
}

# What a JSON type is, for people writing YAML (the default).
TYPE_NAMES = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "empty",
}


def describe_type(value: object, kinds: Mapping[str, str] = VALUE_KINDS) -> str:
    kind = value_kind(value)
    return kinds.get(kind, type(value).__name__)


def type_words(want: Any, names: Mapping[str, str] = TYPE_NAMES) -> str:
    if isinstance(want, str):
        return names.get(want, want)
    return " or ".join(names.get(str(w), str(w)) for w in want)


def few(values: Sequence[str], sep: str = ", ") -> str:
    """Values of a shape description: all of a short list, the first three of a long one."""
    if len(values) <= 5:
        return sep.join(values)
    return f"{sep.join(values[:3])}{sep}… ({len(values)} in all)"


def noun(name: str) -> str:
    """One item of a list field, as a sentence names it (authors -> author, links -> link)."""
    return name[:-1] if name.endswith("s") and len(name) > 3 else "value"


def clip(value: str, limit: int = 80) -> str:
    """A long value shortened for a message (the message must stay one readable line)."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


# ---------------------------------------------------------------------------
# fixes said as what to type (for files people write by hand)

# The words people write for yes and no (YAML 1.1's booleans, and quoted true/false): the
# boolean each one means, so the fix keeps what was written.
BOOLEAN_WORDS = {
    **dict.fromkeys(("yes", "y", "on", "true", "1"), True),
    **dict.fromkeys(("no", "n", "off", "false", "0"), False),
}

_SLASHED_DATE = re.compile(r"^\s*([0-9]{1,2})[/.-]([0-9]{1,2})[/.-]([0-9]{4})\s*$")


def date_words(name: str, inst: object) -> str:
    """A date not written year-month-day, with the date to write where the order can be told
    from what was written (a day above 12), and both readings where it cannot (01/06/2026)."""
    head = (
        f"{show(repr(inst))} is not a date: write the year, month and day with hyphens, in quotes"
    )
    m = _SLASHED_DATE.match(inst) if isinstance(inst, str) else None
    if m is None:
        return f"{head}, like {name}: '2026-01-31'"
    a, b, year = int(m.group(1)), int(m.group(2)), m.group(3)
    readings = [(d, mo) for d, mo in ((a, b), (b, a)) if 1 <= mo <= 12 and 1 <= d <= 31]
    if len(set(readings)) == 1:
        d, mo = readings[0]
        return f"{head}: {name}: '{year}-{mo:02d}-{d:02d}'"
    if len(readings) == 2:
        (d1, m1), (d2, m2) = readings
        return (
            f"{head}: {name}: '{year}-{m1:02d}-{d1:02d}' if {a:02d} is the day, "
            f"'{year}-{m2:02d}-{d2:02d}' if it is the month"
        )
    return f"{head}, like {name}: '2026-01-31'"


def url_words(link: str) -> str:
    """Why a link is not a well-formed http(s) URL, with the address to write where it is a
    bare host and path (``arxiv.org/abs/...``)."""
    if link.strip().endswith("://"):
        return f"{clip(link)!r} is only the start of an address: write the whole address of the work's page"
    if "://" not in link and "." in link.split("/", 1)[0] and " " not in link.strip():
        return (
            f"{clip(link)!r} is missing its start: write the whole address, https://{link.strip()}"
        )
    return f"{clip(link)!r} is not a well-formed http(s) URL"


def _mapping_or_boolean(name: str, wants: list[str], inst: object) -> str | None:
    """A mapping written as a list or a scalar; a yes/no word where true or false goes (the
    boolean the word means, so the fix keeps what was written)."""
    if (
        "object" in wants
        and isinstance(inst, list)
        and inst
        and all(isinstance(i, dict) for i in inst)
    ):
        first = next(iter(inst[0]), "…")
        return (
            f"remove the '- ' before {first}: what {name} holds is written as name: value "
            f"lines indented by two spaces under '{name}:', not as a list"
        )
    if "object" in wants and not isinstance(inst, dict):
        return (
            f"write what {name} holds on the lines below '{name}:', each indented by two "
            f"spaces (see the template in CONTRIBUTING.md)"
        )
    if "boolean" in wants:
        word = str(inst).strip().lower() if isinstance(inst, str | int) else ""
        if word in BOOLEAN_WORDS:
            value = "true" if BOOLEAN_WORDS[word] else "false"
            return f"write {value} (without quotes) for {show(repr(inst))}: {name}: {value}"
        return f"write true or false (without quotes), like {name}: true"
    return None


def type_fix(path: Sequence[Any], want: Any, inst: object, label: str | None = None) -> str | None:
    """A value of the wrong kind, said as what to type: people writing YAML by hand meet the
    types only through these mistakes (a list on one line, a quoted year, an unquoted id)."""
    name = str(path[-1]) if path else "value"
    wants = [want] if isinstance(want, str) else list(want)
    if "array" in wants and not isinstance(inst, list) and inst is not None:
        item = noun(name)
        return (
            f"write each {item} on its own line starting with '- ' ({name}: alone on its "
            f"line, then one '- ' line per {item})"
        )
    if "integer" in wants and isinstance(inst, str) and inst.strip().isdigit():
        return f"write the {name} as a number, without quotes: {name}: {show(inst.strip(), 12)}"
    if "integer" in wants and isinstance(inst, str):
        return f"write the {name} as a number, without quotes, like {name}: 2025"
    if "string" in wants and isinstance(inst, int) and not isinstance(inst, bool) and not label:
        return f"put the {name} in quotes, so YAML reads it as text, not a number: {name}: '{inst}'"
    if "string" in wants and isinstance(inst, int | float) and not isinstance(inst, bool):
        return (
            f"put the {label or name} in quotes, like {name}: '…' (without quotes YAML reads "
            f"it as a number, and drops zeros at the end)"
        )
    if "string" in wants and inst is None:
        return f"fill in the {name} after '{name}:' (in quotes: {name}: \"…\"), or remove the line if it is optional"
    if "string" in wants and isinstance(inst, list | dict):
        return f"write the {name} as text on the same line as '{name}:', not as a list or on lines below"
    return _mapping_or_boolean(name, wants, inst)


@dataclass(frozen=True)
class IdWords:
    """A collection's id: its field, its pattern and the folder of its files."""

    field: str
    pattern: str
    folder: str


def key_words(ids: IdWords, value: str, head: str, rename: bool = False) -> str:
    """Why a file name or id is refused, in words: the pattern is never shown (nobody who
    writes a record reads regular expressions), a corrected name is, when one can be made."""
    fixed = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:80]
    words = id_words(ids.pattern)
    if fixed and words and re.match(ids.pattern, fixed):
        to = f" (rename the file to {fixed}.yaml and write {ids.field}: {fixed})" if rename else ""
        return f"{head}: use {words}, like {fixed}{to}"
    return (
        f"{head}: name it like the other files in {ids.folder}/ (the survey command that "
        f"writes such records chooses the name for you)"
    )


# ---------------------------------------------------------------------------
# the vocabulary: what the caller knows


@dataclass(frozen=True)
class Choices:
    """A controlled field in words: its noun, its kind (``single``, ``multi`` or ``mapping``
    from values to modes), its values, its modes, and whether it may be not applicable."""

    noun: str
    kind: str
    ids: tuple[str, ...]
    mode_ids: tuple[str, ...] = ()
    not_applicable: bool = False
    # What to write instead of "choose …", where a list of values is not the help (a field
    # that places readings gives an example line to copy); empty for the usual list.
    example: str = ""


@dataclass(frozen=True)
class Vocabulary:
    """The words of one kind of file. All of it is data its caller supplies: for records, from
    the survey's taxonomy (corpus/checks.record_vocabulary); for configuration files, nothing
    beyond the defaults; for traces, the format's own wording (traces/validate.TRACE_WORDS)."""

    # Message templates by name (``keyword`` or ``keyword.variant``, see KEYWORDS), replacing
    # the table's default wording; ``keyword.<field type>`` words a keyword for one field type.
    templates: Mapping[str, str] = field(default_factory=dict)
    # The keywords this vocabulary words; any other is said in the validator's own sentence
    # (the ``fallback`` template). None: every keyword of the table.
    worded: frozenset[str] | None = None
    type_names: Mapping[str, str] = field(default_factory=lambda: TYPE_NAMES)
    value_kinds: Mapping[str, str] = field(default_factory=lambda: VALUE_KINDS)
    json_values: bool = False  # values shown as JSON writes them (traces), not as Python's repr
    say_the_fix: bool = False  # a wrong type said as what to type (people writing YAML by hand)
    keys_together: bool = False  # several unknown keys of one mapping said on one line
    blank_said_elsewhere: bool = False  # an empty string's length is another check's to say
    # A schema's own wording (``x-messages``) said where it gives one. Records keep their
    # what-to-type wording (tests/data/records pins it), so the generated schema's is not said.
    schema_wording: bool = True
    untagged: str = ""  # the sentinel of a value not yet chosen
    not_applicable: str = ""  # the sentinel of a field that does not apply
    choices: Mapping[str, Choices] = field(default_factory=dict)  # controlled fields by name
    field_types: Mapping[str, str] = field(default_factory=dict)  # other fields: their type
    identifier_labels: Mapping[str, str] = field(default_factory=dict)  # kind -> "arXiv id"
    # An identifier kind -> its normal form of a value (or None): the did-you-mean of a
    # malformed id (the caller's parser, e.g. an arXiv id without its version).
    normal_forms: Mapping[str, Callable[[str], str | None]] = field(default_factory=dict)
    # An identifier kind -> how its normal form is offered (``{normal}``, ``{kind}``).
    normal_tips: Mapping[str, str] = field(default_factory=dict)
    # The caller's rule for invisible and look-alike characters in a key (a key glued to one).
    clean_key: Callable[[str], str] | None = None
    ids: IdWords | None = None  # the collection's id (records)
    conditions: tuple[str, ...] = ()  # the descriptions of the schema's allOf entries
    pattern_words: Mapping[str, str] = field(default_factory=dict)  # last key -> its rule in words


# ---------------------------------------------------------------------------
# one failure, from either validator


@dataclass(frozen=True)
class Failure:
    """One schema error, whichever library found it."""

    keyword: str
    path: tuple[Any, ...]  # where the value is
    instance: Any  # the value
    expected: Any  # the keyword's value in the schema (a type, the allowed values, a limit)
    message: str  # the library's own sentence
    schema: Mapping[str, Any] = field(default_factory=dict)  # the schema holding the keyword
    schema_path: tuple[Any, ...] = ()
    keys: tuple[str, ...] = ()  # required: the missing keys; additionalProperties: the extra ones
    context: tuple[Failure, ...] = ()  # anyOf/oneOf: each branch's failures


def failure(err: Any) -> Failure:
    """A jsonschema ``ValidationError`` or a jsonschema-rs ``ValidationError`` as a Failure."""
    kind = getattr(err, "kind", None)
    if kind is not None and not hasattr(err, "validator"):  # jsonschema-rs
        keyword = str(getattr(kind, "name", "") or type(kind).__name__)
        keyword = keyword[:1].lower() + keyword[1:]
        expected = getattr(kind, "value", None)
        keys: tuple[str, ...] = ()
        if keyword == "required":
            keys = (str(expected),)
        elif keyword == "additionalProperties":
            keys = tuple(str(k) for k in expected or ())
        return Failure(
            keyword,
            tuple(err.instance_path),
            err.instance,
            expected,
            str(err.message),
            schema_path=tuple(err.schema_path),
            keys=keys,
        )
    inst = err.instance
    schema = err.schema if isinstance(err.schema, dict) else {}
    keys = ()
    if err.validator == "required":
        keys = tuple(m for m in err.validator_value if not isinstance(inst, dict) or m not in inst)
    elif err.validator == "additionalProperties" and isinstance(inst, dict):
        keys = tuple(k for k in inst if k not in (schema.get("properties") or {}))
    return Failure(
        str(err.validator),
        tuple(err.absolute_path),
        inst,
        err.validator_value,
        str(err.message),
        schema,
        tuple(err.schema_path),
        keys,
        tuple(failure(e) for e in err.context or ()),
    )


@dataclass(frozen=True)
class Said:
    """One line to say: where (the value's path, or its key's), under which field, what."""

    path: tuple[Any, ...]
    field: str
    message: str
    key: bool = False


# ---------------------------------------------------------------------------
# the table


@dataclass(frozen=True)
class Keyword:
    """How one JSON Schema keyword is explained: the rule (a method of Explainer), its
    templates by variant ("" the plain one) and where its did-you-mean comes from."""

    rule: str
    templates: Mapping[str, str]
    # Where the did-you-mean comes from: "values", the nearest allowed value; "keys", the
    # nearest known key; "modes", the nearest mode of a mapping field (the vocabulary's); "" none.
    near: str


KEYWORDS: dict[str, Keyword] = {
    "required": Keyword(
        "missing",
        {
            "": "required key is missing",
        },
        "",
    ),
    "additionalProperties": Keyword(
        "unknown_keys",
        {
            "": "unknown key",
            "near": "unknown key (did you mean {near!r}?)",
            "value": "{key!r} is not a {noun}{hint}",
            "together": "unknown field(s): {keys}",
        },
        "keys",
    ),
    "enum": Keyword(
        "not_in_enum",
        {
            "": "{value} is not one of {choices}{hint}",
            "long": "{value} is not one of the {count} allowed values ({shown}; taxonomy/README.md "
            "lists them all)",
            "untagged": "not yet tagged (choose {choose})",
            "truth": "YAML reads {truth} as a truth value, not the word {word}: write {name}: '{word}'",
        },
        "values",
    ),
    "type": Keyword("wrong_type", {"": "expected {want}, got {got}"}, ""),
    "pattern": Keyword("no_match", {"": "{value} does not match {pattern}"}, ""),
    "format": Keyword("plain", {"": "{value} is not a valid {expected}"}, ""),
    "const": Keyword("plain", {"": "expected {expected_json}, got {value}"}, ""),
    "minimum": Keyword("bounds", {"": "{shown} is below the minimum {limit}"}, ""),
    "exclusiveMinimum": Keyword("bounds", {"": "{shown} is not above {limit}"}, ""),
    "maximum": Keyword("bounds", {"": "{shown} is above the maximum {limit}"}, ""),
    "exclusiveMaximum": Keyword("bounds", {"": "{shown} is not below {limit}"}, ""),
    "minLength": Keyword("length", {"": "must not be empty", "empty": "must not be empty"}, ""),
    "maxLength": Keyword("length", {"": "{message}"}, ""),
    "minItems": Keyword("plain", {"": "must not be empty"}, ""),
    "maxItems": Keyword("plain", {"": "has {size} items; at most {limit} allowed"}, ""),
    "minProperties": Keyword("plain", {"": "must not be empty"}, ""),
    "maxProperties": Keyword("plain", {"": "has {size} entries; at most {limit} allowed"}, ""),
    "uniqueItems": Keyword("plain", {"": "values must not repeat"}, ""),
    "not": Keyword(
        "negated", {"": "{message}", "untagged": "not yet tagged (required {why}{choose})"}, ""
    ),
    "anyOf": Keyword(
        "branches",
        {
            "": "expected {want}, got {value}",
            "mode": "{value} is not a {noun} mode{hint}",
        },
        "modes",
    ),
    "oneOf": Keyword("branches", {"": "expected {want}, got {value}"}, ""),
}

FALLBACK = "{message}"


def _format(template: str, facts: Mapping[str, Any]) -> str:
    return template.format_map(facts)


class Explainer:
    """Explains the failures of one file in the words of one :class:`Vocabulary`."""

    def __init__(self, words: Vocabulary | None = None) -> None:
        self.words = words or Vocabulary()
        # Fields an unknown key was meant to be (a typo, an invisible character): the caller
        # does not also say they are missing.
        self.meant: set[str] = set()

    # -- wording ----------------------------------------------------------------
    def template(self, keyword: str, variant: str = "", field_type: str = "") -> str:
        """The template of ``keyword`` (and ``variant``): the vocabulary's, else the table's."""
        own = self.words.templates
        name = f"{keyword}.{variant}" if variant else keyword
        for key in ((f"{name}.{field_type}",) if field_type else ()) + (name,):
            if key in own:
                return own[key]
        if self.words.worded is not None and keyword not in self.words.worded:
            return own.get("fallback", FALLBACK)
        entry = KEYWORDS.get(keyword)
        return entry.templates.get(variant, entry.templates[""]) if entry else FALLBACK

    def shown(self, value: Any) -> str:
        return json_short(value) if self.words.json_values else show(repr(value))

    def facts(self, f: Failure, **more: Any) -> dict[str, Any]:
        inst = f.instance
        size = len(inst) if isinstance(inst, list | dict | str) else 0
        return {
            "value": self.shown(inst),
            "shown": show(inst),
            "message": f.message,
            "message_short": json_short(f.message, 160),
            "expected": f.expected,
            "expected_json": json_short(f.expected),
            "limit": f.expected,
            "size": size,
            "length": size,
            "pattern": f.expected,
            "raw": repr(inst),
            **more,
        }

    def say(
        self,
        f: Failure,
        text: str,
        path: Sequence[Any] | None = None,
        key: bool = False,
        fld: str | None = None,
    ) -> list[Said]:
        at = tuple(f.path if path is None else path)
        return [Said(at, dotted(at) if fld is None else fld, text, key)]

    def field_type(self, path: Sequence[Any]) -> str:
        return self.words.field_types.get(str(path[0]), "") if path else ""

    def controlled(self, path: Sequence[Any]) -> Choices | None:
        return self.words.choices.get(str(path[0])) if path else None

    # -- the entry --------------------------------------------------------------
    def explain(self, f: Failure) -> list[Said]:
        own = f.schema.get("x-messages") if self.words.schema_wording else None
        if isinstance(own, dict) and f.keyword in own:
            return self.say(f, str(own[f.keyword]))
        entry = KEYWORDS.get(f.keyword)
        if entry is None or (self.words.worded is not None and f.keyword not in self.words.worded):
            return self.say(f, _format(self.template(f.keyword), self.facts(f)))
        rule: Callable[[Failure], list[Said]] = getattr(self, entry.rule)
        return rule(f)

    def near(self, keyword: str, value: object, f: Failure) -> str | None:
        """The did-you-mean of ``keyword`` (KEYWORDS[...].near) for ``value``."""
        source = KEYWORDS[keyword].near
        if source == "values":
            return suggest(value, [str(c) for c in f.expected or ()])
        if source == "keys":
            return suggest(str(value), list(f.schema.get("properties") or {}))
        if source == "modes":
            cf = self.controlled(f.path)
            return suggest(value, cf.mode_ids) if cf is not None else None
        return None

    # -- the rules ----------------------------------------------------------------
    def plain(self, f: Failure) -> list[Said]:
        return self.say(f, _format(self.template(f.keyword), self.facts(f)))

    def why(self, f: Failure) -> str:
        """The condition under which a conditional requirement (``allOf``/``then``) applies."""
        sp = f.schema_path
        if len(sp) >= 2 and sp[0] == "allOf" and isinstance(sp[1], int):
            conds = self.words.conditions
            return conds[sp[1]] if sp[1] < len(conds) else ""
        return ""

    def missing(self, f: Failure) -> list[Said]:
        # One line per missing key, named by its dotted path; a controlled field lists its
        # values, so the writer can fill it in without opening the taxonomy.
        out: list[Said] = []
        why = self.why(f)
        for m in f.keys:
            cf = self.words.choices.get(m) if not f.path else None
            extra = f" ({cf.example})" if cf and cf.example else (
                f" (choose {self.choice_words(cf)})" if cf else "")
            if why:
                extra = f" ({why.split(' is required ', 1)[-1]}){extra}"
            facts = self.facts(f, key=m, name=m, short=json_short(m), extra=extra)
            out += self.say(f, _format(self.template("required"), facts), fld=dotted([*f.path, m]))
        return out

    def unknown_keys(self, f: Failure) -> list[Said]:
        # Inside a mapping field the keys are values of the taxonomy, so a stray key is a wrong
        # value (named by the field's noun), not a wrong field.
        if self.words.keys_together and len(f.keys) > 1:
            keys = ", ".join(json_short(k) for k in f.keys)
            return self.say(
                f, _format(self.template(f.keyword, "together"), self.facts(f, keys=keys))
            )
        allowed = list(f.schema.get("properties") or {})
        cf = self.controlled(f.path)
        out: list[Said] = []
        for k in f.keys:
            placed = self.misplaced_key(str(k), f.path, allowed)
            near = self.near(f.keyword, k, f)
            facts = self.facts(
                f, key=k, near=near, hint=hint(k, allowed), noun=cf.noun if cf else ""
            )
            if placed is not None:
                what = placed
            elif cf is not None and cf.kind == "mapping":
                what = _format(self.template(f.keyword, "value"), facts)
            else:
                if near:
                    self.meant.add(str(near))
                what = _format(self.template(f.keyword, "near" if near else ""), facts)
            out += self.say(f, what, path=[*f.path, k], key=True)
        return out

    def misplaced_key(self, key: str, path: Sequence[Any], allowed: list[str]) -> str | None:
        """A known field written where it does not go: glued to an invisible character, or an
        identifier's line not indented under the identifiers."""
        clean = self.words.clean_key
        if clean is None:
            return None
        bare = clean(key).strip()
        if bare != key and bare in allowed:
            self.meant.add(bare)
            odd = next((c for c in key if clean(c) != c), " ")
            name = unicodedata.name(odd, "FORMAT CHARACTER")
            return (
                f"the field name {bare} has an invisible character (U+{ord(odd):04X} {name}) "
                f"glued to it: delete the line up to the colon and type {bare}: again"
            )
        known = {*self.words.field_types, *self.words.choices}
        if path and key in known and key not in allowed:
            self.meant.add(key)
            return (
                f"{key} is a field of its own, not part of {dotted(path)}: remove the spaces "
                f"before {key}: so that the line starts at its beginning"
            )
        holder = next((n for n, t in self.words.field_types.items() if t == "identifiers"), "")
        if not path and key in self.words.identifier_labels and holder in allowed:
            return (
                f"{key} is an identifier: indent this line by two spaces under an "
                f"{holder}: line, as   {key}: '…' (the record's other identifiers "
                f"go there too)"
            )
        return None

    def not_in_enum(self, f: Failure) -> list[Said]:
        inst, path = f.instance, f.path
        cf = self.controlled(path)
        choices = [str(c) for c in f.expected or ()]
        if isinstance(inst, bool) and ("yes" if inst else "no") in choices:
            word = "yes" if inst else "no"
            facts = self.facts(f, truth="true" if inst else "false", word=word, name=path[-1])
            return self.say(f, _format(self.template("enum", "truth"), facts))
        if self.words.untagged and inst == self.words.untagged and cf is not None:
            facts = self.facts(f, choose=self.choice_words(cf))
            return self.say(f, _format(self.template("enum", "untagged"), facts))
        if not (self.words.choices or self.words.field_types):
            return self.say(f, self.plain_enum(f, choices))
        # The noun says which list the value was looked up in: a mode of a mapping field is
        # checked against the modes, not the field's values.
        if cf is not None and cf.kind == "mapping" and len(path) >= 2:
            noun_, choices = f"{cf.noun} mode", list(cf.mode_ids)
        elif cf is not None:
            noun_ = cf.noun
        elif self.field_type(path) == "edition":
            noun_ = "edition"
        else:
            noun_ = "allowed value"
        article = "an" if noun_[:1] in "aeiou" else "a"
        return self.say(
            f, f"{show(repr(inst))} is not {article} {noun_}{nearest_words(inst, choices, noun_)}"
        )

    def plain_enum(self, f: Failure, choices: list[str]) -> str:
        near = self.near("enum", f.instance, f)
        facts = self.facts(
            f,
            choices=", ".join(choices),
            count=len(choices),
            hint=f" (did you mean {near!r}?)" if near else "",
        )
        if len(choices) > 6 and "enum" not in self.words.templates:
            # never every value of a long list: the nearest, and where all are
            facts["shown"] = (
                f"did you mean {near!r}?"
                if near
                else f"the nearest are {', '.join(nearest(f.instance, choices))}"
            )
            return _format(self.template("enum", "long"), facts)
        return _format(self.template("enum"), facts)

    def wrong_type(self, f: Failure) -> list[Said]:
        path, inst = f.path, f.instance
        label = None
        if len(path) == 2 and self.field_type(path) == "identifiers":
            label = self.words.identifier_labels.get(str(path[1]))
        fix = type_fix(path, f.expected, inst, label) if self.words.say_the_fix else None
        want = type_words(f.expected, self.words.type_names) or "another type"
        got = describe_type(inst, self.words.value_kinds)
        return self.say(f, fix or _format(self.template("type"), self.facts(f, want=want, got=got)))

    def no_match(self, f: Failure) -> list[Said]:
        return self.say(f, self.pattern_words(f))

    def pattern_words(self, f: Failure) -> str:
        path, inst = f.path, f.instance
        name = str(path[0]) if path else ""
        ids = self.words.ids
        ftype = self.field_type(path)
        key = next((str(p) for p in reversed(path) if isinstance(p, str)), "")
        if ids is not None and name == ids.field:
            return key_words(ids, str(inst), f"{show(repr(inst))} cannot be a {name}")
        if ftype in ("url", "url_list"):
            return url_words(str(inst))
        if ftype == "date":
            return date_words(name, inst)
        if ftype == "identifiers" and len(path) > 1:
            return self.identifier_words(path, inst)
        if key in self.words.pattern_words:
            return _format(self.words.pattern_words[key], self.facts(f))
        what = f.expected
        if ids is not None:
            what = ids.pattern if not ftype else "the expected format"
        return _format(self.template("pattern"), self.facts(f, pattern=what))

    def identifier_words(self, path: Sequence[Any], inst: object) -> str:
        kind = str(path[1])
        label = self.words.identifier_labels.get(kind, kind)
        if isinstance(inst, str) and re.search("[‘’“”]", inst):
            bare = re.sub("[‘’“”]", "", inst).strip()
            return (
                f"the {label} is written with curly quotes (‘ ’ or “ ”), which YAML keeps as "
                f"part of the id: use straight quotes, {kind}: '{bare}'"
            )
        tip = ""
        normal = self.words.normal_forms.get(kind)
        if normal is not None and isinstance(inst, str):
            n = normal(inst)
            if n and n != inst:
                tip = self.words.normal_tips.get(kind, " (did you mean {normal!r}?)").format(
                    normal=n, kind=kind
                )
        return f"{show(repr(inst))} is not a valid {label}{tip}"

    def bounds(self, f: Failure) -> list[Said]:
        """Numbers the schema bounds; a field type may word them (``minimum.year``)."""
        ftype = self.field_type(f.path)
        return self.say(f, _format(self.template(f.keyword, "", ftype), self.facts(f)))

    def length(self, f: Failure) -> list[Said]:
        inst = f.instance
        if (
            self.words.blank_said_elsewhere
            and isinstance(inst, str)
            and (not inst.strip() or inst == self.words.untagged)
        ):
            return []  # the record's own checks say "must not be empty" / "must not be blank"
        variant = "empty" if f.keyword == "minLength" and f.expected == 1 else ""
        return self.say(f, _format(self.template(f.keyword, variant), self.facts(f)))

    def negated(self, f: Failure) -> list[Said]:
        if self.words.untagged and f.instance == self.words.untagged:
            cf = self.controlled(f.path)
            why = self.why(f).split(" is required ", 1)[-1]
            choose = f"; {cf.example}" if cf is not None and cf.example else (
                f"; choose {self.expected_words(cf)}" if cf is not None else "")
            facts = self.facts(f, why=why, choose=choose)
            return self.say(f, _format(self.template("not", "untagged"), facts))
        return self.plain(f)

    def branches(self, f: Failure) -> list[Said]:
        """anyOf/oneOf: explain the branch whose shape fits the value (the first one failing
        deeper down), so that a typo inside a mapping is named precisely."""
        inst, path = f.instance, f.path
        cf = self.controlled(path)
        if isinstance(inst, str) and cf is not None and len(path) == 1:
            if inst == self.words.untagged:
                return self.say(f, f"not yet tagged (choose {self.expected_words(cf)})")
            return self.say(
                f, f"{show(repr(inst))} is not allowed here (expected {self.expected_words(cf)})"
            )
        by_branch: dict[int, list[Failure]] = {}
        for sub in f.context:
            by_branch.setdefault(sub.schema_path[0], []).append(sub)
        for subs in by_branch.values():
            if any(s.keyword in ("type", "enum") and s.path == path for s in subs):
                continue
            return [said for s in subs for said in self.explain(s)]
        if cf is not None:
            return self.say(f, self.shape_words(f, cf))
        wants = []
        for subs in by_branch.values():
            for s in subs:
                if s.keyword == "type":
                    wants.append(type_words(s.expected, self.words.type_names))
                elif s.keyword == "enum":
                    wants.append(" or ".join(repr(x) for x in s.expected))
        want = " or ".join(dict.fromkeys(wants)) or "another value"
        return self.say(f, _format(self.template(f.keyword), self.facts(f, want=want)))

    def shape_words(self, f: Failure, cf: Choices) -> str:
        """A controlled field's value of no branch's shape."""
        inst, path = f.instance, f.path
        if len(path) == 2 and cf.kind == "mapping":
            near = self.near(f.keyword, inst, f)
            facts = self.facts(f, noun=cf.noun, hint=f" (did you mean {near!r}?)" if near else "")
            return _format(self.template(f.keyword, "mode"), facts)
        if inst is None:
            return f"left empty: write {self.expected_words(cf)}"
        if cf.kind == "mapping" and isinstance(inst, list):
            modes = " or ".join(cf.mode_ids[:3])
            return (
                f"write the {cf.noun}s as name: value lines, not a list: under "
                f"'{path[-1]}:' one line per {cf.noun}, indented by two spaces, like "
                f"  {cf.ids[0]}: {cf.mode_ids[0]} ({', '.join(cf.ids)}; each {modes}); "
                f"{path[-1]}: {{}} when the work touches none"
            )
        return (
            f"expected {self.expected_words(cf)}, got {describe_type(inst, self.words.value_kinds)}"
        )

    # -- a controlled field's values in a few words ---------------------------
    def expected_words(self, cf: Choices) -> str:
        na = self.words.not_applicable
        specials = [na] if cf.not_applicable else []
        if cf.kind == "mapping":
            shape = f"a mapping from {few(cf.ids)} to {few(cf.mode_ids, ' or ')}"
            return shape + (f", {{}} for none, or {na}" if specials else "")
        if cf.kind == "multi":
            return f"a list of {few(cf.ids)}" + (f" or {na}" if specials else "")
        return self.choice_words(cf)

    def choice_words(self, cf: Choices) -> str:
        """What to choose from, in a few words: a field of up to three values names them all
        (the not-applicable sentinel last where the field allows it); a longer list names its
        first three and where the rest are listed (never every value: a list of 50 is no help
        on one line)."""
        specials = [self.words.not_applicable] if cf.not_applicable else []
        values = [*cf.ids, *specials]
        if len(values) <= 3:
            return "one of: " + ", ".join(values)
        article = "an" if cf.noun[:1].lower() in "aeiou" else "a"
        return (
            f"{article} {cf.noun}, e.g. {', '.join(cf.ids[:2])} or {cf.ids[2]}; CONTRIBUTING.md "
            f"lists all {len(values)} under Tags"
        )


def explain_all(
    errors: Iterable[Any], words: Vocabulary | None = None
) -> tuple[list[Said], Explainer]:
    """Every error of a validator, explained (and the explainer, for what it noticed)."""
    explainer = Explainer(words)
    return [s for err in errors for s in explainer.explain(failure(err))], explainer


def problems(
    said: Iterable[Said], rel: str, position: Callable[..., tuple[int, int]]
) -> list[Problem]:
    """Lines to say, placed in a file: ``position(path, key=...)`` gives a value's line and
    column (corpus.yamlio.YamlDocument.position)."""
    out = []
    for s in said:
        line, col = position(s.path, key=s.key)
        out.append(Problem(rel, line, col, s.field, s.message))
    return out
