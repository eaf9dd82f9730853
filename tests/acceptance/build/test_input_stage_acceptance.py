"""The tests of test_input_stage.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.input_stage_cases import RUN
from helpers.input_stage_cases import survey as survey  # a fixture, found by name

from survey_tools.build import build
from survey_tools.corpus.screening_logs import DECISIONS, QUEUE, RUNS
from survey_tools.errors import InvalidInput


def test_a_new_screening_log_makes_the_built_outputs_stale(survey: Path) -> None:
    assert build(survey).outputs
    assert not build(survey, check=True).stale  # up to date, answered from the manifest
    (survey / "screening").mkdir()
    (survey / RUNS).write_text(RUN, encoding="utf-8")
    stale = {s.path for s in build(survey, check=True).stale}
    assert "reports/STATS.md" in stale
    build(survey)
    (survey / QUEUE).mkdir()
    (survey / QUEUE / "2606.00001.yaml").write_text(
        "id: '2606.00001'\ntitle: A candidate\n", encoding="utf-8"
    )
    assert "reports/STATS.md" in {s.path for s in build(survey, check=True).stale}
    (survey / DECISIONS).write_text("- not an entry\n", encoding="utf-8")
    with pytest.raises(InvalidInput) as err:
        build(survey, check=True)
    assert [p.format() for p in err.value.problems] == [
        "screening/decisions.yaml:1:3: [0]: expected an entry (key: value lines)"
    ]
