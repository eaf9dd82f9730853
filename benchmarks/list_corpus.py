"""How `survey init --from FILE` does on the corpus of real lists (tests/fixtures/lists/corpus.yaml).

For each list: the entries the source holds (counted without the toolkit's readers, see
``source_entries``), the records `survey init` created, how many of them the README lists, the
hand-written lines needed before `survey validate` and `survey build --check` pass (0: none;
the script edits nothing, so a list that fails shows "fails"), and the problems init reported
(warnings, one a row or a field).

    python3 benchmarks/list_corpus.py                 # the committed fixtures (excerpts where
                                                      # a licence forbids the whole file)
    python3 benchmarks/list_corpus.py --full DIR      # the whole upstream files, from DIR
    python3 benchmarks/list_corpus.py fetch DIR       # download them into DIR (network), check
                                                      # each sha256, rebuild the excerpts
    python3 benchmarks/list_corpus.py --corpus tests/fixtures/lists-heldout    # round 5's held-out lists
    python3 benchmarks/list_corpus.py --corpus tests/fixtures/lists-heldout2   # round 6's held-out lists

The table is the one in docs/new-survey.md.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "lists"


def corpus(folder: Path = FIXTURES) -> list[dict[str, Any]]:
    return list(yaml.safe_load((folder / "corpus.yaml").read_text(encoding="utf-8"))["lists"])


def upstream_name(entry: dict[str, Any]) -> str:
    return f"{entry['name']}{Path(entry['path']).suffix if Path(entry['path']).suffix != '.bibtex' else '.bib'}"


def excerpt(text: str, ranges: list[list[int]]) -> str:
    """The committed excerpt of an upstream file: its lines in ``ranges`` (1-based, inclusive)."""
    lines = text.splitlines(keepends=True)
    return "".join("".join(lines[a - 1 : b]) for a, b in ranges)


def fetch(out: Path) -> None:
    """Download every list at its pinned commit, check its sha256, rebuild the excerpts."""
    out.mkdir(parents=True, exist_ok=True)
    for e in corpus():
        url = f"https://raw.githubusercontent.com/{e['repo']}/{e['commit']}/{urllib.request.quote(e['path'])}"
        with urllib.request.urlopen(url, timeout=60) as answer:  # noqa: S310 (a pinned https URL)
            raw = answer.read()
        digest = hashlib.sha256(raw).hexdigest()
        if digest != e["sha256"]:
            sys.exit(f"{e['name']}: sha256 {digest} is not the pinned {e['sha256']}")
        (out / upstream_name(e)).write_bytes(raw)
        if e["excerpt"]:
            (FIXTURES / e["file"]).write_text(
                excerpt(raw.decode("utf-8"), e["excerpt"]), encoding="utf-8"
            )
        print(f"{e['name']}: {len(raw):,} bytes, sha256 checked")


# --- counting the source's entries without the toolkit's readers -----------------------

_ABOUT = re.compile(
    r"^#+\s*\W*\s*(contents?|table of contents|news|updates?|citations?|cite|how to cite|"
    r"contributing|contribute|contributors|license|licence|acknowledge?ments?|contact|star history|"
    r"introduction|maintainers|format|todo)\b",
    re.I,
)
_LINK = re.compile(r"\]\((https?://[^)\s]+)\)")
_BADGE_HOST = re.compile(r"shields\.io|badgen\.net|star-history|hits\.sh|awesome\.re")


def _markdown_entries(text: str) -> int:
    """Distinct works in a Markdown list, by blocks of lines: list items (with their indented
    continuation lines), table rows, headings, and paragraphs that open with a bold title,
    outside the parts about the list (news, contents, citation, licence), that hold an external
    link other than a badge, distinct by that first link."""
    seen: set[str] = set()
    about = False
    fence = False
    block: list[str] = []
    opens_item = False

    def flush() -> None:
        links = [u for u in _LINK.findall(" ".join(block)) if not _BADGE_HOST.search(u)]
        if block and links and not about and (opens_item or block[0].startswith("**")):
            seen.add(links[0])
        block.clear()

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence:
            continue
        starts = re.match(r"^\s*([-*+]\s|\d+[.)]\s|\||#)", line)
        if starts or not line.strip():
            flush()
        if line.startswith("#"):
            about = bool(_ABOUT.match(line))
        if not line.strip():
            continue
        if starts:
            opens_item = True
        elif not block:
            opens_item = False
        block.append(line)
        if line.lstrip().startswith(("|", "#")):
            flush()  # a table row or a heading is one line
    flush()
    return len(seen)


def _xlsx_rows(path: Path) -> int:
    """The non-empty rows under the first row of the workbook's first sheet (openpyxl directly,
    not the toolkit's reader)."""
    import openpyxl  # noqa: PLC0415 (only this format needs it)

    sheet = openpyxl.load_workbook(path, read_only=True, data_only=True).worksheets[0]
    rows = [
        r
        for r in sheet.iter_rows(values_only=True)
        if any(c is not None and str(c).strip() for c in r)
    ]
    return len(rows[_header_row(rows) + 1 :])


