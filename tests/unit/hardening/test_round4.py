"""Hostile input, round 4 (issue 46): what validate refuses before any output is written, and
what every reader of the outputs can parse after a build.

- two taxonomy values whose page names collide (``tool_use`` and ``tool-use``), two keys that
  collide where case does not count;
- a Cyrillic-homoglyph copy of a listed title (UTS #39 skeleton), in validate and duplicates;
- XML-illegal code points (noncharacters, C1 controls) anywhere in a record;
- papers.bib read by pybtex (strict) and bibtexparser, feed.xml by a strict XML parser, after a
  build of the survey with hostile-but-valid text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import bibtexparser
import pytest
from helpers.support import run

from survey_tools.corpus.titles import confusables_path, skeleton, title_key
from survey_tools.slugs import slug

REPO = Path(__file__).resolve().parents[3]
CYRILLIC = "\u0430\u0441\u0435\u043e\u0440\u0445\u0443\u0410\u0421\u0415\u041d\u041a\u041c\u041e\u0420\u0422\u0425"
BASE = (REPO / "tests/data/records/valid/minimal-na.yaml").read_text()


def record(key: str, **fields: str) -> str:
    """A valid living-list record with ``fields`` replaced (YAML text as written)."""
    text = BASE.replace("key: minimal-na", f"key: {key}").replace(
        "edition: 2605.02801v1", "edition: living\nadded: 2026-11-23"
    )
    for name, value in fields.items():
        text = re.sub(rf"^{name}: .*$", lambda _m, n=name, v=value: f"{n}: {v}", text, flags=re.M)
    return text


def title_of(root: Path, key: str) -> str:
    return re.search(r"^title: (.*)$", (root / f"corpus/{key}.yaml").read_text(), re.M).group(1)  # type: ignore[union-attr]


def test_one_slug_rule_names_every_page() -> None:
    assert slug("O1:learned") == "o1-learned"
    assert slug("tool_use") == slug("tool-use") == slug("Tool Use") == "tool-use"
    assert slug("  ") == "value" and slug("x", empty="") == "x"


def test_two_values_that_share_a_page_name_are_refused_naming_both(corpus_copy: Path) -> None:
    field = corpus_copy / "taxonomy/fields/scenario.yaml"
    text = field.read_text()
    field.write_text(
        text.replace(
            "  - {id: tool_use,",
            "  - {id: tool-use, label: Tool use 2, description: Another.}\n  - {id: tool_use,",
        )
    )
    code, out, err = run(corpus_copy, "validate", clean=False)
    assert code != 0
    assert re.search(
        r"taxonomy/fields/scenario\.yaml:\d+:\d+: values\.\d+\.id: value ids 'tool-use' and "
        r"'tool_use' both become the page name 'tool-use'",
        out + err,
    ), out + err


def test_two_keys_that_differ_only_in_case_are_refused(corpus_copy: Path) -> None:
    corpus_copy.joinpath("taxonomy/survey.yaml").write_text(
        corpus_copy.joinpath("taxonomy/survey.yaml")
        .read_text()
        .replace(
            'id_pattern: "^[a-z0-9][a-z0-9-]{0,79}$"',
            'id_pattern: "^[A-Za-z0-9][A-Za-z0-9-]{0,79}$"',
        )
    )
    (corpus_copy / "corpus/Paper-x.yaml").write_text(
        record("Paper-x", title="One Paper About Agents")
    )
    (corpus_copy / "corpus/paper-x.yaml").write_text(
        record("paper-x", title="Another Paper About Robots")
    )
    code, out, err = run(corpus_copy, "validate", clean=False)
    assert code != 0
    assert (
        "keys 'Paper-x' (corpus/Paper-x.yaml) and 'paper-x' both become the page name 'paper-x'"
        in out + err
    )


def test_the_skeleton_is_unicodes_table() -> None:
    assert confusables_path().is_file()
    assert skeleton("\u0440\u0430per") == skeleton("paper")  # Cyrillic er and a
    assert title_key("Sc\u0430ling \u0410gent Systems") == title_key("Scaling Agent Systems")
    assert title_key("Scaling Agent Systems") != title_key("Scaling Agent Teams")


def test_a_homoglyph_copy_of_a_listed_title_is_a_duplicate(corpus_copy: Path) -> None:
    original = title_of(corpus_copy, "c3")
    # every Latin letter that has a Cyrillic twin: too far for the fuzzy match (50% of the letters)
    copy = original.translate(str.maketrans("aceopxyACEHKMOPTX", CYRILLIC))
    assert copy != original
    (corpus_copy / "corpus/homoglyph.yaml").write_text(record("homoglyph", title=copy))
    code, out, err = run(corpus_copy, "validate", clean=False)
    assert code != 0
    assert (
        "corpus/homoglyph.yaml:2:8: title: a title that looks the same (different characters that "
        "look alike: U+0410 CYRILLIC CAPITAL LETTER A, U+041C CYRILLIC CAPITAL LETTER EM, U+0421 "
        "CYRILLIC CAPITAL LETTER ES) is also used by corpus/c3.yaml"
    ) in out + err
    code, out, err = run(corpus_copy, "duplicates", clean=False)
    assert code != 0 and "corpus/homoglyph.yaml" in out + err


@pytest.mark.parametrize("char", ["\\uFFFF", "\\uFFFE", "\\uFDD0", "\\U0001FFFF", "\\x85", "\\x1b"])
def test_an_xml_illegal_code_point_is_refused_with_its_name(corpus_copy: Path, char: str) -> None:
    (corpus_copy / "corpus/bad-char.yaml").write_text(
        record("bad-char", title=f'"A Paper {char} About Agents"')
    )
    code, out, err = run(corpus_copy, "validate", clean=False)
    point = "U+" + char[2:].upper().lstrip("0").rjust(4, "0")
    assert code != 0
    assert re.search(
        rf"corpus/bad-char\.yaml:2:8: title: contains .*{re.escape(point)}", out + err
    ), out + err


def test_hostile_but_valid_text_builds_outputs_every_reader_parses(corpus_copy: Path) -> None:
    pybtex_database = pytest.importorskip("pybtex.database")
    import pybtex.errors

    hostile = {
        "brace-title": record(
            "brace-title",
            title="'A {Braced} Title with 50% of $x$ & y_1 \\ z'",
            venue="'Proc. {IEEE} @misc{x, title={y}} #1'",
        ),
        "markup-title": record(
            # `&amp` without its `;`: a whole entity is now refused as pasted from a web page
            # (readback), and the outputs must still escape what looks like one
            "markup-title", title="'<script>alert(1)</script> ]]> &amp \"quoted\"'"
        ),
        "astral-title": record(
            "astral-title", title='"Agents \\U0001F916 and \\u00e9l\\u00e8ves \\u202f here"'
        ),
    }
    for i, (key, text) in enumerate(hostile.items()):  # each its own link and summary
        text = text.replace("https://example.org/bench", f"https://example.org/bench-{key}")
        text = text.replace(
            "A benchmark where the reward and credit questions do not apply.",
            [
                "Tests whether TeX escapes survive the bibliography writer untouched.",
                "Checks that page markup in titles is shown as text on every page.",
                "Exercises astral plane symbols and narrow spaces in the feed output.",
            ][i],
        )
        (corpus_copy / f"corpus/{key}.yaml").write_text(text)
    code, out, err = run(corpus_copy, "build", clean=False)
    assert code == 0, out + err
    bib = (corpus_copy / "reports/papers.bib").read_text()
    n = len(list((corpus_copy / "corpus").glob("*.yaml")))
    pybtex.errors.set_strict_mode(True)
    try:
        assert len(pybtex_database.parse_string(bib, "bibtex").entries) == n
    finally:
        pybtex.errors.set_strict_mode(False)
    assert len(bibtexparser.parse_string(bib).entries) == n
    feed = next((corpus_copy / "reports").rglob("feed.xml"))
    root = ET.fromstring(feed.read_bytes())  # strict: any illegal character or markup raises
    assert root.tag.endswith("feed")


def test_an_xml_illegal_code_point_in_a_taxonomy_label_is_refused(corpus_copy: Path) -> None:
    field = corpus_copy / "taxonomy/fields/scenario.yaml"
    field.write_text(field.read_text().replace("label: Tool use,", 'label: "Tool \\uFFFF use",'))
    code, out, err = run(corpus_copy, "validate", clean=False)
    assert code != 0
    assert re.search(
        r"taxonomy/fields/scenario\.yaml:\d+:\d+: values\.\d+\.label: contains a noncharacter "
        r"\(U\+FFFF\) that XML readers",
        out + err,
    ), out + err


def test_ascii_titles_are_compared_as_they_read() -> None:
    # digits and ASCII letters are never mapped (the numbers rule reads digits)
    assert title_key("Scaling Agents to 100 Tools") == "scaling agents to 100 tools"
    assert title_key("Sc\u0430ling Agents t\u043e 100 Tools") == "scaling agents to 100 tools"
