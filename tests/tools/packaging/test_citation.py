"""CITATION.cff: written by `survey build` from the taxonomy, valid by cffconvert."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.render.citation import citation_cff

REPO = Path(__file__).resolve().parents[3]


def validate(cffconvert: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cffconvert, "--validate", "-i", str(path)], capture_output=True,
                          text=True, timeout=120)


def test_committed_citation_is_valid(cffconvert: str) -> None:
    res = validate(cffconvert, REPO / "CITATION.cff")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "valid" in res.stdout


def test_citation_comes_from_the_taxonomy(tmp_path: Path, cffconvert: str) -> None:
    text = citation_cff(load_taxonomy(REPO))
    assert text == (REPO / "CITATION.cff").read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    assert doc["type"] == "software"
    pref = doc["preferred-citation"]
    assert pref["title"].startswith("Reinforcement Learning for LLM-based Multi-Agent Systems")
    assert pref["authors"] == [{"family-names": "Zhang", "given-names": "Chenchen"}]
    # In the fields GitHub's widget (ruby-cff) keeps: journal and url; identifiers for the rest.
    assert pref["journal"] == "arXiv preprint arXiv:2605.02801"
    assert pref["url"] == "https://arxiv.org/abs/2605.02801"
    assert [i["value"] for i in pref["identifiers"]] == ["https://arxiv.org/abs/2605.02801", "arXiv:2605.02801"]

    # Another survey's config: a software repository, several authors, an organisation.
    root = tmp_path / "other"
    shutil.copytree(REPO / "taxonomy", root / "taxonomy")
    path = root / "taxonomy" / "survey.yaml"
    raw = path.read_text().replace(
        'authors: ["Zhang, Chenchen"]', 'authors: ["Doe, Jane", "Roe, Richard", "Lab Team"]'
    ).replace("license: MIT", "license: Apache-2.0\n      repository-code: https://example.org/list")
    path.write_text(raw)
    out = tmp_path / "CITATION.cff"
    text = citation_cff(load_taxonomy(root))
    assert text is not None
    out.write_text(text)
    doc = yaml.safe_load(text)
    assert doc["preferred-citation"]["authors"][2] == {"name": "Lab Team"}
    assert doc["repository-code"] == "https://example.org/list"
    res = validate(cffconvert, out)
    assert res.returncode == 0, res.stdout + res.stderr


def test_cffconvert_rejects_a_broken_file(tmp_path: Path, cffconvert: str) -> None:
    bad = tmp_path / "CITATION.cff"
    text = (REPO / "CITATION.cff").read_text().replace("cff-version: 1.2.0\n", "")
    bad.write_text(text)
    assert validate(cffconvert, bad).returncode != 0


def test_no_citation_section_no_file(repo: Path) -> None:
    tax = load_taxonomy(repo / "tests" / "data" / "tiny-survey")
    assert citation_cff(tax) is None


def test_cffconvert_keeps_the_survey_in_every_format(cffconvert: str) -> None:
    # cffconvert converts the top level only (it ignores preferred-citation): the survey's page
    # is there as an identifier of type url, which each of its formats writes as the URL.
    want = {"bibtex": "url = {https://arxiv.org/abs/2605.02801}", "ris": "UR  - https://arxiv.org/abs/2605.02801",
            "endnote": "%U https://arxiv.org/abs/2605.02801", "apalike": "URL: https://arxiv.org/abs/2605.02801",
            "codemeta": '"url": "https://arxiv.org/abs/2605.02801"',
            "schema.org": '"https://arxiv.org/abs/2605.02801"'}
    for fmt, line in want.items():
        res = subprocess.run([cffconvert, "-i", str(REPO / "CITATION.cff"), "-f", fmt], capture_output=True,
                             text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        assert line in res.stdout, (fmt, res.stdout)
