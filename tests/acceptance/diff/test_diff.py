"""``survey diff`` on throw-away git repositories holding a copy of the real survey."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from helpers.support import run
from helpers.survey_copy import copy_edition

from survey_tools.errors import SurveyError
from survey_tools.review.diff import _extract, _md, _table

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "tests" / "data" / "records" / "valid" / "demo-paper.yaml"
C3_TITLE = "Contextual Counterfactual Credit Assignment for Multi-Agent Reinforcement Learning in LLM Collaboration"


def git(root: Path, *args: str) -> str:
    res = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main", *args],
        cwd=root, check=True, capture_output=True, text=True)
    return res.stdout.strip()


def survey_repo(root: Path, branch: str = "main") -> Path:
    copy_edition(root)
    git(root, "init", "-q", "-b", branch)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return survey_repo(tmp_path_factory.mktemp("diff") / "survey")


def section(out: str, heading: str) -> str:
    """The lines of one ``### heading`` section."""
    m = re.search(rf"^### {re.escape(heading)}.*?(?=^### |\Z)", out, re.M | re.S)
    assert m, f"no section {heading!r} in:\n{out}"
    return m.group(0)


def test_no_change(repo: Path) -> None:
    code, out, _ = run(repo, "diff")
    assert code == 0
    assert out.startswith(f"## Survey changes against `{git(repo, 'rev-parse', 'HEAD')[:12]}` (merge base with main)\n")
    assert out.endswith("\n\nNo paper, statistic, gap-map cell or claim changed.\n")


