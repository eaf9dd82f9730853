"""What a hand-made contribution gets wrong, each reported as one `file:line:col: field: message`
line with exit 1: a copied record that keeps the survey's closed edition, an edited fact of an
edition record, a link left from another record, a copied summary, another record's evidence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.contribution_checks_cases import REPO, run
from helpers.contribution_checks_cases import survey as survey  # a fixture, found by name
from helpers.survey_copy import SURVEY

from survey_tools.cli import cli
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.validation import edition_manifest

C3 = (SURVEY / "corpus" / "c3.yaml").read_text(encoding="utf-8")


def validate(root: Path) -> tuple[int, list[str]]:
    res = CliRunner().invoke(cli, ["--root", str(root), "validate"])
    return res.exit_code, res.stdout.splitlines()


def copied(title: str = "A Copied Record About Something Else Entirely",
           summary: str = "Teaches two planners to split a budget by trading offers in plain text.") -> str:
    """c3.yaml copied by hand for another paper: key, title, id and summary changed, the rest kept."""
    text = C3.replace("key: c3", "key: copied").replace(
        "title: Contextual Counterfactual Credit Assignment for Multi-Agent Reinforcement Learning in LLM Collaboration",
        f"title: {title}")
    text = text.replace("arxiv: '2603.06859'", "arxiv: '2605.11111'")
    text = text.replace("- https://arxiv.org/abs/2603.06859", "- https://arxiv.org/abs/2605.11111")
    text = text.replace("evidence: https://arxiv.org/abs/2603.06859", "evidence: https://arxiv.org/abs/2605.11111")
    return re.sub(r"(?m)^summary: .*$", f"summary: {summary}", text)


def test_the_survey_validates(survey: Path) -> None:
    assert validate(survey) == (0, [])


def test_the_manifest_is_what_the_edition_holds() -> None:
    corpus = load_corpus(SURVEY)
    assert corpus.taxonomy.editions is not None
    edition = corpus.taxonomy.editions.published[0]
    committed = (SURVEY / "data" / "editions" / f"{edition.id}.yaml").read_text(encoding="utf-8")
    assert committed == edition_manifest(corpus, edition)
    assert "    c3:\n      title: sha256:" in committed


def test_a_copied_record_cannot_claim_the_closed_edition(survey: Path) -> None:
    (survey / "corpus" / "copied.yaml").write_text(copied(), encoding="utf-8")
    assert validate(survey) == (1, [
        "corpus/copied.yaml:15:10: edition: '2605.02801v1' (Survey v1) is a published edition and closed: "
        "'copied' is not one of its records (data/editions/2605.02801v1.yaml); a new record belongs to "
        "the living list: write `edition: living` and `added: YYYY-MM-DD`, or let `survey add ID` write the record"])
    # as the living list's, it is fine
    text = copied().replace("edition: 2605.02801v1", "edition: living\nadded: '2026-05-30'")
    (survey / "corpus" / "copied.yaml").write_text(text, encoding="utf-8")
    assert validate(survey) == (0, [])


def test_an_edition_records_facts_are_closed(survey: Path) -> None:
    (survey / "corpus" / "c3.yaml").write_text(C3.replace("venue: arXiv", "venue: NeurIPS 2026"), encoding="utf-8")
    assert validate(survey) == (1, [
        "corpus/c3.yaml:8:8: venue: differs from what Survey v1 (2605.02801v1) published; its records keep "
        "their facts: restore the value and propose the change in data/corrections.yaml (kind: metadata, "
        "with the page you read as evidence), then run `survey corrections`"])
    # tags and prose stay editable
    (survey / "corpus" / "c3.yaml").write_text(
        C3.replace("scenario: general", "scenario: math").replace("notes: arXiv version 1", "notes: Read again; arXiv version 1"),
        encoding="utf-8")
    assert validate(survey) == (0, [])


def test_a_link_to_another_work(survey: Path) -> None:
    text = copied().replace("edition: 2605.02801v1", "edition: living\nadded: '2026-05-30'")
    text = text.replace("- https://arxiv.org/abs/2605.11111", "- https://arxiv.org/abs/2605.11111\n- https://arxiv.org/abs/2603.06859v2")
    (survey / "corpus" / "copied.yaml").write_text(text, encoding="utf-8")
    assert validate(survey) == (1, [
        "corpus/copied.yaml:13:3: links[1]: links to arxiv 2603.06859, but the record's identifiers.arxiv is "
        "2605.11111; a link left from another record? Link this work, or fix identifiers.arxiv"])


@pytest.mark.parametrize(("summary", "how"), [
    ("Gives each message in an LLM collaboration its own learning signal by estimating, in context, how the "
     "outcome would change without it, under a shared team reward.", "the same as"),
    ("Gives each message in an LLM collaboration its own learning signal by estimating, in context, how the "
     "outcome would change without it, under a shared reward.", "98% similar to"),
])
def test_a_copied_summary(survey: Path, summary: str, how: str) -> None:
    text = copied(summary=summary).replace("edition: 2605.02801v1", "edition: living\nadded: '2026-05-30'")
    (survey / "corpus" / "copied.yaml").write_text(text, encoding="utf-8")
    code, lines = validate(survey)
    assert code == 1
    assert lines == [
        f"corpus/c3.yaml:13:10: summary: {how} the summary of corpus/copied.yaml; write what this work does, in your own words",
        f"corpus/copied.yaml:13:10: summary: {how} the summary of corpus/c3.yaml; write what this work does, in your own words"]


def test_evidence_of_another_record(survey: Path) -> None:
    text = copied().replace("edition: 2605.02801v1", "edition: living\nadded: '2026-05-30'")
    text = text.replace("evidence: https://arxiv.org/abs/2605.11111", "evidence: https://arxiv.org/abs/2603.06859")
    (survey / "corpus" / "copied.yaml").write_text(text, encoding="utf-8")
    code, lines = validate(survey)
    assert (code, len(lines)) == (1, 1)
    assert re.fullmatch(r"corpus/copied\.yaml:30:5: subdecisions\.O3\.evidence: names arxiv 2603\.06859, "
                        r"the work of corpus/c3\.yaml; evidence about this record is a page of this work", lines[0])


def test_a_correction_overtaken_by_another_value_takes_it_as_current(survey: Path) -> None:
    rec = survey / "corpus" / "agentspawn.yaml"
    rec.write_text(rec.read_text(encoding="utf-8").replace("is_rl: partial", "is_rl: 'yes'"), encoding="utf-8")
    code, out = run(survey, "corrections")
    assert code == 1
    assert ("data/corrections.yaml:5: correction C001: stale: corpus/agentspawn.yaml has is_rl = 'yes', "
            "not 'partial'; run `survey corrections --settle C001` to take the record's value as current") in out
    code, out = run(survey, "corrections", "--settle", "C001")
    assert code == 0 and "current is now 'yes'" in out
    assert "  current: 'yes'\n  proposed: 'no'\n" in (survey / "data" / "corrections.yaml").read_text(encoding="utf-8")
    assert run(survey, "corrections", "--settle", "C001") == (
        2, "error: correction C001 is not stale: corpus/agentspawn.yaml still has is_rl = 'yes'\n")


def test_the_add_example_is_a_work_not_in_the_list() -> None:
    from survey_tools.corpus.examples import add_example, example_reference
    from survey_tools.corpus.identifiers import record_identifiers

    corpus = load_corpus(SURVEY)
    ref = example_reference(corpus.taxonomy, corpus.retained)
    kinds = {k: v.normalize for k, v in corpus.taxonomy.identifiers.items()}
    known = {v for rec in corpus for v in record_identifiers(rec.data, kinds).values()}
    assert ref and ref not in known
    command = add_example(corpus.taxonomy, corpus.retained)
    assert command.startswith(f"survey add {ref} ")
    for doc in ("README.md", "CONTRIBUTING.md"):
        text = (REPO / doc).read_text(encoding="utf-8")
        assert f"`{command}`" in text, doc
    help_text = CliRunner().invoke(cli, ["--root", str(SURVEY), "add", "--help"]).stdout
    assert f"survey add {ref}" in help_text and "2508.03680" not in help_text


def test_validate_warns_while_the_repository_is_not_set(survey: Path) -> None:
    res = CliRunner().invoke(cli, ["--root", str(survey), "validate"])
    assert res.exit_code == 0
    assert res.stderr.splitlines()[-1].startswith(
        "warning: taxonomy/survey.yaml: survey.repository is not set: set `repository: {url: ")
    cfg = survey / "taxonomy" / "survey.yaml"
    text = cfg.read_text(encoding="utf-8")
    cfg.write_text(text.replace("  data_source:", "  repository: {url: https://github.com/OWNER/REPO}\n  data_source:", 1),
                   encoding="utf-8")
    res = CliRunner().invoke(cli, ["--root", str(survey), "validate"])
    assert "survey.repository is still a placeholder (https://github.com/OWNER/REPO)" in res.stderr
    cfg.write_text(text.replace("  data_source:", "  repository: {url: https://github.com/someone/rl-mas-list}\n  data_source:", 1),
                   encoding="utf-8")
    res = CliRunner().invoke(cli, ["--root", str(survey), "validate"])
    assert res.exit_code == 0 and "warning" not in res.stderr


def test_contributing_gives_three_paths_and_a_blank_record_that_validates_once_filled(survey: Path) -> None:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for heading in ("## 1. In the browser (GitHub's web editor)", "## 2. On your machine, with `survey add`",
                    "## 3. By opening an issue", "## Correcting an entry"):
        assert f"\n{heading}\n" in text
    assert "data/corrections.yaml" in text and "survey corrections --settle ID" in text
    blank = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert "\nkey: the-file-name-without-yaml  #" in blank and "\nedition: living  #" in blank
    # filled in line by line as a contributor does, the comments kept
    values = {"key": "web-editor-paper", "title": '"A Paper Added From the Web Editor: a Test"',
              "year": "2026", "venue": '"arXiv"', "arxiv": '"2606.05005"',
              "summary": '"Shows that a record written in the browser passes every check."',
              "added": '"2026-06-05"', "category": "benchmark", "is_rl": "'no'", "reward_type": "NA",
              "credit_granularity": "NA", "orchestration_form": "NA", "scenario": "general",
              "is_core": "supporting", "verified": "'yes'"}
    lines = []
    in_readings = False
    for line in blank.splitlines():
        name, _, rest = line.strip().partition(":")
        in_readings = name == "readings" or (in_readings and line.startswith(" "))
        if name in values and not in_readings and not line.startswith(("-", "#")):
            comment = rest[rest.index("  #"):] if "  #" in rest else ""
            line = f"{line[: len(line) - len(line.lstrip())]}{name}: {values[name]}{comment}"
        lines.append(line.replace("- Last, First", "- Doe, Jane")
                     .replace("- https://", "- https://arxiv.org/abs/2606.05005"))
    filled = "\n".join(ln for ln in lines if not ln.startswith("subdecisions: untagged")) + "\n"
    # the template shows two readings; the contributor adds one for each other tag set
    filled += "".join(f'  {tag}:\n    how: paper\n    where: "Section 4"\n' for tag in ("reward_type", "credit_granularity", "orchestration_form", "scenario"))
    (survey / "corpus" / "web-editor-paper.yaml").write_text(filled, encoding="utf-8")
    assert validate(survey) == (0, [])
