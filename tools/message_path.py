"""How many of the toolkit's files a reader opens following one bad value to its message.

Runs ``survey validate`` in this process on a copy of the frozen survey
(tests/fixtures/survey-snapshot) holding one record with one bad value, and watches every call
(``sys.setprofile``), as a reader stepping into every call would: the path is the call stack
down to the first call handed jsonschema's error about the value (the command, the loader, the
record's checks), then every file a call enters from there until the ``Problem`` naming the
value is made. Consecutive calls in one file count once; a *reversal* is entering again a file
the path had left (``checks explain checks explain`` has two).

    PYTHONPATH=CHECKOUT python3 tools/message_path.py [--field category --value benchmrk]

Prints the path, the number of distinct files and the number of reversals. Nothing is written
but a temporary folder.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SNAPSHOT = REPO / "tests" / "fixtures" / "survey-snapshot"
RECORD = REPO / "tests" / "data" / "records" / "valid" / "minimal-na.yaml"


def _package_file(frame: FrameType, package: Path) -> str | None:
    name = frame.f_code.co_filename
    if not name.endswith(".py"):
        return None  # generated code (<string>, attrs' methods)
    try:
        Path(name).resolve().relative_to(package)
    except ValueError:
        return None
    return Path(name).resolve().relative_to(package.parent).as_posix()


class Watcher:
    """The toolkit's call stack, and the files a reader steps through explaining the error."""

    def __init__(self, package: Path, value: str) -> None:
        self.package = package
        self.value = value
        self.stack: list[tuple[int, str]] = []  # (frame id, file) of the toolkit's frames
        self.steps: list[str] | None = None  # files entered since a call was handed the error
        self.path: list[str] | None = None
        self.message = ""

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.path is not None or event not in ("call", "return"):
            return
        if event == "call" and frame.f_code.co_name == "__init__":
            message = frame.f_locals.get("message")
            if type(frame.f_locals.get("self")).__name__ == "Problem" and isinstance(message, str):
                if self.value in message and self.steps is not None:
                    self.message = message
                    self.path = self.steps
                return
        where = _package_file(frame, self.package)
        if where is None:
            return
        if event == "return":
            if self.stack and self.stack[-1][0] == id(frame):
                self.stack.pop()
            return
        self.stack.append((id(frame), where))
        if self.steps is None and _holds_the_error(frame, self.value):
            # The explanation starts here: the path down to it, then every file entered.
            self.steps = [f for _, f in self.stack]
        elif self.steps is not None:
            self.steps.append(where)


def _holds_the_error(frame: FrameType, value: str) -> bool:
    """A call handed jsonschema's error about ``value`` (the explanation's first step)."""
    for v in frame.f_locals.values():
        if type(v).__name__ == "ValidationError" and getattr(v, "instance", None) == value:
            return True
    return False


def collapsed(path: list[str]) -> list[str]:
    return [f for i, f in enumerate(path) if i == 0 or path[i - 1] != f]


def reversals(path: list[str]) -> int:
    """How often the path enters a file it had left: ``a b a b`` has two."""
    seen: set[str] = set()
    count = 0
    for f in collapsed(path):
        count += f in seen
        seen.add(f)
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--field", default="category")
    ap.add_argument("--value", default="benchmrk")
    args = ap.parse_args(argv)
    import survey_tools
    from survey_tools.cli import cli

    package = Path(survey_tools.__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "survey"
        shutil.copytree(SNAPSHOT, root, ignore=shutil.ignore_patterns("corpus", "exclusions"))
        (root / "corpus").mkdir()
        (root / "exclusions").mkdir()
        text = RECORD.read_text(encoding="utf-8")
        lines = [
            f"{args.field}: {args.value}" if ln.startswith(f"{args.field}:") else ln
            for ln in text.splitlines()
        ]
        (root / "corpus" / RECORD.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        watcher = Watcher(package, args.value)
        sys.setprofile(watcher)
        try:
            cli(["--root", str(root), "validate"], standalone_mode=True)
        except SystemExit:
            pass  # validate exits 1 on a problem
        finally:
            sys.setprofile(None)
    if watcher.path is None:
        print(f"no problem named {args.value!r}", file=sys.stderr)
        return 1
    print(f"message: {watcher.message}")
    for i, f in enumerate(collapsed(watcher.path), 1):
        print(f"  {i:2d}. {f}")
    print(f"files: {len(set(watcher.path))}, reversals: {reversals(watcher.path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
