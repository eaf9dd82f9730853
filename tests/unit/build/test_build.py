"""survey build: outputs, --check, determinism, atomic failure, agreement, corrections, stats."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.support import probe

from survey_tools.build import build, make_context
from survey_tools.cli import cli
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import InvalidInput
from survey_tools.reports.agreement import compute_agreement
from survey_tools.reports.gaps import compute_gaps
from survey_tools.reports.report_config import load_config
from survey_tools.reports.stats import compute_stats

DATA = Path(__file__).resolve().parents[2] / "data"
ARTIFACT = Path(__file__).resolve().parents[2] / "fixtures" / "survey-artifact"


def test_stale_correction_is_an_error_naming_it(survey: Path) -> None:
    path = survey / "data" / "corrections.yaml"
    path.write_text(path.read_text().replace("  current: individual\n", "  current: role\n", 1))
    result = CliRunner().invoke(cli, ["--root", str(survey), "corrections"])
    assert result.exit_code == 1
    assert "correction C008: stale: corpus/ippo2020.yaml has reward_type = 'individual', not 'role'" in result.output
    result = CliRunner().invoke(cli, ["--root", str(survey), "build"])
    assert result.exit_code == 1 and "correction C008: stale" in result.output
    assert not (survey / "reports").exists()


def test_corrections_report_moves_cells_and_claims(survey: Path) -> None:
    ctx = make_context(survey)
    assert ctx.corrections is not None and ctx.corrections.ok
    by_id = dict(zip([c.id for c in ctx.corrections.corrections], ctx.corrections.effects, strict=True))
    c008 = {x.cell: (x.before, x.after) for x in by_id["C008"].cells}  # ippo2020 individual -> shared
    assert c008["reward_type/individual"] == (4, 3) and c008["reward_type/shared"] == (10, 11)
    assert c008["reward_family/R2"] == (4, 3)
    claims = {x.claim: (x.before, x.after, x.status_after) for x in by_id["C008"].claims}
    assert claims == {
        "stats-reward-type-shared": (10, 11, "contradicted"),
        "readme-reward-type-shared": (10, 11, "contradicted"),
        "stats-reward-type-individual": (4, 3, "contradicted"),
        "stats-reward-type-x-credit-shared-agent": (9, 10, "contradicted"),
        "stats-reward-type-x-credit-individual-agent": (4, 3, "contradicted"),
    }


def test_no_corrections_file_is_fine(survey: Path) -> None:
    (survey / "data" / "corrections.yaml").unlink()
    assert make_context(survey).corrections is None


def test_agreement_on_the_survey_audit(survey_ro: Path) -> None:
    tax = load_taxonomy(survey_ro)
    keys = {r.id for r in load_corpus(survey_ro, tax).retained}
    report = compute_agreement(tax, survey_ro / "data" / "audit" / "spotcheck.csv", "spotcheck.csv", keys)
    got = {f.field: (f.agree, f.rows, [d.key for d in f.disagreements]) for f in report.fields}
    assert got == {
        "category": (32, 32, []),
        "is_rl": (32, 32, []),
        "reward_type": (32, 32, []),
        "credit_granularity": (31, 32, ["halo"]),
        "orchestration_form": (32, 32, []),
    }
    assert report.field("category").kappa == 1.0
    assert 0.9 < (report.field("credit_granularity").kappa or 0) < 1.0
    result = CliRunner().invoke(cli, ["--root", str(survey_ro), "agreement", str(survey_ro / "data" / "audit" / "spotcheck.csv"), "--format", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["fields"] == json.loads(json.dumps(report.to_dict()))["fields"]


def test_agreement_caveat_comes_from_the_report_configuration(survey: Path) -> None:
    conf = survey / "data" / "reports.yaml"
    text = conf.read_text(encoding="utf-8")
    assert "agreement:" in text
    conf.write_text(text.split("\nagreement:")[0] + "\nagreement:\n  caveat: The second reader saw the first labels.\n", encoding="utf-8")
    ctx = make_context(survey)
    assert ctx.agreement is not None and ctx.agreement.caveat == "The second reader saw the first labels."
    build(survey)
    md = (survey / "reports" / "AGREEMENT.md").read_text(encoding="utf-8")
    caveat_at, table_at = md.index("> **Caveat.** The second reader saw the first labels."), md.index("| field |")
    assert caveat_at < table_at  # stated before the kappa values, not in a footnote
    assert json.loads((survey / "reports" / "agreement.json").read_text())["caveat"] == "The second reader saw the first labels."
    own = CliRunner().invoke(cli, ["--root", str(survey), "agreement", "--format", "json"])
    assert own.exit_code == 0 and json.loads(own.stdout)["caveat"] == "The second reader saw the first labels."
    # another audit file named on the command line is not described by the survey's caveat
    other = CliRunner().invoke(cli, ["--root", str(survey), "agreement", str(survey / "data" / "audit" / "spotcheck.csv")])
    assert other.exit_code == 0 and not any(line.startswith("caveat:") for line in other.stdout.splitlines())
    conf.write_text(text.split("\nagreement:")[0] + "\nagreement:\n  caveat: [not, text]\n", encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        load_config(load_taxonomy(survey))
    assert [p.field for p in info.value.problems] == ["agreement.caveat"]
    conf.write_text(text.split("\nagreement:")[0] + "\n", encoding="utf-8")
    assert make_context(survey).agreement.caveat == ""  # type: ignore[union-attr]
    build(survey)
    assert "Caveat" not in (survey / "reports" / "AGREEMENT.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("missing-column.csv", ["missing-column.csv:1: ann_is_rl: missing column (pairs with orig_is_rl)"]),
        (
            "bad-values.csv",
            [
                "bad-values.csv:1: orig_colour: 'colour' is not a controlled field of the taxonomy",
            ],
        ),
    ],
)
def test_bad_audit_csv(survey_ro: Path, name: str, expected: list[str]) -> None:
    with pytest.raises(InvalidInput) as info:
        compute_agreement(load_taxonomy(survey_ro), DATA / "audit" / name, name, {"c3"})
    assert [p.format() for p in info.value.problems] == expected


def test_bad_audit_values_and_keys(survey: Path, tmp_path: Path) -> None:
    path = tmp_path / "audit.csv"
    path.write_text("key,orig_category,ann_category\nc3,rl_method,rl_methods\nnosuchpaper,rl_method,rl_method\n")
    with pytest.raises(InvalidInput) as info:
        compute_agreement(load_taxonomy(survey), path, "audit.csv", {"c3"})
    assert [p.format() for p in info.value.problems] == [
        "audit.csv:2: ann_category: unknown value 'rl_methods' (known: benchmark, classical_marl, framework, industry, rl_method, survey)",
        "audit.csv:3: key: unknown record key 'nosuchpaper'"
        ": no record has it; if this change deleted or renamed that record, this line is the consequence: restore the record, not this file",
    ]


def test_gaps_show_the_survey_sparse_cells(survey: Path) -> None:
    tax = load_taxonomy(survey)
    corpus = load_corpus(survey, tax)
    gaps = compute_gaps(corpus, load_config(tax))
    t = gaps.table("credit_granularity-x-reward_family")
    assert t.row_total("message") == (2, 1)
    assert t.row_total("orchestrator") == (8, 5)
    sparse = {(c.row, c.col): (c.records, c.strict_records) for c in t.sparse}
    assert sparse[("message", "R1")] == (("c3",), ("c3",))
    assert sparse[("message", "R6")] == (("debate-as-reward",), ())
    sub = gaps.table("subdecisions-x-subdecisions.mode")
    assert sub.cell("O5", "learned").records == ("puppeteer",)  # our curation; the survey says none
    # with puppeteer's O5 back to designed, the survey's gap (no record learns O5) is an empty cell
    rec = survey / "corpus" / "puppeteer.yaml"
    rec.write_text(rec.read_text().replace("    how: learned\n    evidence: https://github.com/OpenBMB/ChatDev", "    how: designed\n    evidence: https://github.com/OpenBMB/ChatDev"))
    gaps = compute_gaps(load_corpus(survey, tax), load_config(tax))
    assert ("O5", "learned") in {(c.row, c.col) for c in gaps.table("subdecisions-x-subdecisions.mode").empty}
    result = CliRunner().invoke(cli, ["--root", str(survey), "gaps", "-k", "1", "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["k"] == 1


def _csv_rows(name: str) -> list[dict[str, str]]:
    with (ARTIFACT / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_counts_equal_the_survey_csv_on_the_same_records(survey_dir: Path) -> None:
    """Import the survey's CSVs into an empty folder; every count equals one computed from the CSV."""
    from survey_tools.adopt.csvio import plan_import, write_import

    tax = load_taxonomy(survey_dir)
    write_import(tax, plan_import(tax, ARTIFACT / "papers.csv", ARTIFACT / "excluded.csv"))
    corpus = load_corpus(survey_dir, tax)
    shutil.copy(Path(__file__).resolve().parents[3] / "data" / "reports.yaml", survey_dir / "reports.yaml")
    from dataclasses import replace

    config = replace(load_config(load_taxonomy(Path(__file__).resolve().parents[3])), path="reports.yaml")
    stats = compute_stats(corpus, config)
    papers, excluded = _csv_rows("papers.csv"), _csv_rows("excluded.csv")
    assert dict(stats.headline) == {"retained": 84, "excluded": 32, "audited": 116}
    for name in ("category", "is_rl", "reward_type", "credit_granularity", "orchestration_form", "scenario", "is_core", "verified"):
        t = stats.table(name)
        assert {v: t.count(v) for v in t.row_values if t.count(v)} == dict(Counter(r[name] for r in papers)), name
    for name in ("stage", "source", "query_family"):
        t = stats.table(name)
        assert {v: t.count(v) for v in t.row_values if t.count(v)} == dict(Counter(r[name] for r in excluded)), name
    for rows, cols in (("reward_type", "credit_granularity"), ("orchestration_form", "credit_granularity"), ("category", "verified"), ("category", "year")):
        t = stats.table(f"{rows}-x-{cols}")
        got = {(r, c): t.count(r, c) for r in t.row_values for c in t.col_values if t.count(r, c)}
        assert got == dict(Counter((p[rows], p[cols]) for p in papers)), (rows, cols)
    fam = {m: g.id for g in tax.field("reward_type").group.values for m in g.members}  # type: ignore[union-attr]
    t = stats.table("reward_family-x-credit_granularity")
    got = {(r, c): t.count(r, c) for r in t.row_values for c in t.col_values if t.count(r, c)}
    assert got == dict(Counter((fam.get(p["reward_type"], p["reward_type"]), p["credit_granularity"]) for p in papers))


