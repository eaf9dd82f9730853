"""Write constraints.txt from the environment the suite has just passed in.

Every distribution the toolkit can load is pinned, not only the rendering libraries: a new
release of any of them (msgspec 0.23 turned a UnicodeDecodeError into a DecodeError) can break a
command for every user who installs that day, and the pins are what `.ci/run`, the workflows and
the README's install use. The newest releases are tried, unpinned, once a week by
`.github/workflows/newest-deps.yml` (`tools/ci.sh install-newest test`): a release that breaks the
suite is found there, and the pins move here, together, once the suite passes with it.

    python3 tools/lock_constraints.py          # rewrite constraints.txt from this environment
    python3 tools/lock_constraints.py --check  # exit 1 when constraints.txt is not what it would write

The file has two parts. **runtime**: the core's dependencies and everything they pull in (the
pre-commit hooks install exactly this list, tests/unit/github keeps them equal); **environment**:
what the extras and the test tools add. Both are read from the installed distributions' own
metadata (importlib.metadata), following each requirement whose marker holds here.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "survey-corpus-tools"
# Every extra pyproject.toml declares is installed for the suite (tools/ci.sh step_install),
# but asreview, which has a virtual environment of its own.
OWN_VENV = {"asreview"}
# Installers and the package itself are never pinned here.
LEFT_OUT = {"pip", canonicalize_name(PACKAGE)}

HEADER = """\
# Every distribution the toolkit and its test suite load, pinned to the versions the suite passed
# with: written by `python3 tools/lock_constraints.py` from that environment (do not edit by hand).
# A new release of any dependency can break a command (msgspec 0.23 raised DecodeError where
# 0.22 raised UnicodeDecodeError); .github/workflows/newest-deps.yml tries the newest releases
# every week, and the pins move together once the suite passes with them. The rendering
# libraries (matplotlib, Pillow, numpy, fonttools, jinja2, PyYAML) also shape the bytes of
# `survey build`'s outputs: after moving them, run `survey build` and commit the outputs.
# Used by tools/ci.sh (.ci/run, every workflow), the pre-commit hooks (the runtime part, as
# additional_dependencies) and the README:
#   pip install -c constraints.txt -e .
"""
RUNTIME = "# runtime: the core's dependencies and theirs\n"
ENVIRONMENT = "# environment: what the extras and the test tools add\n"


def _requires(dist: metadata.Distribution, extras: tuple[str, ...]) -> list[Requirement]:
    """The requirements of ``dist`` that apply here, with the given extras asked for."""
    found: list[Requirement] = []
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is None:
            found.append(req)
            continue
        envs = [{"extra": e} for e in extras] or [{"extra": ""}]
        if any(req.marker.evaluate(env) for env in envs):
            found.append(req)
    return found


def closure(roots: list[Requirement]) -> dict[str, str]:
    """Every installed distribution the requirements reach, by canonical name, with its version."""
    pins: dict[str, str] = {}
    todo = list(roots)
    seen: set[tuple[str, tuple[str, ...]]] = set()
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        key = (name, tuple(sorted(req.extras)))
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            sys.exit(f"error: {req.name} is required but not installed: install the suite first")
        if name not in LEFT_OUT:
            pins[name] = dist.version
        todo.extend(_requires(dist, tuple(sorted(req.extras))))
    return pins


def extras() -> list[str]:
    with (REPO / "pyproject.toml").open("rb") as f:
        declared = tomllib.load(f)["project"]["optional-dependencies"]
    return sorted(set(declared) - OWN_VENV)


def render() -> str:
    own = metadata.distribution(PACKAGE)
    runtime = closure(_requires(own, ()))
    everything = closure([Requirement(f"{PACKAGE}[{','.join(extras())}]")])
    extra = {n: v for n, v in everything.items() if n not in runtime}
    lines = [HEADER, RUNTIME]
    lines += [f"{n}=={v}\n" for n, v in sorted(runtime.items())]
    lines += [ENVIRONMENT]
    lines += [f"{n}=={v}\n" for n, v in sorted(extra.items())]
    return "".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    path = REPO / "constraints.txt"
    text = render()
    if args.check:
        if path.read_text(encoding="utf-8") != text:
            print("constraints.txt differs from this environment: run tools/lock_constraints.py")
            return 1
        return 0
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
