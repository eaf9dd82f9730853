"""survey check-paths in a small git repository: what a branch adds or changes against its base
(BASE_SHA, --base, else the merge base with main), each file given its place or a line saying
where it goes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.support import run
from helpers.survey_copy import SURVEY

from survey_tools import build as build_module
from survey_tools.review import placement

REPO = Path(__file__).resolve().parents[3]
RECORD = (REPO / "tests/data/records/valid/demo-paper.yaml").read_text(encoding="utf-8")
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        [*GIT, *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "survey"
    shutil.copytree(SURVEY / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    (root / "exclusions").mkdir()
    (root / "corpus" / ".gitkeep").write_text("")
    (root / "README.md").write_text("# The list\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-q", "-b", "contribution")
    return root


def add(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")


def check(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, list[str], str]:
    res = run(root, "check-paths", *args, env=env)
    return res.exit_code, res.stdout.splitlines(), res.stderr


def test_records_and_configuration_have_a_place(repo: Path) -> None:
    add(
        repo,
        {
            "corpus/demo-paper.yaml": RECORD,
            "taxonomy/readme/intro.md": "Words.\n",
            "data/claims.yaml": "[]\n",
            ".github/workflows/x.yml": "name: x\n",
        },
    )
    code, lines, err = check(repo)
    assert (code, lines) == (0, [])
    assert "4 changed files compared with" in err and "(merge base with main)" in err


def test_a_record_anywhere_else_fails_and_says_where_it_goes(repo: Path) -> None:
    add(
        repo,
        {
            "demo-paper.yaml": RECORD,
            "corpus/papers/demo-paper.yaml": RECORD,
            "corpus/demo-paper": RECORD,
            "notes.txt": "todo\n",
            "logo.png": "x",
        },
    )
    code, lines, _ = check(repo)
    assert code == 1
    assert lines == [
        "corpus/demo-paper: is not read as a record: records live in corpus/KEY.yaml (ending in "
        ".yaml); rename it to corpus/demo-paper.yaml",
        "corpus/papers/demo-paper.yaml: is in a sub-folder, where no record is read: records live "
        "in corpus/KEY.yaml; move it to corpus/demo-paper.yaml",
        "demo-paper.yaml: is a record, but not where records are read, so the paper would be "
        "silently left out of the list: records live in corpus/KEY.yaml; move it to corpus/demo-paper.yaml",
        "logo.png: is outside what the survey reads: a pull request adds records (records live in "
        "corpus/KEY.yaml); remove it from the pull request, or a maintainer documents its path under "
        "contributions.paths in taxonomy/survey.yaml",
        "notes.txt: is not where records are read, so it would be silently left out: records live in "
        "corpus/KEY.yaml; if it is a record, move it to corpus/notes.yaml, otherwise remove it from "
        "the pull request",
    ]


def test_an_exclusion_saved_at_the_root_is_sent_to_the_exclusions(repo: Path) -> None:
    exclusion = next((SURVEY / "exclusions").glob("*.yaml")).read_text(encoding="utf-8")
    add(repo, {"E-x.yaml": exclusion})
    _, lines, _ = check(repo)
    assert lines[0].endswith(
        "records live in exclusions/RECORD_ID.yaml; move it to exclusions/E-x.yaml"
    )


def test_documented_paths_pass(repo: Path) -> None:
    cfg = repo / "taxonomy" / "survey.yaml"
    add(
        repo,
        {
            "notes/ideas.md": "ideas\n",
            "taxonomy/survey.yaml": cfg.read_text(encoding="utf-8").replace(
                "contributions:\n  paths: [", "contributions:\n  paths: [notes/*, "
            ),
        },
    )
    assert check(repo)[:2] == (0, [])


def test_a_generated_file_passes_only_when_it_is_what_the_build_made(
    repo: Path, tmp_path: Path
) -> None:
    add(repo, {"README.md": "# The list\n\n- [My paper](https://example.org) - added by hand.\n"})
    code, lines, _ = check(repo)
    assert code == 1 and lines[0].startswith(
        "README.md: is made by `survey build` from the records"
    )
    built = tmp_path / "built"
    built.mkdir()
    (built / "README.md").write_text(
        "# The list\n\n- [My paper](https://example.org) - added by hand.\n"
    )
    assert check(repo, "--built", str(built))[:2] == (0, [])
    (built / "README.md").write_text("# The list, as the build makes it\n")
    assert check(repo, "--built", str(built))[0] == 1


def test_the_base_comes_from_base_sha(repo: Path) -> None:
    add(repo, {"demo-paper.yaml": RECORD})
    git(repo, "commit", "-qm", "record at the root")
    head = git(repo, "rev-parse", "HEAD")
    # against HEAD itself nothing changed; against main the record at the root is found
    assert check(repo, env={"BASE_SHA": head})[:2] == (0, [])
    assert check(repo, env={"BASE_SHA": "main"})[0] == 1
    assert (
        check(repo, env={"BASE_SHA": ""})[0] == 1
    )  # empty: the default base (merge base with main)
    code, _, err = check(repo, "--base", "no-such-rev")
    assert code == 2 and "no-such-rev is not a revision" in err


def test_the_generated_places_are_the_builds() -> None:
    assert placement.GENERATED_PREFIXES == build_module._OUTPUT_PREFIXES
    assert placement.GENERATED_FILES == build_module._OUTPUT_FILES
    assert placement.MANIFEST == build_module.MANIFEST


def test_validate_given_a_file_outside_the_records_folders_says_where_records_live(
    repo: Path,
) -> None:
    add(repo, {"demo-paper.yaml": RECORD})
    res = run(repo, "validate", str(repo / "demo-paper.yaml"))
    assert res.exit_code == 2
    assert (
        "records live in corpus/KEY.yaml or exclusions/RECORD_ID.yaml; move it there" in res.stderr
    )


def test_a_deleted_record_is_named_and_a_rekeyed_one_told_to_keep_its_key(repo: Path) -> None:
    add(repo, {"corpus/demo-paper.yaml": RECORD})
    git(repo, "commit", "-qm", "a record")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "rm", "-q", "corpus/demo-paper.yaml")
    code, lines, _ = check(repo, "--base", base)
    assert code == 1
    assert lines == [
        "corpus/demo-paper.yaml: this pull request deletes the record 'demo-paper': a record "
        "leaves the list through `survey exclude demo-paper` (the reason kept in the exclusion "
        "log), not by deleting its file; restore it, or propose the removal in an issue"
    ]
    add(repo, {"corpus/demo.yaml": RECORD.replace("key: demo-paper", "key: demo", 1)})
    code, lines, _ = check(repo, "--base", base)
    assert (code, lines) == (
        1,
        [
            "corpus/demo.yaml: is the record 'demo-paper' (corpus/demo-paper.yaml) under a new key: "
            "a record's key never changes (links, claims and the audit file name it): keep the file "
            "corpus/demo-paper.yaml and its key: demo-paper, and make the change there"
        ],
    )


def test_a_taxonomy_change_passes_with_a_note_on_what_the_maintainer_checks(repo: Path) -> None:
    path = repo / "taxonomy/fields/scenario.yaml"
    add(repo, {"taxonomy/fields/scenario.yaml": path.read_text(encoding="utf-8") + "\n"})
    code, lines, err = check(repo)
    assert (code, lines) == (0, [])
    assert "note: taxonomy/fields/scenario.yaml: changes the survey's taxonomy" in err
    assert "proposes a new value in an issue first" in err


def _add_robotics(repo: Path) -> None:
    path = repo / "taxonomy/fields/scenario.yaml"
    text = path.read_text(encoding="utf-8").replace(
        "  - {id: general,", "  - {id: robotics, label: Robotics, description: Embodied agents.}\n  - {id: general,"
    )
    assert "robotics" in text
    add(repo, {"taxonomy/fields/scenario.yaml": text})


def test_a_contributors_taxonomy_value_fails_saying_to_propose_it_in_an_issue(repo: Path) -> None:
    _add_robotics(repo)
    code, lines, _ = check(repo, env={"PR_AUTHOR_ASSOCIATION": "FIRST_TIME_CONTRIBUTOR"})
    assert (code, lines) == (1, [
        "taxonomy/fields/scenario.yaml: changes the survey's taxonomy (its fields, values or "
        "rules): it adds the value robotics to scenario; a contributor's pull request adds records "
        "only (CONTRIBUTING.md): undo the change to this file and propose it in an issue (what the "
        "value is for and two works it would tag); if a maintainer agrees, they label this pull "
        "request taxonomy-change, and then the maintainer merging it checks that every record "
        "still validates (the validate step of this job) and that the records the change concerns "
        "are tagged again"
    ])


@pytest.mark.parametrize(
    ("env", "how"),
    [
        ({"PR_AUTHOR_ASSOCIATION": "CONTRIBUTOR", "SURVEY_TAXONOMY_ALLOWED": "true"}, "allowed by the label taxonomy-change"),
        ({"PR_AUTHOR_ASSOCIATION": "MEMBER"}, "allowed (a contributor proposes a new value in an issue first"),
        ({}, "allowed (a contributor proposes a new value in an issue first"),
    ],
)
def test_an_allowed_taxonomy_change_passes_with_what_the_maintainer_checks(
    repo: Path, env: dict[str, str], how: str
) -> None:
    _add_robotics(repo)
    code, lines, err = check(repo, env=env)
    assert (code, lines) == (0, [])
    assert "note: taxonomy/fields/scenario.yaml: changes the survey's taxonomy (its fields, values or rules): it adds the value robotics to scenario; " + how in err
    assert "that every record still validates" in err


def test_a_removed_value_names_the_records_tagged_with_it(repo: Path) -> None:
    add(repo, {"corpus/demo-paper.yaml": RECORD})
    git(repo, "commit", "-qm", "a record")
    value = next(line.split(":", 1)[1].strip() for line in RECORD.splitlines() if line.startswith("scenario:"))
    path = repo / "taxonomy/fields/scenario.yaml"
    kept = [line for line in path.read_text(encoding="utf-8").splitlines() if f"{{id: {value}," not in line]
    add(repo, {"taxonomy/fields/scenario.yaml": "\n".join(kept) + "\n"})
    code, _, err = check(repo, "--base", "main")
    assert f"it removes {value} from scenario; allowed" in err
    assert "(records tagged with a removed value: demo-paper)" in err
