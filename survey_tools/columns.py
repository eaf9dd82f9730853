"""The one column aligner: cells padded to their column's width, for every table the toolkit
prints or writes (Markdown tables in reports/tables.py, the link report, the trace metrics).

It only pads; the caller joins the cells its own way (``" | "`` with escaping for Markdown, two
spaces for a terminal).
"""

from __future__ import annotations

from collections.abc import Sequence


def pad_columns(
    rows: Sequence[Sequence[str]], align: str = "", *, minimum: int = 0, free_last: bool = False
) -> list[list[str]]:
    """Each row's cells padded to the widest cell of their column (at least ``minimum``):
    ``align`` has one letter per column, "l" (the default for a missing letter) or "r";
    ``free_last`` leaves the last column as it is (a long last cell widens nothing)."""
    if not rows:
        return []
    widths = column_widths(rows, minimum)
    letters = align.ljust(len(widths), "l")
    if free_last:
        widths[-1] = 0
    return [
        [
            c.rjust(w) if a == "r" else c.ljust(w)
            for c, w, a in zip(r, widths, letters, strict=False)
        ]
        for r in rows
    ]


def column_widths(rows: Sequence[Sequence[str]], minimum: int = 0) -> list[int]:
    """The width of each column: its widest cell, at least ``minimum``."""
    cols = max((len(r) for r in rows), default=0)
    return [max(minimum, *(len(r[i]) for r in rows if i < len(r))) for i in range(cols)]


__all__ = ["column_widths", "pad_columns"]
