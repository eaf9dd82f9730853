"""The filter language of claims and gap maps: which records a statement counts.

A filter (``where``) maps an axis (a controlled field, a value group, a plain field, dotted for
nested plain fields) to a value or a list of values (any of them); a mapping field maps to
``{key: mode}`` or ``{key: [modes]}``. All entries must hold. ``any_of: [filter, ...]`` holds
when one of the filters does; ``not: filter`` inverts one. :func:`compile_filter` turns one into
a predicate over records, naming the axis or value the taxonomy does not have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from survey_tools.corpus.records import Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.reports.axes import mode_of, plain_str, resolve_axis

Predicate = Callable[[Record], bool]


class FilterError(ValueError):
    """A filter problem: ``path`` is where in the filter (for the message), ``message`` what."""

    def __init__(self, path: tuple[Any, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def compile_filter(tax: Taxonomy, where: Any, path: tuple[Any, ...] = ()) -> Predicate:
    """Turn a filter into a predicate; raise :class:`FilterError` on anything unknown."""
    if where is None:
        return lambda rec: True
    if not isinstance(where, dict):
        raise FilterError(
            path, f"a filter must be a mapping of field to value, not {type(where).__name__}"
        )
    preds: list[Predicate] = []
    for key, cond in where.items():
        p = (*path, key)
        if key == "any_of":
            if not isinstance(cond, list) or not cond:
                raise FilterError(p, "any_of needs a non-empty list of filters")
            subs = [compile_filter(tax, c, (*p, i)) for i, c in enumerate(cond)]
            preds.append(lambda rec, subs=subs: any(s(rec) for s in subs))  # type: ignore[misc]
            continue
        if key == "not":
            sub = compile_filter(tax, cond, p)
            preds.append(lambda rec, sub=sub: not sub(rec))  # type: ignore[misc]
            continue
        preds.append(_condition(tax, str(key), cond, p))
    return lambda rec: all(pr(rec) for pr in preds)


def _as_list(cond: Any, p: tuple[Any, ...]) -> list[Any]:
    vals = cond if isinstance(cond, list) else [cond]
    if not vals:
        raise FilterError(p, "an empty list matches nothing; name at least one value")
    for v in vals:
        if isinstance(v, dict | list) or v is None:
            raise FilterError(p, f"expected a value or a list of values, not {v!r}")
    return vals


def _condition(tax: Taxonomy, key: str, cond: Any, p: tuple[Any, ...]) -> Predicate:
    try:
        axis = resolve_axis(tax, key)
    except KeyError as err:
        raise FilterError(p, str(err.args[0])) from None
    untagged = tax.untagged
    if axis.kind == "keys":
        cf = axis.cf
        assert cf is not None
        if isinstance(cond, dict):
            wanted: dict[str, set[str]] = {}
            for k, modes in cond.items():
                if str(k) not in cf.ids:
                    raise FilterError(
                        (*p, k), f"unknown value {k!r} of {cf.name} (known: {', '.join(cf.ids)})"
                    )
                ms = {str(m) for m in _as_list(modes, (*p, k))}
                bad = sorted(ms - set(cf.mode_ids))
                if bad:
                    raise FilterError(
                        (*p, k), f"unknown mode {bad[0]!r} (known: {', '.join(cf.mode_ids)})"
                    )
                wanted[str(k)] = ms

            def pred(rec: Record) -> bool:
                raw = rec.get(cf.name)
                if not isinstance(raw, dict):
                    return False
                return all(k in raw and mode_of(raw[k]) in ms for k, ms in wanted.items())

            return pred
    vals = {plain_str(v) for v in _as_list(cond, p)}
    if axis.kind != "plain":
        known = set(axis.values)
        bad = sorted(vals - known)
        if bad:
            raise FilterError(
                p, f"unknown value {bad[0]!r} of {key} (known: {', '.join(axis.values)})"
            )
    return lambda rec: not vals.isdisjoint(axis.extract(rec, untagged))
