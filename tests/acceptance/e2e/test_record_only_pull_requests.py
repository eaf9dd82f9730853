"""Two contributors, two pull requests that each commit one record and nothing else (no generated
file, as from GitHub's web editor). `tools/ci.sh pull-request` passes on each and writes nothing
into the working tree; the two merge into main in either order without a conflict; main's
regeneration step (`tools/ci.sh regenerate`, what regenerate.yml runs) then leaves
`survey build --check` green with one bot commit. Two concurrent exclusions do the same.

Runs in a clone of this repository's committed files (no network: the records are written by
hand, as the web editor's contributor writes them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers.readings import readings_yaml

REPO = Path(__file__).resolve().parents[3]
DEMO = (REPO / "tests" / "data" / "records" / "valid" / "demo-paper.yaml").read_text(encoding="utf-8")

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True).returncode != 0,
    reason="needs the repository's git history (run from a git clone)",
)


def record(key: str, title: str, arxiv: str, summary: str) -> str:
    """A complete living-list record, written by hand from the CONTRIBUTING template's fields."""
    text = DEMO.replace("key: demo-paper", f"key: {key}").replace(
        "title: A Demonstration Paper on Orchestration", f"title: {title}")
    text = text.replace("2501.00001", arxiv).replace("year: 2025", "year: 2026").replace("  doi: 10.1000/demo.1\n", "").replace(
        "  openreview: AbCdEf123\n", "").replace("- https://example.org/demo\n", "")
    text = text.replace("summary: Trains an orchestrator with RL to decide which worker acts next.",
                        f"summary: {summary}")
    if "\nreadings:" in text:
        return text
    # a new living record places each tag it sets (the taxonomy requires it)
    return text.rstrip("\n") + "\n" + readings_yaml(yaml.safe_load(text), REPO)


class Repo:
    def __init__(self, root: Path, tmp: Path) -> None:
        self.root = root
        bin_dir = tmp / "bin"
        bin_dir.mkdir(exist_ok=True)
        survey = bin_dir / "survey"
        survey.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "from survey_tools.cli import main; main()" "$@"\n')
        survey.chmod(0o755)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "BASE_SHA", "PR_"))}
        self.env.update(
            PATH=f"{bin_dir}{os.pathsep}{self.env['PATH']}", PYTHONPATH=str(root),
            SURVEY_PR_OUT=str(tmp / "pr-out"), XDG_CACHE_HOME=str(tmp / "cache"),
            GIT_AUTHOR_NAME="Contributor", GIT_AUTHOR_EMAIL="c@example.org",
            GIT_COMMITTER_NAME="Contributor", GIT_COMMITTER_EMAIL="c@example.org",
        )

    def run(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        res = subprocess.run(list(args), cwd=self.root, env=self.env, capture_output=True, text=True, timeout=900)
        if ok:
            assert res.returncode == 0, f"{' '.join(args)}:\n{res.stdout}\n{res.stderr}"
        return res

    def git(self, *args: str, ok: bool = True) -> str:
        return self.run("git", *args, ok=ok).stdout.strip()

    def branch(self, name: str, base: str, files: dict[str, str]) -> None:
        self.git("checkout", "-q", "-b", name, base)
        for rel, text in files.items():
            (self.root / rel).write_text(text, encoding="utf-8")
        self.git("add", *files)
        self.git("commit", "-q", "-m", f"Add {', '.join(files)}")
        changed = self.git("diff", "--name-only", f"{base}..{name}").splitlines()
        assert changed == sorted(files)  # the record only: no generated file

    def pull_request(self, name: str, base: str) -> str:
        self.git("checkout", "-q", name)
        # as the workflow does: the pull request's base (check-paths and the report compare with it)
        self.env["BASE_SHA"] = base
        try:
            res = self.run("bash", "tools/ci.sh", "pull-request", ok=False)
        finally:
            del self.env["BASE_SHA"]
        assert res.returncode == 0, res.stdout + res.stderr
        assert self.git("status", "--porcelain") == ""  # nothing written into the checkout
        out = Path(self.env["SURVEY_PR_OUT"]) / "report"
        # the artifact holds data only; the comment is what the base branch's code renders from it
        assert sorted(p.name for p in out.iterdir()) == ["report.json"]
        return self.run("survey", "diff", "--render-report", str(out / "report.json")).stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    tmp = tmp_path_factory.mktemp("record-only")
    root = tmp / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(root)], check=True, capture_output=True)
    r = Repo(root, tmp)
    r.git("checkout", "-q", "-B", "main")
    # main as the regeneration workflow leaves it: every output up to date
    r.run("bash", "tools/ci.sh", "regenerate")
    assert r.run("survey", "build", "--check").returncode == 0
    return r


