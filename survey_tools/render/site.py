"""The browsing page ``reports/site/index.html`` and one page per paper, ``papers/<key>.html``.

The index ships the records once, as compact column-wise JSON in the page; its inline script
renders only the rows in view, filters, counts, searches and sorts, and keeps the state in the
URL hash. Without JavaScript a ``<noscript>`` list (or, for large corpora, ``papers/index.html``)
still gives every title with a link. Each paper page is plain server-rendered HTML with every
field of the record. BibTeX, when the package has an exporter, is written once to
``bibtex.js`` and loaded on demand (a script element works from ``file://``, ``fetch`` does not).

Field names, labels, order, facets and value groups come from the taxonomy; record strings go
through jinja2's autoescaping (HTML) or :func:`script_json` (JSON inside a script element).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.render import model
from survey_tools.reports.stats import Axis, Stats, get_path, mode_of

BibtexFn = Callable[[Record, Taxonomy], str]

# Above this many records the index links to papers/index.html instead of inlining the
# no-JavaScript list (the list would otherwise double the page's size).
NOSCRIPT_LIMIT = 1000
PAPERS_DIR = "papers"
CSS_FILE = "site.css"
BIB_FILE = "bibtex.js"


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("survey_tools.render", "templates"),
        autoescape=True,  # every record string is untrusted text
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@lru_cache(maxsize=16)
def _asset(name: str) -> str:
    return resources.files("survey_tools.render").joinpath("templates", "site", name).read_text(encoding="utf-8")


def script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: no "<", ">" or "&" can close it or start markup."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _sentinel_label(conf: Mapping[str, Any], value: str) -> str:
    labels = conf.get("sentinel_labels") or {}
    return str(labels.get(value, value))


def _record_values(tax: Taxonomy, ax: Axis, rec: Record) -> list[str]:
    if ax.kind == "keys":
        raw = get_path(rec.data, ax.field)
        if isinstance(raw, Mapping):
            return [f"{k}:{mode_of(v)}" for k, v in raw.items()]
        return [tax.untagged if raw is None else str(raw)]
    return ax.extract(rec, tax.untagged)


def _choices(tax: Taxonomy, ax: Axis) -> list[tuple[str, str]]:
    """(id, label) of an axis in taxonomy order; a mapping offers one choice per key and mode."""
    if ax.kind == "keys" and ax.cf is not None:
        return [(f"{v.id}:{m.id}", f"{v.label} · {m.label.lower()}") for v in ax.cf.values for m in ax.cf.modes]
    if ax.kind == "group" and ax.group is not None:
        return [(v.id, f"{v.id} {v.label}") for v in ax.group.values]
    return [(v, ax.label_of(v)) for v in ax.values if not model.is_sentinel(tax, v)]


class _Facet:
    """One filter group. A value group and its field (reward family, reward type) form one
    facet: each group value is followed by its members, one level down; both keep their own
    key in the URL hash and their own counts, which equal the statistics' tables."""

    def __init__(self, tax: Taxonomy, conf: Mapping[str, Any], axes: Sequence[Axis], records: Sequence[Record]):
        self.axes = list(axes)
        self.name = axes[0].spec
        self.label = axes[0].label if len(axes) == 1 else f"{axes[0].label} and {axes[1].label.lower()}"
        self.values: list[dict[str, Any]] = []
        if len(axes) == 2 and axes[0].group is not None:
            grp, fld = axes
            members = dict(_choices(tax, fld))
            assert grp.group is not None
            for g in grp.group.values:
                self.values.append({"key": 0, "id": g.id, "label": f"{g.id} {g.label}", "level": 0})
                for m in g.members:
                    if m in members:
                        self.values.append({"key": 1, "id": m, "label": members[m], "level": 1})
            sentinel_key = 1
        else:
            self.values = [{"key": 0, "id": i, "label": lbl, "level": 0} for i, lbl in _choices(tax, axes[0])]
            sentinel_key = 0
        known = {(v["key"], v["id"]) for v in self.values}
        seen = {v for r in records for v in _record_values(tax, axes[sentinel_key], r)}
        for extra in sorted(v for v in seen if (sentinel_key, v) not in known):
            self.values.append({"key": sentinel_key, "id": extra, "label": _sentinel_label(conf, extra), "level": 0, "sentinel": 1})
        self.pos = {(v["key"], v["id"]): i for i, v in enumerate(self.values)}
        self.badges = axes[0].kind == "keys"

    def of(self, tax: Taxonomy, rec: Record) -> list[int]:
        out: set[int] = set()
        for k, ax in enumerate(self.axes):
            for v in _record_values(tax, ax, rec):
                i = self.pos.get((k, v))
                if i is not None:
                    out.add(i)
        return sorted(out)


