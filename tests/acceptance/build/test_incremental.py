"""The incremental build: unchanged inputs are not computed again, a figure is drawn again only
when what it shows changed, and the files on disk are always byte for byte those of a full build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from survey_tools.build import build, plan_build
from survey_tools.buildcache import MANIFEST, outputs_folder
from survey_tools.cachedir import cache_dir


@pytest.fixture
def cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("SURVEY_NO_CACHE", "0")
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _full_build_equals_disk(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every output of a build with no cache at all is the file on disk."""
    with monkeypatch.context() as m:
        m.setenv("SURVEY_NO_CACHE", "1")
        outputs = plan_build(root).outputs
    differ = [rel for rel, data in outputs.items() if (root / rel).read_bytes() != data]
    assert differ == []


def _edit(path: Path, pattern: str, repl: str) -> None:
    text = path.read_text(encoding="utf-8")
    new, n = re.subn(pattern, repl, text, count=1, flags=re.M)
    assert n == 1, pattern
    path.write_text(new, encoding="utf-8")


def test_incremental_builds_write_what_a_full_build_writes(
    survey: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = build(survey)
    assert first.context is not None and first.written
    assert (cache_dir(survey) / MANIFEST).is_file()
    figures = _figure_entries()
    assert sorted(figures) == NAMES  # one cache entry a figure, under what it shows

    # Unchanged: validated, then nothing computed (no survey value) and nothing written.
    again = build(survey, check=True)
    assert again.ok and again.context is None and again.outputs == first.outputs

    # A summary changes: the README and the page change, the figures come from the cache.
    record = survey / "corpus" / "agent-lightning.yaml"
    _edit(record, r"^summary: .*$", "summary: A sentence written for the incremental build test.")
    edited = build(survey)
    assert "README.md" in edited.written
    assert not any(rel.startswith("reports/figures/") for rel in edited.written)
    assert _figure_entries() == figures
    _full_build_equals_disk(survey, monkeypatch)

    # A tag no figure counts changes: the tables and pages change, no figure is drawn again.
    _edit(record, r"^verified: .*$", "verified: partial")
    retagged = build(survey)
    assert retagged.context is not None and "reports/STATS.md" in retagged.written
    assert _figure_entries() == figures
    _full_build_equals_disk(survey, monkeypatch)

    # A tag one figure counts changes (records per year by category): that figure alone is
    # drawn again (a new cache entry beside its old one), and still equals a full build's.
    _edit(record, r"^category: framework$", "category: benchmark")
    recategorised = build(survey)
    assert sorted(rel for rel in recategorised.written if rel.startswith("reports/figures/")) == [
        "reports/figures/papers-per-year.png", "reports/figures/papers-per-year.svg"]
    now = _figure_entries()
    assert {n: now[n] for n in NAMES if n != "papers-per-year"} == {
        n: figures[n] for n in NAMES if n != "papers-per-year"}
    assert len(now["papers-per-year"]) == 2 and figures["papers-per-year"][0] in now["papers-per-year"]
    _full_build_equals_disk(survey, monkeypatch)
    assert build(survey, check=True).ok


# The figures, and the site's social card (drawn in the same generator, keyed by its title and counts).
NAMES = ["card", "credit-ladder", "living-flow", "papers-per-year", "reward-credit-heatmap", "screening-flow",
         "subdecision-coverage"]


def _figure_entries() -> dict[str, list[str]]:
    """The figures' cache entries, by figure name."""
    out: dict[str, list[str]] = {}
    for entry in sorted(outputs_folder().glob("figures-*.json")):
        name = re.fullmatch(r"figures-(.+)-[0-9a-f]{40}\.json", entry.name)
        assert name, entry.name
        out.setdefault(name[1], []).append(entry.name)
    return out


def test_a_damaged_cache_is_ignored(survey: Path, cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(survey)
    for entry in outputs_folder().glob("*.json"):
        entry.write_text('{"reports/figures/x.svg": {"hash": "0", "data": "AAAA"}}', encoding="utf-8")
    (cache_dir(survey) / MANIFEST).write_text("not json", encoding="utf-8")
    (survey / "README.md").write_text("stale\n", encoding="utf-8")
    result = build(survey)
    assert result.written == ("README.md",)
    _full_build_equals_disk(survey, monkeypatch)


def test_an_output_edited_by_hand_is_found_stale(survey: Path, cached: Path) -> None:
    build(survey)
    (survey / "reports" / "STATS.md").write_text("edited by hand\n", encoding="utf-8")
    result = build(survey, check=True)
    assert [s.path for s in result.stale] == ["reports/STATS.md"]


def test_toolkit_digest_covers_every_shipped_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit to any file of the package (a page module .mjs included) makes cached outputs
    stale; compiled bytecode does not."""
    import survey_tools.buildcache as buildcache

    pkg = tmp_path / "pkg"
    (pkg / "render" / "js").mkdir(parents=True)
    (pkg / "__pycache__").mkdir()
    (pkg / "mod.py").write_text("X = 1\n")
    module = pkg / "render" / "js" / "list.mjs"
    module.write_text("export const a = 1;\n")
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"one")
    monkeypatch.setattr(buildcache, "PACKAGE", pkg)

    def digest() -> str:  # computed once per process otherwise
        buildcache.toolkit_digest.cache_clear()
        buildcache.source_digest.cache_clear()
        return buildcache.toolkit_digest()

    before = digest()
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"two")
    assert digest() == before
    module.write_text("export const a = 2;\n")
    assert digest() != before
    buildcache.toolkit_digest.cache_clear()
    buildcache.source_digest.cache_clear()


def test_a_part_keeps_its_newest_entries_and_leaves_other_parts_alone(cached: Path) -> None:
    """Each part keeps its newest KEEP_OUTPUTS entries; pruning one part never removes the entries
    of another part whose name merely starts with its name ("credit" and "credit-ladder")."""
    from survey_tools.buildcache import KEEP_OUTPUTS, generator_key, load_outputs, store_outputs

    other = generator_key("figures-credit-ladder", b"kept")
    store_outputs("figures-credit-ladder", other, {"reports/figures/credit-ladder.svg": b"<svg/>"})
    keys = []
    for i in range(KEEP_OUTPUTS + 3):
        keys.append(generator_key("figures-credit", str(i).encode()))
        store_outputs("figures-credit", keys[-1], {"reports/figures/credit.svg": str(i).encode()})
    assert load_outputs("figures-credit-ladder", other) == {"reports/figures/credit-ladder.svg": b"<svg/>"}
    # The last one written is there; in all, KEEP_OUTPUTS of this part's entries are.
    assert load_outputs("figures-credit", keys[-1]) == {"reports/figures/credit.svg": str(KEEP_OUTPUTS + 2).encode()}
    assert len([k for k in keys if load_outputs("figures-credit", k) is not None]) == KEEP_OUTPUTS
