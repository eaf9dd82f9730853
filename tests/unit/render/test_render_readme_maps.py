"""README maps as people read them: records linked to their entries, keys that do not break at
hyphens, "N more" opening the page's filtered view, gap totals that add up to the rows shown."""

from __future__ import annotations

import re

from helpers.render_support import REPO

from survey_tools.corpus.taxonomy import load_taxonomy


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start): text.index(end, text.index(start))]


def test_every_key_in_a_map_links_to_its_entry() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    maps = section(readme, "## Survey Maps", "### Gaps")
    links = re.findall(r"\[([a-z0-9\u2011]+)\]\(#(r-[a-z0-9-]+-\d+)\)", maps)
    assert len(links) > 50
    anchors = set(re.findall(r'<a id="(r-[a-z0-9-]+-\d+)"></a>', readme))
    for shown, anchor in links:
        assert anchor in anchors, anchor
        key = shown.replace("\u2011", "-")
        assert anchor.startswith(f"r-{key}-")
        # The anchor sits on the record's own entry (its key follows on the same line).
        line = next(ln for ln in readme.splitlines() if f'<a id="{anchor}">' in ln)
        assert f"`{key}`" in line
        assert "-" not in shown  # non-breaking hyphens: "kimi-k2-6" stays on one line
    # No map cell is an unlinked code span any more.
    assert not re.search(r"\| `[a-z0-9-]+`", maps)


def test_more_links_open_the_page_filtered_to_the_cell() -> None:
    import json

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    maps = section(readme, "## Survey Maps", "### Gaps")
    # The link goes to the published list page (survey.site.url), whose file is the site's index.
    site = load_taxonomy(REPO).survey["site"]["url"].rstrip("/")
    more = re.findall(
        rf"\[(\d+) more\]\(({re.escape(site)}/)#([a-z_]+)=([A-Za-z0-9_:]+)\)", maps
    )
    assert more
    stats = json.loads((REPO / "reports" / "stats.json").read_text(encoding="utf-8"))
    tables = {**stats["fields"], **stats["groups"]}
    assert (REPO / "reports" / "site" / "index.html").is_file()
    for n, _page, key, value in more:
        counts = tables[key]["counts"]
        total = counts[value.split(":")[0]][value.split(":")[1]] if ":" in value else counts[value]
        assert int(n) == total - 3  # three named, the rest behind the link
    # The widest table (sub-decisions) names at most three records per cell.
    sub = section(maps, "### Orchestration Sub-decisions", "### Topologies")
    for row in sub.splitlines()[2:]:
        for cell in row.split("|")[1:-1]:
            assert cell.count("](#r-") <= 3


def test_gap_totals_add_up_to_the_rows_shown() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    gaps = section(readme, "### Gaps", "### Figures")
    assert "not applicable or untagged" in gaps
    for table in re.findall(r"(?:^\|.*\|\n)+", gaps, re.M):
        rows = [[c.strip() for c in ln.split("|")[1:-1]] for ln in table.strip().splitlines()[2:]]
        body, total = rows[:-1], rows[-1]
        assert total[0] == "total"

        def n(cell: str) -> int:
            return int(re.sub(r"\*\*|\\\[.*", "", cell).strip().split(" ")[0])

        multi = "Orchestration sub" in body[0][0] or any(r[0].startswith("O1") for r in body)
        if multi:
            continue  # a record touches several sub-decisions: rows overlap by design
        for col in range(1, len(total)):
            assert sum(n(r[col]) for r in body) == n(total[col]), (table[:80], col)
