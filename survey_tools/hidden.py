"""The one definition of the characters that do not show as what they are, in named classes.

Each use picks the classes it removes or reports, so two uses differ only by a class they name,
never by a code point one list forgot (U+061C, the Arabic letter mark, was missing from one):

========================  ====================================================================
``BIDI``                  bidirectional controls: the marks (U+200E, U+200F, U+061C), the
                          embeddings and overrides (U+202A..U+202E), the isolates
                          (U+2066..U+2069); U+202E turns "txt.exe" into "exe.txt" on screen
``ZERO_WIDTH``            what shows as nothing: zero-width space, non-joiner and joiner, the
                          word joiner and invisible operators, the BOM, the soft hyphen, the
                          Mongolian vowel separator
``FORMAT``                the other invisible format characters (category Cf): Arabic number
                          signs, the deprecated format controls, interlinear annotation, and
                          the tag characters that can carry hidden ASCII
``LOOKALIKE_SPACES``      spaces that look like a space and are not one (no-break, narrow
                          no-break, figure, thin, ideographic)
``C0``                    the C0 controls U+0000..U+001F (tab and line feed among them: a use
                          that keeps them says so with ``keep``)
``C1``                    DEL and the C1 controls U+007F..U+009F
========================  ====================================================================

The uses: ``corpus/yaml_words.INVISIBLE`` (a record's value read back and cleaned: BIDI and
ZERO_WIDTH), ``corpus/checks._CONTROL`` (refused in any record: every class but the spaces, plus
what XML forbids), ``review/diff.visible`` (a stranger's text in the bot's comment: every class
but the spaces, tab and line feed kept), ``adopt/csvio.without_invisible`` (an imported cell:
ZERO_WIDTH), ``net/hrefs`` (a link: C0 and C1). ``tests/unit/core/test_hidden.py`` pins what each
removes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class CharClass:
    """A named class of hidden characters: ``chars`` is the body of a regex character class."""

    name: str
    chars: str


BIDI = CharClass("bidi", "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069")
ZERO_WIDTH = CharClass("zero-width", "\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff")
FORMAT = CharClass(
    "format", "\u0600-\u0605\u06dd\u070f\u206a-\u206f\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f"
)
C0 = CharClass("C0", "\x00-\x1f")
C1 = CharClass("C1", "\x7f-\x9f")
# Each with the words a message names it by.
LOOKALIKE_SPACE_WORDS = {
    "\u00a0": "a no-break space",
    "\u202f": "a narrow no-break space",
    "\u2007": "a figure space",
    "\u2009": "a thin space",
    "\u3000": "an ideographic space",
}
LOOKALIKE_SPACES = CharClass("look-alike spaces", "".join(LOOKALIKE_SPACE_WORDS))
CLASSES = (BIDI, ZERO_WIDTH, FORMAT, LOOKALIKE_SPACES, C0, C1)


@cache
def pattern(*classes: CharClass, keep: str = "", extra: str = "") -> re.Pattern[str]:
    """One compiled class of every character of ``classes`` (and the regex class body
    ``extra``), less the characters of ``keep`` (e.g. ``"\\t\\n"``)."""
    body = "".join(c.chars for c in classes) + extra
    if keep:
        return re.compile(f"(?![{re.escape(keep)}])[{body}]")
    return re.compile(f"[{body}]")


def class_of(ch: str) -> CharClass | None:
    """The class ``ch`` belongs to, or None for a character that shows as itself."""
    for c in CLASSES:
        if pattern(c).match(ch):
            return c
    return None


def without(text: str, *classes: CharClass, keep: str = "") -> str:
    """``text`` with every character of ``classes`` (less ``keep``) removed."""
    return pattern(*classes, keep=keep).sub("", text)