def _facets(tax: Taxonomy, conf: Mapping[str, Any], records: Sequence[Record]) -> list[_Facet]:
    axes = [model.axis(tax, str(f)) for f in conf.get("facets", [])]
    by_field = {ax.spec: ax for ax in axes if ax.kind != "group"}
    merged: set[str] = set()
    out = []
    for ax in axes:
        if ax.spec in merged:
            continue
        member = by_field.get(ax.field) if ax.kind == "group" else None
        if member is not None:
            merged.add(member.spec)
            out.append(_Facet(tax, conf, [ax, member], records))
        else:
            out.append(_Facet(tax, conf, [ax], records))
    return out


def _cell(tax: Taxonomy, conf: Mapping[str, Any], ax: Axis, rec: Record) -> tuple[str, int | str]:
    """A column's text and its sort key (taxonomy order for controlled values, else the value)."""
    values = ax.extract(rec, tax.untagged)
    if ax.kind == "plain":
        text = ", ".join(values)
        raw = get_path(rec.data, ax.field)
        return text, (raw if isinstance(raw, int) else text.lower())
    labels = [_sentinel_label(conf, v) if model.is_sentinel(tax, v) else ax.label_of(v) for v in values]
    order = min((ax.values.index(v) for v in values if v in ax.values), default=len(ax.values))
    return ", ".join(labels), order


def repository(tax: Taxonomy) -> dict[str, str] | None:
    """Links built from ``survey.repository`` ({url, branch}); None when it is not configured."""
    repo = tax.survey.get("repository")
    if not isinstance(repo, Mapping) or not repo.get("url"):
        return None
    url = str(repo["url"]).rstrip("/")
    branch = str(repo.get("branch") or "main")
    return {"url": url, "branch": branch, "blob": f"{url}/blob/{branch}/", "edit": f"{url}/edit/{branch}/", "issues": f"{url}/issues/new"}


def _project_links(tax: Taxonomy, site_path: str) -> list[dict[str, str]]:
    """Repository, README, BibTeX file and contribution guide, from the configuration."""
    repo = repository(tax)
    depth = site_path.count("/")
    up = "../" * depth
    files = [("README", "README.md"), ("All BibTeX (papers.bib)", "reports/papers.bib"), ("How to contribute", "CONTRIBUTING.md")]
    out = []
    if repo:
        out.append({"label": "Repository", "url": repo["url"]})
    for label, rel in files:
        out.append({"label": label, "url": repo["blob"] + rel if repo else up + rel})
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_text(v)}" for k, v in value.items())
    return str(value)


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("https://", "http://"))


def _detail_value(value: Any) -> list[dict[str, str]]:
    """A plain field's value as text and link parts (URLs become links)."""
    if isinstance(value, Mapping):
        out: list[dict[str, str]] = []
        for k, v in value.items():
            if out:
                out.append({"text": "; "})
            out.append({"text": f"{k}: "})
            out.append({"text": str(v), "url": str(v)} if _is_url(v) else {"text": _text(v)})
        return out
    if isinstance(value, list) and any(_is_url(v) for v in value):
        return [{"text": str(v), "url": str(v)} for v in value]
    if _is_url(value):
        return [{"text": str(value), "url": str(value)}]
    return [{"text": _text(value)}]