def test_second_load_uses_the_cache_and_never_serves_stale_data(
    survey: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A cache of its own: the shared one may hold the edited record already (another test's).
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "own-cache"))
    first = load_corpus(survey, use_cache=True)
    second = load_corpus(survey, use_cache=True)
    assert second.cache_hits == second.files == first.files
    rec = survey / "corpus" / "c3.yaml"
    rec.write_text(rec.read_text().replace("reward_type: shared", "reward_type: hybrid"))
    third = load_corpus(survey, use_cache=True)
    assert third.cache_hits == third.files - 1
    assert third.by_id("retained")["c3"].get("reward_type") == "hybrid"


# Run in a process of its own: the test process has frozen its imported modules (conftest.py),
# and a build leaves a process that freezes objects of its own alone.
_FREEZE_PROBE = """
import gc, json, sys
import survey_tools.build as b
seen = []
real = b.survey_of
def probe(*args, **kwargs):
    seen.append(gc.get_freeze_count())
    return real(*args, **kwargs)
b.survey_of = probe
kept = None
if sys.argv[2] == "frozen":
    kept = [[], {}]
    gc.freeze()
before = gc.get_freeze_count()
b.build(sys.argv[1], check=True)
print(json.dumps({"before": before, "during": seen, "after": gc.get_freeze_count()}))
"""


@pytest.mark.parametrize("caller", ["plain", "frozen"])
def test_the_build_keeps_its_records_out_of_full_collections_and_restores_the_collector(survey: Path, caller: str) -> None:
    got = probe(_FREEZE_PROBE, str(survey), caller, env={"SURVEY_NO_CACHE": "1"})
    if caller == "plain":
        # the loaded records were frozen before the survey was computed from them; nothing is after
        assert got["before"] == 0 and got["during"][0] > 1000 and got["after"] == 0
    else:
        # a process that freezes objects itself keeps its own, and only those: the build adds
        # none (the loaded records are not among them) and takes none back (objects freed since
        # leave the count)
        assert got["before"] > 1000 and len(got["during"]) == 1
        assert 0.95 * got["before"] < got["during"][0] <= got["before"]
        assert 0.95 * got["before"] < got["after"] <= got["during"][0]
