"""The tests of test_contribution_checks.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

from pathlib import Path

from helpers.contribution_checks_cases import run
from helpers.contribution_checks_cases import survey as survey  # a fixture, found by name


def test_a_stale_correction_says_what_changed_and_the_command(survey: Path) -> None:
    # CONTRIBUTING's "Correcting an entry": the contributor applies C001 to the record
    rec = survey / "corpus" / "agentspawn.yaml"
    rec.write_text(
        rec.read_text(encoding="utf-8").replace("is_rl: partial", "is_rl: 'no'"), encoding="utf-8"
    )
    code, out = run(survey, "corrections")
    assert code == 1
    line = (
        "data/corrections.yaml:5: correction C001: stale: corpus/agentspawn.yaml has is_rl = 'no', "
        "not 'partial'; the record carries the proposed value (applied); run "
        "`survey corrections --settle C001` to remove the entry"
    )
    assert line in out.splitlines()
    before = (survey / "data" / "corrections.yaml").read_text(encoding="utf-8")
    code, out = run(survey, "corrections", "--settle", "C001")
    assert (code, out) == (
        0,
        "removed correction C001 from data/corrections.yaml: corpus/agentspawn.yaml "
        "carries its proposed value\n",
    )
    after = (survey / "data" / "corrections.yaml").read_text(encoding="utf-8")
    assert "id: C001\n" not in after and "id: C002\n" in after
    assert after.splitlines()[:3] == before.splitlines()[:3]  # the comments stay
    assert run(survey, "corrections")[0] == 0