class _Site:
    def __init__(self, tax: Taxonomy, corpus: Corpus, stats: Stats, bibtex: BibtexFn | None):
        self.tax, self.corpus, self.stats, self.bibtex = tax, corpus, stats, bibtex
        self.conf = model.presentation(tax, "site")
        self.path = str(self.conf.get("path", "reports/site/index.html"))
        self.records = sorted(corpus.retained, key=lambda r: (r.title.lower(), r.id))
        self.facets = _facets(tax, self.conf, self.records)
        self.columns = [model.axis(tax, str(c)) for c in self.conf.get("columns", [])]
        self.range = model.axis(tax, str(self.conf["range"])) if self.conf.get("range") else None
        readme = model.presentation(tax, "readme")
        self.tags = [str(t) for t in readme.get("tags", [])]
        # The row's by-line: the plain fields among the README's tags (year, venue).
        self.byline = [t for t in self.tags if model.axis(tax, t).kind == "plain"]
        self.search = [str(f) for f in self.conf.get("search", [])]
        self.repo = repository(tax)
        self._kinds: dict[str, str] = {}
        self.env = environment()  # one environment: templates are compiled once per build
        self._bib: dict[str, str] = {}

    def kind(self, spec: str) -> str:
        if spec not in self._kinds:
            self._kinds[spec] = model.axis(self.tax, spec).kind
        return self._kinds[spec]

    def entry(self, rec: Record) -> str:
        if rec.id not in self._bib:
            self._bib[rec.id] = self.bibtex(rec, self.tax) if self.bibtex else ""
        return self._bib[rec.id]

    # --- the index ------------------------------------------------------------------------
    def _column_data(self) -> dict[str, list[Any]]:
        """Record fields the script needs, one list per field, each shipped once."""
        tax, recs = self.tax, self.records
        ret = tax.retained
        names = {ret.id_field, ret.title_field, "authors", "summary", *self.byline, *self.search}
        cols: dict[str, list[Any]] = {}
        for name in sorted(names):
            vals: list[Any] = []
            for r in recs:
                raw = r.get(name)
                if name == "authors":
                    names_ = model.display_authors(r)
                    vals.append("; ".join(names_) + ("; et al." if r.get("authors_complete") is False else ""))
                elif isinstance(raw, int) and not isinstance(raw, bool):
                    vals.append(raw)
                else:
                    vals.append("" if raw is None else _text(raw))
            cols[name] = vals
        return cols

    def index_context(self) -> dict[str, Any]:
        tax, conf, recs = self.tax, self.conf, self.records
        ret = tax.retained
        col_tables: list[list[Any]] = []
        cells: list[list[int]] = []
        col_pos: list[dict[tuple[str, Any], int]] = [{} for _ in self.columns]
        for r in recs:
            row = []
            for ci, ax in enumerate(self.columns):
                text, key = _cell(tax, conf, ax, r)
                pos = col_pos[ci]
                if (text, key) not in pos:
                    pos[(text, key)] = len(pos)
                row.append(pos[(text, key)])
            cells.append(row)
        for pos in col_pos:
            col_tables.append([[t, k] for (t, k), _ in sorted(pos.items(), key=lambda kv: kv[1])])
        fvals = [[f.of(tax, r) for f in self.facets] for r in recs]
        counts = [[0] * len(f.values) for f in self.facets]
        for row_f in fvals:
            for fi, vs in enumerate(row_f):
                for v in vs:
                    counts[fi][v] += 1
        links = [[[model.primary_link(r)]] + [[lk["url"], lk["label"]] for lk in model.secondary_links(r, tax)] for r in recs]
        years = [y for y in (r.get(self.range.field) for r in recs) if isinstance(y, int)] if self.range else []
        year_span = [min(years), max(years)] if years else []
        fields = {f.name: f.label for f in ret.fields}
        data = {
            "id": ret.id_field,
            "title": ret.title_field,
            "byline": self.byline,
            "search": [[name, fields.get(name, name)] for name in self.search],
            "facets": [
                {
                    "name": f.name,
                    "label": f.label,
                    "keys": [ax.spec for ax in f.axes],
                    "values": [[v["key"], v["id"], v["label"], v["level"], v.get("sentinel", 0)] for v in f.values],
                    "badges": f.badges,
                }
                for f in self.facets
            ],
            "columns": [
                {"name": ax.spec, "label": ax.label, "values": t, "inByline": ax.spec in self.byline}
                for ax, t in zip(self.columns, col_tables, strict=True)
            ],
            "range": self.range.spec if self.range else "",
            "rangeField": self.range.field if self.range else "",
            "years": year_span,
            "sort": [ret.title_field] + [ax.spec for ax in self.columns],
            "bib": BIB_FILE if self.bibtex else "",
            "papers": PAPERS_DIR + "/",
            "repo": self.repo,
            "n": len(recs),
            "rec": {**self._column_data(), "_f": fvals, "_c": cells, "_l": links},
        }
        ex = tax.excluded
        ex_cols, exclusions = model.exclusion_table(tax, self.corpus)
        facets_view = []
        for f, cnt in zip(self.facets, counts, strict=True):
            vals = [dict(v, n=cnt[i]) for i, v in enumerate(f.values)]
            facets_view.append({"name": f.name, "label": f.label, "keys": [ax.spec for ax in f.axes], "values": vals})
        noscript = [{"id": r.id, "title": r.title, "url": model.primary_link(r)} for r in recs] if len(recs) <= NOSCRIPT_LIMIT else []
        return {
            "survey": tax.survey,
            "headline": dict(self.stats.headline),
            "retained_count": len(self.corpus.retained),
            "excluded_count": len(self.corpus.excluded),
            "retained_label": ret.label,
            "excluded_label": ex.label if ex else "",
            "excluded_title_field": ex.title_field if ex else "",
            "facets": facets_view,
            "columns": [{"name": ax.spec, "label": ax.label} for ax in self.columns],
            "range": {"name": self.range.spec, "label": self.range.label} if self.range else None,
            "years": year_span,
            "n": len(recs),
            "noscript": noscript,
            "papers_dir": PAPERS_DIR,
            "search_labels": [fields.get(n, n).lower() for n in self.search],
            "has_bibtex": self.bibtex is not None,
            "project_links": _project_links(tax, self.path),
            "exclusion_columns": ex_cols,
            "exclusions": exclusions,
            "data": script_json(data),
            "css": Markup(_asset("page.css")),
            "js": Markup(_asset("page.js")),
            "head_js": Markup(_asset("head.js")),
        }

    def index(self) -> str:
        html = self.env.get_template("site/index.html.j2").render(**self.index_context())
        return html.strip("\n") + "\n"

    # --- one page per paper -----------------------------------------------------------------
    def paper_context(self, rec: Record) -> dict[str, Any]:
        tax = self.tax
        ret = tax.retained
        shown = {ret.id_field, ret.title_field, "authors", "authors_complete", "links", "summary"}
        details = []
        for f in ret.fields:
            if f.name in shown:
                continue
            raw = rec.get(f.name)
            if raw is None or raw == "" or raw == [] or raw == {}:
                continue
            details.append({"label": f.label, "parts": _detail_value(raw)})
        tags = []
        decisions = []
        specs = list(dict.fromkeys([*self.tags, *(ax.spec for f in self.facets for ax in f.axes)]))
        for cf in ret.controlled:
            if cf.kind == "mapping":
                raw = rec.get(cf.name)
                if isinstance(raw, Mapping):
                    for k, v in raw.items():
                        item = v if isinstance(v, Mapping) else {}
                        mode = mode_of(v)
                        mode_label = next((m.label for m in cf.modes if m.id == mode), mode)
                        ev = item.get("evidence")
                        second = item.get("second_reading")
                        second = second if isinstance(second, Mapping) else {}
                        second_mode = str(second.get("how") or "")
                        decisions.append(
                            {
                                "field": cf.label,
                                "label": cf.label_of(str(k)),
                                # the value's definition from the taxonomy (O5: what counts as learned)
                                "definition": getattr(cf.value(str(k)), "description", ""),
                                "mode": mode_label,
                                "evidence": str(ev) if ev else "",
                                "evidence_is_url": _is_url(ev),
                                "reason": str(item.get("reason") or ""),
                                "second": {
                                    "mode": next((m.label for m in cf.modes if m.id == second_mode), second_mode),
                                    "disagrees": second_mode != mode,
                                    "by": str(second.get("by") or ""),
                                    "date": str(second.get("date") or ""),
                                    "read": str(second.get("read") or ""),
                                    "reason": str(second.get("reason") or ""),
                                }
                                if second_mode
                                else None,
                            }
                        )
                continue
            if cf.name not in specs:
                specs.append(cf.name)
        for t in model.record_tags(tax, rec, [s for s in specs if self.kind(s) not in ("keys", "plain")]):
            if self.kind(t.axis) != "plain":
                tags.append(t)
        authors = model.display_authors(rec)
        rel = rec.path if isinstance(rec.path, str) and rec.path else f"{ret.folder}/{rec.id}.yaml"
        repo = self.repo
        title = f"Record {rec.id}: "
        body = f"Record: {rec.id} ({rel})\n\nWhat is wrong:\n"
        return {
            "survey": tax.survey,
            "rec": {
                "id": rec.id,
                "title": model.display(rec.title),
                "url": model.primary_link(rec),
                "links": model.secondary_links(rec, tax),
                "authors": authors,
                "et_al": rec.get("authors_complete") is False,
                "summary": str(rec.get("summary", "")),
            },
            "details": details,
            "tags": tags,
            "decisions": decisions,
            "bibtex": self.entry(rec),
            "edit_url": repo["edit"] + rel if repo else "",
            "report_url": f"{repo['issues']}?title={quote(title)}&body={quote(body)}" if repo else "",
            "project_links": _project_links(tax, f"{self.path.rsplit('/', 1)[0]}/{PAPERS_DIR}/x.html"),
            "css_href": f"../{CSS_FILE}",
            "index_href": f"../{self.path.rsplit('/', 1)[-1]}",
            "head_js": Markup(_asset("head.js")),
            "paper_js": Markup(_asset("paper.js")),
        }

    def paper(self, rec: Record) -> str:
        html = self.env.get_template("site/paper.html.j2").render(**self.paper_context(rec))
        return html.strip("\n") + "\n"

    def paper_list(self) -> str:
        ctx = {
            "survey": self.tax.survey,
            "records": [{"id": r.id, "title": r.title, "url": model.primary_link(r)} for r in self.records],
            "css_href": f"../{CSS_FILE}",
            "index_href": f"../{self.path.rsplit('/', 1)[-1]}",
            "head_js": Markup(_asset("head.js")),
        }
        html = self.env.get_template("site/papers.html.j2").render(**ctx)
        return html.strip("\n") + "\n"

    def bib_js(self) -> str:
        assert self.bibtex is not None
        entries = {r.id: self.entry(r) for r in sorted(self.records, key=lambda r: r.id)}
        return "// BibTeX of every paper, loaded by index.html when a reader asks for it. Generated.\nwindow.surveyBibtex(" + str(script_json(entries)) + ");\n"


def site_files(tax: Taxonomy, corpus: Corpus, stats: Stats, bibtex: BibtexFn | None = None) -> dict[str, str]:
    """Every file of the site, keyed by its path relative to the index's folder."""
    s = _Site(tax, corpus, stats, bibtex)
    out = {s.path.rsplit("/", 1)[-1]: s.index(), CSS_FILE: _asset("page.css"), f"{PAPERS_DIR}/index.html": s.paper_list()}
    for rec in s.records:
        out[f"{PAPERS_DIR}/{rec.id}.html"] = s.paper(rec)
    if bibtex is not None:
        out[BIB_FILE] = s.bib_js()
    return out


def render_site(tax: Taxonomy, corpus: Corpus, stats: Stats, bibtex: BibtexFn | None = None) -> str:
    """The index page alone (see :func:`site_files` for the paper pages and BibTeX)."""
    return _Site(tax, corpus, stats, bibtex).index()
