"""The search's recall against known papers (curate/recall.py): arXiv's query semantics applied
to real abstracts (tests/fixtures/recall/known-abstracts.yaml), the protocol's own families,
and the file's problems reported all at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.support import REPO

from survey_tools.corpus.protocol import Family, load_protocol
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.curate import recall
from survey_tools.errors import InvalidInput

KNOWN = REPO / "tests" / "fixtures" / "recall" / "known-abstracts.yaml"


def _family(*groups: list[str]) -> Family:
    return Family(
        "f", "F", tuple(t for g in groups for t in g), tuple(tuple(g) for g in groups), None
    )


@pytest.mark.parametrize(
    ("phrase", "text", "found"),
    [
        ("multi-agent LLM", "Cooperative multi-agent LLM teams", True),  # hyphen: two tokens
        ("multi-agent LLM", "multi agent LLMs", True),  # a plural s
        ("multi-agent LLM", "LLM-based multi-agent systems", False),  # not consecutive
        ("RL", "trained by RLHF", False),  # whole tokens only
        ("agents", "one agent", True),  # a plural s either way
        ("language model", "Large Language Models (LLMs)", True),  # case
        ("orchestration", "orchestrated agents", False),  # no stemming beyond s
    ],
)
def test_phrases_match_as_arxiv_phrase_queries(phrase: str, text: str, found: bool) -> None:
    assert recall.has_phrase(phrase, recall.tokens(text)) is found


def test_every_group_must_match_in_title_or_abstract() -> None:
    fam = _family(["credit assignment"], ["LLM", "language model"])
    assert recall.retrieves(fam, "Credit assignment for teams", "of large language models")
    assert recall.missing_groups(fam, "Credit assignment for teams", "of agents") == (1,)
    assert recall.missing_groups(fam, "Teams", "of agents") == (0, 1)


def test_protocol_families_on_the_known_abstracts() -> None:
    protocol = load_protocol(load_taxonomy(REPO))
    papers = recall.read_known(KNOWN)
    report = recall.measure(protocol, papers)
    by_id = {p.paper.id: p for p in report.papers}
    # The widened multi-agent family finds GARL, whose abstract says "LLM-based multi-agent
    # systems" and "Multi-agent reinforcement learning", never "multi-agent LLM".
    assert "multi-agent-llm-rl" in by_id["2606.05002"].families
    # PersonalPlan names its RL only as "Reward-Adaptive GRPO".
    assert "multi-agent-llm-rl" in by_id["2606.18633"].families
    # DHCG names its training only as "action-aware preference optimization".
    assert "multi-agent-llm-rl" in by_id["2610.07835"].families
    # Round 7: GRPO names the LLM (STRIVE: multi-agent, post-trained with GRPO, no LLM word).
    assert "multi-agent-llm-rl" in by_id["2608.24237"].families
    # "context window" names the LLM of agents that delegate (Recursive Agent Optimization).
    assert by_id["2605.06639"].families == ("orchestration",)
    # COSAC's credit assignment with "multi-LLM pipelines" (LLM as a whole token).
    assert "credit-assignment" in by_id["2604.17693"].families
    # The misses the widened families leave, each with the group no term of matched: the text
    # read names no multi-agent term (drift recovery), neither an RL nor an LLM term (DATS).
    missed = {p.paper.id: p.missed["multi-agent-llm-rl"] for p in report.papers if not p.families}
    assert missed == {"2608.14109": (0,), "2609.13890": (1, 2)}
    assert report.to_dict()["retrieved_by_any"] == 18 and len(papers) == 20
    text = recall.recall_markdown(report)
    assert "| any family | 18 of 20 | 0.90 |" in text.splitlines()


def test_ranks_place_each_paper_among_the_background() -> None:
    protocol = load_protocol(load_taxonomy(REPO))
    papers = recall.read_known(KNOWN)[:2]

    def score(texts: list[str]) -> list[float]:
        # The second known paper first, then the background, then the first.
        return [0.1, 0.9] + [0.5] * (len(texts) - 2)

    report = recall.measure(protocol, papers, score, ["unrelated one", "unrelated two"])
    assert [p.rank for p in report.papers] == [4, 1] and report.pool == 4


def test_a_bad_known_file_names_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "known.yaml"
    bad.write_text(
        "papers:\n  - id: not-an-id\n    title: T\n    abstract: A\n    read: R\n"
        "  - id: '2606.18633'\n    title: ''\n    abstract: A\n",
        encoding="utf-8",
    )
    with pytest.raises(InvalidInput) as err:
        recall.read_known(bad)
    lines = [p.format() for p in err.value.problems]
    assert lines == [
        "known.yaml:2:9: papers[0].id: an arXiv id",
        "known.yaml:6:5: papers[1].read: required text",  # no key: the row
        "known.yaml:7:12: papers[1].title: required text",
    ]
