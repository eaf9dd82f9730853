"""Strict, safe YAML reading with line numbers, and deterministic YAML writing.

PyYAML's loaders quietly keep the last of two duplicate keys, expand aliases without limit and
read ``yes`` as ``True``. Records are facts, so this module composes the node tree with the
safe (C when available) parser and builds Python values itself, refusing what a record should
never contain and remembering where every value stands for error messages.
"""

from __future__ import annotations

import math
import pickle
import re
import sys
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from survey_tools.corpus.yaml_words import syntax_problem
from survey_tools.errors import Problem
from survey_tools.hashing import content_digest

try:  # the C parser is ~10x faster; the pure-Python one behaves the same
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

# Larger files are refused before parsing: a record is a page of text, not a data dump.
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 64
# How libyaml's scanner words its own depth limit (PyYAML >= 6.0.4's bundled libyaml).
_NESTING_LIMIT = "exceeded maximum nesting depth"

_TAG = "tag:yaml.org,2002:"
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}

Path_ = tuple[Any, ...]


@dataclass
class YamlDocument:
    """A parsed file: its data, every problem found, and where each value stands."""

    file: str
    data: Any = None
    problems: list[Problem] = field(default_factory=list)
    values: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path_, tuple[int, int]] = field(default_factory=dict)

    def position(self, path: Path_, key: bool = False) -> tuple[int, int]:
        """Line and column (1-based) of the value at ``path``, or of its key with ``key``.

        Falls back to the nearest enclosing value, so a problem always points somewhere.
        """
        table = self.keys if key else self.values
        p = tuple(path)
        while p:
            if p in table:
                return table[p]
            if p in self.values:
                return self.values[p]
            p = p[:-1]
        return self.values.get((), (1, 1))


class _Refused(Exception):
    def __init__(self, mark: Any, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


# What XML 1.0 forbids (C0 controls but tab and line breaks, lone surrogates) or that readers
# refuse (C1 controls, the 66 noncharacters): no text of a survey may hold one, since every text
# can reach the Atom feed and the pages (records are checked more strictly in checks.py).
_XML_ILLEGAL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(f"{chr(p << 16 | 0xFFFE)}{chr(p << 16 | 0xFFFF)}" for p in range(17))
    + "]"
)


def xml_illegal(text: str) -> str | None:
    """Why ``text`` cannot go into XML (the code point, named), or None."""
    m = _XML_ILLEGAL.search(text)
    if m is None:
        return None
    code = ord(m.group())
    kind = (
        "a lone surrogate"
        if 0xD800 <= code <= 0xDFFF
        else "a control character"
        if code <= 0x9F
        else "a noncharacter"
    )
    return (
        f"contains {kind} (U+{code:04X}) that XML readers (the feed, the pages) refuse; remove it"
    )


def xml_illegal_problems(doc: YamlDocument, rel: str) -> list[Problem]:
    """One problem per string of ``doc`` (keys too) holding an XML-illegal code point."""
    out: list[Problem] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            why = xml_illegal(value)
            if why:
                line, col = doc.position(path)
                out.append(Problem(rel, line, col, ".".join(map(str, path)), why))
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(k, str) and (why := xml_illegal(k)):
                    line, col = doc.position((*path, k), key=True)
                    out.append(Problem(rel, line, col, ".".join(map(str, (*path, k))), why))
                stack.append(((*path, k), v))
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
    return sorted(out)


def _pos(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1)


# Plain scalars are resolved with the YAML 1.2 core schema: null, true/false, integers and
# floats; everything else (yes/no, dates, 1_000, 0b1) is the string it looks like. Doing it here,
# rather than through PyYAML's YAML 1.1 resolver, is also about twice as fast.
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_INT = re.compile(r"[-+]?[0-9]+\Z")
_INT_OTHER = re.compile(r"0o[0-7]+\Z|0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_SPECIAL_FLOATS = {
    ".inf": math.inf, ".Inf": math.inf, ".INF": math.inf,
    "+.inf": math.inf, "+.Inf": math.inf, "+.INF": math.inf,
    "-.inf": -math.inf, "-.Inf": -math.inf, "-.INF": -math.inf,
    ".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan,
}  # fmt: skip
_NUMERIC_START = frozenset("0123456789+-.")
# Text that merely starts like a number ("2024 edition ...") keeps its length.
_ALPHA_TAIL = re.compile(r"[g-wyzG-WYZ\s]")


def _plain(value: str) -> Any:
    if value in _NULLS:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if value[0] in _NUMERIC_START:
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            return float(value)
        if value in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[value]
        if _INT_OTHER.match(value):
            return int(value, 0)
    return value


