"""The browsing page ``reports/site/index.html``, one page per paper (``papers/<key>.html``), a
statistics page, one page per tag value (``tags/``) and an Atom feed of additions (``feed.xml``).

The index ships the records once, as compact column-wise JSON in the page; its inline script
(ES modules under ``templates/site/js/`` joined by :mod:`survey_tools.render.scripts`) draws
the rows, filters, counts, searches and sorts, and keeps the state in the URL hash and the
browser history. Without JavaScript a ``<noscript>`` list (or, for large corpora, ``papers/index.html``)
still gives every title with a link. Each paper page is plain server-rendered HTML with every
field of the record. BibTeX, when the package has an exporter, is written once to
``bibtex.js`` and loaded on demand (a script element works from ``file://``, ``fetch`` does not).

Field names, labels, order, facets and value groups come from the taxonomy; record strings go
through jinja2's autoescaping (HTML) or :func:`script_json` (JSON inside a script element).
"""

from __future__ import annotations

import io
import json
import posixpath
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property, lru_cache, partial
from importlib import resources
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup, escape

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.repository import repository as configured_repository
from survey_tools.corpus.repository import site_url
from survey_tools.corpus.taxonomy import ControlledField, Taxonomy
from survey_tools.corpus.views import added_since
from survey_tools.net.hrefs import safe_href
from survey_tools.render import model
from survey_tools.render.bibtex import record_entry_type, venue_text
from survey_tools.render.dataset import CARD_FILE as DATA_CARD
from survey_tools.render.dataset import CROISSANT_FILE, DATAPACKAGE_FILE, dataset_files
from survey_tools.render.dataset import CSV_FILE as DATA_CSV
from survey_tools.render.paperpage import paper_page
from survey_tools.render.registry import Lazy
from survey_tools.render.scripts import bundle
from survey_tools.render.searchwords import identifier_texts, taxonomy_words
from survey_tools.render.sitelinks import checked, checked_noted, confirmed, references
from survey_tools.render.sitemap import robots_txt, sitemap_xml
from survey_tools.render.templating import make_environment
from survey_tools.reports.axes import Axis, get_path, mode_of
from survey_tools.reports.corrections import Correction, CorrectionsReport
from survey_tools.reports.living import cadence_line
from survey_tools.reports.stats import Stats
from survey_tools.slugs import slug  # the tag pages' file names (validate checks that they differ)

BibtexFn = Callable[[Record, Taxonomy], str]

# Above this many records the index links to papers/index.html instead of inlining the
# no-JavaScript list (the list would otherwise double the page's size).
NOSCRIPT_LIMIT = 1000
PAPERS_DIR = "papers"
TAGS_DIR = "tags"
CSS_FILE = "site.css"
# The script of the paper, statistics and tag pages: one file they all load (and a browser
# caches), not 8 KB inlined in each of 10,000 pages. A classic script, so file:// runs it too.
PAPER_JS_FILE = "paper.js"
BIB_FILE = "bibtex.js"
STATS_FILE = "stats.html"
FEED_FILE = "feed.xml"
# The site's own copy of the bibliography (the published folder must hold what it links).
BIBFILE_FILE = "papers.bib"
FIGURES_DIR = "figures"
# The social card the figures generator draws (og:image), and the files a published site has for
# crawlers and lost readers.
CARD_FILE = "card.png"
SITEMAP_FILE = "sitemap.xml"
ROBOTS_FILE = "robots.txt"
NOT_FOUND_FILE = "404.html"
# The exclusion log's own page (the index shows it in a tab, which needs the script).
EXCLUSIONS_FILE = "exclusions.html"
# Up to this many records the list puts every row in the page (find-in-page and screen readers
# reach every paper; CSS content-visibility spares the browser the work off screen). Beyond it
# the script draws a window of rows, which keeps 100,000 records usable.
ALL_ROWS_LIMIT = 3000
# From this many records the rows' cells get `content-visibility: auto`. Chromium leaves the
# contents of skipped cells out of its accessibility tree, so smaller lists (the survey's own)
# draw every row in full: a screen reader reaches every title, not only those near the screen.
SKIP_OFFSCREEN_FROM = 1000


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    # One for the process: each template is compiled once, not once per build.
    # Autoescaped: every record string is untrusted text.
    env = make_environment(jinja2.PackageLoader("survey_tools.render", "templates"), autoescape=True)
    env.filters["count"] = lambda n: f"{int(n):,}"  # 100000 -> 100,000
    env.filters["papers"] = papers  # 1 -> "1 paper", 2 -> "2 papers"
    return env


def papers(n: int) -> str:
    """A count of papers as people read it: "1 paper", "1,200 papers"."""
    return f"{int(n):,} paper" if n == 1 else f"{int(n):,} papers"


def claimed_values(where: Any) -> set[tuple[str, str]]:
    """The (field, value id) pairs a claim's filter (``where:`` of data/claims.yaml) names,
    through ``any_of`` and ``not``; a mapping field's as ``key:mode`` (``O5:learned``)."""
    out: set[tuple[str, str]] = set()
    if not isinstance(where, Mapping):
        return out
    for key, cond in where.items():
        if key in ("any_of", "not"):
            for sub in cond if isinstance(cond, list) else [cond]:
                out |= claimed_values(sub)
        elif isinstance(cond, Mapping):
            for k, modes in cond.items():
                out |= {(str(key), f"{k}:{m}") for m in (modes if isinstance(modes, list) else [modes])}
        else:
            out |= {(str(key), str(v)) for v in (cond if isinstance(cond, list) else [cond])}
    return out


@lru_cache(maxsize=16)
def _asset(name: str) -> str:
    return resources.files("survey_tools.render").joinpath("templates", "site", name).read_text(encoding="utf-8")


