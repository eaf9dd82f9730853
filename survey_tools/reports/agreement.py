"""Agreement between the original tags and a second reader's (``orig_<field>`` vs ``ann_<field>``).

The audit CSV has one row per record: the record's key (the retained collection's id field),
then for each audited controlled field a pair of columns ``orig_<field>`` and ``ann_<field>``.
Other columns are carried along and ignored. Per field: rows, raw agreement, Cohen's kappa
and the disagreeing rows.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import known_keys
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


def _read_text(path: Path, rel: str) -> str:
    """The audit file as text; too large, unreadable, non-UTF-8 or NUL bytes raise a problem."""

    def refuse(line: int, message: str) -> InvalidInput:
        return InvalidInput([Problem(rel, line, 0, "", message)], f"{rel} cannot be read")

    try:
        size = path.stat().st_size
        if size > MAX_AUDIT_BYTES:  # refused before reading
            raise refuse(1, f"file is {size:,} bytes; the limit is {MAX_AUDIT_BYTES:,}")
        raw = path.read_bytes()
    except OSError as err:
        raise refuse(0, f"cannot read: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise refuse(line, f"not valid UTF-8 (byte 0x{raw[err.start : err.start + 1].hex()})") from None
    if "\x00" in text:
        raise refuse(text[: text.index("\x00")].count("\n") + 1, "contains NUL bytes; not a text CSV file")
    return text


def _rows(reader: Any, rel: str, problems: list[Problem]) -> Iterator[tuple[int, list[str]]]:
    """(first line, row) of each row; malformed CSV ends the rows with a problem."""
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            problems.append(Problem(rel, reader.line_num or start, 0, "", f"malformed CSV: {err}"))
            return
        yield start, row


def compute_agreement(
    tax: Taxonomy, path: Path, rel: str | None = None, known_keys: Collection[str] | None = None
) -> AgreementReport:
    """Read an audit CSV and compare the two readers; :class:`InvalidInput` lists every problem."""
    rel = rel or str(path)
    text = _read_text(path, rel)
    problems: list[Problem] = []
    # strict: an unclosed quote or a stray one is an error, not a silently merged cell
    rows = _rows(csv.reader(io.StringIO(text, newline=""), strict=True), rel, problems)
    header = next(rows, (1, None))[1]
    id_col = tax.retained.id_field
    if not header:
        raise InvalidInput(problems or [Problem(rel, 1, 0, "", "the file is empty")], f"{rel} is invalid")
    if id_col not in header:
        problems.append(Problem(rel, 1, 0, id_col, f"missing column {id_col!r}"))
    fields: list[str] = []
    for col in header:
        if col.startswith(ORIG):
            name = col[len(ORIG) :]
            cf = tax.find_field(name)
            if cf is None:
                problems.append(Problem(rel, 1, 0, col, f"{name!r} is not a controlled field of the taxonomy"))
            elif ANN + name not in header:
                problems.append(Problem(rel, 1, 0, ANN + name, f"missing column (pairs with {col})"))
            else:
                fields.append(name)
        elif col.startswith(ANN) and ORIG + col[len(ANN) :] not in header:
            problems.append(Problem(rel, 1, 0, ORIG + col[len(ANN) :], f"missing column (pairs with {col})"))
    if not fields and not problems:
        problems.append(Problem(rel, 1, 0, "", "no orig_<field>/ann_<field> column pairs"))
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    idx = {c: i for i, c in enumerate(header)}
    pairs: dict[str, tuple[list[str], list[str], list[tuple[str, int]]]] = {f: ([], [], []) for f in fields}
    seen: set[str] = set()
    table: list[dict[str, str]] = []
    n = 0
    for lineno, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            problems.append(Problem(rel, lineno, 0, "", f"{len(row)} cells, the header has {len(header)}"))
            continue
        n += 1
        key = row[idx[id_col]].strip()
        if known_keys is not None and key not in known_keys:
            problems.append(Problem(rel, lineno, 0, id_col, f"unknown record key {key!r}"))
        if key in seen:
            problems.append(Problem(rel, lineno, 0, id_col, f"{key!r} appears twice"))
        seen.add(key)
        table.append({c: cell.strip() for c, cell in zip(header, row, strict=True)})
        for f in fields:
            cf = tax.field(f)
            allowed = set(cf.ids) | ({tax.na} if cf.not_applicable else set())
            o, a = row[idx[ORIG + f]].strip(), row[idx[ANN + f]].strip()
            for col, v in ((ORIG + f, o), (ANN + f, a)):
                if v not in allowed:
                    problems.append(Problem(rel, lineno, 0, col, f"unknown value {v!r} (known: {', '.join(sorted(allowed))})"))
            pairs[f][0].append(o)
            pairs[f][1].append(a)
            pairs[f][2].append((key, lineno))
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    out = []
    for f in fields:
        origs, anns, keys = pairs[f]
        dis = tuple(
            Disagreement(k, o, a, ln) for o, a, (k, ln) in zip(origs, anns, keys, strict=True) if o != a
        )
        out.append(FieldAgreement(f, tax.field(f).label, len(origs), len(origs) - len(dis), cohen_kappa(origs, anns), dis))
    return AgreementReport(rel, n, tuple(out), table=tuple(table), columns=tuple(header), id_column=id_col)


def load_agreement(corpus: Corpus, caveat: str = "") -> AgreementReport | None:
    """The survey's audit file (``files.audit``) compared; ``None`` when the survey has none."""
    tax = corpus.taxonomy
    rel = tax.data_file("audit")
    if not (tax.root / rel).is_file():
        return None
    report = compute_agreement(tax, tax.root / rel, rel, known_keys(corpus))
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
