"""How an adopter's workflow (``survey init``) installs the toolkit: never by a bare name.

Once a version is published (``.github/workflows/release.yml``), its files' sha256 are listed in
``releases.json`` and the scaffold pins that version by hash: a requirements file installed with
``pip --require-hashes``, so a file that is not the one released cannot install. Until then (no
release exists yet) the scaffold says so and installs from a full commit of the toolkit's
repository, a content-addressed pin: the repository is the toolkit's ``survey.repository`` (else
its clone's GitHub ``origin``; or ``survey init --toolkit-repository``), the commit the running
checkout's (or ``--toolkit-commit``), which must be pushed there. With neither known, the install step fails with what to do: a workflow
that installs whatever a name resolves to is never written.

The actions are pinned to the same commits as the project's own workflows.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

from survey_tools._version import DISTRIBUTION, __version__
from survey_tools.errors import UsageError

REQUIREMENTS = ".github/survey-toolkit.txt"
# The commits the project's own workflows use (tests/unit/init keeps the two equal).
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1"
SETUP_PYTHON = "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97  # v7.0.0"
_REPOSITORY = re.compile(
    r"^https://github\.com/[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$"
)
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class ToolkitPin:
    how: str  # "release", "commit" or "unknown"
    requirements: str  # the text of REQUIREMENTS
    install: str  # the workflow's install command(s), one a line
    warning: str = ""  # for the person running survey init


@lru_cache(maxsize=1)
def releases() -> dict[str, dict[str, str]]:
    """Published versions -> {file name: sha256}, as releases.json lists them."""
    text = resources.files("survey_tools.adopt").joinpath("releases.json").read_text("utf-8")
    data = json.loads(text)
    for version, files in data.items():
        if not files or not all(_SHA256.match(h) for h in files.values()):
            raise ValueError(f"releases.json: {version} needs each file's sha256")
    return {str(v): dict(f) for v, f in data.items()}


def release_pin(version: str, files: dict[str, str]) -> ToolkitPin:
    hashes = "".join(f" \\\n    --hash=sha256:{files[name]}" for name in sorted(files))
    text = (
        f"# {DISTRIBUTION} {version}, pinned by the sha256 of its published files (written by\n"
        f"# survey init): pip installs it only if the file it downloads is one of these.\n"
        f"{DISTRIBUTION}=={version}{hashes}\n"
    )
    install = (
        f"python3 -m pip install --require-hashes --no-deps -r {REQUIREMENTS}\n"
        f"# its dependencies (the toolkit itself is installed above, hash-checked)\n"
        f'python3 -m pip install "{DISTRIBUTION}=={version}"'
    )
    return ToolkitPin("release", text, install)


def commit_pin(repository: str, commit: str) -> ToolkitPin:
    if not _REPOSITORY.match(repository):
        raise UsageError(
            f"--toolkit-repository {repository!r}: give the repository as https://github.com/OWNER/REPO"
        )
    if not _COMMIT.match(commit):
        raise UsageError(
            f"--toolkit-commit {commit!r}: give a full commit id (40 hexadecimal digits)"
        )
    text = (
        f"# No release of {DISTRIBUTION} is published yet, so the toolkit is installed from one\n"
        f"# commit of its repository (a full commit id names exactly one tree; it must be pushed\n"
        f"# there). Once a release exists, `survey init` pins it by version and hash instead.\n"
        f"{DISTRIBUTION} @ git+{repository}@{commit}\n"
    )
    return ToolkitPin("commit", text, f"python3 -m pip install -r {REQUIREMENTS}")


def unknown_pin() -> ToolkitPin:
    why = (
        f"{DISTRIBUTION} {__version__} has no published release and the toolkit's repository or "
        "commit is unknown"
    )
    todo = "run survey init again with --toolkit-repository URL --toolkit-commit SHA"
    text = f"# {why}: {todo}.\n"
    install = f'echo "::error::{why}; {todo}"\nexit 1'
    return ToolkitPin(
        "unknown", text, install, f"{why}: the workflow's install step fails until you {todo}"
    )


def source_checkout() -> tuple[str | None, str | None]:
    """The running toolkit's own repository and commit, when it runs from a git checkout of it
    (an editable install): survey.repository of that checkout's taxonomy, and its HEAD."""
    top = Path(__file__).resolve().parents[2]
    try:
        res = subprocess.run(
            ["git", "-C", str(top), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None, None
    commit = (
        res.stdout.strip() if res.returncode == 0 and _COMMIT.match(res.stdout.strip()) else None
    )
    url = None
    try:
        survey = yaml.safe_load((top / "taxonomy" / "survey.yaml").read_text(encoding="utf-8"))
        url = str(survey["survey"]["repository"]["url"]).rstrip("/")
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        pass
    if url is None and commit is not None:  # survey.repository unset: the clone's own origin
        res = subprocess.run(
            ["git", "-C", str(top), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        url = github_https(res.stdout.strip()) if res.returncode == 0 else None
    return url, commit


def github_https(remote: str) -> str | None:
    """A GitHub remote as https://github.com/OWNER/REPO (from an https or ssh remote), else None."""
    m = re.fullmatch(
        r"(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([^/\s]+/[^/\s]+?)(?:\.git)?/?",
        remote,
    )
    url = f"https://github.com/{m.group(1)}" if m else None
    return url if url and _REPOSITORY.match(url) else None


def toolkit_pin(
    repository: str | None = None, commit: str | None = None, version: str = __version__
) -> ToolkitPin:
    """The released version by hash, else the given (or this checkout's) commit, else a failing step."""
    files = releases().get(version)
    if files:
        return release_pin(version, files)
    if repository is None or commit is None:
        here_url, here_commit = source_checkout()
        repository = repository or here_url
        commit = commit or here_commit
    if repository and commit:
        return commit_pin(repository, commit)
    return unknown_pin()