def _header_row(rows: list[Any]) -> int:
    """The header of a sheet: its first row naming at least half its columns (a title or a
    row of column groups above it is not)."""
    width = max((len(r) for r in rows), default=0)
    return next(
        (
            i
            for i, r in enumerate(rows)
            if 2 * sum(1 for c in r if c is not None and str(c).strip()) >= width
        ),
        0,
    )


def source_entries(path: Path, fmt: str) -> int:
    if fmt == "xlsx":
        return _xlsx_rows(path)
    text = path.read_text(encoding="utf-8-sig")
    if fmt == "ris":  # one TY tag a reference
        return len(re.findall(r"^TY  - ", text, re.M))
    if fmt == "bibtex":  # @type{ entries, not @string/@preamble/@comment
        return len(re.findall(r"^\s*@(?!string|preamble|comment)\w+\s*\{", text, re.I | re.M))
    if fmt in ("csv", "tsv"):
        delimiter = "\t" if fmt == "tsv" else ","
        return sum(
            1
            for row in list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))[1:]
            if any(c.strip() for c in row)
        )
    if fmt == "yaml":
        data = yaml.safe_load(text)
        return len(
            data
            if isinstance(data, list)
            else next(v for v in data.values() if isinstance(v, list))
        )
    if fmt == "json":
        data = json.loads(text)
        return len(
            data
            if isinstance(data, list)
            else next(v for v in data.values() if isinstance(v, list))
        )
    return _markdown_entries(text)


# --- the source's fields, without the toolkit's readers -----------------------------------


def _bib_fields(text: str) -> list[dict[str, str]]:
    import bibtexparser  # noqa: PLC0415 (the parser library itself, not the toolkit's reader)

    lib = bibtexparser.parse_string(text)
    return [{f.key.lower(): str(f.value) for f in e.fields} for e in lib.entries]


