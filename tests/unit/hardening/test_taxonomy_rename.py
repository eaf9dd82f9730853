"""survey taxonomy rename: records move to the new value with comments and key order kept."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[3]


def _survey(tmp_path: Path) -> Path:
    root = tmp_path / "survey"
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(REPO / name, root / name)
    return root


def test_rename_keeps_comments_and_order(tmp_path: Path) -> None:
    root = _survey(tmp_path)
    field = root / "taxonomy/fields/reward_type.yaml"
    text = field.read_text(encoding="utf-8")
    field.write_text(
        text.replace("  - {id: individual,", "  - {id: team_shared, label: T, description: D}\n  - {id: individual,"),
        encoding="utf-8",
    )
    rec = root / "corpus/c3.yaml"
    rec.write_text("# a comment kept\n" + rec.read_text(encoding="utf-8").replace(
        "reward_type: shared", "reward_type: shared  # inline too"), encoding="utf-8")
    before = rec.read_text(encoding="utf-8")
    res = CliRunner().invoke(cli, ["--root", str(root), "taxonomy", "rename", "reward_type", "shared", "team_shared"])
    assert res.exit_code == 0, res.output
    assert "rewrote corpus/c3.yaml" in res.output
    after = rec.read_text(encoding="utf-8")
    # only the renamed line differs; its comment stays (ruamel keeps the comment's column)
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(changed) == 1
    assert changed[0][1].startswith("reward_type: team_shared") and "# inline too" in changed[0][1]
    assert after.startswith("# a comment kept\n")
    # removing the old value now leaves every record valid
    field.write_text(field.read_text(encoding="utf-8").replace(
        "  - {id: shared, label: Shared team outcome, description: One outcome reward given to the whole team.}\n", ""
    ).replace("members: [shared]", "members: [team_shared]"), encoding="utf-8")
    res = CliRunner().invoke(cli, ["--root", str(root), "validate"])
    assert res.exit_code == 0, res.output


def test_rename_to_unknown_value_is_refused(tmp_path: Path) -> None:
    root = _survey(tmp_path)
    res = CliRunner().invoke(cli, ["--root", str(root), "taxonomy", "rename", "reward_type", "shared", "nope"])
    assert res.exit_code == 2
    assert "'nope' is not a value of reward_type" in res.output
    assert "Traceback" not in res.output


def test_rename_conflict_writes_nothing(tmp_path: Path) -> None:
    root = _survey(tmp_path)
    before = {p.name: p.read_bytes() for p in (root / "corpus").iterdir()}
    res = CliRunner().invoke(cli, ["--root", str(root), "taxonomy", "rename", "subdecisions", "O3", "O5"])
    assert res.exit_code == 1
    assert "cannot rewrite: already has 'O5'" in res.output
    assert {p.name: p.read_bytes() for p in (root / "corpus").iterdir()} == before
