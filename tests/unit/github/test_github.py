"""GitHub files: the issue form lists exactly the taxonomy's values (actionlint on the workflows:
tests/tools/github/test_github_tools.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from helpers.survey_copy import SURVEY

from survey_tools.corpus.taxonomy import load_taxonomy

REPO = Path(__file__).resolve().parents[3]
def test_issue_form_lists_the_taxonomy() -> None:
    tax = load_taxonomy(SURVEY)
    form = yaml.safe_load((REPO / ".github/ISSUE_TEMPLATE/add-paper.yml").read_text())
    dropdowns = {b["id"]: b["attributes"]["options"] for b in form["body"]
                 if b["type"] == "dropdown"}
    for cf in tax.retained.controlled:
        if cf.where_words:  # placed readings are written by the maintainer, not chosen in the form
            assert not any(k.startswith(f"{cf.name}-") for k in dropdowns)
            continue
        if cf.kind == "mapping":
            for v in cf.values:
                assert dropdowns[f"{cf.name}-{v.id}"] == ["not sure", *cf.mode_ids]
        else:
            extra = [tax.na] if cf.not_applicable else []
            assert dropdowns[cf.name] == ["not sure", *cf.ids, *extra]
    # no tag is forced on the reporter; the duplicate search is
    assert not any(b.get("validations", {}).get("required") for b in form["body"] if b["type"] == "dropdown")
    searched = next(b for b in form["body"] if b["type"] == "checkboxes")
    assert searched["attributes"]["options"][0]["required"] is True
    ref = next(b for b in form["body"] if b.get("id") == "reference")
    assert "DOI" in ref["attributes"]["label"] and "OpenReview" in ref["attributes"]["label"]


def test_pre_commit_hooks() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [(h["id"], h["entry"]) for h in hooks] == [
        ("survey-validate", "survey validate"), ("survey-build-check", "survey build --check"),
        ("survey-check-paths", "survey check-paths")]
    # no file filter: once per commit, wherever the survey keeps its records
    for h in hooks:
        assert h["always_run"] is True and h["pass_filenames"] is False
        assert "files" not in h and "types" not in h


def constraints(part: str | None = None) -> list[str]:
    """The pins of constraints.txt: all of them, or those of one part (runtime, environment)."""
    text = (REPO / "constraints.txt").read_text(encoding="utf-8")
    if part is not None:
        text = text.split(f"\n# {part}:", 1)[1].split("\n# ", 1)[0].split("\n", 1)[1]
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def _runtime_closure() -> set[str]:
    """Every distribution the installed core reaches through its requirements (markers that
    hold here), read from the distributions' own metadata: what must be pinned."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found: set[str] = set()
    todo = list(metadata.requires("survey-corpus-tools") or [])
    while todo:
        req = Requirement(todo.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name not in found:
            found.add(name)
            todo.extend(metadata.requires(req.name) or [])
    return found


def test_every_dependency_is_pinned_the_same_everywhere() -> None:
    pins = constraints()
    assert all(re.fullmatch(r"[a-z0-9-]+==[0-9][0-9a-z.+]*", p) for p in pins), pins
    names = {p.split("==")[0] for p in pins}
    assert len(names) == len(pins), "a distribution pinned twice"
    runtime = {p.split("==")[0] for p in constraints("runtime")}
    assert runtime >= {"matplotlib", "pillow", "numpy", "fonttools", "msgspec", "jsonschema-rs"}
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    # every hook names the runtime list: pre-commit then makes one environment for them all
    assert [h["additional_dependencies"] for h in hooks] == [constraints("runtime")] * len(hooks)
    ci = (REPO / "tools" / "ci.sh").read_text()
    assert "pip install --quiet -c constraints.txt -e '.[test]'" in ci
    # install-survey: the core (extras only when a workflow names them in SURVEY_EXTRAS), by a
    # pinned uv into the environment python3 runs in
    assert re.search(r'"\$uv" pip install --quiet --python "\$\(command -v python3\)" \\\n'
                     r' +-c constraints.txt -e "\.\$\{SURVEY_EXTRAS:\+\[\$SURVEY_EXTRAS\]\}"\n', ci)
    assert re.search(r"^UV_VERSION=\d+\.\d+\.\d+$", ci, re.M)
    for doc in ("README.md", "CONTRIBUTING.md"):
        assert "pip install -c constraints.txt -e" in (REPO / doc).read_text(encoding="utf-8")


@pytest.mark.skipif(
    os.environ.get("SURVEY_UNPINNED") == "1",
    reason="SURVEY_UNPINNED=1: the weekly run of the newest releases (newest-deps.yml), whose "
    "versions differ from constraints.txt by design; it looks for breakage, not for pins",
)
def test_the_environment_is_the_pinned_one() -> None:
    from importlib.metadata import PackageNotFoundError, version

    pins = constraints()
    runtime_pins = set(constraints("runtime"))
    # every runtime dependency, not only the rendering libraries: a new msgspec broke a command
    runtime = {p.split("==")[0] for p in runtime_pins}
    # what this test run uses is what CI pins (so the committed figures are its bytes); the
    # environment part only where installed (the README's install has no interop or scale extra)
    moved = []
    for pin in pins:
        name, want = pin.split("==")
        try:
            have = version(name)
        except PackageNotFoundError:
            assert pin not in runtime_pins, f"{name} is a runtime dependency and not installed"
            continue
        if have != want:
            moved.append(f"{name} {have} installed, constraints.txt pins {want}")
    if moved and os.environ.get("SURVEY_PINNED") != "1":
        # A user's clone installed without the constraints (newer releases): the rest of the
        # suite says whether the toolkit works with them; only CI, which installs with
        # constraints.txt and says so (tools/ci.sh test sets SURVEY_PINNED=1), must match.
        pytest.skip(f"this environment is not the pinned one ({len(moved)} differ: {moved[0]}); "
                    "pip install -c constraints.txt -e '.[test]' installs the versions CI tests")
    assert not moved, moved
    # the pinned environment's whole runtime closure is pinned (newer releases may need more:
    # under today's newest, pandas' tzdata)
    assert runtime >= _runtime_closure() - {"pip"}, _runtime_closure() - runtime


def test_ci_tells_the_suite_its_environment_is_the_pinned_one() -> None:
    ci = (REPO / "tools" / "ci.sh").read_text()
    body = ci.split("step_test() {", 1)[1].split("\n}", 1)[0]
    assert 'export SURVEY_PINNED="${SURVEY_PINNED:-1}"' in body


def test_the_newest_releases_run_is_told_it_is_unpinned() -> None:
    job = yaml.safe_load((REPO / ".github/workflows/newest-deps.yml").read_text())["jobs"]["test"]
    tests = next(s for s in job["steps"] if s.get("run") == "tools/ci.sh test")
    assert tests["env"]["SURVEY_UNPINNED"] == "1"
    install = next(s for s in job["steps"] if "install-newest" in str(s.get("run")))
    assert "-c constraints.txt" not in install["run"]


def test_the_exclusion_form_offers_the_taxonomys_reasons() -> None:
    tax = load_taxonomy(SURVEY)
    form = yaml.safe_load((REPO / ".github/ISSUE_TEMPLATE/exclude-paper.yml").read_text())
    reason = next(b for b in form["body"] if b.get("id") == "reason")
    assert reason["attributes"]["options"] == ["not sure", *tax.field("reason").ids]
    config = yaml.safe_load((REPO / ".github/ISSUE_TEMPLATE/config.yml").read_text())
    assert config["blank_issues_enabled"] is False
    assert (REPO / ".github/ISSUE_TEMPLATE/correct-entry.yml").is_file()


def test_an_answered_form_becomes_an_argument_list_never_a_shell_line() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("issue_add", REPO / "tools" / "issue_add.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    form = yaml.safe_load((REPO / ".github/ISSUE_TEMPLATE/add-paper.yml").read_text())
    labels = {b["id"]: b["attributes"]["label"] for b in form["body"] if "id" in b}
    body = "\n\n".join([
        f"### {labels['searched']}", "- [X] I searched",
        f"### {labels['reference']}", "1605.08386",
        f"### {labels['summary']}", "Walks on lattices; $(touch /tmp/pwned) `rm -rf`",
        f"### {labels['category']}", "benchmark",
        f"### {labels['is_rl']}", "not sure",
        f"### {labels['verified']}", "_No response_",
        f"### {labels['scenario']}", "math; --overwrite",  # not an option of the form: ignored
        f"### {labels['subdecisions-O2']}", "learned",
    ])
    assert mod.command(form, body) == [
        "add", "1605.08386", "--category", "benchmark", "--subdecisions", "O2=learned",
        "--set", "summary=Walks on lattices; $(touch /tmp/pwned) `rm -rf`"]
    with pytest.raises(ValueError):
        mod.command(form, body.replace("1605.08386", "--root=/etc"))


def test_the_add_paper_workflow_keeps_issue_text_out_of_scripts() -> None:
    wf = yaml.safe_load((REPO / ".github/workflows/add-paper.yml").read_text())
    job = wf["jobs"]["add"]
    assert "accepted" in job["if"] and "add-paper" in job["if"]
    assert wf["permissions"] == {}
    for step in job["steps"]:
        assert "github.event" not in step.get("run", "")
    add = next(s for s in job["steps"] if s.get("id") == "add")
    assert add["env"]["ISSUE_BODY"] == "${{ github.event.issue.body }}"
    assert "python3 tools/issue_add.py" in add["run"]
    assert [s["name"] for s in job["steps"] if "github.token" in str(s.get("env", {}))] == [
        "Open the pull request", "Tell the issue when survey add refused"]


def test_a_65000_character_heading_is_parsed_in_one_pass() -> None:
    # GitHub's body limit: a heading of 65,000 spaces took the old regular expression 26 s.
    import importlib.util
    import time

    spec = importlib.util.spec_from_file_location("issue_add", REPO / "tools" / "issue_add.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert "re.split" not in (REPO / "tools" / "issue_add.py").read_text()
    for body in ("### " + " " * 65_000 + "x", "### x" + " " * 65_000 + "\nanswer",
                 "### " + "a " * 32_500 + "\r\n" * 100, "### " + " \t" * 32_500):
        start = time.process_time()
        found = mod.sections(body)
        assert time.process_time() - start < 0.5
        assert all(label == label.strip() for label in found)
    assert mod.sections("intro\n### A\nx\n\n### B \r\ny\n### C\n") == {"A": "x", "B": "y", "C": ""}
