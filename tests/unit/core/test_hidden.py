"""The one definition of hidden characters (survey_tools.hidden) and what each use removes or
reports: a record's value cleaned and read back (yaml_words), refused in a record (checks), the
bot's comment (review/diff.visible), an imported cell (csvio), a link (net/hrefs)."""

from __future__ import annotations

import pytest

from survey_tools import hidden
from survey_tools.adopt.csvio import without_invisible
from survey_tools.corpus.checks import _control_problem
from survey_tools.corpus.yaml_words import INVISIBLE, cleaned
from survey_tools.net.hrefs import href_problem
from survey_tools.review.diff import visible

# One character of each kind, with its class, and whether each use removes (or reports) it:
# (cleaned, checks, comment, imported cell, link)
CASES = [
    ("\u061c", "bidi", (True, True, True, False, False)),  # Arabic letter mark
    ("\u200e", "bidi", (True, True, True, False, False)),
    ("\u200f", "bidi", (True, True, True, False, False)),
    ("\u202e", "bidi", (True, True, True, False, False)),
    ("\u2066", "bidi", (True, True, True, False, False)),
    ("\u2069", "bidi", (True, True, True, False, False)),
    ("\u200b", "zero-width", (True, True, True, True, False)),
    ("\u200d", "zero-width", (True, True, True, True, False)),
    ("\u2060", "zero-width", (True, True, True, True, False)),
    ("\u2064", "zero-width", (True, True, True, True, False)),
    ("\ufeff", "zero-width", (True, True, True, True, False)),
    ("\u00ad", "zero-width", (True, True, True, True, False)),
    ("\u180e", "zero-width", (True, True, True, True, False)),
    ("\u0600", "format", (False, True, True, False, False)),
    ("\U000e0041", "format", (False, True, True, False, False)),  # TAG LATIN CAPITAL LETTER A
    ("\u206a", "format", (False, True, True, False, False)),
    ("\u00a0", "look-alike spaces", (True, False, False, False, False)),  # made a space
    ("\u3000", "look-alike spaces", (True, False, False, False, False)),
    ("\x07", "C0", (False, True, True, False, True)),
    ("\x00", "C0", (False, True, True, False, True)),
    ("\x7f", "C1", (False, True, True, False, True)),
    ("\x85", "C1", (False, True, True, False, True)),
    ("\x9f", "C1", (False, True, True, False, True)),
]


@pytest.mark.parametrize(("ch", "klass", "uses"), CASES, ids=[f"U+{ord(c[0]):04X}" for c in CASES])
def test_each_use_removes_the_classes_it_names(
    ch: str, klass: str, uses: tuple[bool, bool, bool, bool, bool]
) -> None:
    found = hidden.class_of(ch)
    assert found is not None and found.name == klass
    text = f"Agents{ch}Everywhere"
    in_cleaned, in_checks, in_comment, in_cell, in_link = uses
    assert (cleaned(text) != text) is in_cleaned
    assert (_control_problem(text, multiline=False) is not None) is in_checks
    assert (visible(text) == "AgentsEverywhere") is in_comment
    assert (without_invisible(text) == "AgentsEverywhere") is in_cell
    problem = href_problem(f"https://example.org/{ch}x")
    assert (problem is not None and "control character" in problem) is in_link


def test_the_comment_keeps_tab_and_line_feed_and_drops_the_other_c0() -> None:
    assert visible("a\tb\nc\rd\x1be") == "a\tb\ncde"


def test_the_arabic_letter_mark_is_cleaned_and_read_back() -> None:
    assert INVISIBLE.search("x\u061cy") is not None
    assert cleaned("A\u061c title") == "A title"


def test_ordinary_text_is_in_no_class() -> None:
    for ch in "aé中\u05d0\u0627 \t\n-":
        if ch in "\t\n":
            assert hidden.class_of(ch) is hidden.C0
        else:
            assert hidden.class_of(ch) is None, ch
    assert hidden.without("plain text", *hidden.CLASSES) == "plain text"


def test_keep_leaves_the_named_characters() -> None:
    assert hidden.without("a\tb\x01", hidden.C0, keep="\t") == "a\tb"