def _tagged(event: yaml.ScalarEvent) -> Any:
    """A scalar with an explicit tag: only the standard scalar tags are accepted."""
    tag = event.tag
    value = event.value
    if tag == _TAG + "str":
        return value
    if tag == _TAG + "int":
        try:
            return int(value.replace("_", ""), 0)
        except ValueError:
            raise _Refused(event.start_mark, f"{value!r} is not an integer") from None
    if tag == _TAG + "float":
        try:
            return float(value)
        except ValueError:
            raise _Refused(event.start_mark, f"{value!r} is not a number") from None
    if tag == _TAG + "bool":
        if value in _TRUE or value in _FALSE:
            return value in _TRUE
        raise _Refused(event.start_mark, f"{value!r} is not true or false")
    if tag == _TAG + "null":
        return None
    raise _Refused(event.start_mark, f"the tag {tag!r} is not allowed: a value starting with ! must be in quotes")


# A number longer than this is refused before it is converted: Python caps int <-> str at 4,300
# digits (a 5,000-digit year would raise deep inside a message), and no field needs more.
MAX_NUMBER_CHARS = 64


def _scalar(event: yaml.ScalarEvent) -> Any:
    tag = event.tag
    value = event.value
    numeric = tag in (_TAG + "int", _TAG + "float") or (
        (tag is None or tag == "!") and event.implicit[0] and value[:1] in _NUMERIC_START
    )
    if numeric and len(value) > MAX_NUMBER_CHARS and not _ALPHA_TAIL.search(value):
        raise _Refused(
            event.start_mark,
            f"a number of {len(value):,} characters is too long (at most {MAX_NUMBER_CHARS}); "
            f"quote it if it is text",
        )
    if tag is None or tag == "!":
        # implicit[0]: the scalar was written plain (unquoted), so it may be a number or null.
        return _plain(value) if event.implicit[0] else value
    return _tagged(event)


_NO_KEY = object()
# Short strings are mostly the controlled values every record repeats; longer ones (titles,
# summaries, URLs) are each record's own.
_SHARED_CHARS = 24


class _NeedPositions(Exception):
    """Raised in the fast pass when a message needs positions the fast pass does not keep."""


def _build(loader: Any, doc: YamlDocument, positions: bool = True) -> Any:
    """Build the document from parser events with an explicit stack.

    Working from events rather than the composed node tree keeps deep nesting from
    exhausting the C stack, and lets anchors be refused before anything is expanded.
    Without ``positions`` no line numbers are kept (the fast pass for valid files).
    """
    values = doc.values
    # A frame: [container, path, pending key (mappings)]
    stack: list[list[Any]] = []
    root: Any = None
    # Bound once: this loop runs for every event of every record.
    scalar_ev = yaml.ScalarEvent
    map_start = yaml.MappingStartEvent
    seq_start = yaml.SequenceStartEvent
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    get_event = loader.get_event

    while True:
        event = get_event()
        kind = type(event)
        if kind is scalar_ev:
            if event.anchor is not None:
                raise _Refused(event.start_mark, _NO_ANCHORS)
            if not stack:
                if positions:
                    values[()] = _pos(event.start_mark)
                return _scalar(event)
            frame = stack[-1]
            if type(frame[0]) is dict and frame[2] is _NO_KEY:
                frame[2] = _mapping_key(event, frame, doc, positions)
                continue
            value = _scalar(event)
            if type(value) is str and len(value) <= _SHARED_CHARS:
                value = sys.intern(value)  # a tag value ("team", "R1"): one string for every record
            path = _put(frame, value)
            if positions:
                values[path] = _pos(event.start_mark)
        elif kind is map_start or kind is seq_start:
            new = _new_container(event, kind is map_start, len(stack))
            if not stack:
                path = ()
                root = new
            else:
                if type(stack[-1][0]) is dict and stack[-1][2] is _NO_KEY:
                    raise _Refused(event.start_mark, "mapping keys must be plain strings")
                path = _put(stack[-1], new)
            if positions:
                values[path] = _pos(event.start_mark)
            stack.append([new, path, _NO_KEY])
        elif kind in ends:
            stack.pop()
            if not stack:
                return root
        elif kind is yaml.AliasEvent:
            raise _Refused(event.start_mark, _NO_ANCHORS)
        else:  # pragma: no cover - the parser emits nothing else inside a document
            raise _Refused(event.start_mark, "unexpected YAML event")


_NO_ANCHORS = (
    "a value starting with & or * must be in quotes (YAML reads it as an anchor or alias, "
    "which records do not allow)"
)


