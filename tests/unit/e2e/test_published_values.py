"""What a record's warnings say is cleaned is cleaned in every output (corpus/published.py): an
http:// link to a host that serves https, tracking parameters and decomposed accents pass
`survey validate` with a warning, and no file `survey build` writes holds the form warned of."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import yaml
from helpers.contrib_cases import CASES
from helpers.support import run

from survey_tools.corpus.loading import load_corpus


def _record() -> str:
    rec = str(yaml.safe_load((CASES / "title-nfd-accents.yaml").read_text(encoding="utf-8"))["record"])
    return rec.replace(
        "- https://arxiv.org/abs/2606.01001",
        "- http://arxiv.org/abs/2606.01001\n- https://relay-credit.github.io/?utm_source=x&lang=en",
    ).replace("- Roe, Richard", "- Mu\u0308ller, Jo\u0308rg")


def test_the_warned_forms_pass_and_the_record_holds_the_cleaned_values(survey_dir: Path) -> None:
    (survey_dir / "corpus" / "relay-credit.yaml").write_text(_record(), encoding="utf-8")
    res = run(survey_dir, "validate", env={"SURVEY_MAINTAINER_WARNINGS": "0"})
    assert res.exit_code == 0, res.stdout
    lines = res.stdout.splitlines()
    assert len(lines) == 4 and all(": warning: " in line for line in lines), lines
    assert "1 files checked, 0 problems, 4 warnings" in res.stderr
    rec = load_corpus(survey_dir, use_cache=False).retained[0]
    assert rec.get("links") == [
        "https://arxiv.org/abs/2606.01001",
        "https://relay-credit.github.io/?lang=en",
    ]
    assert rec.title == "Relay Credit for Caf\u00e9 Agents"
    assert rec.get("authors")[1] == "M\u00fcller, J\u00f6rg"


def test_no_output_publishes_what_the_warning_names(survey_dir: Path) -> None:
    (survey_dir / "corpus" / "relay-credit.yaml").write_text(_record(), encoding="utf-8")
    run(survey_dir, "build", ok=True)
    written = [
        p for p in sorted(survey_dir.rglob("*"))
        if p.is_file() and p.suffix != ".png" and not {"corpus", "taxonomy"} & set(p.relative_to(survey_dir).parts)
    ]
    assert len(written) > 50
    for p in written:
        text = p.read_text(encoding="utf-8")
        assert "http://arxiv.org" not in text and "utm_source" not in text, p
        assert unicodedata.is_normalized("NFC", text), p
    readme = (survey_dir / "README.md").read_text(encoding="utf-8")
    assert "[Relay Credit for Caf\u00e9 Agents](https://arxiv.org/abs/2606.01001)" in readme
    for out in ("reports/papers.bib", "reports/site/data/papers.csv"):
        text = (survey_dir / out).read_text(encoding="utf-8")
        assert "M\u00fcller" in text and "Caf\u00e9" in text, out


def test_tex_accents_are_decoded_in_every_output_but_the_record(survey_dir: Path) -> None:
    """A TeX accent passes (BibTeX-derived metadata carries them, and BibTeX wants them); every
    output shows the letter: the site's pages, its search data and feed, the CSV, the README."""
    rec = str(yaml.safe_load((CASES / "good-record.yaml").read_text(encoding="utf-8"))["record"])
    rec = rec.replace(
        'title: "Relay Credit: Passing Team Rewards Along Tool Calls"',
        "title: Relay Credit for Caf\\'{e} Agents",
    ).replace("- Roe, Richard", "- Balunovi\\'{c}, Mislav")
    (survey_dir / "corpus" / "relay-credit.yaml").write_text(rec, encoding="utf-8")
    run(survey_dir, "build", ok=True)
    written = [
        p for p in sorted(survey_dir.rglob("*"))
        if p.is_file() and p.suffix != ".png" and not {"corpus", "taxonomy"} & set(p.relative_to(survey_dir).parts)
    ]
    for p in written:
        text = p.read_text(encoding="utf-8")
        assert "{e}" not in text and "{c}" not in text, p
    feed = (survey_dir / "reports" / "site" / "feed.xml").read_text(encoding="utf-8")
    assert "Relay Credit for Caf\u00e9 Agents" in feed and "Balunovi\u0107, Mislav" in feed
