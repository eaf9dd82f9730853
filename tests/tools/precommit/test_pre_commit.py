"""The pre-commit hooks, run for real by ``pre-commit run`` in a scratch survey repository whose
``.pre-commit-config.yaml`` names a scratch copy of this project as its hook repository.

pre-commit clones the hook repository, makes a virtualenv and pip-installs the package into it,
exactly as it does for a user, and keeps it in its store (``PRE_COMMIT_HOME``) for the next run,
as it does for a user: the environments are built once for this module. (``try-repo`` built
them again at every call, in a throw-away store: 50 s a test.) Tests never touch the internet, so pip is told to use no index
(``PIP_NO_INDEX``): the package's dependencies are found where this test run already has them
(``PYTHONPATH`` = this interpreter's site-packages), and the build backend (setuptools) among the
wheels virtualenv seeds new environments from (``PIP_FIND_LINKS``). Two things a user's run does
that this one leaves out, both costs of the test's own set-up rather than of the hooks: pip's
check of every installed distribution's requirements after an install (``PIP_NO_WARN_CONFLICTS``;
through ``PYTHONPATH`` it would parse the requirements of the whole test environment, hundreds of
distributions, three times: 10 s of CPU), and virtualenv's periodic update of its seed wheels (a
``pip download`` that needs the internet; ``VIRTUALENV_NO_PERIODIC_UPDATE``: 7 s of CPU).
Everything else - the hook definitions, the ``language: python``
environment, the ``survey`` console script in it, pre-commit's "files were modified by this hook"
check - is what a consumer gets.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from virtualenv.seed.wheels.embed import BUNDLE_FOLDER

from survey_tools.build import build

REPO = Path(__file__).resolve().parents[3]
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "init.defaultBranch=main"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout


def _pins_as_installed(hooks_yaml: str) -> str:
    """The hooks' pins moved to the versions this test run has installed (the same, where it was
    installed with constraints.txt). Under the weekly run of the newest releases
    (newest-deps.yml), or a clone installed without the constraints, the environment is not
    the pinned one, and pip, told to use no index, can only take what is installed: without
    this every pre-commit test failed there on the first pin that had moved (certifi 2026.5.20
    against 2026.10.19.post1), hiding whether the hooks work with the newest releases."""

    def installed(m: re.Match[str]) -> str:
        return f"{m['lead']}{m['name']}=={metadata.version(m['name'])}"

    return re.sub(r"^(?P<lead>\s+- )(?P<name>[A-Za-z0-9_.-]+)==\S+$", installed, hooks_yaml, flags=re.M)


def hook_repo(dest: Path) -> Path:
    """This project as pre-commit sees a hook repository: its files, committed."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(REPO / name, dest / name)
    hooks_yaml = dest / ".pre-commit-hooks.yaml"
    hooks_yaml.write_text(_pins_as_installed(hooks_yaml.read_text(encoding="utf-8")), encoding="utf-8")
    shutil.copytree(REPO / "survey_tools", dest / "survey_tools",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "hooks")
    return dest


def consumer_repo(dest: Path, hooks: Path) -> Path:
    """A survey repository that uses the hooks: a copy of this survey, committed and built, with
    a pre-commit configuration naming the hook repository at its commit."""
    dest.mkdir()
    rev = git(hooks, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": str(hooks), "rev": rev,
                         "hooks": [{"id": "survey-validate"}, {"id": "survey-build-check"}]}]}
    (dest / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    for name in ("taxonomy", "corpus", "exclusions", "data", "reports", ".github"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, dest / name)
    for name in ("README.md", "CONTRIBUTING.md"):
        shutil.copy2(REPO / name, dest / name)
    build(dest)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "survey")
    return dest


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("pre-commit")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SURVEY_", "PIP_", "VIRTUALENV_"))}
    site = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]
    env.update(
        PRE_COMMIT_HOME=str(base / "pre-commit-home"),
        XDG_CACHE_HOME=str(base / "xdg-cache"),  # where the hooks' survey cache must go
        SURVEY_NO_CACHE="0",
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(BUNDLE_FOLDER),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        # pip reads a "no-" option's variable as the value of the option it negates: "0" turns
        # the conflict check off (with "1" it still ran).
        PIP_NO_WARN_CONFLICTS="0",
        VIRTUALENV_NO_PERIODIC_UPDATE="1",
        PYTHONPATH=os.pathsep.join(site),
    )
    hooks = hook_repo(base / "hooks")
    return hooks, consumer_repo(base / "consumer", hooks), env


