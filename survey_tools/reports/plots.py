"""Figures from the statistics, as deterministic SVG and PNG bytes (matplotlib, Agg).

Which figures to draw is configuration (``plots:`` in the report configuration); each kind
reads the axes it is given. A figure is made in two steps: :func:`figures` computes what each
one shows (its labels, numbers and titles: a :class:`Figure`, cheap), and :meth:`Figure.draw`
draws that with matplotlib (the expensive part). The build keeps each figure's files under a
hash of what it shows, so a figure is drawn again only when its own numbers or labels change.
Determinism: a fixed SVG hash salt, no date or software metadata, text kept as text in SVG.
Colours come from the Okabe-Ito palette (safe for colour-blind readers) and the sequential
``cividis`` map.
"""

from __future__ import annotations

import io
import json
import textwrap
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from survey_tools.corpus.records import Corpus
from survey_tools.corpus.views import corpus_view
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.axes import resolve_axis
from survey_tools.reports.counting import Table, tabulate
from survey_tools.reports.living import ordered
from survey_tools.reports.report_config import ReportConfig
from survey_tools.reports.stats import Stats, compute_stats

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
KINDS = ("heatmap", "ladder", "modes", "stacked", "flow", "prisma")


@cache
def _pyplot() -> Any:
    # matplotlib (~300 ms) is imported only when figures are drawn, never by `survey validate`.
    import matplotlib.pyplot as plt

    # Agg draws into files, never a window, whatever the machine's default backend is (once:
    # switching closes every open figure).
    plt.switch_backend("Agg")
    # A label holding a character the font lacks (an emoji in a list's heading) is drawn with a
    # blank box; matplotlib's warning for each figure says nothing the user can act on.
    warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
    return plt


