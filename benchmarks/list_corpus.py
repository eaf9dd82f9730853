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


def corpus() -> list[dict[str, Any]]:
    return list(yaml.safe_load((FIXTURES / "corpus.yaml").read_text(encoding="utf-8"))["lists"])


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
    rows = list(sheet.iter_rows(values_only=True))[1:]
    return sum(1 for r in rows if any(c is not None and str(c).strip() for c in r))


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
    validate = survey("validate", cwd=target)
    check = survey("build", "--check", cwd=target)
    row["hand_lines"] = 0 if validate.returncode == 0 and check.returncode == 0 else "fails"
    if row["hand_lines"] != 0:
        row["error"] = (validate.stdout + validate.stderr + check.stdout).strip().splitlines()[:3]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = "| list | format | entries in the source | records created | in the README | hand-written lines | problems reported |"
    out = [head, "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(
            f"| {r['list']} | {r['format']} | {r['entries']} | {r['records']} | {r['in_readme']} | "
            f"{r['hand_lines']} | {r['problems']} |"
        )
    return "\n".join(out)


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
    args = parser.parse_args()
    if args.command == "fetch":
        fetch(args.dir or Path("list-corpus"))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for e in corpus():
            if args.only and e["name"] not in args.only:
                continue
            source = (args.full / upstream_name(e)) if args.full else FIXTURES / e["file"]
            row = measure(e, source, Path(tmp))
            rows.append(row)
            for line in row.get("error", []):
                print(f"{e['name']}: {line}", file=sys.stderr)
    print(table(rows))


if __name__ == "__main__":
    main()
