"""The list as a dataset, published with the site: the retained records as one CSV
(``data/papers.csv``: one row a record, one column a field), its Frictionless Data Package
(``datapackage.json``), its Croissant description (``croissant.json``, JSON-LD) and a dataset card
(``data/README.md``, with the Hugging Face front matter that ``datasets`` reads).

The columns come from the taxonomy: every published field of the retained collection in its
order (private fields never), an identifiers field as one column per identifier kind, a list as
its items joined by ``LIST_SEPARATOR``, a mapping field (the sub-decisions) as ``KEY:mode`` items.
Nested fields (evidence, reasons) stay in the YAML records. Everything is a pure function of the
taxonomy and the records, so the files are byte-identical on every build.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from survey_tools.corpus.records import Record
from survey_tools.corpus.taxonomy import ControlledField, Taxonomy
from survey_tools.csvcells import spreadsheet_safe
from survey_tools.hashing import content_hexdigest
from survey_tools.render import model
from survey_tools.reports.axes import mode_of
from survey_tools.reports.tables import md, md_code, md_table
from survey_tools.slugs import slug  # the one rule that turns a name into a file or id name

CSV_FILE = "data/papers.csv"
DATAPACKAGE_FILE = "datapackage.json"
CROISSANT_FILE = "croissant.json"
CARD_FILE = "data/README.md"
LIST_SEPARATOR = "; "
# Field types that hold nested data: kept in the records, not flattened into a cell.
_NESTED = {"evidence", "object", "key_reasons", "waivers"}
# A field type -> (Frictionless type, Croissant dataType).
_TYPES = {
    "integer": ("integer", "sc:Integer"),
    "year": ("integer", "sc:Integer"),
    "boolean": ("boolean", "sc:Boolean"),
    "date": ("date", "sc:Date"),
}
_TEXT = ("string", "sc:Text")


@dataclass(frozen=True)
class Column:
    name: str
    field: str  # the record field it is read from
    kind: str  # the taxonomy's field type, "controlled", or "identifier"
    title: str
    description: str
    values: tuple[str, ...] = ()  # a single-valued controlled field's ids (and its sentinels)
    part: str = ""  # the identifier kind, for an identifiers column

    @property
    def types(self) -> tuple[str, str]:
        return _TYPES.get(self.kind, _TEXT)


def _controlled(tax: Taxonomy, cf: ControlledField) -> Column:
    listed = " Several values are joined by '; '." if cf.kind == "multi" else ""
    if cf.kind == "mapping":
        listed = " Each item is KEY:mode (how the work makes that decision), joined by '; '."
    values: tuple[str, ...] = ()
    if cf.kind == "single":
        values = (*cf.ids, *((tax.na,) if cf.not_applicable else ()), tax.untagged)
    return Column(cf.name, cf.name, "controlled", cf.label, cf.description + listed, values)


def columns(tax: Taxonomy) -> list[Column]:
    """The CSV's columns, in the taxonomy's order of the retained records' fields."""
    ret = tax.retained
    out: list[Column] = []
    for f in ret.fields:
        if f.private or f.type in _NESTED:
            continue
        if f.type == "identifiers":
            for kind, spec in tax.identifiers.items():
                name = kind if all(kind != g.name for g in ret.fields) else f"{f.name}_{kind}"
                out.append(
                    Column(
                        name,
                        f.name,
                        "identifier",
                        spec.label,
                        f"{spec.label} ({f.label}).",
                        part=kind,
                    )
                )
            continue
        listed = (
            " Several are joined by '; '."
            if f.type in ("string_list", "person_list", "url_list")
            else ""
        )
        out.append(Column(f.name, f.name, f.type, f.label, f.description + listed))
    out += [_controlled(tax, cf) for cf in ret.controlled]
    return out


