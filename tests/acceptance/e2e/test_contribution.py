"""A contribution end to end, as a new contributor makes it: clone the repository into an empty
folder, branch, add a paper (arXiv answered by a loopback server replaying a recorded response),
fill in the record, validate, build once, commit, then run what CI runs and `survey diff`.
Then the same for excluding a paper and restoring it. No network; the CLI runs in the clone as a
subprocess with PYTHONPATH pointing at the clone, so only committed files take part."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from helpers.arxiv_replay import ArxivServer, serve_arxiv
from helpers.readings import readings_yaml

REPO = Path(__file__).resolve().parents[3]
TITLE = "Heat-bath random walks with Markov bases"

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True).returncode != 0,
    reason="needs the repository's git history (run from a git clone)",
)


def git(cwd: Path, *args: str) -> str:
    res = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert res.returncode == 0, f"git {' '.join(args)}: {res.stderr}"
    return res.stdout


class Clone:
    def __init__(self, root: Path, server: ArxivServer) -> None:
        self.root = root
        self.env = {
            **os.environ,
            "PYTHONPATH": str(root),
            "SURVEY_ARXIV_URL": server.url,
            "SURVEY_ARXIV_DELAY": "0",
            "SURVEY_NET_ALLOW": "127.0.0.1",  # the loopback arXiv server, allowed explicitly
            "GIT_AUTHOR_NAME": "New Contributor", "GIT_AUTHOR_EMAIL": "new@example.org",
            "GIT_COMMITTER_NAME": "New Contributor", "GIT_COMMITTER_EMAIL": "new@example.org",
        }

    def survey(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        res = subprocess.run(
            [sys.executable, "-c", "from survey_tools.cli import main; main()", *args],
            cwd=self.root, env=self.env, capture_output=True, text=True, timeout=300,
        )
        if ok:
            assert res.returncode == 0, f"survey {' '.join(args)}:\n{res.stdout}\n{res.stderr}"
        return res

    def commit(self, message: str) -> None:
        git(self.root, "add", "-A")
        subprocess.run(["git", "commit", "-q", "-m", message], cwd=self.root, env=self.env, check=True)
        assert git(self.root, "status", "--porcelain") == ""

    def ci(self, base: str) -> str:
        """What CI runs on the pull request, then the reviewer's diff (returned)."""
        self.survey("validate")
        check = self.survey("build", "--check")
        assert "outputs are up to date" in check.stderr
        claims = self.survey("claims")
        assert "claims:" in claims.stderr
        return self.survey("diff", "--base", base).stdout


@pytest.fixture
def clone(tmp_path: Path) -> Iterator[Clone]:
    # The clone sits alone in an empty folder: no data folder or worktree beside it.
    dest = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(dest)], check=True, capture_output=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clone"]
    with serve_arxiv() as server:
        yield Clone(dest, server)


def _fill(path: Path) -> None:
    """What the contributor writes by hand after `survey add`: every field left untagged."""
    text = path.read_text(encoding="utf-8")
    answers = {
        "summary": "Studies how fast heat-bath random walks on lattice-point graphs mix; a stand-in paper for this test.",
        "credit_granularity": "NA", "orchestration_form": "NA", "scenario": "math",
        "is_core": "supporting", "verified": "'yes'", "subdecisions": "NA",
    }
    for name, value in answers.items():
        text, n = re.subn(rf"^{name}: untagged$", f"{name}: {value}", text, flags=re.M)
        assert n == 1, name
    # what is still untagged after those answers is `readings`: where each tag was read, which
    # a new living record must say; the contributor places each tag set
    assert [ln for ln in text.splitlines() if "untagged" in ln] == ["readings: untagged"]
    data = yaml.safe_load(text.replace("readings: untagged\n", ""))
    text = text.replace("readings: untagged\n", readings_yaml(data, path.parents[1], "Section 2"))
    path.write_text(text, encoding="utf-8")


