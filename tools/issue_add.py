"""Turn an answered "Add a paper" issue form into the `survey add` command, and run it.

The issue's text is data from a stranger: it arrives in the environment (ISSUE_BODY), never in a
shell command; it is parsed against the form's own ids and labels (.github/ISSUE_TEMPLATE/
add-paper.yml, generated from the taxonomy) and becomes a list of arguments for `survey add`
(no shell). Answers "not sure" and unanswered fields are left out: the record keeps them
`untagged` and the pull request's validation lists them for the maintainer.

    ISSUE_BODY=... python3 tools/issue_add.py [--dry-run]

Prints the record's path on the last line (for the workflow), exit 1 when `survey add` refuses.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import yaml

FORM = Path(".github/ISSUE_TEMPLATE/add-paper.yml")
NO_ANSWER = {"", "_no response_", "not sure", "none"}


def sections(body: str) -> dict[str, str]:
    """GitHub writes an answered form as `### <label>` headings, each followed by its answer.

    One pass over the lines with string methods, no regular expression over the issue's text: a
    lazy `(.+?)\\s*$` backtracked quadratically on a heading of 65,000 spaces (26 s)."""
    out: dict[str, str] = {}
    label: str | None = None
    lines: list[str] = []
    for line in body.replace("\r\n", "\n").split("\n"):
        if line.startswith("### ") and line[4:].strip():
            if label is not None:
                out[label] = "\n".join(lines).strip()
            label, lines = line[4:].strip(), []
        elif label is not None:
            lines.append(line)
    if label is not None:
        out[label] = "\n".join(lines).strip()
    return out


def command(form: dict, body: str) -> list[str]:
    """The arguments of `survey add` (without the program) for an answered form."""
    answers = sections(body)
    by_id = {b["id"]: b for b in form["body"] if "id" in b}
    ref = answers.get(by_id["reference"]["attributes"]["label"], "").strip()
    if not ref or "\n" in ref or len(ref) > 300 or ref.startswith("-"):
        raise ValueError("the form gives no usable identifier or URL")
    args = ["add", ref]
    mapping: dict[str, list[str]] = {}
    for bid, block in by_id.items():
        if block["type"] != "dropdown":
            continue
        value = answers.get(block["attributes"]["label"], "").strip()
        if value.lower() in NO_ANSWER or value not in block["attributes"]["options"]:
            continue  # unanswered, unsure, or not one of the form's own options
        field, _, key = bid.partition("-")
        if key:  # a mapping field: one dropdown per value (subdecisions-O2 -> O2=learned)
            mapping.setdefault(field, []).append(f"{key}={value}")
        else:
            args += [f"--{field.replace('_', '-')}", value]
    for field, pairs in mapping.items():
        for pair in pairs:
            args += [f"--{field.replace('_', '-')}", pair]
    summary = " ".join(answers.get(by_id["summary"]["attributes"]["label"], "").split())
    if summary and summary.lower() not in NO_ANSWER:
        args += ["--set", f"summary={summary}"]
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    form = yaml.safe_load(FORM.read_text(encoding="utf-8"))
    try:
        args = command(form, os.environ.get("ISSUE_BODY", ""))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if "--dry-run" in argv:
        print("\n".join(args))
        return 0
    from survey_tools.cli import main as survey

    sys.argv = ["survey", *args]
    try:
        survey()
    except SystemExit as done:
        return int(done.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
