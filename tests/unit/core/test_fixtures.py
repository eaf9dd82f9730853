"""The repository is self-contained: every fixture copied from upstream is listed in
tests/fixtures/SOURCES.md with its licence and the sha256 it has, and nothing reads ../shared."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"
SNAPSHOT = FIXTURES / "survey-snapshot"
ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| `(?P<upstream>[^`]+)` \| `(?P<sha>[0-9a-f]{64})` \|$", re.M)


def _listed() -> dict[str, str]:
    text = (FIXTURES / "SOURCES.md").read_text(encoding="utf-8")
    return {m["file"]: m["sha"] for m in ROW.finditer(text)}


def folder_sha256(folder: Path) -> str:
    """A folder as one sha256: that of ``sha256sum`` run over its files in sorted order
    (``<sha256>  <path relative to the folder>`` lines), so a folder of many files (the frozen
    survey) is one row of SOURCES.md."""
    lines = "".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(folder).as_posix()}\n"
        for p in sorted(folder.rglob("*")) if p.is_file()
    )
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def test_every_fixture_is_listed_with_its_sha256() -> None:
    listed = _listed()
    folders = [name for name in listed if name.endswith("/")]
    on_disk = sorted(
        str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*")
        if p.is_file() and p.parent != FIXTURES and p.parent.name != "LICENSES"
        and not any(str(p.relative_to(FIXTURES)).startswith(f) for f in folders)
    )
    assert sorted(n for n in listed if n not in folders) == on_disk
    for name, sha in listed.items():
        found = folder_sha256(FIXTURES / name) if name in folders else hashlib.sha256((FIXTURES / name).read_bytes()).hexdigest()
        assert found == sha, name


def test_the_licences_named_are_present() -> None:
    text = (FIXTURES / "SOURCES.md").read_text(encoding="utf-8")
    for name in re.findall(r"\(LICENSES/([^)]+)\)", text):
        assert (FIXTURES / "LICENSES" / name).stat().st_size > 500, name
    assert "CC0 1.0 Universal" in (FIXTURES / "LICENSES" / "CC0-1.0.txt").read_text(encoding="utf-8")


def test_nothing_reads_the_folder_beside_the_repository() -> None:
    beside = re.compile(r"""\.\./shared|["']shared["']\s*/|parent\s*/\s*["']shared|/shared/data""")
    offenders = []
    for folder in ("survey_tools", "tests", "benchmarks", "tools", ".ci", ".github"):
        for path in (REPO / folder).rglob("*"):
            if not path.is_file() or path.suffix not in {"", ".py", ".sh", ".yml", ".yaml", ".toml", ".mjs"}:
                continue
            if path == Path(__file__).resolve():
                continue
            if SNAPSHOT in path.parents:
                continue  # the survey's own folders, copied: a log's note of where a list came from reads nothing
            text = path.read_text(encoding="utf-8", errors="replace")
            offenders += [f"{path.relative_to(REPO)}:{n}" for n, line in enumerate(text.splitlines(), 1) if beside.search(line)]
    assert offenders == []
