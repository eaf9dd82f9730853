"""``survey exclude``: new exclusions, moving a retained record to the log and back."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from helpers.support import run, snapshot

TAGS = ["--stage", "full_text_screen", "--reason", "single_agent", "--source", "arXiv",
        "--query-family", "reinforcement learning", "--date", "2026-05-01"]

HEAT_BATH = """\
record_id: E-arxiv-1605-08386
title: Heat-bath random walks with Markov bases
identifier: arXiv:1605.08386
identifiers:
  arxiv: '1605.08386'
url: https://arxiv.org/abs/1605.08386
date_screened: '2026-05-01'
note: A walk on lattice points; nothing about agents.
edition: living
added: '2026-05-01'
stage: full_text_screen
reason: single_agent
source: arXiv
query_family: reinforcement learning
"""


def test_new_arxiv_exclusion_looks_up_the_title(arxiv_server, survey: Path) -> None:
    code, _, err = run(survey, "exclude", "arXiv:1605.08386v1", *TAGS,
                       "--note", "A walk on lattice points; nothing about agents.")
    assert (code, err) == (0, "wrote exclusions/E-arxiv-1605-08386.yaml\n")
    assert (survey / "exclusions/E-arxiv-1605-08386.yaml").read_text() == HEAT_BATH
    assert run(survey, "validate")[0] == 0
    # Now excluded: adding it is refused, naming the exclusion.
    code, _, err = run(survey, "add", "1605.08386")
    assert code == 1
    assert "exclusions/E-arxiv-1605-08386.yaml (Exclusion log) has the same arXiv id 1605.08386" in err


def test_url_exclusion_needs_a_title(survey: Path) -> None:
    url = "https://example.org/blog/agents"
    code, _, err = run(survey, "exclude", url, *TAGS, "--note", "A blog post.",
                       "--source", "company blog")
    assert code == 2
    assert err == ("error: --source was given 2 times but takes one value\n")
    tags = [t for t in TAGS if t not in ("--source", "arXiv")]
    code, _, err = run(survey, "exclude", url, *tags, "--source", "company blog",
                       "--note", "A blog post.", "--title", "Agents in production")
    # named after the URL: E-url- and the first 10 hex digits of its sha256
    eid = "E-url-" + hashlib.sha256(url.encode()).hexdigest()[:10]
    assert (code, err) == (0, f"wrote exclusions/{eid}.yaml\n")
    text = (survey / f"exclusions/{eid}.yaml").read_text()
    assert "identifier: https://example.org/blog/agents\n" in text
    assert "source: company blog\n" in text


def test_move_and_restore_keep_every_byte(survey: Path) -> None:
    before = (survey / "corpus/c3.yaml").read_bytes()
    code, _, err = run(survey, "exclude", "c3", *TAGS, "--note", "Moved for a test.")
    assert (code, err) == (0, "moved corpus/c3.yaml to exclusions/E-arxiv-2603-06859.yaml\n")
    assert not (survey / "corpus/c3.yaml").exists()
    ex = (survey / "exclusions/E-arxiv-2603-06859.yaml").read_text()
    assert ex.startswith("record_id: E-arxiv-2603-06859\ntitle: Contextual Counterfactual Credit Assignment")
    assert "identifier: arXiv:2603.06859\n" in ex and "retained_record:\n  key: c3\n" in ex
    code, _, err = run(survey, "exclude", "E-arxiv-2603-06859", "--restore")
    assert (code, err) == (0, "moved exclusions/E-arxiv-2603-06859.yaml back to corpus/c3.yaml\n")
    assert (survey / "corpus/c3.yaml").read_bytes() == before
    assert not (survey / "exclusions/E-arxiv-2603-06859.yaml").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["exclude", "2603.06859", *TAGS, "--note", "x"],
         "error: 2603.06859 is already in the survey: corpus/c3.yaml (Retained papers) has the "
         "same arXiv id 2603.06859\n"),
        (["exclude", "https://arxiv.org/abs/2305.14325", *TAGS, "--note", "x"],
         "error: https://arxiv.org/abs/2305.14325 is already in the survey: exclusions/E001.yaml "
         "(Exclusion log) has the same arXiv id 2305.14325\n"),
        (["exclude", "c3", *TAGS],
         "error: --note is required: say in your own words why the work is excluded\n"),
        (["exclude", "c3", "--stage", "abstract", "--note", "x"],
         "error: --stage abstract: 'abstract' is not a screening stage; did you mean "
         "'abstract_screen'?\n"),
        (["exclude", "c3", "--note", "x", "--date", "2026-05-01"],
         "error: missing --stage, --reason, --source, --query-family: every exclusion needs its "
         "screening stage, exclusion reason, source, query family\n"),
        (["exclude", "E001", "--restore"],
         "error: exclusions/E001.yaml was never a retained record; there is nothing to restore\n"),
        (["exclude", "nonsense", *TAGS, "--note", "x"],
         "error: 'nonsense' is neither a retained record's key nor an arXiv id, DOI or URL\n"),
    ],
)
def test_refusals_write_nothing(survey: Path, args: list[str], message: str) -> None:
    before = snapshot(survey)
    code, _, err = run(survey, *args)
    assert code in (1, 2)
    assert err.startswith(message)
    assert snapshot(survey) == before


def test_ids_never_collide_between_concurrent_changes(survey: Path, tmp_path: Path) -> None:
    """Two branches of the same survey exclude different works: the ids differ (a running number
    would give both E033); the same work gets the same id whatever else the log holds."""
    one, two = tmp_path / "one", tmp_path / "two"
    shutil.copytree(survey, one)
    shutil.copytree(survey, two)
    args = [*TAGS, "--note", "Excluded in a test.", "--title", "A work"]
    assert run(one, "exclude", "10.1000/Some.DOI", *args)[2] == "wrote exclusions/E-doi-10-1000-some-doi-" \
        + hashlib.sha256(b"10.1000/some.doi").hexdigest()[:6] + ".yaml\n"
    assert run(two, "exclude", "https://openreview.net/forum?id=AbCdEf123", *args)[0] == 0
    code, _, err = run(two, "exclude", "https://openreview.net/forum?id=abcdef123", *args[:-1], "Another work")
    assert code == 0, err
    new_one = {p.name for p in (one / "exclusions").glob("E-*.yaml")}
    new_two = {p.name for p in (two / "exclusions").glob("E-*.yaml")}
    assert len(new_one) == 1 and len(new_two) == 2 and not new_one & new_two
    # case-sensitive OpenReview ids stay apart through the hash
    assert all(n.startswith("E-openreview-abcdef123-") for n in new_two)
    # E001... are untouched
    assert sorted(p.name for p in (one / "exclusions").glob("E0*.yaml")) == sorted(
        p.name for p in (survey / "exclusions").glob("E0*.yaml"))


def test_a_numbered_only_id_pattern_names_the_fix(survey: Path) -> None:
    cfg = survey / "taxonomy" / "survey.yaml"
    text = cfg.read_text(encoding="utf-8")
    cfg.write_text(text.replace('id_pattern: "^E([0-9]{3,}|-[a-z0-9][a-z0-9-]{2,79})$"',
                                'id_pattern: "^E[0-9]{3,}$"'), encoding="utf-8")
    code, _, err = run(survey, "exclude", "https://example.org/x", *TAGS, "--note", "n.", "--title", "X")
    assert code == 2
    assert err.startswith("error: cannot name the exclusion: 'E-url-")
    assert "does not match collections.excluded.id_pattern '^E[0-9]{3,}$' in taxonomy/survey.yaml" in err
    assert "'^E([0-9]{3,}|-[a-z0-9][a-z0-9-]{2,79})$'" in err
