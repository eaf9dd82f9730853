"""Strict, safe YAML reading with line numbers, and deterministic YAML writing.

PyYAML's loaders quietly keep the last of two duplicate keys, expand aliases without limit and
read ``yes`` as ``True``. Records are facts, so this module composes the node tree with the
safe (C when available) parser and builds Python values itself, refusing what a record should
never contain and remembering where every value stands for error messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from survey_tools.errors import Problem

try:  # the C parser is ~10x faster; the pure-Python one behaves the same
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

# Larger files are refused before parsing: a record is a page of text, not a data dump.
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 64

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_constructor = yaml.constructor.SafeConstructor()

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


def _pos(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1)


def _scalar(loader: Any, event: yaml.ScalarEvent) -> Any:
    tag = event.tag
    if tag is None or tag == "!":
        tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag not in _SCALAR_TAGS:
        raise _Refused(
            event.start_mark, f"the tag {tag!r} is not allowed (only plain YAML values are)"
        )
    value = event.value
    if tag == _TAG + "str" or tag == _TAG + "timestamp":
        # Dates stay strings: records compare and print them as written.
        return value
    if tag == _TAG + "null":
        return None
    if tag == _TAG + "bool":
        # YAML 1.2 booleans only: 'yes', 'no', 'on' and 'off' are the strings they look like.
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        return value
    node = yaml.ScalarNode(tag, value)
    if tag == _TAG + "int":
        return _constructor.construct_yaml_int(node)
    return _constructor.construct_yaml_float(node)


_NO_KEY = object()


def _build(loader: Any, doc: YamlDocument) -> Any:
    """Build the document from parser events with an explicit stack.

    Working from events rather than the composed node tree keeps deep nesting from
    exhausting the C stack, and lets anchors be refused before anything is expanded.
    """
    # A frame: [container, path, pending key (mappings), key mark]
    stack: list[list[Any]] = []
    root: Any = None

    def attach(value: Any, mark: Any) -> bool:
        nonlocal root
        if not stack:
            root = value
            doc.values[()] = _pos(mark)
            return True
        frame = stack[-1]
        container, path = frame[0], frame[1]
        if isinstance(container, list):
            p = (*path, len(container))
            container.append(value)
            doc.values[p] = _pos(mark)
            return False
        if frame[2] is _NO_KEY:
            raise _Refused(mark, "mapping keys must be plain strings")
        key = frame[2]
        container[key] = value
        doc.values[(*path, key)] = _pos(mark)
        frame[2] = _NO_KEY
        return False

    def child_path() -> tuple[Any, ...]:
        if not stack:
            return ()
        frame = stack[-1]
        container, path = frame[0], frame[1]
        if isinstance(container, list):
            return (*path, len(container))
        return (*path, frame[2])

    while True:
        event = loader.get_event()
        if isinstance(event, yaml.ScalarEvent):
            if event.anchor is not None:
                raise _Refused(event.start_mark, "anchors and aliases are not allowed in records")
            if stack and isinstance(stack[-1][0], dict) and stack[-1][2] is _NO_KEY:
                tag = event.tag
                if tag is None or tag == "!":
                    tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
                if tag == _TAG + "merge":
                    raise _Refused(event.start_mark, "merge keys (<<) are not allowed in records")
                key = _scalar(loader, event)
                if isinstance(key, bool) or key is None or isinstance(key, float):
                    key = event.value
                frame = stack[-1]
                if key in frame[0]:
                    first = doc.keys.get((*frame[1], key), (0, 0))[0]
                    raise _Refused(
                        event.start_mark, f"duplicate key {key!r} (first defined on line {first})"
                    )
                doc.keys[(*frame[1], key)] = _pos(event.start_mark)
                frame[2] = key
                continue
            if attach(_scalar(loader, event), event.start_mark):
                return root
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            if event.anchor is not None:
                raise _Refused(event.start_mark, "anchors and aliases are not allowed in records")
            is_map = isinstance(event, yaml.MappingStartEvent)
            expected = _TAG + ("map" if is_map else "seq")
            if event.tag not in (None, "!", expected):
                raise _Refused(
                    event.start_mark,
                    f"the tag {event.tag!r} is not allowed (only plain YAML values are)",
                )
            if len(stack) >= MAX_DEPTH:
                raise _Refused(event.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
            container: Any = {} if is_map else []
            path = child_path()
            attach(container, event.start_mark)
            stack.append([container, path, _NO_KEY, None])
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            stack.pop()
            if not stack:
                return root
        elif isinstance(event, yaml.AliasEvent):
            raise _Refused(event.start_mark, "anchors and aliases are not allowed in records")
        else:  # pragma: no cover - the parser emits nothing else inside a document
            raise _Refused(event.start_mark, "unexpected YAML event")


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


def parse_yaml(text: str, rel: str) -> YamlDocument:
    """Parse one YAML document from ``text``; every refusal becomes a problem, never an exception."""
    doc = YamlDocument(rel)
    if not text.strip():
        doc.problems.append(Problem(rel, 1, 1, "", "the file is empty"))
        return doc
    loader = _Loader(text)
    try:
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            doc.problems.append(Problem(rel, 1, 1, "", "the file holds no YAML document"))
            return doc
        loader.get_event()  # document start
        data = _build(loader, doc)
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
                    "more than one YAML document in the file (one record per file)",
                )
            )
            return doc
        doc.data = data
    except _Refused as err:
        line, col = _pos(err.mark)
        doc.problems.append(Problem(rel, line, col, "", err.message))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = _pos(mark) if mark else (1, 1)
        doc.problems.append(Problem(rel, line, col, "", f"YAML syntax error: {err.problem or err}"))
    except yaml.YAMLError as err:
        doc.problems.append(Problem(rel, 1, 1, "", f"YAML error: {err}"))
    except (ValueError, OverflowError) as err:  # a malformed number the resolver accepted
        doc.problems.append(Problem(rel, 1, 1, "", f"bad value: {err}"))
    finally:
        loader.dispose()
    if doc.problems:
        doc.data = None
        doc.values.clear()
        doc.keys.clear()
    return doc


def parse_yaml_bytes(raw: bytes, rel: str) -> YamlDocument:
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
    return parse_yaml(text, rel)


def load_yaml_file(path: Path, rel: str) -> YamlDocument:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            doc = YamlDocument(rel)
            doc.problems.append(
                Problem(rel, 1, 1, "", f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
            )
            return doc
        raw = path.read_bytes()
    except OSError as err:
        doc = YamlDocument(rel)
        doc.problems.append(Problem(rel, 0, 0, "", f"cannot read: {err.strerror or err}"))
        return doc
    return parse_yaml_bytes(raw, rel)


# --- writing ---------------------------------------------------------------------------


class _LiteralDumper(_Dumper):
    pass


def _str_representer(dumper: Any, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
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
