"""README.md and CONTRIBUTING.md: content from the records, counts from the statistics, escaping."""

from __future__ import annotations

import re
from dataclasses import replace

from helpers.render_support import HOSTILE_TITLE, Built

from survey_tools.corpus.views import corpus_view
from survey_tools.render.markdown import (
    gap_tables,
    md,
    md_code,
    md_sentence,
    md_table,
    md_url,
    render_contributing,
    render_readme,
)

# This repository's own README section (taxonomy/readme/toolkit.md) and CONTRIBUTING checks
# (taxonomy/contributing/checks.md): set-up starts with a virtual environment and the pinned
# rendering libraries.
SETUP_COMMAND = "python3 -m venv .venv && . .venv/bin/activate && pip install -c constraints.txt -e '.[test]'"
TEST_COMMAND = "survey build && python3 -m pytest -q"


def readme(b: Built) -> str:
    return render_readme(b.tax, b.corpus, b.stats, gap_tables(b.gaps))


def test_md_escapes_every_markdown_significant_character() -> None:
    assert md("a | b") == r"a \| b"
    assert md("[x](y)") == r"\[x\](y)"
    assert md("*b* `c` <d> _e_") == r"\*b\* \`c\` \<d\> \_e\_"
    assert md("line\nbreak") == "line break"
    assert md("a\\b & c~d !e #f $g") == r"a\\b \& c\~d \!e \#f \$g"
    assert md("été — 100% (ok), {x}: y; z/w ^ + = ? @ ' \"") == "été — 100% (ok), {x}: y; z/w ^ + = ? @ ' \""
    assert md_url("https://x.org/a (b)") == "https://x.org/a%20%28b%29"
    assert md_code("a`b") == "``a`b``"


def test_md_table_aligns_every_pipe() -> None:
    text = md_table(["name", "n"], [[md("a|b"), 3], ["longer name", 12]], "lr")
    lines = text.splitlines()
    # awesome-lint's table-pipe-alignment rule: unescaped pipes at the same columns in every row
    cols = [[m.start() for m in re.finditer(r"(?<!\\)\|", line)] for line in lines]
    assert all(c == cols[0] for c in cols), text
    assert lines[1].endswith("-: |")


def test_readme_is_deterministic_and_keeps_the_setup_commands(real: Built) -> None:
    first, second = readme(real), readme(real)
    assert first == second
    assert f"```sh\n{SETUP_COMMAND}\n```" in first
    assert f"```sh\n{TEST_COMMAND}\n```" in first
    assert "[![Awesome](https://awesome.re/badge.svg)](https://awesome.re)" in first.splitlines()[1]


def test_every_retained_record_is_one_list_item_in_its_category(real: Built) -> None:
    text = readme(real)
    items = [line for line in text.splitlines() if line.startswith("- [") and "](#" not in line]
    assert len(items) == real.stats.headline[real.tax.retained.name]
    for rec in real.corpus.retained:
        # the second line of the item: "<br>" [a "new since" mark ·] `key` · tags
        assert sum(line.lstrip().startswith("<br>") and f"`{rec.id}` ·" in line for line in text.splitlines()) == 1, rec.id
    # Categories appear in the taxonomy's order.
    cat = real.tax.field(real.tax.survey["readme"]["group_by"])
    positions = [text.find(f"\n### {v.label}\n") for v in cat.values if v.label in text]
    assert positions == sorted(positions) and -1 not in positions