PAPERS = {
    "one": ("corpus/relay-credit.yaml", record(
        "relay-credit", "Relay Credit for Tool-Using Agent Teams", "2606.01001",
        "Passes a learned share of the team reward along the chain of tool calls that produced it.")),
    "two": ("corpus/quorum-stop.yaml", record(
        "quorum-stop", "Learning When a Quorum of Agents Should Stop", "2606.02002",
        "Trains a stopping rule that ends a multi-agent discussion once enough members agree.")),
}


def test_two_record_only_pull_requests_merge_in_either_order(repo: Repo) -> None:
    base = repo.git("rev-parse", "main")
    for name, (rel, text) in PAPERS.items():
        repo.branch(name, base, {rel: text})
        report = repo.pull_request(name, base)
        key = Path(rel).stem
        assert f"(`{key}`)" in report and "| Edition | living (added 2026-05-10) |" in report
        assert f"| Link | <https://arxiv.org/abs/{PAPERS[name][1].split('arxiv: ')[1][1:11]}> |" in report
    for order in (("one", "two"), ("two", "one")):
        target = f"main-{'-'.join(order)}"
        repo.git("checkout", "-q", "-b", target, base)
        for name in order:
            res = repo.run("git", "merge", "--no-ff", "-q", "-m", f"Merge {name}", name, ok=False)
            assert res.returncode == 0, f"merging {name} after {order[0]}: {res.stdout}{res.stderr}"
        assert repo.git("diff", "--name-only", "--diff-filter=U") == ""
        # the merge carries both records and stale outputs; the regeneration step fixes main
        assert repo.run("survey", "build", "--check", ok=False).returncode == 1
        repo.run("bash", "tools/ci.sh", "regenerate")
        assert repo.run("survey", "build", "--check").returncode == 0
        assert repo.git("status", "--porcelain") == ""
        assert repo.git("log", "-1", "--format=%an %s") == (
            "github-actions[bot] Regenerate the outputs from the records [survey-regenerate]")
        readme = (repo.root / "README.md").read_text(encoding="utf-8")
        assert "Relay Credit for Tool-Using Agent Teams" in readme and "Learning When a Quorum" in readme
    # both orders give the same outputs
    assert repo.git("diff", "main-one-two", "main-two-one", "--stat") == ""


def test_two_concurrent_exclusions_do_not_collide(repo: Repo) -> None:
    base = repo.git("rev-parse", "main")
    made = []
    for name, ref, title in (("ex-one", "2606.03003", "Prompted Debate Among Frozen Models"),
                             ("ex-two", "2606.04004", "A Survey of Single-Agent Tool Use")):
        repo.git("checkout", "-q", "-b", name, base)
        out = repo.run("survey", "exclude", f"https://arxiv.org/abs/{ref}", "--title", title,
                       "--stage", "abstract_screen", "--reason", "no_rl_component", "--source", "arXiv",
                       "--query-family", "multi-agent LLM", "--note", "No learning component in the abstract.",
                       "--date", "2026-06-01")
        made.append(out.stderr.strip().removeprefix("wrote "))
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", f"Exclude {ref}")
    assert made == ["exclusions/E-arxiv-2606-03003.yaml", "exclusions/E-arxiv-2606-04004.yaml"]
    repo.git("checkout", "-q", "-b", "main-ex", base)
    for name in ("ex-one", "ex-two"):
        assert repo.run("git", "merge", "--no-ff", "-q", "-m", f"Merge {name}", name, ok=False).returncode == 0
    repo.run("survey", "validate")