# json.dumps with these settings, its encoder made once (dumps makes one a call: 20,000 calls at
# 10,000 records, the paper pages' JSON-LD and the index's data).
_SCRIPT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: no "<", ">" or "&" can close it or start markup."""
    text = _SCRIPT_JSON.encode(data)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _sentinel_label(conf: Mapping[str, Any], value: str) -> str:
    labels = conf.get("sentinel_labels") or {}
    return str(labels.get(value, value))


def _record_values(tax: Taxonomy, ax: Axis, rec: Record) -> Sequence[str]:
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
        self.keys = [ax.spec for ax in axes]

    def of(self, tax: Taxonomy, rec: Record) -> list[int]:
        out: set[int] = set()
        for k, ax in enumerate(self.axes):
            for v in _record_values(tax, ax, rec):
                i = self.pos.get((k, v))
                if i is not None:
                    out.add(i)
        return sorted(out)


# A paper's venue as its citation tags and JSON-LD say it, by its BibTeX entry type (the one the
# page's BibTeX shows): a journal article, a paper in proceedings, a report of an institution;
# a blog post, documentation or preprint (@misc) names no venue of those kinds.
_CITATION_VENUE = {
    "article": "citation_journal_title",
    "inproceedings": "citation_conference_title",
    "techreport": "citation_technical_report_institution",
}
_JSONLD_TYPE = {"article": "ScholarlyArticle", "inproceedings": "ScholarlyArticle", "techreport": "Report"}
# The venue in JSON-LD: (property, type); a journal is what the article is part of, beside the list.
_JSONLD_VENUE = {
    "article": ("isPartOf", "Periodical"),
    "inproceedings": ("publication", "PublicationEvent"),
    "techreport": ("publisher", "Organization"),
}

_NO_LINKS = {"page": "", "list": ""}  # a tag no facet offers: no tag page, no filter


def _value_page(f: _Facet, v: Mapping[str, Any]) -> str:
    """The tag page of value ``v`` of facet ``f``, relative to the tag pages' folder."""
    return f"{slug(f.name)}/{slug(str(v['id']))}.html"


class _EditionFacet(_Facet):
    """The edition a record entered in: "New since <latest edition>" (the living list) and each
    published edition, newest first. Only when the taxonomy declares editions."""

    def __init__(self, tax: Taxonomy, new_label: str):  # noqa: D107 - no axis: built from the editions
        ed = tax.editions
        assert ed is not None
        fld = next((f for f in tax.retained.fields if f.name == ed.field), None)
        self.axes = []
        self.name = ed.field
        self.label = fld.label if fld else ed.field
        self.values = [{"key": 0, "id": ed.living.id, "label": new_label, "level": 0}]
        self.values += [{"key": 0, "id": e.id, "label": e.label, "level": 0} for e in reversed(ed.published)]
        self.pos = {(0, v["id"]): i for i, v in enumerate(self.values)}
        self.badges = False
        self.keys = [ed.field]

    def of(self, tax: Taxonomy, rec: Record) -> list[int]:
        assert tax.editions is not None
        i = self.pos.get((0, str(rec.get(tax.editions.field))))
        return [] if i is None else [i]


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
    """The page's links to the repository, from the one reading of ``survey.repository``
    (corpus/repository.py): None while it is missing or a placeholder, as in CONTRIBUTING."""
    repo = configured_repository(tax)
    if repo is None:
        return None
    return {"url": repo.url, "branch": repo.branch, "blob": repo.blob(""),
            "edit": f"{repo.url}/edit/{repo.branch}/", "issues": f"{repo.url}/issues/new"}


def _project_links(tax: Taxonomy, up: str, has_bib: bool) -> list[dict[str, str]]:
    """Repository, README, BibTeX file and contribution guide, for a page ``up`` (``"../"`` per
    level) below the site's index. Only what the published folder holds is linked relatively
    (its own copy of papers.bib); the README and the contribution guide live in the repository
    and are linked there when ``survey.repository`` names it, and left out otherwise (a relative
    link would leave the published folder: a dead link wherever the site is served)."""
    repo = repository(tax)
    out = []
    if repo:
        out.append({"label": "Repository", "url": repo["url"]})
        out.append({"label": "README", "url": repo["blob"] + "README.md"})
    if has_bib:
        out.append({"label": "All BibTeX (papers.bib)", "url": up + BIBFILE_FILE})
    if repo:
        out.append({"label": "How to contribute", "url": repo["blob"] + "CONTRIBUTING.md"})
    return out


def favicon(tax: Taxonomy) -> str:
    """The site's icon as a ``data:`` URI: the list's initial on a square. Every page declares it
    (the index stays one self-contained file), so no browser asks the server for a /favicon.ico
    that the published folder does not have."""
    name = str(tax.survey.get("short_title") or tax.survey.get("list_title") or "S").strip() or "S"
    svg = (
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'>"
        "<rect width='32' height='32' rx='6' fill='#1f4e79'/>"
        "<text x='16' y='23' font-family='sans-serif' font-size='20' font-weight='bold' "
        f"text-anchor='middle' fill='#ffffff'>{escape(name[0].upper())}</text></svg>"
    )
    return "data:image/svg+xml," + quote(svg, safe="=:/',")


