"""Agreement between the original tags and a second reader's (``orig_<field>`` vs ``ann_<field>``).

The audit CSV has one row per record: the record's key (the retained collection's id field),
then for each audited controlled field a pair of columns ``orig_<field>`` and ``ann_<field>``.
Other columns are carried along and ignored. Per field: rows, raw agreement, Cohen's kappa
and the disagreeing rows.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import known_keys
from survey_tools.csvcells import csv_text, read_capped, read_csv_rows
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.tables import md, md_table

# Larger audit files are refused before they are read (the survey's audit is 10 kB).
MAX_AUDIT_BYTES = 50 * 1024 * 1024

ORIG, ANN = "orig_", "ann_"


@dataclass(frozen=True)
class Disagreement:
    key: str
    orig: str
    ann: str
    line: int


@dataclass(frozen=True)
class FieldAgreement:
    field: str
    label: str
    rows: int
    agree: int
    kappa: float | None  # None when both readers used one category only (kappa is undefined)
    disagreements: tuple[Disagreement, ...]

    @property
    def raw(self) -> float:
        return self.agree / self.rows if self.rows else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "label": self.label,
            "rows": self.rows,
            "agree": self.agree,
            "raw_agreement": round(self.raw, 4),
            "kappa": None if self.kappa is None else round(self.kappa, 4),
            "disagreements": [{"key": d.key, "orig": d.orig, "ann": d.ann, "line": d.line} for d in self.disagreements],
        }


@dataclass(frozen=True)
class AgreementReport:
    source: str
    rows: int
    fields: tuple[FieldAgreement, ...]
    caveat: str = ""  # how the audit was made, from the report configuration; shown next to kappa
    # Every row as column -> cell (claims count rows of the audit file, docs/claims.md).
    table: tuple[Mapping[str, str], ...] = dc_field(default=(), repr=False, compare=False)
    columns: tuple[str, ...] = dc_field(default=(), repr=False, compare=False)
    id_column: str = dc_field(default="", repr=False, compare=False)

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(r[self.id_column] for r in self.table) if self.id_column else frozenset()

    def field(self, name: str) -> FieldAgreement:
        for f in self.fields:
            if f.field == name:
                return f
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rows": self.rows,
            "caveat": self.caveat,
            "fields": [f.to_dict() for f in self.fields],
        }


def cohen_kappa(a: list[str], b: list[str]) -> float | None:
    n = len(a)
    if n == 0:
        return None
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in ca) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


def read_audit_bytes(path: Path, rel: str) -> bytes:
    """The audit file's bytes; too large (refused before reading) or unreadable raise a problem."""
    return read_capped(path, rel, MAX_AUDIT_BYTES)


def _paired_fields(tax: Taxonomy, header: list[str], rel: str) -> tuple[list[str], list[Problem]]:
    """The audited fields (an ``orig_``/``ann_`` pair each), and what is wrong with the header."""
    problems: list[Problem] = []
    id_col = tax.retained.id_field
    if id_col not in header:
        problems.append(Problem(rel, 1, 0, id_col, f"missing column {id_col!r}"))
    fields: list[str] = []
    for col in header:
        if col.startswith(ORIG):
            name = col[len(ORIG) :]
            if tax.find_field(name) is None:
                problems.append(Problem(rel, 1, 0, col, f"{name!r} is not a controlled field of the taxonomy"))
            elif ANN + name not in header:
                problems.append(Problem(rel, 1, 0, ANN + name, f"missing column (pairs with {col})"))
            else:
                fields.append(name)
        elif col.startswith(ANN) and ORIG + col[len(ANN) :] not in header:
            problems.append(Problem(rel, 1, 0, ORIG + col[len(ANN) :], f"missing column (pairs with {col})"))
    if not fields and not problems:
        problems.append(Problem(rel, 1, 0, "", "no orig_<field>/ann_<field> column pairs"))
    return fields, problems


@dataclass
class _Pairs:
    """The two readers' values of one field, row by row."""

    allowed: frozenset[str]
    origs: list[str] = dc_field(default_factory=list)
    anns: list[str] = dc_field(default_factory=list)
    where: list[tuple[str, int]] = dc_field(default_factory=list)

    def result(self, name: str, label: str) -> FieldAgreement:
        dis = tuple(Disagreement(k, o, a, ln)
                    for o, a, (k, ln) in zip(self.origs, self.anns, self.where, strict=True) if o != a)
        return FieldAgreement(name, label, len(self.origs), len(self.origs) - len(dis),
                              cohen_kappa(self.origs, self.anns), dis)


def _key_problems(key: str, lineno: int, id_col: str, rel: str, seen: set[str],
                  known: Collection[str] | None) -> list[Problem]:
    out = []
    if known is not None and key not in known:
        # Most often the consequence of a change elsewhere: a record deleted or renamed.
        out.append(Problem(rel, lineno, 0, id_col, (
            f"unknown record key {key!r}: no record has it; if this change deleted or renamed "
            f"that record, this line is the consequence: restore the record, not this file")))
    if key in seen:
        out.append(Problem(rel, lineno, 0, id_col, f"{key!r} appears twice"))
    seen.add(key)
    return out