def _figure(width: float, height: float) -> Any:
    plt = _pyplot()
    plt.rcParams.update(
        {
            "svg.hashsalt": "survey-tools",
            "svg.fonttype": "none",
            "font.size": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return plt.figure(figsize=(width, height), dpi=100)


def _wrap(text: str, width: int) -> str:
    """Each line of ``text`` wrapped at ``width`` characters (a long label never leaves its box)."""
    return "\n".join(w for line in text.split("\n") for w in (textwrap.wrap(line, width) or [""]))


def _box(ax: Any, xy: tuple[float, float], w: float, h: float, colour: str) -> None:
    """A rounded box of the flow diagrams (pyplot has loaded matplotlib.patches)."""
    patches = _pyplot().matplotlib.patches
    ax.add_patch(patches.FancyBboxPatch(xy, w, h, boxstyle="round,pad=0.05", fc=colour, ec="#333333"))


def _save(fig: Any) -> tuple[bytes, bytes]:
    plt = _pyplot()
    svg, png = io.BytesIO(), io.BytesIO()
    # One tight bounding box for both files, measured once on the figure's own canvas (what
    # `bbox_inches="tight"` pads the same way): "tight" lays the figure out again for each
    # format, a third of the time of drawing the survey's six figures.
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(plt.rcParams["savefig.pad_inches"])
    fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches=box)
    fig.savefig(png, format="png", metadata={"Software": None}, dpi=110, bbox_inches=box)
    plt.close(fig)
    return svg.getvalue(), png.getvalue()


# --- what each kind shows (labels, numbers, titles: JSON-shaped) ------------------------------


def _heatmap_data(t: Table) -> dict[str, Any]:
    assert t.cols is not None
    # Not-applicable and untagged cells would dominate the colour scale: they are left out.
    rows = [r for r in t.row_values if r not in t.rows.sentinels]
    cols = [c for c in t.col_values if c not in t.cols.sentinels]
    return {
        "rows": [t.rows.label_of(r) for r in rows],
        "cols": [t.cols.label_of(c) for c in cols],
        "counts": [[t.count(r, c) for c in cols] for r in rows],
        "xlabel": t.cols.label,
        "ylabel": t.rows.label,
        "title": f"{t.rows.label} × {t.cols.label} (records; not-applicable left out)",
    }


def _ladder_data(t: Table, na: str, untagged: str) -> dict[str, Any]:
    vals = [v for v in t.row_values if v not in (na, untagged)]
    rest = [f"{s}: {t.count(s)}" for s in (na, untagged) if s in t.row_values and t.count(s)]
    return {
        "labels": [t.rows.label_of(v) for v in vals],
        "counts": [t.count(v) for v in vals],
        "xlabel": "records" + (f" (not shown: {', '.join(rest)})" if rest else ""),
        "title": f"{t.title}: fine to coarse",
    }


def _modes_data(t: Table, na: str, untagged: str) -> dict[str, Any]:
    assert t.cols is not None
    rows = [r for r in t.row_values if r not in (na, untagged)]
    modes = [c for c in t.col_values if c not in (na, untagged)]
    return {
        "rows": [t.rows.label_of(r) for r in rows],
        "modes": [t.cols.label_of(m) for m in modes],
        "counts": [[t.count(r, m) for r in rows] for m in modes],  # one list a mode
        "title": f"{t.title}: {' vs '.join(t.cols.label_of(m).lower() for m in modes)}",
    }


def _stacked_data(t: Table) -> dict[str, Any]:
    assert t.cols is not None
    xs = list(t.col_values)  # e.g. years
    stacks = [r for r in t.row_values if any(t.count(r, x) for x in xs)]
    return {
        "xs": [t.cols.label_of(x) for x in xs],
        "stacks": [t.rows.label_of(s) for s in stacks],
        "counts": [[t.count(s, x) for x in xs] for s in stacks],  # one list a stack
        "xlabel": t.cols.label,
        "title": f"Records per {t.cols.label.lower()} by {t.rows.label.lower()}",
    }


def _flow_data(stats: Stats, corpus: Corpus, field: str, total_key: str) -> dict[str, Any]:
    """A PRISMA-style flow: screened → excluded at each stage in order → retained. Every number
    is one the pages print: the headline counts (retained, the total) and the statistics' table
    of the stage field, so the figure and the text cannot disagree."""
    tax = corpus.taxonomy
    t = stats.table(field)
    retained = stats.headline.get(tax.retained.name, len(corpus.retained))
    screened = stats.headline.get(total_key, retained + len(corpus.excluded))
    stages = [(t.rows.label_of(v), t.count(v)) for v in t.row_values if v in t.rows.values and t.count(v) >= 0]
    return {
        "screened": screened,
        "stages": [[lab, n] for lab, n in stages if lab not in (tax.na, tax.untagged)],
        "retained": retained,
        "retained_label": tax.retained.label,
    }


def _prisma_data(stats: Stats, corpus: Corpus, field: str) -> dict[str, Any]:
    """The living list's PRISMA 2020 flow: identification (search runs), screening, inclusion."""
    flow = stats.living
    if flow is None:
        return {"flow": None}
    tax = corpus.taxonomy
    fams = {f.id: f.label for f in stats.protocol.families} if stats.protocol else {}
    stage_lines = [f"{lab}: {n}" for _k, lab, n in ordered(flow.excluded_by_stage, tax, field)]
    reason_field = stats.protocol.fields["reason"] if stats.protocol else "reason"
    reason_lines = [f"{lab}: {n}" for _k, lab, n in ordered(flow.excluded_by_reason, tax, reason_field)]
    return {
        "flow": {
            "identified": f"Records identified from {flow.source}\n{flow.runs} runs, {flow.first_run} to "
                          f"{flow.last_run}\nn = {flow.identified}",
            "hits": "Hits per query family\n" + "\n".join(f"{fams.get(k, k)}: {n}" for k, n in flow.per_family.items()),
            "duplicates": f"Duplicates removed (already retained, excluded or queued): n = {flow.duplicates}",
            "screened": f"Records screened\nn = {flow.screened}",
            "excluded": f"Records excluded: n = {flow.excluded}\n" + ("\n".join([*stage_lines, *reason_lines]) or "none"),
            "included": f"{tax.retained.label} (included)\nn = {flow.included}",
            "awaiting": f"Awaiting screening in the queue\nn = {flow.awaiting}",
        }
    }


# --- drawing what a kind shows ----------------------------------------------------------------


def _heatmap(d: Mapping[str, Any]) -> Any:
    data, rows, cols = d["counts"], d["rows"], d["cols"]
    fig = _figure(1.0 + 0.8 * len(cols), 1.0 + 0.45 * len(rows))
    ax = fig.add_subplot()
    top = max((max(r) for r in data), default=0) or 1
    im = ax.imshow(data, cmap="cividis", vmin=0, vmax=top, aspect="auto")
    ax.set_xticks(range(len(cols)), [_wrap(c, 18) for c in cols], rotation=35, ha="right")
    ax.set_yticks(range(len(rows)), [_wrap(r, 28) for r in rows])
    for i, row in enumerate(data):
        for j, n in enumerate(row):
            ax.text(j, i, str(n) if n else "·", ha="center", va="center", color="white" if n < top * 0.55 else "black")
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    ax.set_title(d["title"])
    ax.spines[:].set_visible(False)
    fig.colorbar(im, ax=ax, shrink=0.8, label="records")
    return fig


def _ladder(d: Mapping[str, Any]) -> Any:
    labels, counts = d["labels"], d["counts"]
    fig = _figure(7, 0.6 + 0.45 * len(labels))
    ax = fig.add_subplot()
    ys = list(range(len(labels)))
    ax.barh(ys, counts, color=OKABE_ITO[0])
    ax.set_yticks(ys, [_wrap(lab, 28) for lab in labels])  # a long label on two lines
    ax.invert_yaxis()  # finest unit on top, coarsest at the bottom
    for y, n in zip(ys, counts, strict=True):
        ax.text(n + 0.3, y, str(n), va="center")
    ax.set_xlabel(d["xlabel"])
    ax.set_title(d["title"])
    return fig


def _modes(d: Mapping[str, Any]) -> Any:
    rows = d["rows"]
    fig = _figure(7, 0.8 + 0.5 * len(rows))
    ax = fig.add_subplot()
    ys = list(range(len(rows)))
    left = [0] * len(rows)
    for k, (label, vals) in enumerate(zip(d["modes"], d["counts"], strict=True)):
        ax.barh(ys, vals, left=left, color=OKABE_ITO[k % len(OKABE_ITO)], label=label)
        for y, (x0, n) in enumerate(zip(left, vals, strict=True)):
            if n:
                ax.text(x0 + n / 2, y, str(n), ha="center", va="center", color="white" if k == 0 else "black")
        left = [a + b for a, b in zip(left, vals, strict=True)]
    ax.set_yticks(ys, [_wrap(r, 28) for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("records")
    ax.set_title(d["title"])
    ax.legend(frameon=False, loc="lower right")
    return fig


def _stacked(d: Mapping[str, Any]) -> Any:
    xs = d["xs"]
    fig = _figure(max(6.0, 0.55 * len(xs) + 2), 4.2)
    ax = fig.add_subplot()
    bottom = [0] * len(xs)
    pos = list(range(len(xs)))
    for k, (label, vals) in enumerate(zip(d["stacks"], d["counts"], strict=True)):
        ax.bar(pos, vals, bottom=bottom, color=OKABE_ITO[k % len(OKABE_ITO)], label=label, width=0.75)
        bottom = [a + b for a, b in zip(bottom, vals, strict=True)]
    for x, n in zip(pos, bottom, strict=True):
        ax.text(x, n + 0.3, str(n), ha="center")
    ax.set_xticks(pos, [_wrap(str(x), 18) for x in xs], rotation=45, ha="right")
    ax.set_ylabel("records")
    ax.set_xlabel(d["xlabel"])
    ax.set_title(d["title"])
    if d["stacks"]:  # an empty survey has nothing to name
        ax.legend(frameon=False, fontsize=8, loc="upper left")
    return fig


def _flow(d: Mapping[str, Any]) -> Any:
    """The edition's screening flow in one column (screened, then for each stage what it
    excluded and what remained, then the retained): narrow, so that its text stays legible
    in a phone's width, as the living flow's does."""
    rows: list[tuple[str, str]] = [(f"Records screened\nn = {d['screened']}", "#D9EAF7")]
    remaining = d["screened"]
    for lab, k in d["stages"]:
        remaining -= k
        rows.append((f"Excluded at {lab.lower()}: n = {k}", "#FBE3D6"))
        rows.append((f"Remaining after {lab.lower()}\nn = {remaining}", "#EEEEEE"))
    rows.append((f"{d['retained_label']}\nn = {d['retained']}", "#D4EDDA"))
    step = 1.0
    fig = _figure(4.2, 0.6 + 0.62 * len(rows))
    ax = fig.add_subplot()
    ax.set_xlim(0, 5.2)
    ax.set_ylim(-step * len(rows) + 0.3, 0.8)
    ax.axis("off")
    for i, (text, colour) in enumerate(rows):
        y = -step * i
        _box(ax, (0.3, y - 0.34), 4.6, 0.68, colour)
        ax.text(2.6, y, _wrap(text, 38), ha="center", va="center", fontsize=10)
        if i:
            ax.annotate("", xy=(2.6, y + 0.4), xytext=(2.6, y + step - 0.4),
                        arrowprops={"arrowstyle": "->", "color": "#333333"})
    ax.set_title("Screening flow (from the exclusion log)")
    return fig


# The living flow as one column of boxes, top to bottom (a side box indented under the step it
# leaves), every line wrapped to the box: drawn 4.5 inches wide (324 pt, less than a phone's
# column), its 10 pt text is shown at 10 px or more even in a 375 px window.
# (Identified less the duplicates is what was screened plus what still waits in the queue.)
_PRISMA_STEPS = (("identified", 0, "#D9EAF7"), ("hits", 1, "#F3F3F3"), ("duplicates", 1, "#FBE3D6"),
                 ("awaiting", 1, "#FFF4CE"), ("screened", 0, "#EEEEEE"), ("excluded", 1, "#FBE3D6"),
                 ("included", 0, "#D4EDDA"))
_LINE = 0.175  # a line of 10 pt text, in the figure's data units (inches)
_TITLE = 0.6  # room above the boxes for the two-line title
_PRISMA_WIDTH = 4.5


def _prisma(d: Mapping[str, Any]) -> Any:
    flow = d["flow"]
    title = "Living list: PRISMA 2020 flow\n(search runs and screening decisions)"
    if flow is None:
        fig = _figure(_PRISMA_WIDTH, 1.6)
        ax = fig.add_axes((0, 0, 1, 0.8))
        ax.axis("off")
        ax.text(0.5, 0.5, "No search has run yet (survey search)", ha="center", va="center", fontsize=11)
        fig.suptitle(title, fontsize=11)
        return fig
    boxes = [(_wrap(flow[key], 36 if indent else 41), indent, colour) for key, indent, colour in _PRISMA_STEPS]
    heights = [_LINE * (text.count("\n") + 1) + 0.2 for text, _i, _c in boxes]
    gap = 0.3
    total = sum(heights) + gap * (len(boxes) - 1)
    fig = _figure(_PRISMA_WIDTH, total + _TITLE)
    ax = fig.add_axes((0, 0, 1, total / (total + _TITLE)))
    ax.set_xlim(0, _PRISMA_WIDTH)
    ax.set_ylim(-total, 0)
    ax.axis("off")
    y = 0.0
    spine: list[tuple[float, float]] = []  # the main steps' top and bottom
    for (text, indent, colour), h in zip(boxes, heights, strict=True):
        x = 0.6 if indent else 0.05
        _box(ax, (x, y - h + 0.05), _PRISMA_WIDTH - 0.1 - x, h - 0.1, colour)
        ax.text(x + 0.1, y - h / 2, text, ha="left", va="center", fontsize=10)
        if indent:  # from the main line into the side box
            ax.annotate("", xy=(x, y - h / 2), xytext=(0.3, y - h / 2), arrowprops={"arrowstyle": "->", "color": "#333333"})
        else:
            spine.append((y, y - h))
        y -= h + gap
    for (_top, bottom), (top, _bottom) in zip(spine, spine[1:], strict=False):
        ax.annotate("", xy=(0.3, top), xytext=(0.3, bottom), arrowprops={"arrowstyle": "->", "color": "#333333"})
    fig.suptitle(title, fontsize=11)
    return fig


_DRAW: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "heatmap": _heatmap, "ladder": _ladder, "modes": _modes, "stacked": _stacked, "flow": _flow, "prisma": _prisma,
}


@dataclass(frozen=True)
class Figure:
    """One configured figure: its name and kind, and everything it shows (``data``, JSON-shaped)."""

    name: str
    kind: str
    data: Mapping[str, Any]

    def inputs(self) -> bytes:
        """What the figure's files are drawn from: equal bytes, equal files."""
        return json.dumps([self.kind, self.data], sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")

    def draw(self) -> tuple[bytes, bytes]:
        """The figure's SVG and PNG bytes."""
        return _save(_DRAW[self.kind](self.data))


@dataclass(frozen=True)
class Card:
    """The site's social card (``og:image``): the list's title, one line of what it is and its
    headline counts, drawn as a 1200 x 630 PNG (the size link previews crop to)."""

    title: str
    subtitle: str
    counts: tuple[str, ...]  # e.g. "131 retained papers"

    def inputs(self) -> bytes:
        return json.dumps(["card", self.title, self.subtitle, self.counts], ensure_ascii=False).encode("utf-8")

    def draw(self) -> tuple[bytes]:
        fig = _figure(12, 6.3)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, 12)
        ax.set_ylim(0, 6.3)
        ax.axis("off")
        ax.add_patch(_pyplot().matplotlib.patches.Rectangle((0, 0), 12, 0.35, fc=OKABE_ITO[0], ec="none"))
        ax.text(0.7, 5.5, "\n".join(textwrap.wrap(self.title, 34)[:3]), fontsize=40, weight="bold", va="top", color="#111111")
        ax.text(0.7, 3.1, "\n".join(textwrap.wrap(self.subtitle, 72)[:3]), fontsize=20, va="top", color="#444444")
        counts = "   ·   ".join(self.counts)
        ax.text(0.7, 1.0, counts, fontsize=24, va="center", color=OKABE_ITO[0], weight="bold")
        png = io.BytesIO()
        # Exactly 1200 x 630 pixels: no tight box, the figure's own size at 100 dpi.
        fig.savefig(png, format="png", metadata={"Software": None}, dpi=100)
        _pyplot().close(fig)
        return (png.getvalue(),)


def _bad(config: ReportConfig, i: int, key: str, msg: str) -> Problem:
    line, col = config.where(("plots", i, key))
    return Problem(config.path, line, col, f"plots[{i}].{key}", msg)


def figures(corpus: Corpus, stats: Stats, config: ReportConfig) -> list[Figure]:
    """What every configured figure shows, in configuration order (nothing is drawn)."""
    out: list[Figure] = []
    problems: list[Problem] = []
    for i, spec in enumerate(config.plots):
        kind, name = spec.get("kind"), str(spec.get("name", f"plot-{i + 1}"))
        if kind not in KINDS:
            problems.append(_bad(config, i, "kind", f"unknown kind {kind!r} (known: {', '.join(KINDS)})"))
            continue
        view = str(spec.get("view") or "")
        try:
            if view:  # a figure of one edition: its own records and counts
                vcorpus = corpus_view(corpus, view)
                data = _data(kind, spec, vcorpus, compute_stats(vcorpus, config, (stats.protocol, stats.living)), config)
            else:
                data = _data(kind, spec, corpus, stats, config)
        except KeyError as err:
            problems.append(_bad(config, i, "kind", f"{err.args[0]}"))
            continue
        out.append(Figure(name, str(kind), data))
    if problems:
        raise InvalidInput(problems, f"{config.path} is invalid")
    return out


def figure_paths(fig: Figure, prefix: str = "reports/figures") -> tuple[str, str]:
    return f"{prefix}/{fig.name}.svg", f"{prefix}/{fig.name}.png"


def plot_outputs(corpus: Corpus, stats: Stats, config: ReportConfig, prefix: str = "reports/figures") -> dict[str, bytes]:
    """Draw every configured figure; ``{path: bytes}`` for its SVG and PNG."""
    out: dict[str, bytes] = {}
    for fig in figures(corpus, stats, config):
        svg_path, png_path = figure_paths(fig, prefix)
        out[svg_path], out[png_path] = fig.draw()
    return out


def _data(kind: str, spec: Mapping[str, Any], corpus: Corpus, stats: Stats, config: ReportConfig) -> dict[str, Any]:
    tax = corpus.taxonomy
    if kind == "heatmap":
        ra, ca = resolve_axis(tax, str(spec["rows"])), resolve_axis(tax, str(spec["cols"]))
        return _heatmap_data(tabulate(tax, corpus.of(ra.collection), ra, ca))
    if kind == "ladder":
        return _ladder_data(stats.table(str(spec["field"])), tax.na, tax.untagged)
    if kind == "modes":
        return _modes_data(stats.table(str(spec["field"])), tax.na, tax.untagged)
    if kind == "stacked":
        ra, ca = resolve_axis(tax, str(spec["stack"])), resolve_axis(tax, str(spec["x"]))
        return _stacked_data(tabulate(tax, corpus.of(ra.collection), ra, ca))
    if kind == "prisma":
        return _prisma_data(stats, corpus, str(spec["field"]))
    return _flow_data(stats, corpus, str(spec["field"]), config.headline_total)