@pytest.fixture(scope="module")
def changed(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    work = tmp_path_factory.mktemp("work") / "survey"
    shutil.copytree(repo, work)
    c3 = work / "corpus/c3.yaml"
    text = c3.read_text().replace("credit_granularity: message", "credit_granularity: agent")
    c3.write_text(re.sub(r"(?m)^summary: ", "summary: Reworded. ", text, count=1))
    # a paper no claim names (data/claims.yaml lists MARFT in the README map-table claims, and a
    # claim naming a removed record stops the claim comparison)
    (work / "corpus/agent-qmix2026.yaml").unlink()
    shutil.copy(DEMO, work / "corpus" / "demo-paper.yaml")
    code, out, err = run(work, "diff", "--base", "HEAD")
    assert code == 0, err
    return out


def test_an_added_paper_shows_what_a_reviewer_checks(changed: str) -> None:
    added = section(changed, "Added to Retained papers (1)")
    assert "#### A Demonstration Paper on Orchestration (`demo-paper`)\n\n| field | value |\n" in added
    for row in ("| Link | <https://arxiv.org/abs/2501.00001> |",
                "| Identifier | arxiv: 2501.00001; doi: 10.1000/demo.1; openreview: AbCdEf123 |",
                "| Edition | living (added 2026-05-10) |",
                "| Summary | Trains an orchestrator with RL to decide which worker acts next. |",
                "| File | `corpus/demo-paper.yaml` |",
                "| Category | RL and post-training methods |",
                "| Credit unit | Agent |",
                "| Orchestration sub-decisions | O2 delegate: Learned; O5 stop: Designed |"):
        assert row + "\n" in added, row


def test_removed_and_edited_papers_show_old_and_new_text(changed: str) -> None:
    assert "| Agent Q-Mix: Selecting the Right Action for LLM Multi-Agent Systems through Reinforcement Learning (`agent-qmix2026`) | `corpus/agent-qmix2026.yaml` |\n" in section(
        changed, "Removed from Retained papers (1)")
    edited = section(changed, "Edited (1 papers, 2 fields)").splitlines()
    assert edited[2] == "| paper | field | before | after |"
    assert edited[4] == f"| {C3_TITLE} (`c3`) | Credit unit | Message | Agent |"
    paper, field, before, after = edited[5].strip("| ").split(" | ")
    assert (paper, field) == (f"{C3_TITLE} (`c3`)", "Summary")
    assert after == "Reworded. " + before and before.startswith("Gives each message")


def test_statistics_in_one_table_by_label_in_order(changed: str) -> None:
    stats = section(changed, "Statistics")
    assert "credit_granularity" not in stats and "/" not in stats  # labels, not internal ids
    assert stats.count("| table | cell | before | after |") == 1  # one table
    assert "| Credit unit | Message | 2 | 1 |\n| Credit unit | Agent | 23 | 24 |\n" in stats
    assert "| Reward type × Credit unit | Shared team outcome × Message | 1 | 0 |\n" in stats
    tables = [line.split(" | ")[0].lstrip("| ") for line in stats.splitlines()[4:] if line.startswith("| ")]
    assert tables.index("Credit unit") < tables.index("Orchestration sub-decisions") < tables.index("Reward type × Credit unit")
    # only cells that moved: every row's before and after differ
    for before, after in re.findall(r"^\| [^|]+ \| [^|]+ \| (\d+) \| (\d+) \|$", stats, re.M):
        assert before != after
    # agent-qmix2026 (removed) and demo-paper (added) are both RL methods: the headline does not move
    assert "Headline counts" not in stats


def test_gap_cells_and_claims_in_one_table_each(changed: str) -> None:
    gaps = section(changed, "Gap maps")
    assert gaps.count("| table | cell | before | after |") == 1
    assert "| Credit unit × Reward family (all) | Message × R1 Shared team outcome | 1 | 0 |" in gaps
    claims = section(changed, "Claims whose status changed")
    assert claims.count("| claim | statement | before | after |") == 1
    row = next(line for line in claims.splitlines() if line.startswith("| `message-credit` |"))
    before, after = row.split(" | ")[-2:]
    assert before != after and "(2)" in before and after.rstrip(" |").endswith("(1)")


def test_diff_without_tarfiles_data_filter(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Python 3.11.0-3.11.3 (Debian 12's 3.11.2) has no extractall(filter=): the same checks run here
    monkeypatch.delattr(tarfile, "data_filter", raising=False)  # absent on 3.11.0-3.11.3 already
    code, out, err = run(repo, "diff")
    assert code == 0, err
    assert out.endswith("\n\nNo paper, statistic, gap-map cell or claim changed.\n")


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_a_link_in_the_archive_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: bytes) -> None:
    monkeypatch.delattr(tarfile, "data_filter", raising=False)  # absent on 3.11.0-3.11.3 already
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("corpus/evil.yaml")
        info.type, info.linkname = kind, "/etc/passwd"
        tar.addfile(info)
    buf.seek(0)
    with tarfile.open(fileobj=buf) as tar, pytest.raises(SurveyError, match="unexpected entry 'corpus/evil.yaml'"):
        _extract(tar, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_default_base_is_the_merge_base_not_the_tip(tmp_path: Path) -> None:
    root = survey_repo(tmp_path / "s")
    git(root, "checkout", "-q", "-b", "feature")
    shutil.copy(DEMO, root / "corpus" / "demo-paper.yaml")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "add demo")
    fork = git(root, "rev-parse", "main")
    git(root, "checkout", "-q", "main")
    (root / "corpus" / "agent-qmix2026.yaml").unlink()  # main moves on after the branch left it
    git(root, "commit", "-q", "-am", "drop agent-qmix2026")
    git(root, "checkout", "-q", "feature")
    code, out, err = run(root, "diff")
    assert code == 0, err
    assert out.startswith(f"## Survey changes against `{fork[:12]}` (merge base with main)\n")
    assert "### Added to Retained papers (1)" in out and "Removed from" not in out


def test_upstream_default_branch_from_origin_head(tmp_path: Path) -> None:
    upstream = survey_repo(tmp_path / "upstream", branch="trunk")  # neither main nor master
    git(tmp_path, "clone", "-q", str(upstream), "clone")
    clone = tmp_path / "clone"
    git(clone, "checkout", "-q", "-b", "add-paper")
    shutil.copy(DEMO, clone / "corpus" / "demo-paper.yaml")
    git(clone, "add", ".")
    git(clone, "commit", "-q", "-m", "add demo")
    code, out, err = run(clone, "diff")
    assert code == 0, err
    assert "(merge base with origin/trunk)" in out.splitlines()[0]
    assert "A Demonstration Paper on Orchestration (`demo-paper`)" in out


def test_first_parent_when_there_is_no_default_branch(tmp_path: Path) -> None:
    root = survey_repo(tmp_path / "s", branch="work")
    (root / "corpus" / "agent-qmix2026.yaml").unlink()
    git(root, "commit", "-q", "-am", "drop agent-qmix2026")
    code, out, err = run(root, "diff")
    assert code == 0, err
    assert "(first parent of HEAD (no origin/HEAD, main or master branch))" in out.splitlines()[0]
    assert "Agent Q-Mix: Selecting the Right Action for LLM Multi-Agent Systems through Reinforcement Learning (`agent-qmix2026`)" in section(out, "Removed from Retained papers (1)")


def test_no_base_at_all_says_so_clearly(tmp_path: Path) -> None:
    root = survey_repo(tmp_path / "s", branch="work")  # one commit, no main, no parent
    code, out, err = run(root, "diff")
    assert code == 2 and out == ""
    assert err == ("error: no base to compare with: no origin/HEAD, main or master branch shares "
                   "history with HEAD, and HEAD has no parent; name one with --base REV\n")


def test_outside_a_git_repository(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    for name in ("taxonomy", "corpus", "exclusions"):
        shutil.copytree(REPO / name, root / name)
    code, _, err = run(root, "diff")
    assert code == 2 and "fatal" not in err
    assert err == f"error: {root} is not in a git repository; survey diff compares the working tree with a git revision\n"


def test_bad_revision(repo: Path) -> None:
    code, _, err = run(repo, "diff", "--base", "no-such-rev")
    assert code == 2
    assert err == "error: no-such-rev is not a revision of this repository\n"


def test_long_tables_end_with_a_more_row() -> None:
    out: list[str] = []
    _table(out, ["paper", "file"], [("a", "`a.yaml`"), (_md("b|c"), "`b.yaml`"), ("d", "`d.yaml`")], 2)
    assert out == ["| paper | file |\n| --- | --- |\n| a | `a.yaml` |\n| b\\|c | `b.yaml` |\n| … 1 more |  |", ""]
    # text is cut before it is escaped, so an escape is never cut in half
    assert _md("x" * 119 + "|") == "x" * 119 + "\\|"
    assert _md("x" * 200).endswith("x…") and len(_md("x" * 200)) == 120


def test_record_text_is_inert_in_the_pull_request_comment() -> None:
    # A title or summary reaches the comment the report workflow posts: it must not ping anyone,
    # show an image or make a link there.
    from markdown_it import MarkdownIt

    hostile = "Agents @octocat ![t](https://evil.example/p.png) [Click](https://evil.example/x) www.evil.example"
    cell = _md(hostile, 1000)
    html = MarkdownIt("commonmark").render(cell)
    assert "<img" not in html and "<a " not in html
    # GitHub also links mentions and bare addresses: a zero-width space breaks each of them.
    assert "@octocat" not in cell and "https://evil" not in cell and "www.evil" not in cell