def _ris_fields(text: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for block in re.split(r"^ER  -.*$", text, flags=re.M):
        tags: dict[str, str] = {}
        for m in re.finditer(r"^([A-Z][A-Z0-9])  - ?(.*)$", block, re.M):
            tags[m.group(1)] = (tags.get(m.group(1), "") + " " + m.group(2)).strip()
        if "TY" in tags:
            out.append(tags)
    return out


def _rows_fields(rows: list[list[str]]) -> list[dict[str, str]]:
    head = [h.strip() for h in rows[0]] if rows else []
    return [{h: (r[i] if i < len(r) else "") for i, h in enumerate(head) if h} for r in rows[1:]]


def source_fields(path: Path, fmt: str) -> list[dict[str, str]]:
    """Each entry's fields as the file writes them (names and text values); [] for Markdown."""
    if fmt == "xlsx":
        import openpyxl  # noqa: PLC0415

        sheet = openpyxl.load_workbook(path, read_only=True, data_only=True).worksheets[0]
        rows = [["" if c is None else str(c) for c in r] for r in sheet.iter_rows(values_only=True)]
        rows = [r for r in rows if any(c.strip() for c in r)]
        return _rows_fields(rows[_header_row(rows) :])
    text = path.read_text(encoding="utf-8-sig")
    if fmt == "bibtex":
        return _bib_fields(text)
    if fmt == "ris":
        return _ris_fields(text)
    if fmt in ("csv", "tsv"):
        return _rows_fields(
            list(csv.reader(io.StringIO(text, newline=""), delimiter="\t" if fmt == "tsv" else ","))
        )
    if fmt in ("yaml", "json"):
        data = yaml.safe_load(text) if fmt == "yaml" else json.loads(text)
        items = (
            data
            if isinstance(data, list)
            else next(v for v in data.values() if isinstance(v, list))
        )
        return [
            {
                str(k): json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
                for k, v in e.items()
            }
            for e in items
            if isinstance(e, dict)
        ]
    return []


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


# The fields a reader is meant to see (docs/new-survey.md, "Published fields are an
# allowlist"), and the RIS tags that hold them: what a list may publish.
_PUBLIC = {
    "title",
    "authors",
    "author",
    "year",
    "date",
    "venue",
    "summary",
    "doi",
    "arxiv",
    "links",
    "url",
    "link",
    "entry_type",
    "month",
    "journal",
    "journaltitle",
    "booktitle",
    "volume",
    "number",
    "pages",
    "publisher",
    "series",
    "edition",
    "address",
    "location",
    "editor",
    "institution",
    "organization",
    "school",
    "howpublished",
    "type",
    "chapter",
    "isbn",
    "issn",
    "eprint",
    "archiveprefix",
    "eprinttype",
    "primaryclass",
    "eprintclass",
    "subtitle",
    "issue",
    "booksubtitle",
    "maintitle",
    "key",
    "id",
    "name",
    "paper",
    "description",
    "source_title",
    "publication_title",
    "TI",
    "T1",
    "AU",
    "A1",
    "PY",
    "Y1",
    "DA",
    "T2",
    "JO",
    "JF",
    "J2",
    "DO",
    "UR",
    "L1",
    "L2",
    "TY",
    "VL",
    "IS",
    "SP",
    "EP",
    "PB",
    "SN",
    "CY",
}


def _report(stderr: str, lead: str) -> set[str]:
    """The names of one line of init's report ("published fields: a, b (Column)"): each field
    and the column it comes from, slugged."""
    line = next((ln for ln in stderr.splitlines() if ln.startswith(lead)), "")
    names: set[str] = set()
    for item in line.split(": ", 1)[1].split(", ") if ": " in line else []:
        m = re.match(r"^(.*?)(?: \((.*)\))?$", item.strip())
        if m:
            names |= {_slug(m.group(1)), _slug(m.group(2) or "")} - {""}
    return names


def _plain(value: str) -> str:
    """A value without TeX commands and braces (``Aristotle's \\mkbibquote{De Motu}``), as a
    published title shows it."""
    value = re.sub(r"\\([&%$#_])", r"\1", value)  # TeX's escaped characters
    return " ".join(re.sub(r"\\[A-Za-z]+\s*|[{}]", "", value).split())


def private_values(fields: list[dict[str, str]], stderr: str) -> set[str]:
    """The values of the fields init says it kept private, long enough to be found in an output
    by themselves (12 characters), that no published field also holds (a part of a link's
    address, a venue a private field repeats); addresses aside."""
    private = _report(stderr, "private fields")
    public = {_plain(v) for e in fields for k, v in e.items() if _slug(k) not in private}
    out = set()
    for e in fields:
        for k, v in e.items():
            v = _plain(v)
            if _slug(k) not in private or len(v) < 12 or v.startswith("http"):
                continue
            if v in public or any(v in p for p in public):
                continue
            out.add(v)
    return out


def leaked(values: set[str], text: str) -> list[str]:
    """The private values found in the published text as text of their own, not inside a longer
    word (a private ``relativity.html`` is not leaked by the page ``einstein1920relativity.html``
    that a record's key names)."""
    return sorted(v for v in values if v in text and re.search(r"(?<![\w-])" + re.escape(v), text))


def published_off_allowlist(stderr: str) -> list[str]:
    """The fields init publishes that are not on the allowlist (docs/new-survey.md) and that the
    adopter did not name: none, for a list adopted with defaults (a Markdown list's fields are
    its reader's own, all on it)."""
    line = next((ln for ln in stderr.splitlines() if ln.startswith("published fields")), "")
    fields = (
        [item.split(" (")[0] for item in line.split(": ", 1)[1].split(", ")] if ": " in line else []
    )
    keys = ("slug", "citekey", "citation_key", "bibtex_key")  # the key a record is named by
    return [
        f for f in fields if f not in _PUBLIC and f not in ("code", "project", "section", *keys)
    ]


def published_text(target: Path) -> str:
    """What the adopted survey publishes: README, site pages, papers.bib, its CSV export."""
    parts = [
        target / "README.md",
        target / "reports" / "papers.bib",
        *sorted((target / "reports").rglob("*.html")),
    ]
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in parts if p.is_file())
    out = target.parent / f"{target.name}-export"
    survey("export", "csv", str(out), cwd=target)
    return text + "\n".join(p.read_text(encoding="utf-8") for p in sorted(out.glob("*.csv")))


