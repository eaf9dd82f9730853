"""Wall time of each command of a port, per format: `survey init --from` on the example lists of
tests/unit/init/test_from_formats.py (no hand-written line), then validate, build, build --check,
export csv, import --overwrite. Each command runs once, in a subprocess, as a user would run it.

    python3 benchmarks/bench_ports.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the tests' helpers package

from helpers.from_formats_cases import PORTS, PORTS_DIR  # noqa: E402 (after the path is set)


def survey(cwd: Path, *args: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    t = time.perf_counter()
    code = "import sys; from survey_tools.cli import main; sys.argv[0] = 'survey'; main()"
    res = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                         capture_output=True, text=True)
    took = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"survey {' '.join(args)} failed:\n{res.stdout}{res.stderr}")
    return took


def main() -> None:
    steps = ["init", "validate", "build", "build --check", "export csv", "import --overwrite"]
    print("| format | hand-written lines | " + " | ".join(steps) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in steps) + " |")
    for fmt, (fixture, name, args) in sorted(PORTS.items()):
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            root = base / "list"
            if fmt == "markdown":
                root.mkdir()
                source = root / name
            else:
                source = base / name
            shutil.copy(PORTS_DIR / fixture, source)
            times = [survey(base, "init", str(root), "--from", str(source), *args)]
            times.append(survey(root, "validate"))
            times.append(survey(root, "build"))
            times.append(survey(root, "build", "--check"))
            times.append(survey(root, "export", "csv", str(base / "out")))
            (exported,) = sorted((base / "out").glob("*.csv"))
            times.append(survey(root, "import", "csv", str(exported), "--overwrite"))
        print(f"| {fmt} | 0 | " + " | ".join(f"{t:.2f} s" for t in times) + " |")


if __name__ == "__main__":
    main()
