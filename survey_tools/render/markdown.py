"""README.md (the awesome list) and CONTRIBUTING.md, rendered from the package's jinja2 templates;
the key reference of taxonomy/README.md. Pure: the survey's own Markdown and template overrides
come from the taxonomy as text (read by its load), never from the disk."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import jinja2

from survey_tools._version import DISTRIBUTION, __version__
from survey_tools.corpus.configs import reference
from survey_tools.corpus.examples import add_example, exclude_example, key_rule, record_template
from survey_tools.corpus.protocol import Protocol
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.repository import repository, site_url
from survey_tools.corpus.taxonomy import (
    CONTRIBUTING_PARTS,
    FORMER_FIELD,
    README_PARTS,
    TEMPLATE_OVERRIDES,
    Taxonomy,
    order_file,
)
from survey_tools.corpus.views import added_since, corpus_view
from survey_tools.csvcells import read_csv_rows
from survey_tools.net.hrefs import safe_href
from survey_tools.render import model
from survey_tools.render.dataset import CROISSANT_FILE, DATAPACKAGE_FILE, load_lines
from survey_tools.render.dataset import CSV_FILE as DATA_CSV
from survey_tools.render.templating import make_environment
from survey_tools.reports.axes import Axis, mode_of
from survey_tools.reports.gaps import Count, GapReport
from survey_tools.reports.stats import Stats
from survey_tools.reports.tables import md, md_cell, md_code, md_table

_HAS_SCHEME = re.compile(r"^[\x00-\x20]*[A-Za-z][A-Za-z0-9+.\t\n\r-]*:")
_URL_UNSAFE = {" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "|": "%7C", "`": "%60"}


def md_url(url: Any) -> str:
    """A link destination that cannot end the link early; an address with a scheme (or ``//``)
    that the href rule refuses (``javascript:``, credentials) becomes empty."""
    text = "".join(_URL_UNSAFE.get(ch, ch) for ch in str(url).strip())
    if (_HAS_SCHEME.match(text) or text.startswith("//")) and not safe_href(text):
        return ""
    return text


def md_sentence(text: Any) -> str:
    """Escaped text that ends like a sentence (the awesome list requires final punctuation)."""
    s = md(text).rstrip()
    return s if s.endswith((".", "!", "?", "…")) else s + "."


def in_sentence(label: Any) -> str:
    """A label inside a sentence: each word lowercased unless it is an acronym ("HRI type"
    stays, "Category" becomes "category")."""
    return " ".join(w if sum(ch.isupper() for ch in w) > 1 else w.lower() for w in str(label).split(" "))


def slug(text: str) -> str:
    """GitHub's heading anchor: lowercase, punctuation dropped, spaces to dashes."""
    s = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return s.replace(" ", "-")


# The survey's own words for its README (README_PARTS): intro.md (the opening paragraph),
# footer.md (after the last section) and any other *.md (a section each, in file-name order,
# headed by its first "## " line). Plain Markdown, copied as written. Templates under
# TEMPLATE_OVERRIDES replace the package's of the same path (readme/partials/papers.md.j2, ...).
# Both are read with the taxonomy (Taxonomy.texts_under): nothing here opens a file.


@dataclass(frozen=True)
class ReadmeParts:
    intro: str
    sections: tuple[tuple[str, str], ...]  # (heading, body)
    footer: str


def readme_parts(files: Mapping[str, str]) -> ReadmeParts:
    """The README's own parts from the survey's Markdown files (name -> text, ``README_PARTS``)."""
    intro = footer = ""
    sections: list[tuple[str, str]] = []
    for name, raw in sorted(files.items()):
        stem = name.removesuffix(".md")
        text = raw.strip("\n")
        if stem == "intro":
            intro = text
        elif stem == "footer":
            footer = text
        else:
            first, _, rest = text.partition("\n")
            if first.startswith("## "):
                sections.append((first[3:].strip(), rest.strip("\n")))
            else:
                heading = re.sub(r"^[0-9]+[-_ ]*", "", stem).replace("-", " ").replace("_", " ")
                sections.append((heading[:1].upper() + heading[1:], text))
    return ReadmeParts(intro, tuple(sections), footer)


def environment(overrides: Mapping[str, str] | None = None) -> jinja2.Environment:
    """The Markdown templates: the package's, each replaced by the survey's template of the same
    path in ``overrides`` (path -> text, ``TEMPLATE_OVERRIDES``)."""
    return _environment(tuple(sorted((overrides or {}).items())))


# One environment per set of overrides for the life of the process, so that each template is
# compiled once: compiling them for every build was 16 s of the test suite's 208 s profile.
# Nobody changes an environment after this returns it (filters and globals are set here).
@lru_cache(maxsize=8)
def _environment(overrides: tuple[tuple[str, str], ...]) -> jinja2.Environment:
    package = jinja2.PackageLoader("survey_tools.render", "templates")
    loader: jinja2.BaseLoader = (jinja2.ChoiceLoader([jinja2.DictLoader(dict(overrides)), package])
                                 if overrides else package)
    # Markdown: escaping is explicit, through the md filters below.
    env = make_environment(loader, autoescape=False)
    env.filters.update(md=md, md_url=md_url, md_code=md_code, md_sentence=md_sentence, slug=slug,
                       in_sentence=in_sentence)
    # A key in a map cell: its hyphens do not break the line ("kimi-k2-6" stays on one line).
    env.filters["nobreak"] = lambda key: md(str(key)).replace("-", "\u2011")
    env.globals["table"] = md_table
    env.filters["reject_typical"] = lambda row: [*row[:2], *row[3:]]
    return env


# Configuration files a survey may leave out: documented only where the survey has them.
_OPTIONAL = ("claims", "corrections", "protocol")


def markdown_reference(tax: Taxonomy | None = None) -> str:
    """Every key of every configuration file, with its type, default and meaning (taxonomy/README.md);
    with ``tax``, the optional files only when that survey has them."""
    parts: list[str] = []
    for c in reference():
        if tax is not None and c.name in _OPTIONAL and not tax.has_config(c.name):
            continue
        moved = f" (moved with `files.{c.files_key}` in survey.yaml)" if c.files_key else ""
        parts.append(f"## `{c.file}`\n\n{md_cell(c.description)}{moved}\n")
        rows = [(key, typ, req, default, md_cell(meaning)) for key, typ, req, default, meaning in c.rows]
        parts.append(md_table(["key", "type", "required", "default", "meaning"], rows, pad=False) + "\n")
    return "\n".join(parts)


# --- the view model -----------------------------------------------------------------------


def _codes(records: Sequence[Record], limit: int | None = None, view: str = "", marks: Callable[[Record], str] | None = None) -> dict[str, Any]:
    """A map cell: the first records' keys, how many more, and the page's view of them all;
    with ``marks``, the mark of each named record's reading of the cell's tag (code: "†")."""
    shown = list(records if limit is None else records[:limit])
    out: dict[str, Any] = {"ids": [r.id for r in shown], "more": len(records) - len(shown), "view": view}
    out["marks"] = {r.id: m for r in shown if marks and (m := marks(r))}
    return out


def _view(base: str, key: str, value: str) -> str:
    """The browsing page filtered to one value ("" when the page is not built)."""
    return f"{base}#{quote(key, safe=':')}={quote(value, safe=':')}" if base else ""


@dataclass(frozen=True)
class _MapInputs:
    """What one map's cells are drawn from: the records ranked as the maps name them, those of
    the latest edition (None without editions), the page's address and the reading marks."""

    recs: list[Record]
    edition: list[Record] | None
    limit: int | None
    page: str
    marks: model.ReadingMarks

    def marker(self, ax: Axis, value: str = "") -> Callable[[Record], str] | None:
        key = self.marks.key_for(ax, value)
        return (lambda r: self.marks.of(r, key)) if key else None

    def cell(self, members: Sequence[Record], ed_members: Sequence[Record], view: str,
             marker: Callable[[Record], str] | None) -> dict[str, Any]:
        return {**_codes(members, self.limit, view, marker),
                "edition": len(ed_members) if self.edition is not None else None}


def _map(tax: Taxonomy, corpus: Corpus, stats: Stats, spec: Mapping[str, Any], conf: Mapping[str, Any], page: str = "") -> dict[str, Any]:
    ax = model.axis(tax, str(spec["axis"]))
    rank_by = str(conf.get("rank_by", ""))
    recs = model.ranked(tax, corpus.of(ax.collection), rank_by)
    # A map may name every record (`representatives: all`) instead of the first few; with the
    # page built, "all" is the first few and a link to the page's view of every one, so that
    # the table stays readable on a phone.
    wanted = spec.get("representatives", conf.get("representatives", 3))
    limit = None if wanted == "all" else int(wanted)
    if limit is None and page:
        limit = int(conf.get("representatives", 3)) if conf.get("representatives", 3) != "all" else 3
    ed = tax.editions.latest if tax.editions else None
    edition = list(corpus_view(corpus, ed.id).of(ax.collection)) if ed is not None else None
    inputs = _MapInputs(recs, edition, limit, page, model.reading_marks(tax))
    out: dict[str, Any] = {"title": spec.get("title", ax.label), "axis": ax.spec, "kind": ax.kind, "label": ax.label, "rows": []}
    if ax.kind == "keys":
        out["modes"], out["rows"] = _keys_rows(ax, stats, inputs)
    elif ax.kind == "group":
        typical = spec.get("typical") or {}
        tfield = tax.find_field(str(typical.get("field", ""))) if typical else None
        assert ax.cf is not None
        out["members_label"] = ax.cf.label
        out["typical_label"] = f"Typical {tfield.noun}" if tfield else ""
        out["rows"] = _group_rows(tax, ax, stats, inputs, typical)
    else:
        out["rows"] = _plain_rows(tax, ax, stats, inputs)
    return out


def _keys_rows(ax: Axis, stats: Stats, inputs: _MapInputs) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A mapping's map (O1..O5): one row a key, one cell a mode, each naming its records."""
    assert ax.cf is not None
    held = model.mapping_index(ax, inputs.recs)
    ed_held = model.mapping_index(ax, inputs.edition or [])
    rows = []
    for v in ax.cf.values:
        marker = inputs.marker(ax, v.id)
        cells = [
            {"count": model.count(stats, ax.cf.name, v.id, m.id),
             **inputs.cell(held.get((v.id, m.id), []), ed_held.get((v.id, m.id), []),
                           _view(inputs.page, ax.spec, f"{v.id}:{m.id}"), marker)}
            for m in ax.cf.modes
        ]
        rows.append({"id": v.id, "label": v.label, "description": v.description, "modes": cells})
    return [{"id": m.id, "label": m.label} for m in ax.cf.modes], rows


def _group_rows(tax: Taxonomy, ax: Axis, stats: Stats, inputs: _MapInputs, typical: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A value group's map (reward families): one row a group, with its members and typical value."""
    assert ax.group is not None and ax.cf is not None
    tfield = tax.find_field(str(typical.get("field", ""))) if typical else None
    by_group = model.members_by_value(tax, ax, inputs.recs)
    ed_group = model.members_by_value(tax, ax, inputs.edition or [])
    marker = inputs.marker(ax)
    rows = []
    for g in ax.group.values:
        t = str(g.extra.get(str(typical.get("key", "")), "")) if typical else ""
        rows.append({
            "id": g.id,
            "label": g.label,
            "members": [ax.cf.label_of(m) for m in g.members],
            "typical": tfield.label_of(t) if tfield and t else t,
            "count": model.count(stats, ax.group.name, g.id),
            **inputs.cell(by_group.get(g.id, []), ed_group.get(g.id, []), _view(inputs.page, ax.spec, g.id), marker),
        })
    return rows


def _plain_rows(tax: Taxonomy, ax: Axis, stats: Stats, inputs: _MapInputs) -> list[dict[str, Any]]:
    """A field's map (credit units, topologies): one row a value."""
    assert ax.cf is not None
    by_value = model.members_by_value(tax, ax, inputs.recs)
    ed_value = model.members_by_value(tax, ax, inputs.edition or [])
    marker = inputs.marker(ax)
    return [
        {"id": v.id, "label": v.label, "description": v.description, "count": model.count(stats, ax.cf.name, v.id),
         **inputs.cell(by_value.get(v.id, []), ed_value.get(v.id, []), _view(inputs.page, ax.spec, v.id), marker)}
        for v in ax.cf.values
    ]


def gap_tables(report: GapReport) -> list[dict[str, Any]]:
    """The gap maps as aligned Markdown tables: "n [s]" per cell, s counting strict records
    (plain counts when no strict filter is configured), formatted from the finished maps
    (``GapTable.finished``: GAPS.md shows the same rows, the not-applicable row included)."""
    out = []
    strict_on = bool(report.strict_label)

    def num(c: Count) -> str:
        return md(f"{c.n} [{c.strict}]") if strict_on else str(c.n)

    def cell(c: Count, bold_zero: bool) -> str:
        return "**0**" if bold_zero and c.n == 0 else num(c)

    for t in report.tables:
        grid = t.finished(strict_on)
        heads = [md(f"{grid.corner[0]} / {grid.corner[1]}")] + [md(c) for c in grid.columns] + ["total"]
        rows = [
            [md(row.label), *(cell(c, grid.is_gap(row, i)) for i, c in enumerate(row.cells)), num(row.total)]
            for row in grid.body()
        ]
        rows.append(["total", *(num(c) for c in grid.totals.cells), num(grid.totals.total)])
        out.append(
            {
                "title": t.title,
                "markdown": md_table(heads, rows, "l" + "r" * (len(heads) - 1)),
                "empty": len(t.empty),
                "sparse": len(t.sparse),
                "k": t.k,
                "strict_label": report.strict_label,
            }
        )
    return out


def _entry(tax: Taxonomy, rec: Record, tags: Sequence[str], new: frozenset[str] = frozenset()) -> dict[str, Any]:
    added = rec.get(tax.editions.added_field) if tax.editions else None
    # a work with no link of its own (a thesis imported from BibTeX) links its identifier's
    # page, else its record: never an empty [Title]()
    url = model.primary_link(rec) or next(iter(model.identifier_urls(rec, tax)), "") or str(rec.path or "")
    return {
        "id": rec.id,
        "new": rec.id in new,
        "added": str(added) if added else "",
        "title": model.display(rec.title),
        "url": url,
        "summary": str(rec.get("summary", "")),
        "tags": model.record_tags(tax, rec, tags),
        "links": [lk for lk in model.secondary_links(rec, tax) if lk["url"] != url],
    }


def entry_order(tax: Taxonomy, how: str) -> Callable[[Sequence[Record]], list[Record]]:
    """The README's order of entries within a group (``survey.readme.entry_order``)."""

    def by_title(r: Record) -> tuple[str, str]:
        return (r.title.lower(), r.id)

    if how in ("newest", "oldest"):
        year = next((f.name for f in tax.retained.fields if f.type == "year"), None)
        sign = -1 if how == "newest" else 1

        def by_year(r: Record) -> tuple[int, str, str]:
            y = r.get(year) if year else None
            known = isinstance(y, int) and not isinstance(y, bool)
            # entries without a year go last either way
            return (sign * y if known else 10_000, *by_title(r))  # type: ignore[operator]

        return lambda recs: sorted(recs, key=by_year)
    if how == "source":
        rank = _source_rank(tax)
        return lambda recs: sorted(recs, key=lambda r: (rank.get(r.id, len(rank)), r.id))
    return lambda recs: sorted(recs, key=by_title)


def _source_rank(tax: Taxonomy) -> dict[str, int]:
    """Each key's row in the imported list (the order file `survey import` keeps)."""
    rel = order_file(tax.csv_layout or {}, tax.retained.name)
    text = tax.text(rel) if rel else None  # read with the taxonomy
    if text is None:
        return {}
    # our own file: a malformed row ends the ranking there (the records after it go last)
    return {r[0]: i for i, (_, r) in enumerate(read_csv_rows(text, rel, strict=False).rows)}


def _edition_context(tax: Taxonomy, corpus: Corpus, stats: Stats) -> dict[str, Any] | None:
    """The latest published edition and what the living list added since (None: no editions)."""
    ed = tax.editions
    if ed is None or ed.latest is None:
        return None
    e = ed.latest
    counts = (stats.editions.get("views") or {}).get(e.id, {})
    return {
        "id": e.id,
        "label": e.label,
        "title": e.title,
        "url": e.url,
        "cutoff": e.cutoff,
        "living_label": ed.living.label,
        "counts": counts,
        "added": len(added_since(corpus)),
    }


def readme_context(
    tax: Taxonomy,
    corpus: Corpus,
    stats: Stats,
    gaps: Sequence[Mapping[str, Any]] = (),
    figures: Sequence[Mapping[str, str]] = (),
    site_path: str = "",
) -> dict[str, Any]:
    """Everything README.md shows. ``gaps`` are tables as {title, markdown}; ``figures`` {title, path};
    ``site_path`` the browsing page when it is built."""
    conf = model.presentation(tax, "readme")
    retained = corpus.retained
    tags = [str(t) for t in conf.get("tags", [])]
    new = frozenset(r.id for r in added_since(corpus))
    groups: list[dict[str, Any]] = []
    group_label = ""
    if conf["group_by"]:
        group_ax = model.axis(tax, str(conf["group_by"]))
        assert group_ax.cf is not None
        group_label = group_ax.label
        order = entry_order(tax, str(conf.get("entry_order", "title")))
        by_value = model.members_by_value(tax, group_ax, retained)
        for v in group_ax.cf.values:
            recs = order(by_value.get(v.id, []))
            if recs:
                groups.append({"id": v.id, "label": v.label, "description": v.description, "entries": [_entry(tax, r, tags, new) for r in recs]})
        if conf.get("group_order") == "label":
            groups.sort(key=lambda g: (str(g["label"]).lower(), g["id"]))
        elif conf.get("group_order") == "size":
            groups.sort(key=lambda g: -len(g["entries"]))  # stable: ties keep the taxonomy's order
    else:  # no controlled field to group by: one list
        recs = entry_order(tax, str(conf.get("entry_order", "title")))(list(retained))
        groups.append({"id": "all", "label": tax.retained.label, "description": "", "entries": [_entry(tax, r, tags, new) for r in recs]})
    maps = [_map(tax, corpus, stats, s, conf, _page_address(tax, site_path)) for s in conf.get("maps", [])]
    anchors = _anchor_maps(maps)
    marks = model.reading_marks(tax)
    used = _marks_used(marks, retained)
    for g in groups:
        for e in g["entries"]:
            e["anchors"] = anchors.get(e["id"], [])
    ex_cols, ex_rows = model.exclusion_table(tax, corpus)
    parts = readme_parts(tax.texts_under(README_PARTS))
    return {
        "intro": parts.intro,
        "parts": [{"title": h, "body": b} for h, b in parts.sections],
        "footer": parts.footer,
        "edition": _edition_context(tax, corpus, stats),
        "repo": repository(tax),
        "version": __version__,
        "survey": tax.survey,
        "conf": conf,
        "sections": conf.get("sections", {}),
        "headline": dict(stats.headline),
        "collections": {c.name: c for c in tax.collections.values()},
        "retained_name": tax.retained.name,
        "excluded_name": tax.excluded.name if tax.excluded else "",
        "maps": maps,
        # the maps' counts read "edition / living" when the survey has a published edition
        "map_edition": _map_edition(tax, corpus),
        "map_marks": [{"mark": k, "legend": v} for k, v in marks.legends.items() if k in used],
        "gaps": list(gaps),
        "figures": list(figures),
        "group_label": group_label,
        "add_example": add_example(tax, retained),
        "has_traces_doc": tax.has_file("docs/traces.md"),
        "groups": groups,
        "exclusion_columns": ex_cols,
        "exclusions": [list(r.cells) for r in ex_rows],
        "site_path": site_path,
        "site_address": _page_address(tax, site_path) if site_url(tax) else "",
        "data": _data_addresses(tax) if site_path else None,
        "protocol": stats.protocol,  # computed with the statistics: the renderer reads no file
        "living": stats.living.to_dict() if stats.living else None,
    }


def _marks_used(marks: model.ReadingMarks, records: Sequence[Record]) -> set[str]:
    """The reading marks some record carries (their legends are printed, the others' not)."""
    out: set[str] = set()
    for r in records:
        placed = r.get(marks.name) if marks.name else None
        if isinstance(placed, Mapping):
            out.update(m for e in placed.values() if (m := marks.marks.get(mode_of(e), "")))
    return out


def _map_edition(tax: Taxonomy, corpus: Corpus) -> dict[str, Any] | None:
    """The edition the maps count beside the living list (None: no published edition)."""
    ed = tax.editions
    if ed is None or ed.latest is None:
        return None
    e = ed.latest
    return {"id": e.id, "label": e.label, "cutoff": e.cutoff, "living_label": ed.living.label,
            "added": len(added_since(corpus))}


def _anchor_maps(maps: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Give every key named in a map cell a link to its entry in the list.

    awesome-lint refuses a link written twice, so each mention gets its own anchor
    (``r-<key>-<n>``), and the entry carries one empty ``<a id>`` per mention."""
    out: dict[str, list[str]] = {}

    def cells() -> Any:
        for m in maps:
            for r in m["rows"]:
                yield from (r["modes"] if m["kind"] == "keys" else [r])

    for cell in cells():
        refs = []
        for key in cell["ids"]:
            seen = out.setdefault(key, [])
            seen.append(f"r-{key}-{len(seen) + 1}")
            refs.append({"id": key, "anchor": seen[-1], "mark": cell.get("marks", {}).get(key, "")})
        cell["refs"] = refs
    return out


def _page_address(tax: Taxonomy, site_path: str) -> str:
    """Where README links reach the page: survey.site.url when configured, else its path."""
    if not site_path:
        return ""
    url = site_url(tax)
    if not url:
        return site_path
    name = site_path.rsplit("/", 1)[-1]
    # Pages serves a folder's index.html at the folder's own address, the one readers share.
    return f"{url}/" if name == "index.html" else f"{url}/{name}"


def _data_addresses(tax: Taxonomy) -> dict[str, Any] | None:
    """Where the published dataset's files are (None while the site has no address): the README
    names them and shows the line that loads the CSV."""
    url = site_url(tax)
    if not url:
        return None
    csv = f"{url}/{DATA_CSV}"
    return {"csv": csv, "datapackage": f"{url}/{DATAPACKAGE_FILE}", "croissant": f"{url}/{CROISSANT_FILE}",
            "load": load_lines(csv)}


def render_readme(
    tax: Taxonomy,
    corpus: Corpus,
    stats: Stats,
    gaps: Sequence[Mapping[str, Any]] = (),
    figures: Sequence[Mapping[str, str]] = (),
    site_path: str = "",
) -> str:
    ctx = readme_context(tax, corpus, stats, gaps, figures, site_path)
    overrides = tax.texts_under(TEMPLATE_OVERRIDES)
    if PAPERS_PARTIAL not in overrides:
        # The list of entries written by papers_markdown, the same text as the package's partial
        # (tests/unit/render/test_readme_papers.py): Jinja's loop over 10,000 entries was a
        # quarter of the README's time. A survey's own partial renders as it is.
        ctx["papers_md"] = papers_markdown(ctx)
        overrides = {**overrides, PAPERS_PARTIAL: "{{ papers_md }}"}
    return tidy(environment(overrides).get_template("readme/README.md.j2").render(**ctx))


PAPERS_PARTIAL = "readme/partials/papers.md.j2"
_HOW = {"title": "alphabetical", "newest": "newest first", "oldest": "oldest first", "source": "in the list's own order"}


def papers_markdown(ctx: Mapping[str, Any]) -> str:
    """What the package's ``readme/partials/papers.md.j2`` renders from ``ctx``, the same text."""
    how = _HOW[ctx["conf"].get("entry_order", "title")]
    group_label = ctx["group_label"]
    if group_label:
        head = f"Grouped by {md(in_sentence(group_label))}, {how} within each group."
    else:
        head = f"{how[:1].upper()}{how[1:]}."
    marks = "".join(f" ({md(m['mark'])} after a tag: {md(m['legend'])})" for m in ctx["map_marks"])
    out = [head, " Each entry gives its one-line summary, then the record's key and tags", marks, ".\n\n"]
    edition = ctx["edition"]
    for g in ctx["groups"]:
        entries = g["entries"]
        n = len(entries)
        desc = f"*{md(g['description'])}* " if g["description"] else ""
        out.append(f"### {g['label']}\n\n{desc}{n} {'entry' if n == 1 else 'entries'}.\n\n")
        for e in entries:
            out.append(_entry_markdown(e, edition))
        out.append("\n")
    return "".join(out)


def _entry_markdown(e: Mapping[str, Any], edition: Any) -> str:
    """One entry's two lines, as the partial's loop writes them."""
    parts = [f"- [{md(e['title'])}]({md_url(e['url'])}) - "]
    if e["summary"]:
        parts.append(f"{md_sentence(e['summary'])}\n  <br>")
    parts += (f'<a id="{a}"></a>' for a in e["anchors"])
    if e["new"]:
        added = f", added {e['added']}" if e["added"] else ""
        parts.append(f"*new since {md(edition['label'])}{added}* · ")
    parts.append(md_code(e["id"]))
    parts += (f" · {md(t.label)}: {md(t.value)}" for t in e["tags"])  # model.Tag
    parts += (f" · [{md(lk['label'])}]({md_url(lk['url'])})" for lk in e["links"])
    parts.append(".\n")
    return "".join(parts)


def _exclusion_id_example(tax: Taxonomy) -> str:
    """An exclusion id derived from an arXiv id, with the letters the log's id pattern starts
    with (``E-arxiv-2501-01234`` for ``^E(...)``), as `survey exclude` names it."""
    m = re.match(r"\^([A-Za-z]*)", tax.excluded.id_pattern) if tax.excluded is not None else None
    prefix = m.group(1) if m else ""
    return f"{prefix}-arxiv-2501-01234" if prefix else "arxiv-2501-01234"


def contributing_context(tax: Taxonomy, records: Sequence[Record] = (), protocol: Protocol | None = None) -> dict[str, Any]:
    """Everything CONTRIBUTING.md shows; ``protocol`` the search protocol when the survey has one
    (computed with the statistics, ``Stats.protocol``)."""
    colls = list(tax.collections.values())
    ex = tax.excluded
    return {
        "survey": tax.survey, "collections": colls, "retained": tax.retained, "excluded": ex,
        "na": tax.na, "untagged": tax.untagged,
        "add_example": add_example(tax, records),
        "exclude_example": exclude_example(tax),
        "exclusion_id_example": _exclusion_id_example(tax),
        "can_move": ex is not None and FORMER_FIELD in {f.name for f in ex.fields},
        "former_field": FORMER_FIELD,
        "editions": tax.editions if tax.editions and tax.editions.latest else None,
        "claims_file": tax.data_file("claims"),
        "reports_file": tax.data_file("reports"),
        "protocol": protocol,
        "repo": repository(tax),
        "record_template": record_template(tax),
        "key_rule": key_rule(tax.retained),
        "corrections_file": tax.data_file("corrections"),
        "version": __version__,
        "distribution": DISTRIBUTION,
        # the survey's own script of a pull request's checks, when it has one (this repository's)
        "local_ci": tax.has_file("tools/ci.sh"),
        "own": own_contributing(tax.texts_under(CONTRIBUTING_PARTS)),
        "readings": _readings_help(tax),
    }


def _readings_help(tax: Taxonomy) -> dict[str, Any] | None:
    """How CONTRIBUTING.md tells a contributor to place readings (None: the survey places none)."""
    cf = next((c for c in tax.retained.controlled if c.kind == "mapping" and c.where_words), None)
    if cf is None or not cf.ids or not cf.mode_ids:
        return None
    ed = tax.editions
    code = cf.mode_ids[1] if len(cf.mode_ids) > 1 else cf.mode_ids[0]
    return {
        "name": cf.name,
        "paper_line": f"{cf.ids[0]}: {{how: {cf.mode_ids[0]}, where: Section 3.1}}",
        "code_line": f"{cf.ids[-1]}: {{how: {code}, where: src/train.py at 1a2b3c4}}",
        "required": cf.required or bool(ed and ed.living.id in cf.required_when.get(ed.field, ())),
    }


def own_contributing(files: Mapping[str, str]) -> dict[str, str]:
    """The survey's own sections of CONTRIBUTING.md (name -> text, ``CONTRIBUTING_PARTS``),
    replacing the generic ones of the same name (checks.md: how to run the checks; setup.md: how
    to install the toolkit to add a record). Plain Markdown, copied as written."""
    return {name.removesuffix(".md"): text.strip("\n") for name, text in sorted(files.items())}


def render_contributing(tax: Taxonomy, records: Sequence[Record] = (), protocol: Protocol | None = None) -> str:
    ctx = contributing_context(tax, records, protocol)
    return tidy(environment(tax.texts_under(TEMPLATE_OVERRIDES)).get_template("contributing/CONTRIBUTING.md.j2").render(**ctx))


def tidy(text: str) -> str:
    """One blank line between blocks and a single final newline, whatever the template's loops did."""
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n") + "\n"