def _accounted(stderr: str) -> set[str]:
    """The source fields init's report names (published, private, ignored, folded into links)."""
    names: set[str] = set()
    for line in stderr.splitlines():
        for lead in (
            "published fields: ",
            "): ",
            "ignored columns (not imported): ",
            "folded into links: ",
        ):
            if lead in line:
                tail = line.split(lead, 1)[1]
                # the warning closes its "(folded into links: a, b)"; a report line may end in
                # a field's own "(Column)"
                tail = tail.rstrip(")") if lead == "folded into links: " else tail
                for item in tail.split(", "):
                    m = re.match(r"^(.*?)(?: \((.*)\))?$", item.strip())
                    if m:
                        names |= {_slug(m.group(1)), _slug(m.group(2) or "")}
    return names


def fields_lost(fields: list[dict[str, str]], stderr: str) -> int:
    """Source field names init neither published, kept private, ignored nor folded into links
    (the BibTeX/RIS names a reader renames are counted by their usual field)."""
    renamed = {
        "author": "authors",
        "url": "links",
        "TY": "entry_type",
        "TI": "title",
        "AU": "authors",
        "PY": "year",
        "DO": "doi",
        "UR": "links",
        "T2": "venue",
        "JO": "venue",
        "JF": "venue",
        "DA": "date",
    }
    seen = {k for e in fields for k, v in e.items() if v.strip()}
    named = _accounted(stderr) | {
        "key",
        "links",
        "doi",
        "entry_type",
        "title",
        "authors",
        "year",
        "venue",
        "date",
    }
    def kept(name: str) -> bool:  # a nested mapping is kept as one field a key (relation_has_preprint)
        return name in named or any(n.startswith(f"{name}_") for n in named)

    return sum(1 for k in seen if not kept(_slug(renamed.get(k, k))) and k not in _RIS_KEPT)


# RIS tags the reader keeps under rispy's names (RIS's two-letter tags name them only there)
_RIS_KEPT = {
    "AB",
    "KW",
    "N1",
    "N2",
    "SN",
    "VL",
    "IS",
    "SP",
    "EP",
    "PB",
    "CY",
    "LA",
    "DB",
    "DP",
    "AN",
    "ID",
    "A2",
    "A3",
    "A4",
    "AD",
    "C1",
    "C2",
    "C3",
    "C4",
    "C5",
    "C6",
    "C7",
    "C8",
    "CN",
    "ET",
    "J2",
    "L1",
    "L2",
    "L4",
    "LB",
    "M1",
    "M3",
    "NV",
    "OP",
    "RN",
    "RP",
    "SE",
    "ST",
    "T1",
    "T3",
    "TT",
    "Y1",
    "Y2",
    "A1",
    "JA",
}


# --- one list through init, validate, build ---------------------------------------------


