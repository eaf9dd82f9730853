"""The toolkit's distribution name is its own, and the workflow an adopter gets pins it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from helpers.init_support import REPO, run

from survey_tools._version import DISTRIBUTION, __version__


def test_pyproject_uses_the_distribution_name() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert meta["name"] == DISTRIBUTION == "survey-corpus-tools"
    # the import package and the command keep their names
    assert meta["scripts"] == {"survey": "survey_tools.cli:main"}


COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPOSITORY = "https://github.com/example/survey-tools"


def test_before_a_release_the_scaffold_installs_one_commit_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "s"
    res = run(
        root,
        "init",
        str(root),
        "--controlled",
        "kind=Method,Benchmark",
        "--title",
        "Pinned",
        "--toolkit-repository",
        REPOSITORY,
        "--toolkit-commit",
        COMMIT,
    )
    assert res.exit_code == 0, res.output
    workflow = (root / ".github" / "workflows" / "survey.yml").read_text(encoding="utf-8")
    requirements = (root / ".github" / "survey-toolkit.txt").read_text(encoding="utf-8")
    assert requirements.startswith(f"# No release of {DISTRIBUTION} is published yet")
    assert requirements.splitlines()[-1] == f"{DISTRIBUTION} @ git+{REPOSITORY}@{COMMIT}"
    assert workflow.count("python3 -m pip install -r .github/survey-toolkit.txt") == 2
    # never a bare name that whoever registers it on PyPI would serve
    assert f'"{DISTRIBUTION}==' not in workflow and "survey-tools" not in workflow.replace(
        DISTRIBUTION, ""
    )


def test_without_a_release_or_a_repository_the_install_step_fails_and_init_warns(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import survey_tools.adopt.pins as pins

    monkeypatch.setattr(pins, "source_checkout", lambda: (None, None))
    root = tmp_path / "s"
    res = run(root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Pinned")
    assert res.exit_code == 0, res.output
    assert (
        "has no published release and the toolkit's repository or commit is unknown" in res.stderr
    )
    workflow = (root / ".github" / "workflows" / "survey.yml").read_text(encoding="utf-8")
    assert workflow.count("exit 1") == 2 and "pip install" not in workflow


def test_a_released_version_is_pinned_by_version_and_hash(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import survey_tools.adopt.pins as pins

    files = {
        f"survey_corpus_tools-{__version__}-py3-none-any.whl": "a" * 64,
        f"survey_corpus_tools-{__version__}.tar.gz": "b" * 64,
    }
    monkeypatch.setattr(pins, "releases", lambda: {__version__: files})
    root = tmp_path / "s"
    res = run(root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Pinned")
    assert res.exit_code == 0, res.output
    requirements = (root / ".github" / "survey-toolkit.txt").read_text(encoding="utf-8")
    assert (
        f"{DISTRIBUTION}=={__version__} \\\n    --hash=sha256:{'a' * 64} \\\n    --hash=sha256:{'b' * 64}\n"
        in requirements
    )
    workflow = (root / ".github" / "workflows" / "survey.yml").read_text(encoding="utf-8")
    assert (
        workflow.count(
            "python3 -m pip install --require-hashes --no-deps -r .github/survey-toolkit.txt"
        )
        == 2
    )


def test_the_releases_file_lists_hashes_only() -> None:
    from survey_tools.adopt.pins import releases

    for version, files in releases().items():  # empty until the first release is published
        assert version and all(len(h) == 64 for h in files.values())


def test_scaffolded_actions_are_pinned_to_the_projects_own_commits(tmp_path: Path) -> None:
    import re

    from survey_tools.adopt.init import workflow

    own = set()
    for path in (REPO / ".github" / "workflows").glob("*.yml"):
        own |= set(
            re.findall(
                r"uses:\s*(\S+@[0-9a-f]{40}\s+#\s+v[\d.]+)", path.read_text(encoding="utf-8")
            )
        )
    scaffold = re.findall(r"uses:\s*(\S+@\S+\s+#\s+v[\d.]+)", workflow())
    assert scaffold and all(u in own for u in scaffold), (scaffold, own)
    assert len(re.findall(r"uses:", workflow())) == len(scaffold)  # every action pinned


def test_version_option_does_not_depend_on_the_installed_name(tmp_path: Path) -> None:
    res = run(tmp_path, "--version")
    assert res.exit_code == 0 and __version__ in res.output


def test_scaffolded_workflow_takes_record_only_pull_requests(tmp_path: Path) -> None:
    # The adopter's CONTRIBUTING says a pull request carries records and main regenerates: the
    # workflow must agree (no `build --check` on pull requests; a write token only where main's
    # outputs are committed), and actionlint must accept it.
    import shutil
    import subprocess

    import yaml

    root = tmp_path / "s"
    res = run(root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Pinned")
    assert res.exit_code == 0, res.output
    path = root / ".github" / "workflows" / "survey.yml"
    jobs = yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]
    check_runs = [s.get("run", "") for s in jobs["check"]["steps"]]
    assert "survey validate" in check_runs and "survey build" in check_runs
    assert not any("--check" in r for r in check_runs)
    assert "survey check-paths --built ." in check_runs  # a record saved outside corpus/ fails
    assert jobs["check"]["permissions"] == {"contents": "read"}
    assert jobs["regenerate"]["permissions"] == {"contents": "write"}
    assert "github.actor != 'github-actions[bot]'" in jobs["regenerate"]["if"]
    assert "head_commit" not in path.read_text(encoding="utf-8")
    actionlint = shutil.which("actionlint")
    if actionlint:
        done = subprocess.run([actionlint, str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_running_checkouts_repository_and_commit_are_the_default(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import survey_tools.adopt.pins as pins

    monkeypatch.setattr(pins, "source_checkout", lambda: (REPOSITORY, COMMIT))
    root = tmp_path / "s"
    res = run(root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Pinned")
    assert res.exit_code == 0 and "warning" not in res.stderr, res.output
    requirements = (root / ".github" / "survey-toolkit.txt").read_text(encoding="utf-8")
    assert requirements.splitlines()[-1] == f"{DISTRIBUTION} @ git+{REPOSITORY}@{COMMIT}"


def test_a_github_remote_becomes_its_https_address() -> None:
    from survey_tools.adopt.pins import github_https

    for remote in (
        "https://github.com/o/r.git",
        "git@github.com:o/r.git",
        "ssh://git@github.com/o/r",
        "https://github.com/o/r/",
    ):
        assert github_https(remote) == "https://github.com/o/r"
    for remote in (
        "https://gitlab.com/o/r",
        "https://github.com/o/r/x",
        "file:///srv/r",
        "https://github.com/o/r;x",
    ):
        assert github_https(remote) is None


def test_bad_toolkit_options_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "s"
    res = run(
        root,
        "init",
        str(root),
        "--controlled",
        "kind=Method,Benchmark",
        "--toolkit-repository",
        "https://evil.example/x",
        "--toolkit-commit",
        COMMIT,
    )
    assert res.exit_code == 2 and "https://github.com/OWNER/REPO" in res.stderr
    res = run(
        root,
        "init",
        str(root),
        "--controlled",
        "kind=Method,Benchmark",
        "--toolkit-repository",
        REPOSITORY,
        "--toolkit-commit",
        "main",
    )
    assert res.exit_code == 2 and "full commit id" in res.stderr
    assert not root.exists()  # all or nothing
