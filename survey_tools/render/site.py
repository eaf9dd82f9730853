"""The browsing page ``reports/site/index.html``: one self-contained, autoescaped HTML file.

The table rows are rendered on the server (so the page reads without JavaScript and every
string goes through jinja2's autoescaping); a small inline script filters, counts and sorts
them using a compact JSON index embedded in the page. No network, no external files.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from survey_tools.records import Corpus, Record
from survey_tools.render import model
from survey_tools.stats import Axis, Stats, get_path, mode_of
from survey_tools.taxonomy import Taxonomy

BibtexFn = Callable[[Record, Taxonomy], str]


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("survey_tools.render", "templates"),
        autoescape=True,  # every record string is untrusted text
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _asset(name: str) -> str:
    return resources.files("survey_tools.render").joinpath("templates", "site", name).read_text(encoding="utf-8")


def script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: no "<", ">" or "&" can close it or start markup."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _sentinel_label(tax: Taxonomy, conf: Mapping[str, Any], value: str) -> str:
    labels = conf.get("sentinel_labels") or {}
    return str(labels.get(value, value))


def _facet_values(tax: Taxonomy, conf: Mapping[str, Any], ax: Axis, records: Sequence[Record]) -> list[dict[str, str]]:
    """The facet's choices in taxonomy order; sentinels only when some record carries them.

    A mapping field (sub-decisions) offers one choice per key and mode (O1 learned, O1
    designed), so "learned" and "designed" can be told apart in one facet.
    """
    if ax.kind == "keys" and ax.cf is not None:
        out = [
            {"id": f"{v.id}:{m.id}", "label": f"{v.label} · {m.label.lower()}"}
            for v in ax.cf.values
            for m in ax.cf.modes
        ]
    else:
        out = [{"id": v, "label": ax.label_of(v)} for v in ax.values if not model.is_sentinel(tax, v)]
    seen = {v for r in records for v in _record_values(tax, ax, r)}
    known = {o["id"] for o in out}
    for extra in sorted(seen - known):
        out.append({"id": extra, "label": _sentinel_label(tax, conf, extra)})
    return out


def _record_values(tax: Taxonomy, ax: Axis, rec: Record) -> list[str]:
    if ax.kind == "keys":
        raw = get_path(rec.data, ax.field)
        if isinstance(raw, Mapping):
            return [f"{k}:{mode_of(v)}" for k, v in raw.items()]
        return [tax.untagged if raw is None else str(raw)]
    return ax.extract(rec, tax.untagged)


def _cell(tax: Taxonomy, conf: Mapping[str, Any], ax: Axis, rec: Record) -> tuple[str, int | str]:
    """A column's text and its sort key (taxonomy order for controlled values, else the value)."""
    values = ax.extract(rec, tax.untagged)
    if ax.kind == "plain":
        text = ", ".join(values)
        raw = get_path(rec.data, ax.field)
        return text, (raw if isinstance(raw, int) else text.lower())
    labels = [_sentinel_label(tax, conf, v) if model.is_sentinel(tax, v) else ax.label_of(v) for v in values]
    order = min((ax.values.index(v) for v in values if v in ax.values), default=len(ax.values))
    return ", ".join(labels), order


def site_context(tax: Taxonomy, corpus: Corpus, stats: Stats, bibtex: BibtexFn | None = None) -> dict[str, Any]:
    conf = model.presentation(tax, "site")
    retained = sorted(corpus.retained, key=lambda r: (r.title.lower(), r.id))
    facet_axes = [model.axis(tax, str(f)) for f in conf.get("facets", [])]
    facets: list[dict[str, Any]] = []
    for ax in facet_axes:
        values = _facet_values(tax, conf, ax, retained)
        pos = {v["id"]: i for i, v in enumerate(values)}
        facets.append({"name": ax.spec, "label": ax.label, "values": values, "pos": pos})
    col_axes = [model.axis(tax, str(c)) for c in conf.get("columns", [])]
    range_ax = model.axis(tax, str(conf["range"])) if conf.get("range") else None
    search_fields = [str(f) for f in conf.get("search", [])]

    rows = []
    index: list[dict[str, Any]] = []
    for rec in retained:
        cells = [_cell(tax, conf, ax, rec) for ax in col_axes]
        fvals = []
        for ax, facet in zip(facet_axes, facets, strict=True):
            pos = facet["pos"]
            fvals.append(sorted({pos[v] for v in _record_values(tax, ax, rec) if v in pos}))
        text_parts = []
        for name in search_fields:
            raw = rec.get(name, "")
            text_parts.append(" ".join(map(str, raw)) if isinstance(raw, list) else str(raw))
        year = rec.get(range_ax.field) if range_ax else None
        index.append(
            {
                "f": fvals,
                "y": year if isinstance(year, int) else None,
                "s": " ".join(text_parts).lower(),
                "k": [c[1] for c in cells],
            }
        )
        authors = [str(a) for a in rec.get("authors") or []]
        rows.append(
            {
                "id": rec.id,
                "title": rec.title,
                "url": model.primary_link(rec),
                "links": model.secondary_links(rec),
                "summary": str(rec.get("summary", "")),
                "authors": "; ".join(authors) + ("; et al." if rec.get("authors_complete") is False else ""),
                "cells": [c[0] for c in cells],
                "bibtex": bibtex(rec, tax) if bibtex else "",
            }
        )
    years = [int(i["y"]) for i in index if i["y"] is not None]
    year_span = [min(years), max(years)] if years else []
    ex = tax.excluded
    ex_cols, exclusions = model.exclusion_table(tax, corpus)
    page_data = {
        "facets": [{"name": f["name"], "values": [v["id"] for v in f["values"]]} for f in facets],
        "sort": ["title"] + [ax.spec for ax in col_axes],
        "records": index,
        "range": range_ax.spec if range_ax else "",
        "years": year_span,
    }
    return {
        "survey": tax.survey,
        "headline": dict(stats.headline),
        "retained_label": tax.retained.label,
        "excluded_label": ex.label if ex else "",
        "excluded_title_field": ex.title_field if ex else "",
        "facets": facets,
        "columns": [{"name": ax.spec, "label": ax.label} for ax in col_axes],
        "range": {"name": range_ax.spec, "label": range_ax.label} if range_ax else None,
        "years": year_span,
        "rows": rows,
        "has_bibtex": bibtex is not None,
        "exclusion_columns": ex_cols,
        "exclusions": exclusions,
        "data": script_json(page_data),
        "css": Markup(_asset("page.css")),
        "js": Markup(_asset("page.js")),
    }


def render_site(tax: Taxonomy, corpus: Corpus, stats: Stats, bibtex: BibtexFn | None = None) -> str:
    html = environment().get_template("site/index.html.j2").render(**site_context(tax, corpus, stats, bibtex))
    return html.strip("\n") + "\n"