def survey(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [shutil.which("survey") or "survey", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def measure(entry: dict[str, Any], source: Path, work: Path) -> dict[str, Any]:
    target = work / entry["name"]
    init = survey("init", str(target), "--from", str(source), "--title", entry["name"], cwd=work)
    row: dict[str, Any] = {
        "list": entry["name"],
        "format": entry["format"],
        "entries": source_entries(source, entry["format"]),
        "records": 0,
        "in_readme": 0,
        "hand_lines": "fails",
        "problems": sum(1 for ln in init.stderr.splitlines() if ln.startswith(("warning:", "  "))),
        "fields_lost": "n/a",
        "private_published": "n/a",
        "published_off_list": "n/a",
    }
    if init.returncode != 0:
        row["error"] = (
            init.stderr.strip().splitlines()[-1:]
            if init.stderr.strip()
            else ["exit " + str(init.returncode)]
        )
        return row
    records = sorted((target / "corpus").glob("*.yaml"))
    row["records"] = len(records)
    readme = (target / "README.md").read_text(encoding="utf-8")
    row["in_readme"] = sum(
        1 for r in records if f"`{r.stem}`" in readme
    )  # each entry names its key
    fields = source_fields(source, entry["format"])
    text = published_text(target)
    row["private_published"] = len(leaked(private_values(fields, init.stderr), text))
    row["published_off_list"] = len(published_off_allowlist(init.stderr))
    row["fields_lost"] = fields_lost(fields, init.stderr) if fields else "n/a"
    validate = survey("validate", cwd=target)
    check = survey("build", "--check", cwd=target)
    row["hand_lines"] = 0 if validate.returncode == 0 and check.returncode == 0 else "fails"
    if row["hand_lines"] != 0:
        row["error"] = (validate.stdout + validate.stderr + check.stdout).strip().splitlines()[:3]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| list | format | entries in the source | records created | in the README | hand-written lines | "
        "problems reported | fields lost | private values published | fields published off the allowlist |"
    )
    out = [head, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(
            f"| {r['list']} | {r['format']} | {r['entries']} | {r['records']} | {r['in_readme']} | "
            f"{r['hand_lines']} | {r['problems']} | {r['fields_lost']} | {r['private_published']} | "
            f"{r['published_off_list']} |"
        )
    return "\n".join(out)


def rates(rows: list[dict[str, Any]]) -> str:
    """The corpus's rates: entries reaching the README, fields lost, private values published,
    lists refused."""
    entries = sum(r["entries"] for r in rows)
    shown = sum(min(r["in_readme"], r["entries"]) for r in rows)
    lost = sum(r["fields_lost"] for r in rows if isinstance(r["fields_lost"], int))
    leaked = sum(r["private_published"] for r in rows if isinstance(r["private_published"], int))
    refused = sum(1 for r in rows if r["hand_lines"] != 0)
    share = f"{100 * shown / entries:.1f} %" if entries else "n/a"
    return (
        f"{len(rows)} lists: {shown} of {entries} source entries in the README ({share}); "
        f"{lost} source fields lost; {leaked} private values published; {refused} lists refused or failing"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", nargs="?", default="table", choices=("table", "fetch"))
    parser.add_argument("dir", nargs="?", type=Path, help="fetch: where to put the upstream files")
    parser.add_argument("--full", type=Path, help="measure the whole upstream files in this folder")
    parser.add_argument(
        "--only", action="append", default=[], help="measure only this list (repeatable)"
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=FIXTURES,
        help="the folder of corpus.yaml and the lists (default: tests/fixtures/lists; the held-out "
        "ones: tests/fixtures/lists-heldout, tests/fixtures/lists-heldout2)",
    )
    args = parser.parse_args()
    if args.command == "fetch":
        fetch(args.dir or Path("list-corpus"))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        args.corpus = args.corpus.resolve()  # survey runs in a folder of its own
        for e in corpus(args.corpus):
            if args.only and e["name"] not in args.only:
                continue
            source = (args.full / upstream_name(e)) if args.full else args.corpus / e["file"]
            row = measure(e, source, Path(tmp))
            if "entries" in e and e["entries"] != row["entries"] and not args.full:
                # a corpus that records its count (lists-heldout2) made it the same way, once
                print(f"{e['name']}: corpus.yaml records {e['entries']} entries, counted {row['entries']}", file=sys.stderr)
            rows.append(row)
            for line in row.get("error", []):
                print(f"{e['name']}: {line}", file=sys.stderr)
    print(table(rows))
    print()
    print(rates(rows))


if __name__ == "__main__":
    main()