def _size(n: int) -> str:
    """Bytes as people read them (the BibTeX loading message says what is coming)."""
    for unit, scale in (("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}" if n < 10 * scale else f"{n // scale} {unit}"
    return f"{n} bytes"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_text(v)}" for k, v in value.items())
    return model.display(value)  # TeX accents decoded, as every other output shows them


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("https://", "http://")) and bool(safe_href(value))


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
    def __init__(
        self,
        tax: Taxonomy,
        corpus: Corpus,
        stats: Stats,
        bibtex: BibtexFn | None,
        corrections: CorrectionsReport | None = None,
        figures: Sequence[Mapping[str, str]] = (),
        all_rows_limit: int = ALL_ROWS_LIMIT,
        claims: Sequence[Any] = (),
        card: bool = False,
    ):
        self.tax, self.corpus, self.stats, self.bibtex = tax, corpus, stats, bibtex
        self.card = card
        # The facet values the survey's claims name (its headline, O5 learned, among them).
        self.claimed = set().union(*(claimed_values(w) for w in claims))
        self.all_rows_limit = all_rows_limit
        self.corrections, self.figures = corrections, list(figures)
        # The figures as the statistics page shows them: their copies in the site's own folder.
        self.site_figures = [{"title": f["title"], "src": f"{FIGURES_DIR}/{posixpath.basename(f['path'])}"} for f in self.figures]
        self.conf = model.presentation(tax, "site")
        self.path = str(self.conf.get("path", "reports/site/index.html"))
        self.folder = self.path.rsplit("/", 1)[0] if "/" in self.path else ""
        self.index_name = self.path.rsplit("/", 1)[-1]
        # The configured public address of the index's folder (canonical URLs, cards, the feed).
        self.url = site_url(tax)
        self.order = str(self.conf.get("order") or "newest")
        self.feed_entries = int(self.conf["feed_entries"])  # the schema gives its default
        self.records = sorted(corpus.retained, key=lambda r: (r.title.lower(), r.id))
        ed = tax.editions
        self.latest = ed.latest if ed else None
        self.added_field = ed.added_field if ed else ""
        self.new_label = f"New since {self.latest.label}" if self.latest else ""
        self.new = {r.id for r in added_since(corpus)} if self.latest else set()
        self.facets = _facets(tax, self.conf, self.records)
        if self.latest is not None:
            self.facets.append(_EditionFacet(tax, self.new_label))
        self.columns = [model.axis(tax, str(c)) for c in self.conf.get("columns", [])]
        self.range = model.axis(tax, str(self.conf["range"])) if self.conf.get("range") else None
        readme = model.presentation(tax, "readme")
        self.tags = [str(t) for t in readme.get("tags", [])]
        # The row's by-line: the plain fields among the README's tags (year, venue).
        self.byline = [t for t in self.tags if model.axis(tax, t).kind == "plain"]
        self.search = [str(f) for f in self.conf.get("search", [])]
        self.repo = repository(tax)
        self.icon = favicon(tax)
        self._kinds: dict[str, str] = {}
        self.env = environment()  # one environment: templates are compiled once per build
        self._bib: dict[str, str] = {}

    def added(self, rec: Record) -> str:
        raw = rec.get(self.added_field) if self.added_field else None
        return str(raw) if raw else ""

    def abs_url(self, rel: str) -> str:
        """``rel`` (relative to the index's folder) at the configured address; "" when none is set."""
        if not self.url:
            return ""
        # A folder's index.html is served at the folder's own address: the one to share.
        return f"{self.url}/{rel.removesuffix('index.html')}" if rel == "index.html" or rel.endswith("/index.html") else f"{self.url}/{rel}"

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

    def _coded(self) -> tuple[list[list[Any]], list[list[int]], list[list[Any]], list[list[int]]]:
        """The page's rows in codes: each column's distinct (text, sort key) cells with each
        record's position among them, and each record's facet values with their counts."""
        tax, conf, recs = self.tax, self.conf, self.records
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
        col_tables = [[[t, k] for (t, k), _ in sorted(pos.items(), key=lambda kv: kv[1])] for pos in col_pos]
        fvals = self._facet_values
        counts = [[0] * len(f.values) for f in self.facets]
        for row_f in fvals:
            for fi, vs in enumerate(row_f):
                for v in vs:
                    counts[fi][v] += 1
        return col_tables, cells, fvals, counts

    def _facet_data(self) -> list[dict[str, Any]]:
        """The facets as the page's script reads them (each value as a short array; ``keep``:
        the values a claim names, never folded away however few papers hold them)."""
        return [
            {
                "name": f.name,
                "label": f.label,
                "keys": f.keys,
                "values": [[v["key"], v["id"], v["label"], v["level"], v.get("sentinel", 0)] for v in f.values],
                "badges": f.badges,
                "keep": [i for i, v in enumerate(f.values) if (f.keys[v["key"]], str(v["id"])) in self.claimed],
            }
            for f in self.facets
        ]

    def _years(self) -> list[int]:
        """The first and last year of the range field over the records ([] without a range)."""
        if self.range is None:
            return []
        years = [y for y in (r.get(self.range.field) for r in self.records) if isinstance(y, int)]
        return [min(years), max(years)] if years else []

    def _record_data(self, fvals: list[list[list[int]]], cells: list[list[int]]) -> dict[str, list[Any]]:
        """The records' columns as the script reads them: the fields it shows, the facet values
        (``_f``), column cells (``_c``), links (``_l``) and, with editions, when each was added."""
        recs, tax = self.records, self.tax
        links = [[[model.primary_link(r)]] + [[lk["url"], lk["label"]] for lk in model.secondary_links(r, tax)] for r in recs]
        out: dict[str, list[Any]] = {**self._column_data(), "_f": fvals, "_c": cells, "_l": links}
        # What the search reads besides the fields: identifiers and links, the tags' definitions.
        out["_i"] = identifier_texts(tax, recs)
        out["_w"] = self._words[1]
        if self.latest is not None:
            out["_a"] = [self.added(r) for r in recs]
            out["_n"] = [1 if r.id in self.new else 0 for r in recs]
        return out

    def _script_data(self, col_tables: list[list[Any]], rec_data: dict[str, list[Any]]) -> dict[str, Any]:
        """Everything the list's script reads from the page's JSON."""
        ret = self.tax.retained
        fields = {f.name: f.label for f in ret.fields}
        added = self.added_field if self.latest is not None else ""
        rng = self.range
        return {
            "id": ret.id_field,
            "title": ret.title_field,
            "byline": self.byline,
            "search": [[name, fields.get(name, name)] for name in self.search],
            "facets": self._facet_data(),
            "columns": [
                {"name": ax.spec, "label": ax.label, "values": t, "inByline": ax.spec in self.byline}
                for ax, t in zip(self.columns, col_tables, strict=True)
            ],
            "range": rng.spec if rng else "",
            "rangeField": rng.field if rng else "",
            "years": self._years(),
            "sort": [ret.title_field] + [ax.spec for ax in self.columns] + ([added] if added else []),
            "addedSort": added,
            "addedLabel": self._added_label(),
            "newLabel": self.new_label,
            "order": self.order,
            "allLimit": self.all_rows_limit,
            "skipFrom": SKIP_OFFSCREEN_FROM,
            "bib": BIB_FILE if self.bibtex else "",
            "bibSize": _size(len(self.bib_js().encode("utf-8"))) if self.bibtex else "",
            "papers": PAPERS_DIR + "/",
            "repo": self.repo,
            "n": len(self.records),
            "words": self._words[0],
            "rec": rec_data,
        }

    @cached_property
    def _words(self) -> tuple[list[str], list[list[int]]]:
        """The definitions of the facets' values, once, and each record's by position."""
        return taxonomy_words(self.tax, [ax for f in self.facets for ax in f.axes], self.records)

    def _facets_view(self, counts: list[list[int]]) -> list[dict[str, Any]]:
        """The facets as the sidebar's HTML shows them, each value with its count."""
        out = []
        for f, cnt in zip(self.facets, counts, strict=True):
            vals = [dict(v, n=cnt[i]) for i, v in enumerate(f.values)]
            out.append({"name": f.name, "label": f.label, "keys": f.keys, "values": vals})
        return out

    def index_context(self) -> dict[str, Any]:
        tax, recs = self.tax, self.records
        ret, ex = tax.retained, tax.excluded
        col_tables, cells, fvals, counts = self._coded()
        data = self._script_data(col_tables, self._record_data(fvals, cells))
        ex_cols, exclusions = model.exclusion_table(tax, self.corpus)
        fields = {f.name: f.label for f in ret.fields}
        small = len(recs) <= NOSCRIPT_LIMIT
        return {
            "survey": tax.survey,
            "headline": dict(self.stats.headline),
            "cadence": self._cadence(),
            "retained_count": len(self.corpus.retained),
            "excluded_count": len(self.corpus.excluded),
            "retained_label": ret.label,
            "excluded_label": ex.label if ex else "",
            "excluded_title_field": ex.title_field if ex else "",
            "facets": self._facets_view(counts),
            "columns": [{"name": ax.spec, "label": ax.label} for ax in self.columns],
            "range": {"name": self.range.spec, "label": self.range.label} if self.range else None,
            "years": data["years"],
            "n": len(recs),
            "noscript": [{"id": r.id, "title": model.display(r.title), "url": model.primary_link(r)} for r in recs] if small else [],
            "papers_dir": PAPERS_DIR,
            "search_labels": [fields.get(n, n).lower() for n in self.search],
            "has_bibtex": self.bibtex is not None,
            "project_links": _project_links(tax, "", self.bibtex is not None),
            "exclusion_columns": ex_cols,
            "exclusions": exclusions,
            "exclusions_href": EXCLUSIONS_FILE if ex is not None else "",
            "data": script_json(data),
            "css": Markup(_asset("page.css")),
            "js": Markup(bundle("list.mjs")),
            "head_js": Markup(_asset("head.js")),
            "icon_href": self.icon,
            "sorts": self._sorts(),
            "meta": self._index_meta(len(recs)),
            "nav": self._nav(""),
        }

    def _added_label(self) -> str:
        fld = next((f for f in self.tax.retained.fields if f.name == self.added_field), None)
        return fld.label if fld else self.added_field

    def _sorts(self) -> list[dict[str, str]]:
        """The sort menu: the default order first, then title and each column both ways."""
        newest = self.order == "newest" and self.latest is not None
        out = [{"value": "-1", "label": "Best match when searching, else newest first" if newest else "Best match when searching, else title"}]
        out.append({"value": "0.1", "label": "Title A–Z"})
        for i, ax in enumerate(self.columns, start=1):
            out += [{"value": f"{i}.1", "label": f"{ax.label} ↑"}, {"value": f"{i}.-1", "label": f"{ax.label} ↓"}]
        if self.latest is not None:
            i = len(self.columns) + 1
            out += [{"value": f"{i}.-1", "label": "Newest first"}, {"value": f"{i}.1", "label": "Oldest first"}]
        return out

    def _nav(self, up: str) -> list[dict[str, str]]:
        """Links between the site's pages, relative to a page ``up`` levels below the index."""
        out = [
            {"label": "List", "url": up + self.index_name},
            {"label": "Statistics", "url": up + STATS_FILE},
            {"label": "Browse by tag", "url": f"{up}{TAGS_DIR}/index.html"},
            {"label": "All titles", "url": f"{up}{PAPERS_DIR}/index.html"},
        ]
        if self.tax.excluded is not None:
            out.append({"label": self.tax.excluded.label, "url": up + EXCLUSIONS_FILE})
        return [*out, {"label": "Feed of additions", "url": up + FEED_FILE}]

    def exclusions_page(self) -> str:
        """The exclusion log as a page of its own (every reader reaches it, script or none)."""
        ex = self.tax.excluded
        assert ex is not None
        ex_cols, exclusions = model.exclusion_table(self.tax, self.corpus)
        ctx = {
            "survey": self.tax.survey, "excluded_label": ex.label, "excluded_title_field": ex.title_field,
            "exclusion_columns": ex_cols, "exclusions": exclusions, "index_href": self.index_name,
            "css_href": CSS_FILE, "nav": self._nav(""), "head_js": Markup(_asset("head.js")),
            "meta": self._page_meta(EXCLUSIONS_FILE, f"{ex.label} · {self.tax.survey.get('short_title', '')}"),
            "paper_js_href": PAPER_JS_FILE, "icon_href": self.icon,
        }
        return self.env.get_template("site/exclusions.html.j2").render(**ctx).strip("\n") + "\n"

    def _index_meta(self, n: int) -> dict[str, Any]:
        """Canonical address, Open Graph / Twitter card and JSON-LD ``Dataset`` of the index."""
        survey = self.tax.survey
        url = self.abs_url(self.index_name)
        ld: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": "Dataset",
            "name": str(survey.get("list_title", "")),
            "description": str(survey.get("description", "")),
            "isBasedOn": str(survey.get("url", "")),
            "variableMeasured": [ax.label for ax in self.columns],
            "size": f"{n} records",
        }
        if url:
            ld["url"] = url
        if self.url:
            ld["distribution"] = [{"@type": "DataDownload", "encodingFormat": "text/csv", "contentUrl": self.abs_url(DATA_CSV)}]
        if self.bibtex is not None and self.url:
            ld["distribution"].append({"@type": "DataDownload", "encodingFormat": "application/x-bibtex", "contentUrl": self.abs_url(BIB_FILE)})
        return {"canonical": url, "image": self.image, "type": "website", "title": str(survey.get("list_title", "")),
                "description": str(survey.get("description", "")), "jsonld": script_json(ld)}

    def index(self) -> str:
        html = self.env.get_template("site/index.html.j2").render(**self.index_context())
        return html.strip("\n") + "\n"

    # --- one page per paper -----------------------------------------------------------------
    @cached_property
    def _paper_common(self) -> dict[str, Any]:
        """What every paper page shares (its links, navigation, scripts and which tags it
        shows), worked out for the first page only."""
        tax, ret = self.tax, self.tax.retained
        specs = list(dict.fromkeys([*self.tags, *(ax.spec for f in self.facets for ax in f.axes)]))
        specs += [cf.name for cf in ret.controlled if cf.kind != "mapping" and cf.name not in specs]
        return {
            "hidden": {ret.id_field, ret.title_field, "authors", "authors_complete", "links", "summary"}
            | {f.name for f in ret.fields if f.private},  # a private field is never published
            "tag_specs": [s for s in specs if self.kind(s) not in ("keys", "plain")],
            "mappings": [cf for cf in ret.controlled if cf.kind == "mapping"],
            "page": {
                "survey": tax.survey,
                "links_html": Markup(self.env.get_template("site/_paper_links.html.j2").render(
                    project_links=_project_links(tax, "../", self.bibtex is not None), nav=self._nav("../")
                ).rstrip("\n")),
                "css_href": f"../{CSS_FILE}",
                "index_href": f"../{self.index_name}",
                "head_js": Markup(_asset("head.js")),
                "paper_js_href": f"../{PAPER_JS_FILE}",
                "icon_href": self.icon,
            },
        }

    @cached_property
    def _value_links(self) -> dict[tuple[str, str], dict[str, str]]:
        """(field or group, value id) -> the value's tag page and the list filtered to it, from a
        paper page: every tag a paper page shows that a facet offers is a way into both."""
        out: dict[tuple[str, str], dict[str, str]] = {}
        for f in self.facets:
            for v in f.values:
                if not v.get("sentinel"):
                    out[(f.keys[v["key"]], str(v["id"]))] = {
                        "page": f"../{TAGS_DIR}/{_value_page(f, v)}",
                        "list": f"../{self.index_name}#{self._hash_of(f, v)}",
                    }
        return out

    def _paper_tags(self, rec: Record, specs: Sequence[str]) -> list[dict[str, Any]]:
        """The record's tags along ``specs`` (sentinels left out): each its reading mark and its
        HTML (the label, each value with its label and, when a facet offers it, its tag page and
        filtered list), rendered once for every paper page showing the same."""
        tax = self.tax
        sentinels = (tax.na, tax.untagged)
        marks = model.reading_marks(tax)
        out = []
        for spec in specs:
            ax = model.axis(tax, spec)
            values = tuple(v for v in dict.fromkeys(ax.extract(rec, tax.untagged)) if v not in sentinels)
            if values:
                mark = marks.of(rec, marks.key_for(ax))
                out.append({"mark": mark, "html": self._tag_html(spec, values, mark)})
        return out

    # A few thousand fragments hold the tags of a survey's pages: most papers share their values
    # along an axis with many others (bounded: one per paper where every combination is new).
    @cached_property
    def _tag_html(self) -> Callable[[str, tuple[str, ...], str], Markup]:
        template, links = self.env.get_template("site/_paper_tag.html.j2"), self._value_links

        @lru_cache(maxsize=1 << 12)
        def html(spec: str, values: tuple[str, ...], mark: str) -> Markup:
            ax = model.axis(self.tax, spec)
            t = {"label": ax.label, "mark": mark, "values": [
                {"label": ax.label_of(v), **links.get((spec, v), _NO_LINKS)} for v in values]}
            return Markup(template.render(t=t))

        return html

    @cached_property
    def _decision_badge(self) -> Callable[[str, str, str, str], Markup]:
        """A sub-decision's badge (value and mode, mark, tag page and list) by (field, value,
        mode, mark), rendered once for every paper page showing the same."""
        template, links = self.env.get_template("site/_paper_decision.html.j2"), self._value_links
        ret = self.tax.retained

        @lru_cache(maxsize=1 << 12)
        def badge(field: str, value: str, mode: str, mark: str) -> Markup:
            cf = ret.controlled_field(field)
            assert cf is not None
            d = {
                "label": cf.label_of(value),
                # the value's definition from the taxonomy (O5: what counts as learned)
                "definition": getattr(cf.value(value), "description", ""),
                "mode": next((m.label for m in cf.modes if m.id == mode), mode),
                "mark": mark,
                **links.get((field, f"{value}:{mode}"), _NO_LINKS),
            }
            return Markup(template.render(d=d))

        return badge

    def paper_context(self, rec: Record) -> dict[str, Any]:
        tax = self.tax
        ret = tax.retained
        common = self._paper_common
        details = []
        for f in ret.fields:
            if f.name in common["hidden"]:
                continue
            raw = rec.get(f.name)
            if raw is None or raw == "" or raw == [] or raw == {}:
                continue
            details.append({"label": f.label, "parts": _detail_value(raw)})
        marks = model.reading_marks(tax)
        decisions = []
        for cf in common["mappings"]:
            for d in self._decisions(cf, rec):
                # a sub-decision whose reading rests on code carries its mark
                d["mark"] = marks.of(rec, d["id"] if d["id"] in marks.keys else "")
                d["badge"] = self._decision_badge(cf.name, d["id"], d["mode_id"], d["mark"])
                decisions.append(d)
        tags = self._paper_tags(rec, common["tag_specs"])
        used = {x["mark"] for x in (*tags, *decisions) if x.get("mark")}
        authors = model.display_authors(rec)
        rel = rec.path if isinstance(rec.path, str) and rec.path else f"{ret.folder}/{rec.id}.yaml"
        repo = self.repo
        url = model.primary_link(rec)
        links = model.secondary_links(rec, tax)
        title = f"Record {rec.id}: "
        body = f"Record: {rec.id} ({rel})\n\nWhat is wrong:\n"
        return {
            **common["page"],
            "rec": {
                "id": rec.id,
                "title": model.display(rec.title),
                "url": url,
                "links": links,
                "authors": authors,
                "et_al": rec.get("authors_complete") is False,
                "summary": str(rec.get("summary", "")),
            },
            "details": details,
            "tags": tags,
            "decisions": decisions,
            "mark_legends": [{"mark": k, "legend": v} for k, v in marks.legends.items() if k in used],
            "curation": self._curation(rec),
            "bibtex": self.entry(rec),
            "edit_url": repo["edit"] + rel if repo else "",
            "report_url": f"{repo['issues']}?title={quote(title)}&body={quote(body)}" if repo else "",
            "meta": self._paper_meta(rec, authors, url, links),
        }

    @staticmethod
    def _decisions(cf: ControlledField, rec: Record) -> list[dict[str, Any]]:
        """A mapping field's entries (O1-O5: how each sub-decision is made), with their evidence
        and any second reading, as the paper page lists them."""
        raw = rec.get(cf.name)
        if not isinstance(raw, Mapping):
            return []
        out = []
        for k, v in raw.items():
            item = v if isinstance(v, Mapping) else {}
            mode = mode_of(v)
            ev = item.get("evidence")
            second = item.get("second_reading")
            second = second if isinstance(second, Mapping) else {}
            second_mode = str(second.get("how") or "")
            out.append(
                {
                    "field": cf.label,
                    "id": str(k),
                    "mode_id": mode,
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
        return out

    @cached_property
    def _corrections_by_record(self) -> dict[str, list[tuple[Correction, ControlledField | None, str]]]:
        """Each record's corrections that still apply (a stale one is reported, not shown), with
        the controlled field each changes and that field's label: worked out once, not for each
        of 10,000 paper pages."""
        out: dict[str, list[tuple[Correction, ControlledField | None, str]]] = {}
        rep = self.corrections
        if rep is None:
            return out
        stale = {p.field.removeprefix("correction ") for p in rep.problems}
        ret = self.tax.retained
        labels = {f.name: f.label for f in ret.fields} | {c.name: c.label for c in ret.controlled}
        for c in rep.corrections:
            if c.id not in stale:
                out.setdefault(c.record, []).append((c, ret.controlled_field(c.field), labels.get(c.field, c.field)))
        return out

    def _curation(self, rec: Record) -> dict[str, Any]:
        """When the record entered the list, and the corrections proposed or applied to it."""
        ed = self.tax.editions
        edition = str(rec.get(ed.field, "")) if ed else ""
        e = ed.get(edition) if ed else None
        pending: list[dict[str, Any]] = []
        applied: list[dict[str, Any]] = []
        for c, cf, label in self._corrections_by_record.get(rec.id, ()):

            def show(v: Any, cf: Any = cf) -> str:
                return cf.label_of(str(v)) if cf is not None and isinstance(v, str) else _text(v)

            item = {"id": c.id, "field": label, "current": show(c.current), "proposed": show(c.proposed),
                    "evidence": c.evidence, "evidence_is_url": _is_url(c.evidence), "reason": c.reason}
            (applied if c.kind == "metadata" else pending).append(item)
        return {
            "new": rec.id in self.new,
            "new_label": self.new_label,
            "added": self.added(rec),
            "edition": e.label if e else edition,
            "edition_url": safe_href(e.url) if e else "",
            "pending": pending,
            "applied": applied,
        }

    def _paper_meta(
        self, rec: Record, authors: Sequence[str], link: str, links: Sequence[Mapping[str, str]]
    ) -> dict[str, Any]:
        """Highwire ``citation_*`` tags (Google Scholar, Zotero), a card and JSON-LD ``ScholarlyArticle``."""
        ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), Mapping) else {}
        year = rec.get("year")
        citation = [("citation_title", model.display(rec.title))]
        citation += [("citation_author", a) for a in authors]
        if isinstance(year, int):
            citation.append(("citation_publication_date", str(year)))
        for kind in ("arxiv", "doi"):
            if ids.get(kind):
                citation.append((f"citation_{kind}_id" if kind == "arxiv" else "citation_doi", str(ids[kind])))
        kind = record_entry_type(rec, self.tax)
        venue = venue_text(rec, self.tax)
        venue_tag = _CITATION_VENUE.get(kind)
        if venue_tag and venue:
            citation.append((venue_tag, str(rec.get("affiliation") or venue) if kind == "techreport" else venue))
        if link.lower().endswith(".pdf"):
            citation.append(("citation_pdf_url", link))
        url = self.abs_url(f"{PAPERS_DIR}/{rec.id}.html")
        ld: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": _JSONLD_TYPE.get(kind, "ScholarlyArticle" if ids.get("arxiv") else "CreativeWork"),
            "headline": model.display(rec.title),
            "name": model.display(rec.title),
            "author": [{"@type": "Person", "name": a} for a in authors],
            "abstract": str(rec.get("summary", "")),
            "sameAs": [link, *(lk["url"] for lk in links)],
            "isPartOf": {"@type": "Dataset", "name": str(self.tax.survey.get("list_title", ""))},
        }
        if isinstance(year, int):
            ld["datePublished"] = str(year)
        if venue and kind in _JSONLD_VENUE:
            prop, typ = _JSONLD_VENUE[kind]
            where = {"@type": typ, "name": venue}
            ld[prop] = [where, ld[prop]] if prop in ld else where
        if url:
            ld["url"] = url
        return {"canonical": url, "image": self.image, "type": "article", "title": model.display(rec.title), "description": str(rec.get("summary", "")),
                "citation": citation, "jsonld": script_json(ld)}

    @cached_property
    def _paper_template(self) -> jinja2.Template:
        return self.env.get_template("site/paper.html.j2")  # looked up once, not per page

    def paper(self, rec: Record) -> str:
        return self.paper_noted(rec)[0]

    def paper_noted(self, rec: Record) -> tuple[str, list[str]]:
        """The paper's page and its links as the site's link check reads them from the page."""
        ctx = self.paper_context(rec)
        # Written by paperpage.py, the same bytes as the template (tests/unit/render/
        # test_paper_page.py): Jinja's pass was about a tenth of a cold 10k build. The template
        # renders when the survey's titles are missing, so that its error stays the one shown.
        survey = ctx["survey"]
        if "short_title" in survey and "list_title" in survey:
            html, refs = paper_page(ctx)  # begins with "<!doctype" and ends with one newline
            return html, confirmed(html, refs)
        html = self._paper_template.render(**ctx).strip("\n") + "\n"
        return html, references(html)

    def paper_list(self) -> str:
        ctx = {
            "survey": self.tax.survey,
            "records": [{"id": r.id, "title": model.display(r.title), "url": model.primary_link(r)} for r in self.records],
            "css_href": f"../{CSS_FILE}",
            "index_href": f"../{self.index_name}",
            "icon_href": self.icon,
            "head_js": Markup(_asset("head.js")),
        }
        html = self.env.get_template("site/papers.html.j2").render(**ctx)
        return html.strip("\n") + "\n"

    def bib_js(self) -> str:
        assert self.bibtex is not None
        if not hasattr(self, "_bib_js"):
            entries = {r.id: self.entry(r) for r in sorted(self.records, key=lambda r: r.id)}
            self._bib_js = "// BibTeX of every paper, loaded by index.html when a reader asks for it. Generated.\nwindow.surveyBibtex(" + str(script_json(entries)) + ");\n"
        return self._bib_js

    def papers_bib(self) -> str:
        """The site's own ``papers.bib``: every entry the pages show, in key order."""
        assert self.bibtex is not None
        recs = sorted(self.records, key=lambda r: r.id)
        title = str(self.tax.survey.get("list_title", ""))
        header = f"% {len(recs)} BibTeX entries of {title}, generated by `survey build`; do not edit.\n\n"
        return header + "\n".join(self.entry(r) for r in recs)

    # --- statistics, tag pages, feed ----------------------------------------------------------------
    @cached_property
    def _facet_values(self) -> list[list[list[int]]]:
        """Each record's values in each facet (positions in the facet's list), worked out once
        for the index's rows and the tag pages' members."""
        return [[f.of(self.tax, r) for f in self.facets] for r in self.records]

    def _members(self) -> list[list[list[Record]]]:
        """For each facet and value, the records holding it (title order)."""
        out: list[list[list[Record]]] = [[[] for _ in f.values] for f in self.facets]
        for r, row in zip(self.records, self._facet_values, strict=True):
            for fi, vs in enumerate(row):
                for v in vs:
                    out[fi][v].append(r)
        return out

    def _hash_of(self, f: _Facet, v: Mapping[str, Any]) -> str:
        return f"{quote(f.keys[v['key']], safe=':')}={quote(str(v['id']), safe=':')}"

    @cached_property
    def _tag_values(self) -> list[dict[str, Any]]:
        """Every facet with each value's count, its list view and its own page (sentinels have none);
        worked out once for the statistics page and the tag pages."""
        members = self._members()
        out = []
        for fi, f in enumerate(self.facets):
            vals = []
            for vi, v in enumerate(f.values):
                recs = members[fi][vi]
                vals.append({
                    "label": v["label"], "level": v["level"], "n": len(recs), "sentinel": bool(v.get("sentinel")),
                    # how many of them the latest edition holds (the statistics page shows both)
                    "edition_n": sum(1 for r in recs if r.id not in self.new),
                    "page": "" if v.get("sentinel") else _value_page(f, v),
                    "hash": self._hash_of(f, v), "records": recs,
                })
            top = max((x["n"] for x in vals), default=0) or 1
            for x in vals:
                x["pct"] = round(100 * x["n"] / top, 1)
            out.append({"name": f.name, "label": f.label, "slug": slug(f.name), "values": vals})
        return out

    def _additions(self) -> list[dict[str, Any]]:
        """Papers per month added to the living list, after the ones each edition brought."""
        ed = self.tax.editions
        rows: dict[str, int] = {}
        labels: dict[str, str] = {}
        if ed is not None:
            for e in ed.published:
                labels[e.id] = f"{e.label} (to {e.cutoff})" if e.cutoff else e.label
        for r in self.records:
            when = self.added(r)
            key = when[:7] if when else str(r.get(ed.field, "")) if ed else ""
            rows[key] = rows.get(key, 0) + 1
        order = [e.id for e in ed.published] if ed else []
        keys = [k for k in order if k in rows] + sorted(k for k in rows if k not in order)
        top = max(rows.values(), default=0) or 1
        return [{"label": labels.get(k, k), "n": rows[k], "pct": round(100 * rows[k] / top, 1)} for k in keys]

    def _cadence(self) -> str:
        """When the living list was last searched and how many candidates wait ("" without runs)."""
        return cadence_line(self.stats.living) if self.stats.living else ""

    def stats_page(self) -> str:
        figs = [{"title": f["title"], "src": f["src"]} for f in self.site_figures]
        ctx = {
            "survey": self.tax.survey,
            "headline": [{"label": k.replace("_", " ").capitalize(), "n": v} for k, v in self.stats.headline.items()],
            "cadence": self._cadence(),
            "additions": self._additions(),
            "facets": self._tag_values,
            "edition_label": self.latest.label if self.latest else "",
            "living_label": self.tax.editions.living.label if self.tax.editions else "",
            "figures": figs,
            "data": {"csv": DATA_CSV, "card": DATA_CARD, "datapackage": DATAPACKAGE_FILE, "croissant": CROISSANT_FILE},
            "index_href": self.index_name,
            "css_href": CSS_FILE,
            "nav": self._nav(""),
            "meta": self._page_meta(STATS_FILE, f"Statistics · {self.tax.survey.get('short_title', '')}"),
            "head_js": Markup(_asset("head.js")),
            "paper_js_href": PAPER_JS_FILE,
            "icon_href": self.icon,
        }
        return self.env.get_template("site/stats.html.j2").render(**ctx).strip("\n") + "\n"

    def tag_pages(self) -> dict[str, Callable[[], str]]:
        """``tags/index.html`` and one page per value of every facet (its papers and count), each
        rendered when called."""
        facets = self._tag_values
        short = str(self.tax.survey.get("short_title", ""))
        common = {"survey": self.tax.survey, "head_js": Markup(_asset("head.js"))}

        def index() -> str:
            return self.env.get_template("site/tags.html.j2").render(
                facets=facets, index_href=f"../{self.index_name}", css_href=f"../{CSS_FILE}", nav=self._nav("../"),
                meta=self._page_meta(f"{TAGS_DIR}/index.html", f"Browse by tag · {short}"),
                paper_js_href=f"../{PAPER_JS_FILE}", icon_href=self.icon, **common).strip("\n") + "\n"

        item_template = self.env.get_template("site/_tag_item.html.j2")
        papers_href = f"../../{PAPERS_DIR}/"
        items: dict[str, Markup] = {}  # a paper's line, the same on each of its tag pages

        def item(r: Record) -> Markup:
            if r.id not in items:
                rec = {"id": r.id, "title": model.display(r.title), "url": model.primary_link(r), "year": r.get("year", "")}
                items[r.id] = Markup(item_template.render(r=rec, papers_href=papers_href))
            return items[r.id]

        def page(rel: str, f: Mapping[str, Any], v: Mapping[str, Any]) -> str:
            return self.env.get_template("site/tag.html.j2").render(
                facet=f, value=v, items=[item(r) for r in v["records"]], index_href=f"../../{self.index_name}",
                css_href=f"../../{CSS_FILE}", nav=self._nav("../../"),
                meta=self._page_meta(rel, f"{f['label']}: {v['label']} · {short}"),
                paper_js_href=f"../../{PAPER_JS_FILE}", icon_href=self.icon, **common).strip("\n") + "\n"

        out: dict[str, Callable[[], str]] = {f"{TAGS_DIR}/index.html": index}
        for f in facets:
            for v in f["values"]:
                if v["page"]:
                    rel = f"{TAGS_DIR}/{v['page']}"
                    out[rel] = partial(page, rel, f, v)
        return out

    def _page_meta(self, rel: str, title: str) -> dict[str, Any]:
        return {"canonical": self.abs_url(rel), "image": self.image, "type": "website", "title": title,
                "description": str(self.tax.survey.get("description", "")), "jsonld": ""}

    @property
    def image(self) -> str:
        """The card's address for og:image ("" without an address or a card: a card must be absolute)."""
        return self.abs_url(CARD_FILE) if self.card else ""

    def pages(self, files: Sequence[str]) -> list[str]:
        """Every page's address for the sitemap, the index first (none without an address)."""
        if not self.url:
            return []
        rels = [r for r in files if r.endswith(".html") and r != NOT_FOUND_FILE]
        rels.sort(key=lambda r: (r != self.index_name, r))
        return [self.abs_url(r) for r in rels]

    def not_found(self) -> str:
        """The page Pages shows for a missing address: served at any depth, so its links are
        absolute when the site has an address (else relative to the folder's top)."""
        top = f"{self.url}/" if self.url else ""
        ctx = {"survey": self.tax.survey, "list_href": top or self.index_name, "css": Markup(_asset("page.css")),
               "stats_href": top + STATS_FILE, "tags_href": f"{top}{TAGS_DIR}/index.html",
               "papers_href": f"{top}{PAPERS_DIR}/index.html", "icon_href": self.icon}
        return self.env.get_template("site/404.html.j2").render(**ctx).strip("\n") + "\n"

    def feed(self) -> str:
        """An Atom feed of the newest additions (``site.feed_entries`` of them), newest first.

        Entries are dated by the day they were added (a paper of a published edition by that
        edition's cutoff); the feed's own date is its newest entry's, so the file changes only
        when the list does."""
        ed = self.tax.editions
        cutoffs = {e.id: e.cutoff for e in ed.published} if ed else {}

        def when(r: Record) -> str:
            return self.added(r) or cutoffs.get(str(r.get(ed.field, "")) if ed else "", "") or f"{r.get('year', 1970)}-01-01"

        # Newest first; papers of the same day by title (self.records is in title order).
        recs = sorted(self.records, key=when, reverse=True)[: self.feed_entries]
        survey = self.tax.survey
        kinds = [s for s in self.tags if self.kind(s) not in ("plain",)]

        def entry(r: Record) -> dict[str, Any]:
            page = f"{PAPERS_DIR}/{r.id}.html"
            address, link = self.abs_url(page), model.primary_link(r)
            return {
                "title": model.display(r.title),
                "id": address or link,
                "updated": when(r) + "T00:00:00Z",
                "page": address or page,
                "related": link,
                "authors": model.display_authors(r),
                "summary": str(r.get("summary", "")),
                "tags": model.record_tags(self.tax, r, kinds),
            }

        authors = (survey.get("citation") or {}).get("software", {}).get("authors", [])
        # Written piece by piece into one buffer: render() would first hold every piece (a few
        # million strings at 100,000 papers) in a list to join.
        out = io.StringIO()
        for piece in self.env.get_template("site/feed.xml.j2").generate(
            base=self.abs_url("") or "./",
            title=f"{survey.get('list_title', '')}: additions",
            subtitle=str(survey.get("description", "")),
            id=self.abs_url(FEED_FILE) or str(survey.get("url", "")) + "#additions",
            updated=(when(recs[0]) if recs else "1970-01-01") + "T00:00:00Z",
            self_href=self.abs_url(FEED_FILE) or FEED_FILE,
            alternate_href=self.abs_url(self.index_name) or self.index_name,
            author=", ".join(str(a) for a in authors) or str(survey.get("short_title", "")),
            entries=map(entry, recs),
        ):
            out.write(piece)
        return out.getvalue()


