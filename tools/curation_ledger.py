"""Check the survey's own claim ledger (data/curation/ledger.yaml) against our records.

Usage (from the survey folder):  PYTHONPATH=$PWD python3 tools/curation_ledger.py [--check]

For every ledger row marked checkable it counts, in three views:

* edition: the records of the survey's edition (every record without ``edition: living``);
* living: every record, including living-list additions;
* corrections: the edition with every proposed correction of data/corrections.yaml applied;

and compares each count with the survey's stated value. Rows checkable from the audit file
are counted on data/audit/spotcheck.csv. The table goes to docs/curation-ledger.md;
``--check`` only reports whether that file is current. A research aid for issue 17 until the
claims format carries paper values and views itself.
"""

from __future__ import annotations

import copy
import csv
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Record
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.reports.agreement import compute_agreement
from survey_tools.reports.claims import OPERATORS, compile_filter
from survey_tools.reports.corrections import load_corrections

LEDGER = "data/curation/ledger.yaml"
OUT = "docs/curation-ledger.md"
AUDIT = "data/audit/spotcheck.csv"


def _apply(rec: Record, fld: str, value: Any) -> Record:
    data = copy.deepcopy(dict(rec.data))
    cur = data
    parts = fld.split(".")
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    cur[parts[-1]] = value
    return replace(rec, data=data)


def _count(pred: Callable[[Record], bool], recs: Iterable[Record]) -> int:
    return sum(1 for r in recs if pred(r))


def main(argv: list[str]) -> int:
    root = Path.cwd()
    tax = load_taxonomy(root)
    corpus = load_corpus(root, tax)
    rows = yaml.safe_load((root / LEDGER).read_text(encoding="utf-8"))["ledger"]

    def views() -> dict[str, dict[str, list[Record]]]:
        living = {c: list(corpus.of(c)) for c in tax.collections}
        edition = {c: [r for r in rs if r.get("edition") != "living"] for c, rs in living.items()}
        loaded = load_corrections(tax)
        fixed = {c: list(rs) for c, rs in edition.items()}
        if loaded is not None:
            for corr in loaded[1]:
                for recs in fixed.values():
                    for i, r in enumerate(recs):
                        if r.id == corr.record:
                            recs[i] = _apply(r, corr.field, corr.proposed)
        return {"edition": edition, "living": living, "corrections": fixed}

    vs = views()
    audit = compute_agreement(tax, root / AUDIT, AUDIT, {r.id for r in corpus.retained})
    with (root / AUDIT).open(encoding="utf-8", newline="") as fh:
        audit_rows = list(csv.DictReader(fh))
    audit_keys = {r["key"] for r in audit_rows}

    def count(row: Mapping[str, Any], view: Mapping[str, list[Record]]) -> int | None:
        kind = row.get("checkable")
        if kind is True:
            colls = row.get("collection", "retained")
            colls = colls if isinstance(colls, list) else [colls]
            recs = [r for c in colls for r in view[c]]
            if "per_subdecision" in row:
                return min(
                    _count(compile_filter(tax, {"subdecisions": {o: row["modes"]}}), recs)
                    for o in row["per_subdecision"]
                )
            return _count(compile_filter(tax, row.get("where") or {}), recs)
        if kind == "audit":
            a = row["audit"]
            m = a["measure"]
            if m == "rows":
                return audit.rows
            if m == "agree":
                return audit.field(a["field"]).agree
            if m == "strict":
                return sum(
                    1 for r in audit_rows
                    if r["orig_credit_granularity"] == a["credit_granularity"] and r["strict_explicit_credit"] == "yes"
                )
            if m == "outside":
                pred = compile_filter(tax, a["where"])
                return sum(1 for r in view["retained"] if pred(r) and r.id not in audit_keys)
            raise SystemExit(f"{row['id']}: unknown audit measure {m!r}")
        return None

    def target(row: Mapping[str, Any]) -> tuple[str, int] | None:
        pv = row.get("paper_value")
        if "expected" in row:
            return str(row.get("op", "==")), int(row["expected"])
        if isinstance(pv, int) and not isinstance(pv, bool):
            return str(row.get("op", "==")), pv
        return None

    def cell(n: int | None, t: tuple[str, int] | None, mark: str = "✗") -> str:
        if n is None:
            return "-"
        if t is None:
            return str(n)
        ok = OPERATORS[t[0]](n, t[1])
        return f"{n}" if ok else f"**{n}** {mark}"

    out = [
        "# The survey's claim ledger, checked against our records",
        "",
        f"Generated by `tools/curation_ledger.py` from `{LEDGER}`; do not edit. Paper values are read from "
        "the survey's repository (xxzcc/awesome-llm-mas-rl, snapshot a14d8de): docs/claim_ledger.md, "
        "docs/STATS.md, README.md, docs/search_protocol_2026-04-26.md, docs/audits/*.md and "
        "assets/orchestration_subdecisions.svg.",
        "",
        "Views: **edition** = our records of the survey's edition as they stand (no living-list additions); "
        "**living** = every record, including those marked `edition: living`; **with corrections** = the edition "
        "with every proposed correction in data/corrections.yaml applied. A bold value marked ✗ differs from the "
        "paper's (or, for rows stated as text, from the condition in the ledger); in the living column a bold value "
        "marked Δ is a count the living-list additions changed, which is expected for totals and is not a "
        "contradiction of the survey's edition. Rows checked on the audit file "
        "count data/audit/spotcheck.csv, which corrections and the living list do not change except where a "
        "row asks for records outside the audit.",
        "",
    ]
    sections: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        sections.setdefault(str(row["source"]["document"]), []).append(row)
    n_rows = n_check = n_diff = 0
    for doc, group in sections.items():
        out += [f"## {doc}", "", "| claim | paper value | ours now (edition) | living | with corrections | counts |",
                "| --- | --- | ---: | ---: | ---: | --- |"]
        not_checkable = []
        for row in group:
            n_rows += 1
            if row.get("checkable") is False:
                not_checkable.append(row)
                continue
            n_check += 1
            t = target(row)
            vals = [count(row, vs[v]) for v in ("edition", "living", "corrections")]
            if t is not None and any(v is not None and not OPERATORS[t[0]](v, t[1]) for v in (vals[0], vals[2])):
                n_diff += 1
            pv = row["paper_value"]
            out.append(
                f"| `{row['id']}` | {pv} | {cell(vals[0], t)} | {cell(vals[1], t, 'Δ' if vals[1] != vals[0] else '✗')} | {cell(vals[2], t)} | {row['counts']} |"
            )
        if not_checkable:
            out += ["", "Not checkable from the records:", ""]
            for row in not_checkable:
                reason = " ".join(str(row["reason"]).split())
                out.append(f"- `{row['id']}` ({row['paper_value']}): {reason}")
        out.append("")
    out += [
        "## Summary",
        "",
        f"{n_rows} ledger rows; {n_check} checked (records or audit file), {n_rows - n_check} not checkable "
        f"from the records; {n_diff} rows differ from the paper's value on the edition or with corrections.",
        "",
        "Row notes (from the ledger):",
        "",
    ]
    for row in rows:
        if row.get("note"):
            out.append(f"- `{row['id']}`: {' '.join(str(row['note']).split())}")
    text = "\n".join(out) + "\n"
    path = root / OUT
    if "--check" in argv:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        print("up to date" if current == text else f"{OUT} is stale")
        return 0 if current == text else 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}: {n_rows} rows, {n_check} checked, {n_diff} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