def test_an_entry_without_a_summary_is_described_by_its_key_and_tags(real: Built) -> None:
    """Without a summary the item's description (awesome-lint wants one after the dash) is its key
    and tags, on the item's one line; the items around it keep their summary and second line."""
    c3 = next(r for r in real.corpus.retained if r.id == "c3")
    bare = replace(c3, data={k: v for k, v in c3.data.items() if k != "summary"})
    records = {name: tuple(bare if r is c3 else r for r in recs) for name, recs in real.corpus.records.items()}
    lines = readme(replace(real, corpus=replace(real.corpus, records=records))).splitlines()
    with_summary = readme(real).splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(f"- [{md(c3.title)}]("))
    assert re.fullmatch(r"- \[.*\]\(.*\) - <a id=\"r-c3-1\"></a>.*`c3` · Reward family: .*\.", lines[i]), lines[i]
    assert lines[i + 1].startswith("- [") and not lines[i + 1].startswith("  <br>")
    j = next(n for n, line in enumerate(with_summary) if line.startswith(f"- [{md(c3.title)}]("))
    assert with_summary[j].endswith(") - " + md_sentence(c3.data["summary"])) and with_summary[j + 1].startswith("  <br><a id=\"r-c3-1\">")
    # everything else is as with the summary: the item lost its summary line and nothing more
    assert lines[:i] == with_summary[:j] and lines[i + 1 :] == with_summary[j + 2 :]
    assert lines[i] == with_summary[j].split(") - ", 1)[0] + ") - " + with_summary[j + 1].removeprefix("  <br>")


def test_counts_come_from_the_statistics(real: Built) -> None:
    text = readme(real)
    s = real.stats
    message = s.table("credit_granularity").count("message")
    row = next(line for line in text.splitlines() if line.startswith("| Message "))
    # "e / l": the survey's edition, then the living list (the living count is the statistics')
    edition = sum(1 for r in corpus_view(real.corpus, "2605.02801v1").retained if r.get("credit_granularity") == "message")
    assert re.search(rf"\|\s+{edition} / {message} \|", row), row
    assert f"holds {s.headline['retained']} retained papers and {s.headline['excluded']} records in the exclusion log" in text
    # E001..E042 by hand; `survey screen --exclude` names them after the arXiv id (E-arxiv-2606-32017)
    excl_rows = [line for line in text.splitlines() if re.match(r"\| E(\d{3}|-arxiv-\d{4}-\d{4,5}) ", line)]
    assert len(excl_rows) == s.headline["excluded"]


def test_hostile_title_stays_one_list_item_and_one_table_cell(hostile: Built) -> None:
    text = readme(hostile)
    item = next(line for line in text.splitlines() if line.startswith("- [Pipes"))
    # The only unescaped brackets are the link's own; no raw "<" or "|" survives.
    assert item.startswith("- [Pipes \\| \\[brackets\\] \\*stars\\* \\`ticks\\` \\<script\\>")
    assert re.sub(r"\\.", "", item).count("[") == 1
    assert not re.search(r"(?<!\\)<(script|img|b>)", text)  # every "<" from a record is escaped
    assert "](https://arxiv.org/abs/2601.00001) - Checks that a \\| b" in item
    assert "[GitHub](https://github.com/example/has_%28parens%29)" in text
    assert HOSTILE_TITLE not in text


def test_contributing_lists_the_taxonomy_fields_and_values(real: Built) -> None:
    text = render_contributing(real.tax)
    for f in real.tax.retained.fields:
        assert f"- `{f.name}`" in text
    for c in real.tax.retained.controlled:
        for v in c.values:
            assert md_code(v.id) in text
    assert SETUP_COMMAND in text


def test_source_order_and_own_parts_come_from_the_taxonomy_load(survey_dir) -> None:  # type: ignore[no-untyped-def]
    """`entry_order: source` reads the imported list's order, and the README its own parts, from
    what the taxonomy's load read: a file written after the load is not seen by the renderer."""
    from survey_tools.corpus.taxonomy import load_taxonomy
    from survey_tools.render.markdown import _source_rank, readme_parts

    (survey_dir / "data" / "csv").mkdir(parents=True)
    (survey_dir / "data" / "csv" / "retained.order.csv").write_text("key\nb\na\n", encoding="utf-8")
    (survey_dir / "taxonomy" / "readme" / "intro.md").write_text("Our intro.\n", encoding="utf-8")
    tax = load_taxonomy(survey_dir)
    (survey_dir / "data" / "csv" / "retained.order.csv").write_text("key\nc\n", encoding="utf-8")
    (survey_dir / "taxonomy" / "readme" / "intro.md").unlink()
    assert _source_rank(tax) == {"b": 0, "a": 1}
    parts = readme_parts(tax.texts_under("taxonomy/readme"))
    assert parts.intro == "Our intro."
    assert [h for h, _ in parts.sections] == ["Use the Toolkit"]
