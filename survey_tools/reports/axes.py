"""Axes: the ways to put a record into categories (a controlled field, a value group, a mapping
field's keys or modes, a plain field), resolved by name from the taxonomy.

Counting (:mod:`survey_tools.reports.counting`), filters, claims, gaps, figures and the
renderers all name categories through an :class:`Axis`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from survey_tools.corpus.records import Record, one_copy
from survey_tools.corpus.taxonomy import ControlledField, Group, Taxonomy

MODE_SUFFIX = ".mode"  # `subdecisions.mode`: the modes of a mapping field
_UNTAGGED = "\0untagged"  # in a record's memo: the sentinel its values were worked out with


@dataclass(frozen=True)
class Axis:
    """A way to sort records into categories: a field, a value group, a mapping's keys or modes."""

    spec: str
    label: str
    collection: str
    kind: str  # single | multi | group | keys | modes | plain
    field: str  # the record field read
    values: tuple[str, ...]  # ordered categories; empty for plain fields (taken from the data)
    labels: Mapping[str, str]
    sentinels: tuple[str, ...] = ()
    cf: ControlledField | None = None
    group: Group | None = None

    def label_of(self, value: str) -> str:
        return self.labels.get(value, value)

    @cached_property
    def mode_labels(self) -> dict[str, str]:
        """A mapping field's modes, id -> label in lower case (a tag's "Spawn (learned)"), worked
        out once per axis rather than for every record's tags."""
        return {m.id: m.label.lower() for m in self.cf.modes} if self.cf else {}

    def extract(self, rec: Record, untagged: str) -> tuple[str, ...]:
        """The categories of one record (several for multi-valued fields, none for ``{}``).

        Worked out once per record and axis and kept on the record (a record's data never
        changes; an axis's name stands for one definition within the taxonomy the record was
        read against).
        """
        memo = rec.axis_values
        kept = memo.get(_UNTAGGED)
        if kept is None:
            memo[_UNTAGGED] = kept = (untagged,)
        elif kept[0] != untagged:
            return tuple(self._extract(rec, untagged))  # another sentinel than the memo's: not kept
        found = memo.get(self.spec)
        if found is None:
            found = memo[self.spec] = one_copy(tuple(self._extract(rec, untagged)))
        return found

    def _extract(self, rec: Record, untagged: str) -> list[str]:
        raw = get_path(rec.data, self.field)
        if raw is None:
            return [untagged]
        if self.kind == "single":
            return [str(raw)]
        if self.kind == "group":
            assert self.group is not None
            return [self.group.of(str(raw)) or str(raw)]
        if self.kind in ("multi", "plain") and isinstance(raw, list):
            return [plain_str(v) for v in raw]
        if self.kind == "keys":
            return list(raw) if isinstance(raw, dict) else [str(raw)]
        if self.kind == "modes":
            if isinstance(raw, dict):
                return sorted({mode_of(v) for v in raw.values()}, key=self.values.index)
            return [str(raw)]
        return [plain_str(raw)]


def plain_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def mode_of(value: Any) -> str:
    """A mapping value is a mode string or ``{how, evidence, reason}``."""
    return str(value.get("how")) if isinstance(value, dict) else str(value)


def get_path(data: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = data
    for part in dotted.split("."):
        if not (type(cur) is dict or isinstance(cur, Mapping)) or part not in cur:  # a dict first: cheaper
            return None
        cur = cur[part]
    return cur


def _sentinels(tax: Taxonomy, cf: ControlledField) -> tuple[str, ...]:
    out = []
    if cf.not_applicable:
        out.append(tax.na)
    if not cf.required:
        out.append(tax.untagged)
    return tuple(out)


def known_axes(tax: Taxonomy) -> list[str]:
    names: list[str] = []
    for coll in tax.collections.values():
        for c in coll.controlled:
            names.append(c.name)
            if c.kind == "mapping":
                names.append(c.name + MODE_SUFFIX)
            if c.group is not None:
                names.append(c.group.name)
        names.extend(f.name for f in coll.fields)
    return names


def resolve_axis(tax: Taxonomy, spec: str) -> Axis:
    """The axis named ``spec``; ``KeyError`` with a readable message when there is none."""
    base, _, suffix = spec.partition(MODE_SUFFIX) if spec.endswith(MODE_SUFFIX) else (spec, "", "")
    is_mode = spec.endswith(MODE_SUFFIX)
    cf = tax.find_field(base)
    if cf is not None:
        coll = cf.collection or tax.retained.name
        sent = _sentinels(tax, cf)
        # Missing optional fields count as untagged, so that category is always listed for them.
        if cf.kind == "mapping" and is_mode:
            labels = {m.id: m.label for m in cf.modes}
            return Axis(
                spec,
                f"{cf.label}: mode",
                coll,
                "modes",
                cf.name,
                cf.mode_ids + sent,
                labels,
                sent,
                cf,
            )
        if is_mode:
            raise KeyError(f"{spec!r}: {base} is not a mapping field, it has no modes")
        kind = "keys" if cf.kind == "mapping" else cf.kind
        labels = {v.id: v.label for v in cf.values}
        return Axis(spec, cf.label, coll, kind, cf.name, cf.ids + sent, labels, sent, cf)
    found = tax.group(spec)
    if found is not None:
        gcf, grp = found
        sent = _sentinels(tax, gcf)
        labels = {v.id: f"{v.id} {v.label}" for v in grp.values}
        ids = tuple(v.id for v in grp.values)
        coll = gcf.collection or tax.retained.name
        return Axis(spec, grp.label, coll, "group", gcf.name, ids + sent, labels, sent, gcf, grp)
    head = spec.split(".", 1)[0]
    for c in tax.collections.values():
        for f in c.fields:
            if f.name == head:
                label = f.label if head == spec else spec
                return Axis(spec, label, c.name, "plain", spec, (), {}, (tax.untagged,))
    raise KeyError(f"{spec!r} is not a field, value group or mode of the taxonomy")
