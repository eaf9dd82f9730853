"""The privileged comment job (pull-request-report.yml) renders, it does not relay: its own steps
run here, in order, with a stand-in ``gh`` on PATH that records every call (and answers as
GitHub would, its ``--jq`` filters evaluated by the real jq), on artifacts a hostile pull request
could upload: text with mentions, images and fake links; a report over the size cap; JSON off
the schema; the old Markdown report; a comment with the marker written by someone else."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

from survey_tools.review.diff import ClaimChange, CorpusDiff, Moved, Paper, Retag, to_markdown
from survey_tools.review.diff_report import (
    MARKER,
    MAX_BYTES,
    MAX_COMMENT,
    read_report,
    to_dict,
    to_json,
)

REPO = Path(__file__).resolve().parents[3]
WORKFLOW = REPO / ".github/workflows/pull-request-report.yml"
REV = "0123456789abcdef0123456789abcdef01234567"
JQ = shutil.which("jq")
needs_jq = pytest.mark.skipif(JQ is None, reason="jq is not installed (GitHub's runners have it)")

FAKE_GH = r"""#!/usr/bin/env python3
import json, os, shutil, subprocess, sys
args = sys.argv[1:]
body = next((a[len("body=@"):] for a in args if a.startswith("body=@")), None)
with open(os.environ["GH_LOG"], "a") as fh:
    fh.write(json.dumps({"args": args, "body": open(body).read() if body else None}) + "\n")
if args[:2] == ["run", "download"]:
    src = os.environ.get("GH_ARTIFACT")
    if not src:
        sys.exit(1)
    dest = args[args.index("--dir") + 1]
    for name in os.listdir(src):
        shutil.copy(os.path.join(src, name), dest, follow_symlinks=False)
elif args[:2] == ["api", "--paginate"]:  # the pull request's comments, through gh's --jq
    flt = args[args.index("--jq") + 1]
    out = subprocess.run(["jq", "-r", flt], input=os.environ.get("GH_COMMENTS", "[]"),
                         capture_output=True, text=True, check=True)
    sys.stdout.write(out.stdout)
elif "-X" not in args:  # the pull request's head
    sys.stdout.write(os.environ.get("GH_HEAD", "abc") + "\n")
