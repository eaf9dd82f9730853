"""Every hostile input in tests/data/hostile/ ends with its exact message, never a traceback."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest

from tests.hardening.hostile import cases, parse_case, run_case

CASES = cases()
THIS = "tests/hardening/test_hostile.py"


def test_the_slow_cases_listed_exist() -> None:
    # tests/conftest.py leaves the 100 MiB cases out of the quick loop by name: a renamed case
    # would silently join it.
    from tests.conftest import SLOW_TESTS

    listed = {e.partition("[")[2].rstrip("]") for e in SLOW_TESTS if e.startswith(f"{THIS}::test_hostile_case[")}
    assert listed and listed <= {f"{p.parent.name}/{p.stem}" for p in CASES}


def test_enough_cases() -> None:
    kinds = {p.parent.name for p in CASES}
    assert len(CASES) >= 60
    assert {"records", "exclusions", "taxonomy", "claims", "audit", "csv", "traces", "render"} <= kinds


@pytest.mark.parametrize("expected", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_hostile_case(expected: Path, tmp_path: Path) -> None:
    case = parse_case(expected)
    out = run_case(case, tmp_path)
    if out.exception is not None:
        tb = "".join(traceback.format_exception(out.exception))
        pytest.fail(f"traceback instead of a message:\n{tb}")
    assert "Traceback" not in out.output
    assert out.exit_code == case.exit, out.output
    assert out.output.strip(), "no message"
    allowed = [case.target, *case.writes]
    stray = [c for c in out.changed if not any(c.startswith(a) for a in allowed)]
    assert not stray, f"wrote outside what the command owns: {stray}"
    lines = set(out.output.splitlines())
    for scope, text, present in case.checks:
        text = text.replace("{base+1}", str(out.base_files + 1)).replace("{base}", str(out.base_files))
        if scope:
            content = (out.root / scope).read_text(encoding="utf-8")
            assert (text in content) == present, f"{scope}: {'missing' if present else 'found'} {text!r}"
        elif present:
            assert text in lines, f"missing line {text!r} in:\n{out.output}"
        else:
            assert text not in out.output, f"found {text!r} in:\n{out.output}"
    readers_parse_the_outputs(out.root)


def readers_parse_the_outputs(root: Path) -> None:
    """Whatever a case left built, every reader parses: papers.bib in pybtex (strict, BibTeX's
    own brace counting) and bibtexparser with the same number of entries, feed.xml in a strict
    XML parser (issue 46)."""
    import xml.etree.ElementTree as ET

    import bibtexparser

    bib = root / "reports" / "papers.bib"
    if bib.is_file():
        text = bib.read_text(encoding="utf-8")
        n = len(bibtexparser.parse_string(text).entries)
        try:
            import pybtex.errors
            from pybtex.database import parse_string
        except ImportError:
            pass
        else:
            pybtex.errors.set_strict_mode(True)
            try:
                assert len(parse_string(text, "bibtex").entries) == n
            finally:
                pybtex.errors.set_strict_mode(False)
    for feed in (root / "reports").rglob("feed.xml") if (root / "reports").is_dir() else ():
        ET.fromstring(feed.read_bytes())