def _pair_row(pairs: Mapping[str, _Pairs], cells: Mapping[str, str], key: str, lineno: int,
              rel: str) -> list[Problem]:
    """One row's values into each field's pairs; values the taxonomy does not know are problems."""
    out = []
    for f, p in pairs.items():
        o, a = cells[ORIG + f], cells[ANN + f]
        for col, v in ((ORIG + f, o), (ANN + f, a)):
            if v not in p.allowed:
                out.append(Problem(rel, lineno, 0, col, f"unknown value {v!r} (known: {', '.join(sorted(p.allowed))})"))
        p.origs.append(o)
        p.anns.append(a)
        p.where.append((key, lineno))
    return out


def agreement_of(tax: Taxonomy, raw: bytes, rel: str,
                 known_keys: Collection[str] | None = None) -> AgreementReport:
    """The audit CSV's bytes compared reader against reader; :class:`InvalidInput` lists every problem."""
    # strict: an unclosed quote or a stray one is an error, not a silently merged cell
    read = read_csv_rows(csv_text(raw, rel), rel)
    if not read.header:
        raise InvalidInput(list(read.problems) or [Problem(rel, 1, 0, "", "the file is empty")], f"{rel} is invalid")
    header = list(read.header)
    fields, problems = _paired_fields(tax, header, rel)
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    id_col = tax.retained.id_field
    pairs = {f: _Pairs(frozenset(tax.field(f).ids) | ({tax.na} if tax.field(f).not_applicable else set()))
             for f in fields}
    seen: set[str] = set()
    table: list[dict[str, str]] = []
    for lineno, row in read.rows:
        if len(row) != len(header):
            problems.append(Problem(rel, lineno, 0, "", f"{len(row)} cells, the header has {len(header)}"))
            continue
        cells = {c: cell.strip() for c, cell in zip(header, row, strict=True)}
        table.append(cells)
        problems += _key_problems(cells[id_col], lineno, id_col, rel, seen, known_keys)
        problems += _pair_row(pairs, cells, cells[id_col], lineno, rel)
    problems += read.problems  # malformed CSV ended the rows there
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    out = tuple(p.result(f, tax.field(f).label) for f, p in pairs.items())
    return AgreementReport(rel, len(table), out, table=tuple(table), columns=tuple(header), id_column=id_col)


def compute_agreement(
    tax: Taxonomy, path: Path, rel: str | None = None, known_keys: Collection[str] | None = None
) -> AgreementReport:
    """Read an audit CSV and compare the two readers; :class:`InvalidInput` lists every problem."""
    rel = rel or str(path)
    return agreement_of(tax, read_audit_bytes(path, rel), rel, known_keys)


def load_agreement(corpus: Corpus, caveat: str = "", reads: Reads | None = None) -> AgreementReport | None:
    """The survey's audit file (``files.audit``, read through the build's ``reads``) compared;
    ``None`` when the survey has none."""
    tax = corpus.taxonomy
    rel = tax.data_file("audit")
    raw = (reads or Reads(tax.root)).file(rel, MAX_AUDIT_BYTES)
    if raw is None:
        return None
    report = agreement_of(tax, raw, rel, known_keys(corpus))
    return replace(report, caveat=caveat) if caveat else report


def _kappa(k: float | None) -> str:
    return "undefined" if k is None else f"{k:.3f}"


def agreement_text(report: AgreementReport) -> str:
    lines = [f"{report.source}: {report.rows} rows", *([f"caveat: {report.caveat}"] if report.caveat else []), f"{'field':<22} {'rows':>5} {'agree':>6} {'raw':>7} {'kappa':>9}"]
    for f in report.fields:
        lines.append(f"{f.field:<22} {f.rows:>5} {f.agree:>6} {f.raw:>7.3f} {_kappa(f.kappa):>9}")
    for f in report.fields:
        for d in f.disagreements:
            lines.append(f"disagreement: {f.field}: {d.key} (line {d.line}): {d.orig} vs {d.ann}")
    return "\n".join(lines) + "\n"


def agreement_markdown(report: AgreementReport) -> str:
    out = [
        "# Second-reader agreement",
        "",
        f"Generated by `survey build` from `{report.source}` ({report.rows} rows); do not edit. "
        "Raw agreement is the share of rows where both readers chose the same value; Cohen's kappa "
        "corrects it for agreement expected by chance.",
        "",
        *([f"> **Caveat.** {report.caveat}", ""] if report.caveat else []),
        md_table(
            ["field", "rows", "agree", "raw agreement", "Cohen's kappa"],
            [[md(f.label), f.rows, f.agree, f"{f.raw:.3f}", _kappa(f.kappa)] for f in report.fields],
            "lrrrr",
            pad=False,
        ),
    ]
    dis = [(f, d) for f in report.fields for d in f.disagreements]
    out += ["", "## Disagreements", ""]
    if not dis:
        out.append("None.")
    for f, d in dis:
        out.append(f"- {f.label}: `{d.key}`: original {d.orig}, second reader {d.ann}")
    return "\n".join(out) + "\n"


def agreement_outputs(report: AgreementReport, prefix: str = "reports") -> dict[str, str]:
    return {
        f"{prefix}/AGREEMENT.md": agreement_markdown(report),
        f"{prefix}/agreement.json": json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n",
    }