def _cell(col: Column, rec: Record) -> str:
    raw = rec.get(col.field)
    if col.kind == "identifier":
        return str(raw.get(col.part, "")) if isinstance(raw, Mapping) else ""
    if col.kind == "person_list":
        return LIST_SEPARATOR.join(model.display_authors(rec))
    if raw is None:
        return ""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, Mapping):  # a mapping field: each key with how it is made
        return LIST_SEPARATOR.join(f"{k}:{mode_of(v)}" for k, v in raw.items())
    if isinstance(raw, list):
        return LIST_SEPARATOR.join(str(v) for v in raw)
    return model.display(raw) if isinstance(raw, str) else str(raw)  # TeX accents decoded


def papers_csv(tax: Taxonomy, records: Sequence[Record]) -> str:
    """Every retained record as a row (the records' order: by key), a header row first."""
    cols = columns(tax)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.name for c in cols])
    for rec in sorted(records, key=lambda r: r.id):
        w.writerow([spreadsheet_safe(_cell(c, rec)) for c in cols])
    return buf.getvalue()


@dataclass(frozen=True)
class DatasetInfo:
    """What the descriptions say about the dataset, besides its columns."""

    name: str  # a slug: letters, digits, dashes
    title: str
    description: str
    url: str  # the site's address ("" when none is configured)
    license: str  # an SPDX identifier, or ""
    published: str  # the newest record's date (an ISO day), or ""
    rows: int
    sha256: str
    size: int

    def address(self, rel: str) -> str:
        return f"{self.url}/{rel}" if self.url else rel


def dataset_info(tax: Taxonomy, records: Sequence[Record], url: str, text: str) -> DatasetInfo:
    survey = tax.survey
    title = str(survey.get("list_title") or survey.get("title", ""))
    ed = tax.editions
    days = [str(r.get(ed.added_field)) for r in records if ed is not None and r.get(ed.added_field)]
    cutoffs = [e.cutoff for e in ed.published if e.cutoff] if ed is not None else []
    data = text.encode("utf-8")
    return DatasetInfo(
        slug(title) or "survey",
        title,
        str(survey.get("description", "")),
        url,
        str(survey.get("data_license") or ""),
        max([*days, *cutoffs], default=""),
        len(records),
        content_hexdigest(data, 32),
        len(data),
    )  # the whole SHA-256


def _license_url(spdx: str) -> str:
    return f"https://spdx.org/licenses/{spdx}.html"


def datapackage(tax: Taxonomy, info: DatasetInfo) -> dict[str, Any]:
    """A Frictionless Data Package (v1) of the one CSV resource, its schema from the taxonomy."""
    fields = []
    for c in columns(tax):
        ftype = c.types[0]
        spec: dict[str, Any] = {
            "name": c.name,
            "title": c.title,
            "type": ftype,
            "description": c.description,
        }
        if ftype == "date":
            spec["format"] = "%Y-%m-%d"
        if c.values:
            spec["constraints"] = {"enum": list(c.values)}
        fields.append(spec)
    ret = tax.retained
    for spec in fields:
        if spec["name"] == ret.id_field:
            spec["constraints"] = {"required": True, "unique": True}
    pkg: dict[str, Any] = {"name": info.name, "title": info.title, "description": info.description}
    if info.url:
        pkg["homepage"] = f"{info.url}/"
    if info.license:
        pkg["licenses"] = [{"name": info.license, "path": _license_url(info.license)}]
    pkg["resources"] = [
        {
            "name": "papers",
            "path": CSV_FILE,
            "profile": "tabular-data-resource",
            "format": "csv",
            "mediatype": "text/csv",
            "encoding": "utf-8",
            "bytes": info.size,
            "hash": f"sha256:{info.sha256}",
            "schema": {"fields": fields, "primaryKey": [ret.id_field], "missingValues": [""]},
        }
    ]
    return pkg


_CROISSANT_CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


