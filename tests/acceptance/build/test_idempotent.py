"""No output depends on a previous build: after any change, one build leaves `build --check`
green and a second build writes nothing."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from helpers.readings import readings_for

from survey_tools.build import build
from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[3]
TAGS = ["--stage", "full_text_screen", "--reason", "single_agent", "--source", "arXiv",
        "--query-family", "multi-agent LLM"]


def _add(root: Path) -> None:
    data = yaml.safe_load((root / "corpus" / "hera.yaml").read_text(encoding="utf-8"))
    data.update({"key": "a-later-work", "title": "A Later Study of Learned Orchestration Budgets",
                 "identifiers": {"arxiv": "2605.09999"}, "links": ["https://arxiv.org/abs/2605.09999"],
                 "credit_granularity": "message", "edition": "living", "added": "2026-05-20",
                 # its own words and its own evidence (a copied summary or hera's pages are refused)
                 "summary": "Studies how a learned orchestrator spends a fixed token budget across its workers."})
    for value in (data.get("subdecisions") or {}).values():
        if isinstance(value, dict) and "evidence" in value:
            value["evidence"] = "https://arxiv.org/abs/2605.09999"
    if isinstance(data.get("strict_credit_evidence"), dict) and "url" in data["strict_credit_evidence"]:
        data["strict_credit_evidence"]["url"] = "https://arxiv.org/abs/2605.09999"
    data["readings"] = readings_for(data, root)  # a new living record places each tag it sets
    (root / "corpus" / "a-later-work.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def _exclude(root: Path) -> None:
    res = CliRunner().invoke(cli, ["--root", str(root), "exclude", "puppeteer", *TAGS, "--date", "2026-05-21",
                                   "--note", "Re-screened: the learned part is a single-agent policy."])
    assert res.exit_code == 0, res.output


def _retag(root: Path) -> None:
    path = root / "corpus" / "hera.yaml"
    path.write_text(path.read_text().replace("credit_granularity: orchestrator", "credit_granularity: message"))


def _remove(root: Path) -> None:
    # a living record: a Survey v1 record deleted is refused (its manifest lists it)
    (root / "corpus" / "agentflow2025.yaml").unlink()


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "add": _add, "exclude": _exclude, "retag": _retag, "remove": _remove,
}


@pytest.fixture(scope="module")
def built_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("idem") / "survey"
    for name in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(REPO / name, root / name)
    build(root)
    return root


@pytest.mark.parametrize("names", [["add"], ["exclude"], ["retag"], ["remove"], ["add", "exclude", "retag", "remove"]],
                         ids=lambda n: "+".join(n))
def test_build_after_a_change_is_idempotent(built_copy: Path, tmp_path: Path, names: list[str]) -> None:
    root = tmp_path / "survey"
    shutil.copytree(built_copy, root)
    for name in names:
        MUTATIONS[name](root)
    first = build(root)
    assert first.written, "the change moved no output"
    assert "reports/claims.json" in first.written
    assert build(root, check=True).stale == ()
    assert build(root).written == ()
    # and the command a contributor runs agrees
    res = CliRunner().invoke(cli, ["--root", str(root), "build", "--check"])
    assert res.exit_code == 0, res.output
