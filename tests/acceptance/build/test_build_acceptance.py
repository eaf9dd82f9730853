"""The tests of test_build.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from helpers.support import snapshot as _snapshot

from survey_tools.build import build, make_context
from survey_tools.cli import cli


def test_build_then_check_is_clean_and_byte_identical(built: Path) -> None:
    before = _snapshot(built)
    assert (built / "reports" / "STATS.md").is_file() and (
        built / "reports" / "figures" / "screening-flow.png"
    ).is_file()
    result = build(built)
    assert result.written == ()
    assert _snapshot(built) == before
    assert build(built, check=True).stale == ()


def test_check_lists_stale_missing_and_extra_with_a_diff(built: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(built, root)
    (root / "reports" / "stats.json").write_text("{}\n")
    (root / "reports" / "GAPS.md").unlink()
    (root / "reports" / "tables" / "field-old.csv").write_text("x\n")
    before = _snapshot(root)
    result = CliRunner().invoke(cli, ["--root", str(root), "build", "--check"])
    assert result.exit_code == 1
    assert "stale: reports/stats.json" in result.output
    assert (
        "--- reports/stats.json (on disk)" in result.output
        and "+++ reports/stats.json (generated)" in result.output
    )
    assert "missing: reports/GAPS.md" in result.output
    assert "extra: reports/tables/field-old.csv" in result.output
    assert _snapshot(root) == before  # --check writes nothing
    assert CliRunner().invoke(cli, ["--root", str(root), "build"]).exit_code == 0
    assert not (root / "reports" / "tables" / "field-old.csv").exists()
    assert CliRunner().invoke(cli, ["--root", str(root), "build", "--check"]).exit_code == 0


def test_a_changed_output_is_found_and_replaced_whatever_its_size(
    built: Path, tmp_path: Path
) -> None:
    """The build reads an output only when its size matches (a size that differs says it changed)
    and opens none that is missing: each case is still found, listed and replaced."""
    root = tmp_path / "copy"
    shutil.copytree(built, root)
    expected = _snapshot(root)
    same_size = root / "reports" / "STATS.md"
    text = same_size.read_bytes()
    flipped = text.replace(b"|", b"!", 1)
    assert flipped != text and len(flipped) == len(text)
    same_size.write_bytes(flipped)
    (root / "reports" / "stats.json").write_bytes(b"{}\n")  # another size
    (root / "reports" / "GAPS.md").unlink()
    (root / "reports" / "claims.json").write_bytes(b"")  # empty
    checked = {s.path: s.status for s in build(root, check=True).stale}
    assert checked == {
        "reports/STATS.md": "stale",
        "reports/stats.json": "stale",
        "reports/GAPS.md": "missing",
        "reports/claims.json": "stale",
    }
    result = build(root)
    assert sorted(result.written) == sorted(checked)
    assert _snapshot(root) == expected
    assert build(root, check=True).stale == ()


def test_invalid_record_fails_the_build_and_writes_nothing(built: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(built, root)
    rec = root / "corpus" / "c3.yaml"
    rec.write_text(rec.read_text().replace("reward_type: shared", "reward_type: sharde"))
    (root / "corpus" / "mae.yaml").write_text(
        (root / "corpus" / "mae.yaml")
        .read_text()
        .replace("credit_granularity: role", "credit_granularity: message")
    )
    before = _snapshot(root)
    result = CliRunner().invoke(cli, ["--root", str(root), "build"])
    assert result.exit_code == 1
    assert "corpus/c3.yaml:" in result.output and "reward_type" in result.output
    assert "Traceback" not in result.output
    assert _snapshot(root) == before


def test_stats_json_equals_library(built: Path) -> None:
    result = CliRunner().invoke(cli, ["--root", str(built), "stats", "--format", "json"])
    assert result.exit_code == 0
    ctx = make_context(built)
    assert json.loads(result.stdout) == json.loads(json.dumps(ctx.stats.to_dict()))
    assert json.loads((built / "reports" / "stats.json").read_text()) == json.loads(result.stdout)