def try_repo(hooks: Path, consumer: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` in ``consumer``, as its contributor's commit runs it."""
    assert (consumer / ".pre-commit-config.yaml").is_file() and hooks.is_dir()
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never"],
        cwd=consumer, env=env, capture_output=True, text=True, timeout=600,
    )


def test_the_hooks_are_declared() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [(h["id"], h["entry"], h["language"]) for h in hooks] == [
        ("survey-validate", "survey validate", "python"),
        ("survey-build-check", "survey build --check", "python"),
        ("survey-check-paths", "survey check-paths", "python"),
    ]


def test_a_good_change_passes_and_leaves_the_tree_clean(repos: tuple[Path, Path, dict[str, str]]) -> None:
    hooks, consumer, env = repos
    rec = consumer / "corpus" / "c3.yaml"
    text = rec.read_text(encoding="utf-8")
    rec.write_text(re.sub(r"(?m)^summary: ", "summary: Reworded in a test. ", text, count=1), encoding="utf-8")
    build(consumer)  # what a contributor runs before committing
    git(consumer, "add", "-A")
    before = git(consumer, "status", "--porcelain", "--ignored", "--untracked-files=all")
    res = try_repo(hooks, consumer, env)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert re.search(r"survey validate\.+Passed", out), out
    assert re.search(r"survey build --check\.+Passed", out), out
    assert git(consumer, "status", "--porcelain", "--ignored", "--untracked-files=all") == before
    # the cache went to the user's cache directory, not into the repository
    assert list((Path(env["XDG_CACHE_HOME"]) / "survey-tools").glob("records/*.msgpack"))
    git(consumer, "commit", "-qm", "reword c3")
    assert git(consumer, "status", "--porcelain", "--ignored", "--untracked-files=all") == ""
    # the two hooks share one clone and one environment (they name the same dependencies)
    store = Path(env["PRE_COMMIT_HOME"])
    assert len(list(store.glob("repo*/py_env-*"))) == 1, sorted(p.name for p in store.iterdir())


def test_a_bad_record_fails_with_its_position(repos: tuple[Path, Path, dict[str, str]]) -> None:
    hooks, consumer, env = repos
    rec = consumer / "corpus" / "c3.yaml"
    lines = rec.read_text(encoding="utf-8").splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if line.startswith("scenario: "))
    value = lines[n].split(":", 1)[1].strip()
    lines[n] = f"scenario: {value}x\n"
    rec.write_text("".join(lines), encoding="utf-8")
    git(consumer, "add", "-A")
    res = try_repo(hooks, consumer, env)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert re.search(r"survey validate\.+Failed", out), out
    col = len("scenario: ") + 1
    assert f"corpus/c3.yaml:{n + 1}:{col}: scenario: '{value}x' is not a scenario (did you mean '{value}'?)" in out
    assert "files were modified by this hook" not in out
    git(consumer, "reset", "-q", "--hard")


def test_a_survey_keeping_its_records_elsewhere_is_checked(repos: tuple[Path, Path, dict[str, str]], tmp_path: Path) -> None:
    """The hooks have no file filter: a bad record in a folder named by the survey's own
    configuration fails them (it was "(no files to check) Skipped" with a fixed pattern)."""
    hooks, consumer, env = repos
    other = tmp_path / "other"
    shutil.copytree(consumer, other)
    cfg = other / "taxonomy" / "survey.yaml"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("    folder: corpus\n", "    folder: papers\n", 1),
                   encoding="utf-8")
    git(other, "mv", "corpus", "papers")
    rec = other / "papers" / "c3.yaml"
    rec.write_text(rec.read_text(encoding="utf-8").replace("scenario: general", "scenario: generall"), encoding="utf-8")
    git(other, "add", "-A")
    res = try_repo(hooks, other, env)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert re.search(r"survey validate\.+Failed", out), out
    assert "papers/c3.yaml:" in out and "'generall' is not a scenario (did you mean 'general'?)" in out
    assert "no files to check" not in out


def test_a_record_saved_outside_the_records_folder_fails_the_paths_hook(
        repos: tuple[Path, Path, dict[str, str]], tmp_path: Path) -> None:
    """survey-check-paths compares the staged files with the branch's base: a record saved at the
    repository's root (never read by validate, which passes) fails and says where it goes."""
    hooks, consumer, env = repos
    other = tmp_path / "paths"
    shutil.copytree(consumer, other)
    rev = git(hooks, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": str(hooks), "rev": rev,
                         "hooks": [{"id": "survey-validate"}, {"id": "survey-check-paths"}]}]}
    (other / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "the paths hook")
    text = (other / "corpus" / "c3.yaml").read_text(encoding="utf-8")
    (other / "zhang2026.yaml").write_text(text.replace("key: c3", "key: zhang2026"), encoding="utf-8")
    git(other, "add", "-A")
    res = try_repo(hooks, other, env)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert re.search(r"survey validate\.+Passed", out), out  # validate never reads it
    assert re.search(r"survey check-paths\.+Failed", out), out
    assert ("zhang2026.yaml: is a record, but not where records are read, so the paper would be "
            "silently left out of the list: records live in corpus/KEY.yaml; move it to "
            "corpus/zhang2026.yaml") in out