def test_add_a_paper_by_pull_request(clone: Clone) -> None:
    base = git(clone.root, "rev-parse", "HEAD").strip()
    git(clone.root, "checkout", "-q", "-b", "add-heat-bath")
    res = clone.survey("add", "1605.08386", "--category", "benchmark", "--is-rl", "no",
                       "--reward-type", "NA", "--date", "2026-05-20")
    assert "wrote corpus/heat-bath-random.yaml" in res.stderr
    assert "still to fill" in res.stderr and "subdecisions" in res.stderr
    record = clone.root / "corpus" / "heat-bath-random.yaml"
    # validate refuses the half-done record, naming its file and line
    bad = clone.survey("validate", "corpus/heat-bath-random.yaml", ok=False)
    assert bad.returncode == 1 and "corpus/heat-bath-random.yaml:13:10: summary: not yet tagged" in bad.stdout
    _fill(record)
    clone.survey("validate", "corpus/heat-bath-random.yaml")
    clone.survey("build")  # once, as CONTRIBUTING.md says
    clone.commit("Add Heat-bath random walks with Markov bases")
    diff = clone.ci(base)
    # the reviewer's report names the new paper by key and title
    assert "`heat-bath-random`" in diff and TITLE in diff
    # the survey's claims still hold on its edition; the living list shows the addition
    claims = (clone.root / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    retained = len(list((clone.root / "corpus").glob("*.yaml")))  # the new paper included
    assert f"| retained-total | The survey retains 84 entries. | Headline Counts | 84 | `count == 84` | 84 | **{retained}** Δ | 84 | holds |" in claims
    readme = (clone.root / "README.md").read_text(encoding="utf-8")
    added = sum("\nedition: living\n" in f.read_text(encoding="utf-8") for f in (clone.root / "corpus").glob("*.yaml"))
    phrase = "1 work has" if added == 1 else f"{added} works have"
    assert f"{phrase} been added since that edition" in readme
    assert "*new since Survey v1, added 2026-05-20*" in readme


def test_exclude_a_paper_then_restore_it(clone: Clone) -> None:
    base = git(clone.root, "rev-parse", "HEAD").strip()
    git(clone.root, "checkout", "-q", "-b", "exclude-c3")
    before = (clone.root / "corpus" / "c3.yaml").read_bytes()
    res = clone.survey("exclude", "c3", "--stage", "full_text_screen", "--reason", "single_agent",
                       "--source", "arXiv", "--query-family", "credit assignment", "--date", "2026-05-21",
                       "--note", "Re-read for this test: treated here as a single-agent method.")
    # the id is derived from the work (its arXiv id), not the next free number
    new = "E-arxiv-2603-06859"
    assert f"moved corpus/c3.yaml to exclusions/{new}.yaml" in res.stdout + res.stderr
    clone.survey("build")
    clone.commit("Exclude C3")
    diff = clone.ci(base)
    # the paper leaves the retained list and enters the exclusion log, both named
    removed = diff.split("### Removed from Retained papers", 1)[1]
    assert "`c3`" in removed.split("###", 1)[0]
    assert f"`{new}`" in diff.split("### Added to Exclusion log", 1)[1]
    claims = (clone.root / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    # the survey's numbers hold on its edition (C3 still counts there as retained)
    retained = len(list((clone.root / "corpus").glob("*.yaml")))
    assert f"| retained-total | The survey retains 84 entries. | Headline Counts | 84 | `count == 84` | 84 | **{retained}** Δ | 84 | holds |" in claims

    res = clone.survey("exclude", new, "--restore")
    assert f"moved exclusions/{new}.yaml back to corpus/c3.yaml" in res.stdout + res.stderr
    assert (clone.root / "corpus" / "c3.yaml").read_bytes() == before
    clone.survey("build")
    clone.commit("Restore C3")
    diff = clone.ci(base)
    assert "No paper, statistic, gap-map cell or claim changed." in diff
    assert git(clone.root, "diff", "--stat", base, "HEAD") == ""