"""


def steps() -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]["comment"]["steps"]


def job(
    tmp_path: Path,
    artifact: dict[str, bytes] | None,
    comments: list[dict] | None = None,
    head: str = "abc",
    link: Path | None = None,
) -> tuple[list[subprocess.CompletedProcess[str]], list[dict]]:
    """The job's run steps after the install (the toolkit is this checkout's), in order."""
    bin_dir, art = tmp_path / "bin", tmp_path / "artifact"
    bin_dir.mkdir(parents=True)
    (bin_dir / "gh").write_text(FAKE_GH)
    (bin_dir / "survey").write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -c "from survey_tools.cli import main; main()" "$@"\n'
    )
    for exe in ("gh", "survey"):
        (bin_dir / exe).chmod(0o755)
    if artifact is not None:
        art.mkdir()
        for name, data in artifact.items():
            (art / name).write_bytes(data)
        if link is not None:  # what a zip with a symbolic link could unpack to
            (art / "report.json").symlink_to(link)
    runner_temp, output = tmp_path / "runner", tmp_path / "github-output"
    runner_temp.mkdir()
    output.write_text("")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "RUNNER_"))}
    base.update(
        PATH=f"{bin_dir}{os.pathsep}{base['PATH']}",
        PYTHONPATH=str(REPO),
        GH_LOG=str(tmp_path / "gh.log"),
        GH_REPO="owner/survey",
        GH_TOKEN="t",
        RUN_ID="99",
        HEAD_SHA="abc",
        GH_HEAD=head,
        GH_COMMENTS=json.dumps(comments or []),
        RUNNER_TEMP=str(runner_temp),
        GITHUB_OUTPUT=str(output),
        REPORT_DIR=str(runner_temp / "report"),
        BODY=str(runner_temp / "comment.md"),
    )
    if artifact is not None:
        base["GH_ARTIFACT"] = str(art)
    results = []
    for step in steps():
        if "run" not in step or "install" in step["run"]:
            continue  # the checkout, setup-python and install of this very checkout
        if "steps.render.outputs.pr" in str(step.get("if", "")):
            outputs = dict(
                line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
            )
            if not outputs.get("pr"):
                continue
            base["PR"] = outputs["pr"]
        res = subprocess.run(
            ["bash", "-c", step["run"]], env=base, capture_output=True, text=True, timeout=120
        )
        results.append(res)
        if res.returncode != 0:
            break
    log = tmp_path / "gh.log"
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return results, calls


HOSTILE = "@octocat ![t](https://evil.example/p.png) [Approved ✅](https://evil.example/ok) <img src=x> www.evil.example"


def hostile_report() -> tuple[str, CorpusDiff]:
    paper = Paper(
        f"Papers {HOSTILE}",
        "evil-1",
        f"Title {HOSTILE}",
        "corpus/evil-1.yaml",
        ((f"Category {HOSTILE}", f"Value {HOSTILE}"),),
        "https://evil.example/approved)](javascript:alert(1)",
        f"arXiv {HOSTILE}",
        f"living {HOSTILE}",
        f"Summary {HOSTILE}\n\n## Approved by @maintainers",
    )
    return REV, CorpusDiff(
        (paper,),
        (paper,),
        (Retag(paper, (("Tag", HOSTILE, HOSTILE),), (("Note", HOSTILE, "x"),)),),
        (Moved(f"Table {HOSTILE}", f"Cell {HOSTILE}", 1, 2),),
        (Moved("Gap", HOSTILE, 0, 1),),
        (ClaimChange("c1", HOSTILE, "holds", HOSTILE),),
        (f"Note {HOSTILE}",),
        f"base {HOSTILE}",
    )


def posted(calls: list[dict]) -> list[dict]:
    return [c for c in calls if "-X" in c["args"]]


def assert_inert(body: str) -> None:
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(body)
    assert "<img" not in html
    for href, text in re.findall(r'<a href="([^"]*)">([^<]*)</a>', html):
        # an autolink shows its own address (percent-encoding aside); no text labels a link
        assert unquote(unescape(href)) == unquote(unescape(text)), (href, text)
        assert href.startswith("https://")
    assert "@octocat" not in body and "@maintainers" not in body and "www.evil" not in body
    assert "<h2>Approved" not in html


@needs_jq
def test_a_hostile_report_is_rendered_inert_and_posted_once(tmp_path: Path) -> None:
    rev, d = hostile_report()
    results, calls = job(tmp_path, {"report.json": to_json(rev, d).encode(), "pr-number": b"7\n"})
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    [post] = posted(calls)
    assert post["args"][2:5] == ["-X", "POST", "repos/owner/survey/issues/7/comments"]
    body = post["body"]
    assert body.startswith(MARKER + "\n## Survey changes against `0123456789ab`")
    assert body == f"{MARKER}\n{to_markdown(rev, d)}"  # rendered here, from the facts
    assert_inert(body)


@needs_jq
def test_only_a_comment_the_bot_wrote_is_edited(tmp_path: Path) -> None:
    rev, d = hostile_report()
    comments = [
        {"id": 1, "user": {"login": "mallory", "type": "User"}, "body": MARKER + "\nfake report"},
        {"id": 2, "user": {"login": "github-actions", "type": "User"}, "body": MARKER},
        {
            "id": 3,
            "user": {"login": "github-actions[bot]", "type": "Bot"},
            "body": "another bot comment",
        },
        {
            "id": 42,
            "user": {"login": "github-actions[bot]", "type": "Bot"},
            "body": MARKER + "\nold report",
        },
    ]
    results, calls = job(
        tmp_path, {"report.json": to_json(rev, d).encode(), "pr-number": b"7"}, comments
    )
    assert all(r.returncode == 0 for r in results)
    [patch] = posted(calls)
    assert patch["args"][2:5] == ["-X", "PATCH", "repos/owner/survey/issues/comments/42"]
    _, calls = job(
        tmp_path / "2", {"report.json": to_json(rev, d).encode(), "pr-number": b"7"}, comments[:3]
    )
    assert [c["args"][3] for c in posted(calls)] == [
        "POST"
    ]  # the marker alone makes no comment the bot's


@pytest.mark.parametrize(
    ("name", "artifact", "message"),
    [
        (
            "markdown only",
            {"report.md": b"@octocat ![x](https://evil.example/t.png)", "pr-number": b"7"},
            "no report to post",
        ),
        (
            "not JSON",
            {"report.json": b"## Approved @octocat", "pr-number": b"7"},
            "the report is not JSON",
        ),
        (
            "off schema: extra key",
            {
                "report.json": json.dumps(
                    {**to_dict(REV, CorpusDiff((), (), (), (), (), ())), "markdown": "@octocat"}
                ).encode(),
                "pr-number": b"7",
            },
            "Additional properties are not allowed",
        ),
        (
            "off schema: a key with a newline",
            {
                "report.json": json.dumps(
                    to_dict(
                        REV,
                        CorpusDiff(
                            (Paper("P", "k\n## x", "T", "corpus/k.yaml"),), (), (), (), (), ()
                        ),
                    )
                ).encode(),
                "pr-number": b"7",
            },
            "does not match",
        ),
        (
            "off schema: a revision that is not one",
            {
                "report.json": json.dumps(
                    to_dict("@octocat", CorpusDiff((), (), (), (), (), ()))
                ).encode(),
                "pr-number": b"7",
            },
            "does not match",
        ),
        (
            "oversize",
            {"report.json": b" " * (MAX_BYTES + 1), "pr-number": b"7"},
            "the limit is 8,000,000",
        ),
        ("NaN", {"report.json": b'{"format": NaN}', "pr-number": b"7"}, "not JSON"),
        ("deep nesting", {"report.json": b"[" * 100_000, "pr-number": b"7"}, "not JSON"),
        (
            "a number that is not one",
            {"report.json": b"{}", "pr-number": b"7; rm -rf /"},
            "not a number",
        ),
        ("no artifact", None, "no report to post"),
    ],
)
def test_a_bad_artifact_posts_nothing(
    tmp_path: Path, name: str, artifact: dict[str, bytes] | None, message: str
) -> None:
    results, calls = job(tmp_path, artifact)
    assert posted(calls) == [], name
    assert message in "".join(r.stdout + r.stderr for r in results), (
        name,
        [r.stderr[-500:] for r in results],
    )


@needs_jq
def test_a_report_that_is_a_link_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(to_json(*hostile_report()))
    results, calls = job(tmp_path, {"pr-number": b"7"}, link=secret)
    assert posted(calls) == []
    assert "holds a symbolic link" in "".join(r.stdout + r.stderr for r in results)


@needs_jq
def test_an_artifact_naming_another_pull_request_is_not_believed(tmp_path: Path) -> None:
    rev, d = hostile_report()
    results, calls = job(
        tmp_path, {"report.json": to_json(rev, d).encode(), "pr-number": b"8"}, head="def"
    )
    assert "not commenting" in results[-1].stdout
    assert posted(calls) == []


@needs_jq
def test_a_huge_report_is_cut_to_githubs_limit(tmp_path: Path) -> None:
    rev, d = hostile_report()
    many = tuple(
        Paper("Papers", f"k{i}", "T" * 3000, f"corpus/k{i}.yaml", summary="S" * 3000)
        for i in range(400)
    )
    d = CorpusDiff(many, (), (), (), (), ())
    _, calls = job(tmp_path, {"report.json": to_json(rev, d).encode(), "pr-number": b"7"})
    [post] = posted(calls)
    assert len(post["body"]) <= MAX_COMMENT + 200 and post["body"].startswith(MARKER)


def test_the_facts_round_trip_and_render_as_the_local_report() -> None:
    rev, d = hostile_report()
    assert read_report(to_json(rev, d).encode()) == (rev, d)


def test_the_job_runs_the_base_branchs_code_and_treats_the_artifact_as_data() -> None:
    wf = yaml.safe_load(WORKFLOW.read_text())
    text = WORKFLOW.read_text()
    [job_] = wf["jobs"].values()
    assert job_["permissions"] == {"contents": "read", "actions": "read", "pull-requests": "write"}
    checkout = job_["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert set(checkout["with"]) == {
        "persist-credentials"
    }  # no ref, no repository: the default branch
    assert "cache" not in str(job_["steps"][1].get("with", {}))
    names = [s.get("name", s.get("uses", "")) for s in job_["steps"]]
    assert names.index("Install the toolkit (the base branch's code)") < names.index(
        "Download the report (data only)"
    )
    assert (
        "head_branch" not in text
        and "head_commit" not in text
        and "pull_request_target" not in text
    )
    assert "head_repository" not in text and "report.md" not in text
    for step in job_["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")  # event text never in a script
    assert '.user.login == \\"github-actions[bot]\\"' in text