def site_files(
    tax: Taxonomy,
    corpus: Corpus,
    stats: Stats,
    bibtex: BibtexFn | None = None,
    corrections: CorrectionsReport | None = None,
    figures: Sequence[Mapping[str, str]] = (),
    all_rows_limit: int = ALL_ROWS_LIMIT,
    claims: Sequence[Any] = (),
    card: bool = False,
) -> Lazy:
    """Every file of the site, keyed by its path relative to the index's folder, each rendered
    when it is read (:class:`~survey_tools.render.registry.Lazy`: the paper pages are never all
    held at once). ``figures`` are
    the report figures ({title, path} with repository-relative paths) the statistics page shows;
    above ``all_rows_limit`` records the list draws a window of rows; ``claims`` are the filters
    (``where:``) of the survey's claims, whose values the list never folds away; ``card``: the
    figures generator draws the social card (og:image)."""
    s = _Site(tax, corpus, stats, bibtex, corrections, figures, all_rows_limit, claims, card)
    out: dict[str, Callable[[], str]] = {
        s.index_name: s.index, CSS_FILE: partial(_asset, "page.css"), PAPER_JS_FILE: partial(bundle, "paper.mjs"),
f"{PAPERS_DIR}/index.html": s.paper_list}
    noted: dict[str, Callable[[], tuple[str, list[str]]]] = {}
    for rec in s.records:
        out[f"{PAPERS_DIR}/{rec.id}.html"] = partial(s.paper, rec)
        noted[f"{PAPERS_DIR}/{rec.id}.html"] = partial(s.paper_noted, rec)
    if bibtex is not None:
        out[BIB_FILE] = s.bib_js
        out[BIBFILE_FILE] = s.papers_bib
    out[STATS_FILE] = s.stats_page
    if tax.excluded is not None:
        out[EXCLUSIONS_FILE] = s.exclusions_page
    out.update(s.tag_pages())
    out[FEED_FILE] = s.feed
    out[NOT_FOUND_FILE] = s.not_found
    # The list as a dataset: the records' CSV, its Frictionless and Croissant descriptions, its card.
    data = dataset_files(tax, s.records, s.url)
    out.update({rel: partial(str, text) for rel, text in data.items()})
    if s.url:  # crawlers' files name absolute addresses: none without one
        pages = s.pages(list(out))
        out[SITEMAP_FILE] = partial(sitemap_xml, pages)
        out[ROBOTS_FILE] = partial(robots_txt, s.abs_url(SITEMAP_FILE))
    # Every page is checked, as it is rendered, to link only within the folder: the files above
    # and the figures' copies (written there by the figures generator).
    files = frozenset(out) | {f["src"] for f in s.site_figures} | ({CARD_FILE} if card else set())
    # A paper page's links are checked as its renderer noted them while writing them (the list
    # the check would read from the page): every link of every page is still checked.
    return Lazy({
        rel: partial(checked_noted, rel, noted[rel], files, s.folder) if rel in noted
        else partial(checked, rel, render, files, s.folder) if rel.endswith((".html", ".xml")) else render
        for rel, render in out.items()
    })


def render_site(tax: Taxonomy, corpus: Corpus, stats: Stats, bibtex: BibtexFn | None = None) -> str:
    """The index page alone (see :func:`site_files` for the paper pages and BibTeX)."""
    return _Site(tax, corpus, stats, bibtex).index()
