"""``survey add`` end to end: the real arxiv client, a local server, a copy of the real survey."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.support import run, snapshot

HEAT_BATH = """\
key: heat-bath-random
title: Heat-bath random walks with Markov bases
authors:
- Stanley, Caprice
- Windisch, Tobias
authors_complete: true
year: 2016
venue: arXiv
identifiers:
  arxiv: '1605.08386'
links:
- https://arxiv.org/abs/1605.08386
summary: untagged
notes: arXiv version 1, 2016-05-26; primary category math.CO.
edition: living
added: '2026-05-20'
category: rl_method
is_rl: 'no'
reward_type: NA
credit_granularity: untagged
orchestration_form: untagged
scenario: untagged
is_core: untagged
verified: untagged
subdecisions:
  O2: learned
  O5: designed
readings: untagged
"""


TAGS = ["--category", "rl_method", "--is-rl", "no", "--reward-type", "NA",
        "--subdecision", "O5=designed", "--subdecision", "O2=learned", "--date", "2026-05-20"]


@pytest.mark.parametrize(
    "ref", ["1605.08386", "1605.08386v2", "arXiv:1605.08386",
            "https://arxiv.org/abs/1605.08386v1", "https://arxiv.org/pdf/1605.08386.pdf"]
)
def test_add_writes_record(arxiv_server, survey: Path, ref: str) -> None:
    code, out, err = run(survey, "add", ref, *TAGS)
    assert code == 0, err
    assert (survey / "corpus/heat-bath-random.yaml").read_text() == HEAT_BATH
    assert "wrote corpus/heat-bath-random.yaml" in err
    assert "abstract (for you to read; not stored): Graphs on lattice points" in err
    assert "id_list=1605.08386&" in arxiv_server.requests[0]
    # Half-done records cannot land silently: validate names each untagged field.
    code, out, _ = run(survey, "validate", str(survey / "corpus/heat-bath-random.yaml"))
    assert code == 1
    assert "corpus/heat-bath-random.yaml:20:21: credit_granularity: not yet tagged" in out


def test_dry_run_prints_and_writes_nothing(arxiv_server, survey: Path) -> None:
    before = snapshot(survey)
    code, out, err = run(survey, "add", "1605.08386", "--dry-run", "--key", "heat-bath", *TAGS)
    assert code == 0, err
    assert out == HEAT_BATH.replace("key: heat-bath-random", "key: heat-bath")
    assert snapshot(survey) == before


def test_key_collision_appends_year(arxiv_server, survey: Path) -> None:
    (survey / "corpus/heat-bath-random.yaml").write_text("placeholder: 1\n")
    code, _, err = run(survey, "add", "1605.08386", *TAGS)
    assert code == 0, err
    assert "wrote corpus/heat-bath-random2016.yaml" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "1605.08386", "--category", "rl-methods"],
         "error: --category rl-methods: 'rl-methods' is not a category; did you mean 'rl_method'?\n"),
        (["add", "1605.08386", "--subdecision", "O9=learned"],
         "error: --subdecision O9=learned: 'O9' is not a sub-decision "
         "(choose one of: O1, O2, O3, O4, O5)\n"),
        (["add", "1605.08386", "--subdecision", "O2"],
         "error: --subdecision O2: expected sub-decision=mode, e.g. O1=learned\n"),
        (["add", "1605.08386", "--topolgy", "debate"],
         "error: no such option --topolgy; did you mean --topology? (taxonomy options: "
         "--category, --core, --credit, --credit-granularity, --is-core, --is-rl, "
         "--orchestration-form, --readings, --reward-type, --scenario, --subdecision, --subdecisions, "
         "--topology, --verified)\n"),
        (["add", "1605.08386", "--key", "Bad Key"],
         "error: --key 'Bad Key' does not match ^[a-z0-9][a-z0-9-]{0,79}$\n"),
        (["add", "1605.08386", "--key", "c3"],
         "error: --key 'c3' is already used by corpus/c3.yaml\n"),
        (["add", "not-an-id"],
         "error: 'not-an-id' is not an arXiv id or URL, a DOI or an OpenReview id (expected e.g. "
         "2505.19591, arXiv:2505.19591v2, https://arxiv.org/abs/2505.19591, 10.5555/12345678 or openreview:ID)\n"),
        (["add", "2603.06859v2"],
         "error: arXiv:2603.06859 is already in the survey: corpus/c3.yaml (Retained papers) "
         "has the same arXiv id 2603.06859\n"),
        (["add", "https://arxiv.org/abs/2305.14325"],
         "error: arXiv:2305.14325 is already in the survey: exclusions/E001.yaml (Exclusion log) "
         "has the same arXiv id 2305.14325\n"),
        (["add", "0000.0000"], "error: arXiv has no paper with the id 0000.0000\n"),
        (["add"], "error: give one arXiv id, DOI or OpenReview id, --from-file LIST, or --set FIELD=VALUE\n"),
    ],
)
def test_refusals_write_nothing(arxiv_server, survey: Path, args: list[str], message: str) -> None:
    before = snapshot(survey)
    code, out, err = run(survey, *args)
    assert err == message
    assert code in (1, 2)
    assert snapshot(survey) == before


def test_title_duplicate_is_refused(arxiv_server, survey: Path) -> None:
    # The same paper under another id: caught by its title, after normalisation and fuzzily.
    other = (survey / "corpus/c3.yaml").read_text().replace(
        "Contextual Counterfactual Credit Assignment for Multi-Agent Reinforcement Learning in LLM "
        "Collaboration", "'{Heat-Bath} Random Walks with Markov Base'")
    (survey / "corpus/c3.yaml").write_text(other)
    code, _, err = run(survey, "add", "1605.08386")
    assert code == 1
    assert err == (
        "error: arXiv:1605.08386 is already in the survey: corpus/c3.yaml (Retained papers) has "
        "a title 99% similar ('{Heat-Bath} Random Walks with Markov Base')\n"
    )


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("hang", "error: arXiv did not answer within 0.3 s ({url}); try again later\n"),
        ("truncated", "error: arXiv's answer for 1605.08386 was cut off (not well-formed XML) "
                      "after 4 tries; try again later\n"),
    ],
)
def test_network_failures(arxiv_server, survey: Path, mode: str, message: str) -> None:
    arxiv_server.mode = mode
    before = snapshot(survey)
    code, _, err = run(survey, "add", "1605.08386", "--timeout", "0.3")
    assert (code, err) == (1, message.format(url=arxiv_server.url))
    assert snapshot(survey) == before


def test_503_then_success(arxiv_server, survey: Path) -> None:
    arxiv_server.mode = "flaky"
    arxiv_server.failures_left = 1
    code, _, err = run(survey, "add", "1605.08386")
    assert code == 0, err
    assert (survey / "corpus/heat-bath-random.yaml").exists()


def test_from_file(arxiv_server, survey: Path, tmp_path: Path) -> None:
    lst = tmp_path / "ids.txt"
    lst.write_text("# papers to add\n1605.08386\n0000.0000\n\narXiv:1605.08386v1\n2603.06859\n")
    code, out, err = run(survey, "add", "--from-file", str(lst), "--category", "benchmark")
    assert code == 1
    assert out == (
        "added: 1605.08386: corpus/heat-bath-random.yaml\n"
        "failed: 0000.0000: arXiv has no paper with the id 0000.0000\n"
        "skipped: arXiv:1605.08386v1: arXiv:1605.08386 is already in the survey: "
        "corpus/heat-bath-random.yaml (Retained papers) has the same arXiv id 1605.08386\n"
        "skipped: 2603.06859: arXiv:2603.06859 is already in the survey: corpus/c3.yaml "
        "(Retained papers) has the same arXiv id 2603.06859\n"
        "added 1, skipped 2, failed 1\n"
    )
    assert "category: benchmark" in (survey / "corpus/heat-bath-random.yaml").read_text()


def test_add_lists_every_field_still_to_fill(arxiv_server, survey: Path) -> None:
    code, _, err = run(survey, "add", "1605.08386", "--category", "rl_method", "--date", "2026-05-20")
    assert code == 0, err
    assert ("still to fill (left untagged; survey validate fails until set): summary, is_rl, reward_type, "
            "credit_granularity, orchestration_form, scenario, is_core, verified, subdecisions") in err
    # plain validate (no --require) refuses the untagged sub-decisions of an RL method
    code, out, _ = run(survey, "validate", str(survey / "corpus/heat-bath-random.yaml"))
    assert code == 1
    assert ("corpus/heat-bath-random.yaml:25:15: subdecisions: not yet tagged (required when category is "
            "rl_method, framework or industry; choose a mapping from O1, O2, O3, O4, O5 to learned or "
            "designed or unsettled, {} for none, or NA)") in out


def test_add_a_declared_non_duplicate(arxiv_server, survey: Path) -> None:
    # A near-identical title is refused, unless the contributor says why it is another work.
    (survey / "corpus/agent-lightning.yaml").write_text(
        (survey / "corpus/agent-lightning.yaml").read_text().replace(
            "title: 'Agent Lightning: Train ANY AI Agents with Reinforcement Learning'",
            "title: Heat-bath random walks with Markov basis"))
    code, _, err = run(survey, "add", "1605.08386", *TAGS)
    assert code != 0 and "a title 98% similar" in err, err
    code, _, err = run(survey, "add", "1605.08386", *TAGS,
                       "--not-duplicate-of", "agent-lightning=A different work: a test fixture renamed.")
    assert code == 0, err
    text = (survey / "corpus/heat-bath-random.yaml").read_text()
    assert "not_duplicate_of:\n  agent-lightning: 'A different work: a test fixture renamed.'\n" in text
    code, out, _ = run(survey, "duplicates")
    assert code == 0, out
    assert ("corpus/heat-bath-random.yaml: not a duplicate of agent-lightning (titles 98% similar), "
            "declared: A different work: a test fixture renamed.") in out


def test_a_summary_pasted_from_the_abstract_is_refused_quoting_the_run(arxiv_server, survey: Path) -> None:
    """The recorded arXiv answer's real abstract (tests/fixtures/arxiv-api): a summary sharing
    six words in a row with it is refused, quoting them; one in other words is written."""
    pasted = "We then study the mixing behaviour of heat-bath random walks on such graphs."
    code, _, err = run(survey, "add", "1605.08386", *TAGS, "--summary", pasted)
    assert code == 1
    assert (
        "corpus/heat-bath-random.yaml:13:10: summary: 'We then study the mixing behaviour of "
        "heat-bath random walks on' is the abstract's own words (11 in a row, the abstract of "
        "arXiv:1605.08386): write the summary in your own words, with no more than 5 words in a "
        "row from the abstract"
    ) in err
    assert not (survey / "corpus/heat-bath-random.yaml").exists()
    own = "Bounds the diameter of lattice-point graphs and shows when heat-bath walks on them expand."
    code, _, err = run(survey, "add", "1605.08386", *TAGS, "--summary", own)
    assert code == 0, err