def croissant(tax: Taxonomy, info: DatasetInfo) -> dict[str, Any]:
    """A Croissant 1.0 description (JSON-LD) of the CSV: the file, and one record set whose
    fields are its columns."""
    survey = tax.survey
    doc: dict[str, Any] = {
        "@context": _CROISSANT_CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": info.name,
        "description": info.description,
        "url": info.address(""),
    }
    if info.license:
        doc["license"] = _license_url(info.license)
    if info.published:
        doc["datePublished"] = info.published
        # The newest day as a version number (2026-11-06 -> 2026.11.6): it grows with the list.
        doc["version"] = ".".join(str(int(p)) for p in info.published.split("-"))
    if survey.get("url"):
        doc["isBasedOn"] = str(survey["url"])
        doc["citeAs"] = str(survey["url"])
    doc["isLiveDataset"] = tax.editions is not None
    doc["distribution"] = [
        {
            "@type": "cr:FileObject",
            "@id": "papers-csv",
            "name": "papers-csv",
            "contentUrl": info.address(CSV_FILE),
            "encodingFormat": "text/csv",
            "sha256": info.sha256,
            "contentSize": f"{info.size} B",
        }
    ]
    doc["recordSet"] = [
        {
            "@type": "cr:RecordSet",
            "@id": "papers",
            "name": "papers",
            "key": {"@id": f"papers/{tax.retained.id_field}"},
            "description": f"One row per record of the {tax.retained.label.lower()}.",
            "field": [
                {
                    "@type": "cr:Field",
                    "@id": f"papers/{c.name}",
                    "name": c.name,
                    "description": c.description,
                    "dataType": c.types[1],
                    "source": {"fileObject": {"@id": "papers-csv"}, "extract": {"column": c.name}},
                }
                for c in columns(tax)
            ],
        }
    ]
    return doc


def to_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def load_lines(csv_address: str) -> dict[str, str]:
    """The one line that loads the list, in pandas and in Hugging Face ``datasets`` (the README
    and the dataset card show them; a test runs them on the built files)."""
    return {
        "pandas": f'papers = pandas.read_csv("{csv_address}", keep_default_na=False)',
        "datasets": f'papers = datasets.load_dataset("csv", data_files="{csv_address}")["train"]',
    }


def _size_category(n: int) -> str:
    """The Hugging Face card's size bucket."""
    for bound, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < bound:
            return name
    return "n>1M"


def dataset_card(tax: Taxonomy, info: DatasetInfo) -> str:
    """``data/README.md``: what the CSV holds, how to load it, its columns; its front matter is
    the Hugging Face dataset card's (licence, size, the CSV as the default configuration)."""
    lines = ["---"]
    if info.license:
        lines.append(f"license: {info.license.lower()}")
    lines += [
        f"pretty_name: {json.dumps(info.title, ensure_ascii=False)}",
        "size_categories:",
        f"- {_size_category(info.rows)}",
        "configs:",
        "- config_name: default",
        "  data_files: papers.csv",
        "---",
        "",
        f"# {info.title}: the list as data",
        "",
    ]
    if info.description:
        lines += [info.description, ""]
    lines += [
        f"`papers.csv` holds the {info.rows} records of the {tax.retained.label.lower()}, one a row, "
        "generated from the YAML records by `survey build`. Lists in a cell are joined by `; `; "
        "an empty cell is a value nobody recorded. `datapackage.json` (Frictionless) and "
        "`croissant.json` (Croissant) beside the site's index describe the same file.",
        "",
    ]
    if info.license:
        lines += [f"Licence: {info.license} ({_license_url(info.license)}).", ""]
    load = load_lines(info.address(CSV_FILE))
    lines += [
        "## Load it",
        "",
        "```python",
        "import pandas",
        load["pandas"],
        "",
        "import datasets",
        load["datasets"],
        "```",
        "",
        "## Columns",
        "",
    ]
    rows = [[md_code(c.name), c.types[0], md(c.description)] for c in columns(tax)]
    return "\n".join(lines) + "\n" + md_table(["Column", "Type", "Description"], rows, pad=False)


def dataset_files(tax: Taxonomy, records: Sequence[Record], url: str) -> dict[str, str]:
    """Every file of the dataset, by its path in the site's folder."""
    text = papers_csv(tax, records)
    info = dataset_info(tax, records, url, text)
    return {
        CSV_FILE: text,
        DATAPACKAGE_FILE: to_json(datapackage(tax, info)),
        CROISSANT_FILE: to_json(croissant(tax, info)),
        CARD_FILE: dataset_card(tax, info),
    }
