"""Run the test suite with the lowest version of every runtime dependency pyproject.toml allows.

Creates a throw-away virtual environment, installs each runtime dependency at its lower bound
(``name>=X`` becomes ``name==X``, wheels preferred), installs the test tools under the same
constraints, installs this project without its dependencies and runs pytest. A lower bound that
cannot be installed or fails the suite must be raised in pyproject.toml.

    python3 tools/min_deps.py [--keep DIR] [pytest arguments...]

Needs network access to the package index; CI runs it as a separate, optional job.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_REQ = re.compile(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*(.*)$")


def lower_bounds(requirements: list[str]) -> tuple[list[str], list[str]]:
    """``name==lower`` for every requirement, and the names that have no lower bound."""
    pins: list[str] = []
    missing: list[str] = []
    for req in requirements:
        m = _REQ.match(req.split(";")[0])
        if not m:
            missing.append(req)
            continue
        name, spec = m.group(1), m.group(2)
        low = re.search(r">=\s*([^,\s]+)", spec) or re.search(r"==\s*([^,\s]+)", spec)
        if low is None:
            missing.append(name)
            continue
        pins.append(f"{name}=={low.group(1)}")
    return pins, missing


def run(cmd: list[str], **kw: object) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)  # type: ignore[call-overload]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="create the environment here and keep it")
    ap.add_argument("pytest_args", nargs="*", default=["-q", "-x", "-p", "no:cacheprovider"])
    args = ap.parse_args()
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins, missing = lower_bounds(meta["dependencies"])
    if missing:
        print(f"dependencies without a lower bound: {', '.join(missing)}", file=sys.stderr)
        return 1
    test_reqs = meta["optional-dependencies"]["test"]
    base = args.keep or Path(tempfile.mkdtemp(prefix="min-deps-"))
    venv = base / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    py = str(venv / "bin" / "python")
    constraints = base / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
    pip = [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # wheels preferred (an sdist-only transitive dependency such as sgmllib3k still builds)
    run([*pip, "--prefer-binary", *pins])
    # Test tools at their own versions, never moving a runtime dependency off its lower bound.
    run([*pip, "-c", str(constraints), *test_reqs])
    run([*pip, "--no-deps", "-e", str(REPO)])
    run([py, "-m", "pip", "freeze", "--exclude-editable"])
    print("lower bounds under test: " + ", ".join(pins), flush=True)
    res = subprocess.run([py, "-m", "pytest", *args.pytest_args], cwd=REPO)
    return res.returncode


if __name__ == "__main__":
    sys.exit(main())