def _mapping_key(
    event: yaml.ScalarEvent, frame: list[Any], doc: YamlDocument, positions: bool
) -> Any:
    """The key a scalar names in the mapping of ``frame``, refused when it merges or repeats."""
    value = event.value
    if value == "<<" and event.implicit[0]:
        raise _Refused(event.start_mark, "merge keys (<<) are not allowed in records")
    key = _scalar(event)
    if not isinstance(key, str):
        # Keys are names (records are JSON-shaped): `1:` or `yes:` is the text as written, so
        # the schema names it as an unknown field.
        key = value
    # Every record names the same fields: one string each for all of them, not one a record.
    key = sys.intern(key)
    if key in frame[0]:
        if not positions:
            raise _NeedPositions
        first = doc.keys.get((*frame[1], key), (0, 0))[0]
        raise _Refused(
            event.start_mark,
            f"{key!r} is written twice (first on line {first}): keep one of the two lines",
        )
    if positions:
        doc.keys[(*frame[1], key)] = _pos(event.start_mark)
    return key


def _new_container(event: Any, is_map: bool, depth: int) -> Any:
    """An empty mapping or list for a start event, unless its anchor, tag or depth is refused."""
    if event.anchor is not None:
        raise _Refused(event.start_mark, _NO_ANCHORS)
    expected = _TAG + ("map" if is_map else "seq")
    if event.tag not in (None, "!", expected):
        raise _Refused(
            event.start_mark,
            f"the tag {event.tag!r} is not allowed: a value starting with ! must be in quotes",
        )
    if depth >= MAX_DEPTH:
        raise _Refused(event.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
    return {} if is_map else []


def _put(frame: list[Any], value: Any) -> Path_:
    """Add ``value`` to the frame's list, or under its pending key; the path it now has."""
    container = frame[0]
    if type(container) is list:
        path = (*frame[1], len(container))
        container.append(value)
        return path
    key = frame[2]
    container[key] = value
    frame[2] = _NO_KEY
    return (*frame[1], key)


def _decode(raw: bytes, rel: str) -> tuple[str | None, Problem | None]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        before = raw[: err.start]
        line = before.count(b"\n") + 1
        col = err.start - (before.rfind(b"\n") + 1) + 1
        bad = raw[err.start : err.start + 1].hex()
        return None, Problem(rel, line, col, "", f"not valid UTF-8 (byte 0x{bad})")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def parse_yaml(text: str, rel: str, positions: bool = True) -> YamlDocument:
    """Parse one YAML document from ``text``; every refusal becomes a problem, never an exception.

    With ``positions=False`` no line numbers are kept; when a problem needs them, the text is
    parsed again with them, so the result is the same either way.
    """
    if not positions:
        fast = YamlDocument(rel)
        try:
            return _parse_into(fast, text, positions=False)
        except _NeedPositions:
            pass
    return _parse_into(YamlDocument(rel), text, positions=True)


def _parse_into(
    doc: YamlDocument, text: str, positions: bool, loader_class: Any = _Loader
) -> YamlDocument:
    rel = doc.file
    if not text.strip():
        doc.problems.append(Problem(rel, 1, 1, "", "the file is empty"))
        return doc
    loader = loader_class(text)
    try:
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            doc.problems.append(Problem(rel, 1, 1, "", "the file holds no YAML document"))
            return doc
        loader.get_event()  # document start
        data = _build(loader, doc, positions)
        loader.get_event()  # document end
        if not loader.check_event(yaml.StreamEndEvent):
            nxt = loader.peek_event()
            line, col = _pos(nxt.start_mark) if nxt is not None else (1, 1)
            doc.problems.append(
                Problem(
                    rel,
                    line,
                    col,
                    "",
                    "this file holds a second record after a '---' line: one record per file, "
                    "so move what follows the '---' to a file of its own and delete that line",
                )
            )
            return doc
        doc.data = data
    except _Refused as err:
        line, col = _pos(err.mark)
        doc.problems.append(Problem(rel, line, col, "", err.message))
    except yaml.MarkedYAMLError as err:
        if loader_class is not yaml.SafeLoader and _NESTING_LIMIT in str(err.problem):
            # The libyaml that PyYAML 6.0.4 bundles stops at 1000 levels while its scanner looks
            # ahead, before the event at our own limit arrives (6.0.3's did not stop). The
            # pure-Python parser has no such limit and reaches ours: the same message at the same
            # place whichever PyYAML is installed. Only such files pay its slower pace.
            return _parse_into(YamlDocument(rel), text, positions, yaml.SafeLoader)
        # What to change, in words, at the line to change (the parser's words on a second line).
        doc.problems.append(syntax_problem(text, err, rel))
    except yaml.reader.ReaderError as err:
        # The reader names a character offset; say where that is, on one line.
        before = text[: err.position]
        line = before.count("\n") + 1
        col = err.position - (before.rfind("\n") + 1) + 1
        code = f"U+{err.character:04X}" if isinstance(err.character, int) else repr(err.character)
        doc.problems.append(
            Problem(rel, line, col, "", f"control character {code} is not allowed in YAML")
        )
    except yaml.YAMLError as err:
        doc.problems.append(Problem(rel, 1, 1, "", f"YAML error: {' '.join(str(err).split())}"))
    except (ValueError, OverflowError) as err:  # a malformed number the resolver accepted
        doc.problems.append(Problem(rel, 1, 1, "", f"bad value: {err}"))
    finally:
        loader.dispose()
    if doc.problems:
        doc.data = None
        doc.values.clear()
        doc.keys.clear()
    return doc


def parse_yaml_bytes(raw: bytes, rel: str, positions: bool = True) -> YamlDocument:
    if len(raw) > MAX_FILE_BYTES:
        doc = YamlDocument(rel)
        doc.problems.append(
            Problem(rel, 1, 1, "", f"file is {len(raw):,} bytes; the limit is {MAX_FILE_BYTES:,}")
        )
        return doc
    text, problem = _decode(raw, rel)
    if problem is not None or text is None:
        doc = YamlDocument(rel)
        doc.problems.append(problem or Problem(rel, 1, 1, "", "unreadable"))
        return doc
    return parse_yaml(text, rel, positions)


def load_yaml_file(path: Path, rel: str) -> YamlDocument:
    return read_yaml_file(path, rel)[1]


def read_yaml_file(path: Path, rel: str) -> tuple[bytes, YamlDocument]:
    """The file's bytes (empty when unreadable or too large) and its parsed document, from one
    read: callers that also hash the file need not open it twice."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            doc = YamlDocument(rel)
            doc.problems.append(
                Problem(rel, 1, 1, "", f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
            )
            return b"", doc
        raw = path.read_bytes()
    except OSError as err:
        doc = YamlDocument(rel)
        doc.problems.append(Problem(rel, 0, 0, "", f"cannot read: {err.strerror or err}"))
        return b"", doc
    return raw, _parsed_config(raw, rel)


# Configuration files parsed earlier in this process, by path and bytes, as pickles (each call
# gets its own copy to change; the pickles are this process's own, never read from disk). A
# process that loads a survey again (a library caller validating after each edit; the test
# suite, ~600 loads) takes them back in 4 ms instead of parsing for 25: the protocol, claims
# and corrections files are the bulk of a load's time.
_PARSED: OrderedDict[tuple[str, bytes], bytes] = OrderedDict()
_PARSED_ENTRIES = 64


def _parsed_config(raw: bytes, rel: str) -> YamlDocument:
    key = (rel, content_digest(raw, 16))
    kept = _PARSED.get(key)
    if kept is not None:
        _PARSED.move_to_end(key)
        doc: YamlDocument = pickle.loads(kept)
        return doc
    doc = parse_yaml_bytes(raw, rel)
    # Nesting is capped at MAX_DEPTH by the parse, well within what pickle walks.
    _PARSED[key] = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
    if len(_PARSED) > _PARSED_ENTRIES:
        _PARSED.popitem(last=False)
    return doc


# --- writing ---------------------------------------------------------------------------


class _LiteralDumper(_Dumper):
    pass


def _reads_as_text(data: str) -> bool:
    try:
        return isinstance(_plain(data), str)
    except ValueError:  # digits past Python's int conversion limit: a number all the same
        return False


def _str_representer(dumper: Any, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    if style is None and data and not _reads_as_text(data):
        # PyYAML resolves by YAML 1.1 and would leave "0596008279" (an ISBN) plain, which the
        # YAML 1.2 core reader above reads back as a number: quoted, it stays the string it is.
        style = "'"
    return dumper.represent_scalar(_TAG + "str", data, style=style)


_LiteralDumper.add_representer(str, _str_representer)


def dump_yaml(data: Any) -> str:
    """Deterministic YAML: insertion key order, block style, unicode kept, long lines unwrapped."""
    return yaml.dump(
        data,
        Dumper=_LiteralDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )


def iter_paths(data: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    yield path, data
    if isinstance(data, dict):
        for k, v in data.items():
            yield from iter_paths(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from iter_paths(v, (*path, i))
