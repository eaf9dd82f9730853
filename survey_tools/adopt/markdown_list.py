"""A list kept as a Markdown README (an awesome list, a paper list) read through its token tree.

markdown-it-py parses the file (CommonMark and tables); the structure comes from the tree, never
from line patterns: headings give the ``section`` of the entries under them, list items (bullet
or numbered, at any depth), table rows and headings that are themselves a linked title give the
entries. Within one entry the inline tokens say what each part is:

- the title is the first bold text that is more than a date (linked or not), else the first
  link that is not a label such as ``paper`` or ``code`` nor a badge, else the item's leading
  text when the item links a paper by label (``Title. [[pdf](url)]``);
- a leading date (``[2023/04]``, ``**[2026.05.12]**``) gives ``date`` and ``year``; an item
  that is only a date passes it to the entries nested under it;
- italic text gives the authors (names joined by commas or "and", or "et al.") and the venue;
  a parenthesis after the title gives the venue too;
- labelled links (``[[paper](url)]``, ``[[code](url)]``, ``[[project](url)]``) and badges (an
  image inside a link) become links: ``links`` holds every one (the paper first), ``code`` and
  ``project`` the first of their kind;
- the rest of the text, and nested items that are not entries, become the ``description``.

A paper listed under several headings is one row whose ``section`` names each of them. The
list's title is its first heading (or an HTML ``<h1>``); the text outside the entries (the
introduction, how to cite, the licence) is kept, as written, in :attr:`Table.prose`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from survey_tools.adopt.entries import entries_table
from survey_tools.adopt.table import Row, Table, filled, read_limits, too_many
from survey_tools.corpus.titles import normalize_title
from survey_tools.errors import InvalidInput, Problem

# Link texts that name what a link is rather than the work: the work's title is elsewhere.
_PAPER_LABELS = frozenset(
    [
        "paper",
        "pdf",
        "arxiv",
        "doi",
        "openreview",
        "link",
        "acl",
        "abs",
        "article",
        "preprint",
        "proceedings",
        "url",
        "html",
        "pubmed",
        "semantic scholar",
        "springer",
        "ieee",
        "acm",
        "official",
        "publication",
        "full text",
        "download",
    ]
)
_CODE_LABELS = frozenset(
    [
        "code",
        "github",
        "repo",
        "repository",
        "implementation",
        "source",
        "source code",
        "official code",
        "codes",
        "gitlab",
        "huggingface",
        "hf",
        "model",
        "models",
        "weights",
    ]
)
_PROJECT_LABELS = frozenset(
    [
        "project",
        "project page",
        "homepage",
        "home page",
        "website",
        "page",
        "site",
        "demo",
        "blog",
        "webpage",
        "web",
        "video",
        "slides",
        "poster",
        "talk",
        "dataset",
        "data",
        "benchmark",
        "leaderboard",
        "tweet",
        "twitter",
        "bib",
        "bibtex",
        "citation",
        "cite",
        "notes",
        "note",
        "zhihu",
        "medium",
        "youtube",
        "colab",
        "docs",
        "api",
    ]
)
_LABELS = _PAPER_LABELS | _CODE_LABELS | _PROJECT_LABELS
# Headings of the parts of a list that are about the list itself, not entries of it.
# Parts about the list that some lists fill with works (the surveys of the field): their items
# written as works (a byline: authors or a venue) are entries, the rest stays the list's prose.
_OVERVIEW = frozenset(["overview", "introduction", "intro", "surveys", "survey"])

_ABOUT = frozenset(
    [
        "contents",
        "content",
        "table of contents",
        "toc",
        "news",
        "updates",
        "update",
        "changelog",
        "contributing",
        "contribute",
        "contribution",
        "contributions",
        "contributors",
        "license",
        "licence",
        "citation",
        "citations",
        "cite",
        "how to cite",
        "acknowledgement",
        "acknowledgements",
        "acknowledgment",
        "acknowledgments",
        "contact",
        "contacts",
        "star history",
        "stars",
        "maintainers",
        "related lists",
        "related",
        "footnotes",
        "introduction",
        "intro",
        "overview",
        "about",
        "todo",
        "to do",
        "community",
        "sponsors",
        "star",
        "disclaimer",
        "usage",
        "faq",
    ]
)
# A date as lists write it before an entry: [2023/04], 2023.04.12, (2023-4).
_DATE = re.compile(r"^\W*((?:19|20)\d\d)(?:[./-](\d{1,2}))?(?:[./-](\d{1,2}))?\W*")
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_LETTER = re.compile(r"[^\W\d_]")
_SEPARATORS = " \t-–—:|,;."
# What follows a title when it is only where and when: "Arxiv 2023.", "NeurIPS 2024", "2026."
_SHORT_VENUE = re.compile(r"^((?:[^\W\d][\w&'+-]*\s){0,5}(?:19|20)\d\d)\.?$")
_LEADING_VENUE = re.compile(r"^((?:[^\W\d][\w&'+-]*\s){1,5}(?:19|20)\d\d)\.\s+(.+)$")
_DAY_DATE = re.compile(r"(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+((?:19|20)\d\d)")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_YEAR_HEADING = re.compile(r"^\W*((?:19|20)\d\d)\b(?:\s+[A-Za-z]+)?\W*$")
_LABELLED = re.compile(r"^\s*[^\W\d][\w &/-]{0,24}:\s*\S")
# The labels of the list being read, by their shape (read_markdown sets them, _is_label reads them).
_SHAPE_LABELS: ContextVar[frozenset[str]] = ContextVar("shape_labels", default=frozenset())
_ET_AL = re.compile(r"\bet\.?\s*al\.?", re.I)
_AFFILIATION = re.compile(r"\s*\([^)]*\)")


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


@dataclass
class _Link:
    text: str
    href: str
    badge: bool  # an image inside the link and no text
    bold: bool


@dataclass
class _Inline:
    """One paragraph's inline tokens, sorted into what a list entry is made of."""

    plain: list[str] = field(default_factory=list)  # text outside links, bold and italics
    bold: list[tuple[str, str]] = field(default_factory=list)  # (text, href of a link inside)
    italic: list[str] = field(default_factory=list)
    links: list[_Link] = field(default_factory=list)
    text: str = ""  # everything as plain text
    lead: str = ""  # the plain text before the first link


def inline_text(tokens: Sequence[Token]) -> str:
    """Inline tokens as plain text: links become their text, images (badges) go."""
    out = []
    for t in tokens:
        if t.type in ("text", "code_inline"):
            out.append(t.content)
        elif t.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return " ".join("".join(out).split())


def _sort_inline(tokens: Sequence[Token]) -> _Inline:
    out = _Inline()
    bold = italic = 0
    link: dict[str, Any] | None = None
    run: list[str] = []  # the text of the bold run being read
    for t in tokens:
        if t.type == "strong_open":
            bold, run = bold + 1, []
        elif t.type == "strong_close":
            bold = max(0, bold - 1)
            href = next((lk.href for lk in reversed(out.links) if lk.bold), "") if out.links else ""
            out.bold.append((" ".join("".join(run).split()), href if _bold_link(out, run) else ""))
        elif t.type == "em_open":
            italic += 1
            out.italic.append("")
        elif t.type == "em_close":
            italic = max(0, italic - 1)
        elif t.type == "link_open":
            link = {"href": str(t.attrs.get("href", "")), "text": [], "image": False}
        elif t.type == "link_close" and link is not None:
            text = " ".join("".join(link["text"]).split())
            out.links.append(_Link(text, link["href"], link["image"] and not text, bold > 0))
            link = None
        elif t.type == "image":
            if link is not None:
                link["image"] = True
        elif t.type in ("text", "code_inline", "softbreak", "hardbreak"):
            piece = " " if t.type.endswith("break") else t.content
            if link is not None:
                link["text"].append(piece)
            if bold:
                run.append(piece)
            elif italic and out.italic:
                out.italic[-1] += piece
            elif link is None:
                out.plain.append(piece)
                if not out.links:
                    out.lead += piece
    out.italic = [" ".join(i.split()) for i in out.italic if i.strip()]
    out.text = inline_text(tokens)
    return out


def _bold_link(found: _Inline, run: list[str]) -> bool:
    # the bold run is a link's text (**[Title](url)**) when its last bold link's text is all of it
    text = " ".join("".join(run).split())
    return any(lk.bold and lk.text == text for lk in found.links)


def _label(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _is_label(link: _Link) -> bool:
    name = _label(link.text)
    return link.badge or not name or name in _LABELS or len(name) <= 2 or name in _SHAPE_LABELS.get()


def _date(text: str) -> tuple[str, str, str]:
    """(date, year, rest) of a text that starts with a date; ("", "", text) otherwise."""
    m = _DATE.match(text)
    if not m or (m.group(2) is None and not text.lstrip().startswith(("[", "("))):
        return "", "", text
    year, month, day = m.group(1), m.group(2), m.group(3)
    if month and not 1 <= int(month) <= 12:
        return "", "", text
    date = (
        year
        + (f"-{int(month):02d}" if month else "")
        + (f"-{int(day):02d}" if month and day else "")
    )
    return date, year, text[m.end() :]


def _substantial(text: str) -> bool:
    _, _, rest = _date(text)
    return len(_LETTER.findall(rest)) >= 3 and _label(rest) not in _LABELS


@dataclass
class Entry:
    """One entry as the list gives it."""

    line: int
    title: str
    links: list[str] = field(default_factory=list)
    code: str = ""
    project: str = ""
    date: str = ""
    year: str = ""
    venue: str = ""
    authors: list[str] = field(default_factory=list)
    description: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)


def _anchor(href: str) -> bool:
    """A link to a place in the list itself (``#part``, ``./#part``): a table of contents' item,
    never a work."""
    try:
        parts = urlsplit(href)
    except ValueError:  # an address urllib cannot take apart ("http://[x"): no anchor
        return False
    return bool(parts.fragment) and not parts.scheme and not parts.netloc and parts.path in ("", ".", "./")


def _title(found: _Inline) -> tuple[str, str]:
    """(title, its link) of an item; ("", "") when it names no work."""
    for text, href in found.bold:
        # [**EoH** — Full title](url): the bold part is the link's name, the title all of it
        whole = next((lk for lk in found.links if text and text in lk.text and lk.text != text), None)
        if whole is not None and _substantial(whole.text) and _followable(whole.href):
            return whole.text.strip(" *").rstrip("."), whole.href
        if _substantial(text) and not _anchor(href):
            return _date(text)[2].strip(_SEPARATORS + "*"), href
    lead = _date(" ".join(found.lead.split()))[2].strip(_SEPARATORS + "[(")
    for lk in found.links:
        if _substantial(lead) and len(lead) > len(lk.text) and len(lk.text.split()) <= 4:
            # "Some Title, Doe et al. [blog in Chinese](url)": the words before a short link
            # are the title, the link a label by its shape
            return lead, lk.href if _followable(lk.href) else ""
        if not _is_label(lk) and _substantial(lk.text):
            return (
                ("", "") if _anchor(lk.href) else (lk.text.strip(" *").rstrip("."), lk.href)
            )
    if any(_is_label(lk) and not lk.badge for lk in found.links):
        lead = _date(re.sub(r"\[\s*\]|\(\s*\)", " ", "".join(found.plain)).strip())[2]
        lead = re.split(r"\s\[|\[\s*$", lead)[0].strip(_SEPARATORS + "[(")
        if _substantial(lead):
            return lead, ""
    return "", ""


def _people(text: str) -> tuple[list[str], str]:
    """(authors, venue) of an italic run: ``Jane Doe, John Roe et al. NeurIPS`` -> names, venue."""
    text = text.strip(" .,;")
    parts = _ET_AL.split(text, maxsplit=1)
    if len(parts) == 2:
        names, venue = parts[0], parts[1].strip(" .,;")
    elif "," in text or " and " in text or " & " in text:
        names, venue = text, ""
        head, dot, tail = text.rpartition(". ")
        if (
            dot
            and (_YEAR.search(tail) or re.fullmatch(r"[A-Z][A-Za-z-]*[A-Z]\w*", tail))
            and len(tail.split()) <= 6
        ):
            names, venue = head, tail  # "Jane Doe, Bo Li. ICML 2023"
    else:
        return [], text
    names = _AFFILIATION.sub("", names)
    # "Doe, J. and Roe, K.": names joined by "and" (or ";") may hold a comma each; else commas join
    split: list[str] = []
    for part in re.split(r"\s+and\s+|\s*&\s*|;\s*", names):
        pieces = [p.strip() for p in part.split(",")]
        # "Doe, J." is one name written Last, First; "Jane Doe, John Roe" is two
        whole = len(pieces) == 2 and len(pieces[0].split()) == 1 and len(pieces[1].split()) <= 2
        split += [part] if whole else pieces
    out = [n.strip(" ,;") for n in split]
    # a sentence's full stop goes, an initial's stays ("Doe, J.")
    out = [n[:-1] if n.endswith(".") and not re.search(r"\b\w\.$", n) else n for n in out]
    return [n for n in out if n.strip(" .")], venue


def _followable(href: str) -> bool:
    """An address a reader of the adopted list can follow: absolute http(s). A list's own paths
    ('papers/x.pdf', '#top', a template's 'url' left in) point into that list's repository."""
    try:
        parts = urlsplit(href)
    except ValueError:  # an unclosed IPv6 bracket ("http://[x"): nobody can follow it
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _add_link(entry: Entry, lk: _Link) -> None:
    if not _followable(lk.href) or lk.href in entry.links:
        return
    name = _label(lk.text)
    host = lk.href.split("/")[2].lower() if lk.href.count("/") >= 2 else ""
    if lk.badge and ("shields.io" in host or "badge" in host):
        return  # a badge's own image host, not a link of the work
    if not entry.code and (name in _CODE_LABELS or (lk.badge and host.endswith("github.com"))):
        entry.code = lk.href
    elif not entry.project and name in _PROJECT_LABELS:
        entry.project = lk.href
    entry.links.append(lk.href)


def entry_of(found: _Inline, line: int, inherited_date: str = "") -> Entry | None:
    """The entry one paragraph (an item's first paragraph, a heading, a table row's title cell)
    describes, or None when it names no work."""
    title, href = _title(found)
    if not title:
        return None
    written = title
    title, year, byline = _title_year_byline(title)
    entry = Entry(line, title)
    entry.authors = byline
    if _followable(href):
        entry.links.append(href)
    papers = [lk for lk in found.links if _label(lk.text) in _PAPER_LABELS and not lk.badge]
    for lk in papers + found.links:
        _add_link(entry, lk)
    lead = "".join(found.plain).strip() or (found.bold[0][0] if found.bold else "")
    entry.date, entry.year, _ = _date(lead)
    linked = bool(href) or any(not lk.badge and lk.href for lk in found.links)
    if not linked and not (found.bold and (found.italic or entry.date)):
        # a name without a link is prose, unless it is written as a work: a bold title with a
        # date or an italic byline ("- [2023/04] **Title** *Authors, Venue*")
        return None
    if not entry.year and year:
        entry.date, entry.year = entry.date or year, year
    if not entry.date and inherited_date:
        entry.date, entry.year = inherited_date, inherited_date[:4]
    for run in found.italic:
        names, venue = _people(run)
        entry.authors = entry.authors or names
        entry.venue = entry.venue or venue
    rest = _rest_text(found, written)
    if year and not byline:  # "**Title** (2015), Y. LeCun et al.": the year in the title's text, the names after it
        rest = rest if not rest.lstrip(_SEPARATORS).startswith(f"({year})") else rest.lstrip(_SEPARATORS)[6:]
    _fill_from_rest(entry, rest, after_year=bool(year) or bool(_PAREN_YEAR.search("".join(found.plain))))
    return entry


_INITIALLED = r"(?:[A-Z][a-z]?\.[ -]?){1,3}\s*(?:[a-z]{1,3}\s+)?[A-Z][\w'’-]+"
_INITIALLED_BYLINE = re.compile(
    rf"{_INITIALLED}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*){_INITIALLED})*(?:,?\s+et\.?\s*al\.?)?"
)


_TITLE_YEAR = re.compile(r"^(?P<title>.*\S)\s+\((?P<year>(?:19|20)\d\d)\)(?:\s*,\s*(?P<byline>.+?))?[\s.]*$")


def _title_year_byline(title: str) -> tuple[str, str, list[str]]:
    """A title that carries its year and byline ("A neural conversational model (2015), O. Vinyals
    and Q. Le", as a list writes an item all in plain text or all in its link): the title, the
    year and the names; the title as it is when what follows the year is no byline."""
    m = _TITLE_YEAR.match(title)
    if m is None:
        return title, "", []
    byline = (m.group("byline") or "").strip(_SEPARATORS + " ")
    names = _byline(byline, after_year=True, alone=True) if byline else []
    if byline and not names:
        return title, "", []
    return m.group("title"), m.group("year"), names


_NAME = re.compile(r"[A-Z][\w.'’-]*(?: (?:[a-z]{1,3} )?[A-Z][\w.'’-]*){0,3}")


_PAREN_YEAR = re.compile(r"\((?:19|20)\d\d\)")


def _byline(text: str, after_year: bool, alone: bool = False) -> list[str]:
    """The names ``text`` is, or []: names written with initials ("Y. LeCun, Y. Bengio and G.
    Hinton", "S. Ji et al."); after a work's year ("(2015), ...") full names joined as names are
    ("Andrew G. Howard et al", "H. Wang and Bhiksha Raj"), and one name ``alone`` where the
    title's own text ends in "(2017), Michael Nielsen"; elsewhere capitalised words are no names."""
    text = text.strip(_SEPARATORS + " ")
    if _INITIALLED_BYLINE.fullmatch(text):
        return _people(text)[0] or [text]
    joined = bool(_ET_AL.search(text) or "," in text or " and " in text)
    if not after_year or not (joined or alone):
        return []
    names = _people(text)[0] if joined else [text]
    return names if names and all(_NAME.fullmatch(n) for n in names) else []


def _fill_from_rest(entry: Entry, rest: str, after_year: bool = False) -> None:
    """The venue, year and description an item writes after its title and byline (``after_year``:
    the text follows the work's year, "(2015), ...", where a byline may be full names)."""
    rest = re.sub(r"^[^\w(\[]+", "", rest)  # a mark before the title ("- 🌟 **Title**") is no venue
    paren = re.match(r"^\(([^)]{2,60})\)\s*", rest)
    if paren and not entry.venue:
        entry.venue, rest = paren.group(1).strip(), rest[paren.end() :]
    rest = re.sub(
        r"^\d{1,3}[.)]?(\s+|$)", "", rest.strip(_SEPARATORS + "[]")
    )  # "1. [Title](url)" headings
    rest = _balanced(rest)
    lead = _LEADING_VENUE.match(rest) if not entry.venue else None
    if lead:  # "arXiv 2023. 19 Oct 2023": the venue, then the rest of the line
        entry.venue, rest = lead.group(1).strip(), lead.group(2)
    day = _DAY_DATE.fullmatch(rest.strip(_SEPARATORS))
    if day and day.group(2)[:3].lower() in _MONTHS:  # "19 Oct 2023": the work's date
        month = _MONTHS.index(day.group(2)[:3].lower()) + 1
        entry.date = entry.date or f"{day.group(3)}-{month:02d}-{int(day.group(1)):02d}"
        entry.year = entry.year or day.group(3)
        rest = ""
    short = _SHORT_VENUE.match(rest)
    if short and (not entry.venue or _YEAR.fullmatch(short.group(1))):
        # a year alone ("_Google DeepMind._ 2026.") is the year, not the venue
        if entry.venue or _YEAR.fullmatch(short.group(1)):
            entry.year = short.group(1)
        else:
            entry.venue = short.group(1).strip()
        rest = ""
    names = _byline(rest, after_year) if not entry.authors and rest.strip(_SEPARATORS + " ") else []
    if names:
        # "**Title** (2015), Y. LeCun et al. [[pdf]](url)": the names after the title are its
        # byline, not a description
        entry.authors, rest = names, ""
    if _LETTER.search(rest):  # words, not an emoji or a stray mark
        entry.description.append(rest)
    if not entry.year:
        m = _YEAR.search(entry.venue)
        entry.year = m.group(1) if m else ""


def _balanced(text: str) -> str:
    """``text`` with its parentheses and brackets paired again where taking the links and the
    title out left one alone ("by Jane Doe (2020" -> "by Jane Doe (2020)")."""
    for open_, close in ("()", "[]"):
        if text.count(open_) > text.count(close):
            text = text.removeprefix(open_) if text.startswith(open_) else text + close
        elif text.count(close) > text.count(open_):
            text = text.removesuffix(close) if text.endswith(close) else text.replace(close, "", 1)
    return text.strip(_SEPARATORS)


def _rest_text(found: _Inline, title: str) -> str:
    """The item's plain text once the title, the date and the labelled links are taken out."""
    text = " ".join("".join(found.plain).split())
    text = _date(text)[2] if text else text
    if title and text.startswith(title):
        text = text[len(title) :]
    text = re.sub(r"\[\s*\]|\(\s*\)", " ", text)  # brackets around labelled links
    text = " ".join(text.split()).strip(_SEPARATORS)
    label = re.match(r"^([A-Za-z ]{2,20}):\s*", text)  # "Paper: [Title](url)": the item's own label
    if label and _label(label.group(1)) in _LABELS:
        text = text[label.end() :]
    return text


class _H1(HTMLParser):
    """The text of the first ``<h1>`` of an HTML block (a list that centres its title in HTML)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.found: list[str] = []
        self.done = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "h1" and not self.done:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "h1" and self.depth:
            self.depth -= 1
            self.done = True

    def handle_data(self, data: str) -> None:
        if self.depth and not self.done:
            self.found.append(data)


class _HtmlRows(HTMLParser):
    """The rows (``<tr>``) and items (``<li>``) of an HTML block, each sorted like a Markdown
    paragraph's inline tokens: some lists keep their entries in an HTML table."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[_Inline] = []
        self.row: _Inline | None = None
        self.depth = {"b": 0, "i": 0}
        self.link: dict[str, Any] | None = None
        self.bold: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("tr", "li"):
            self._close()
            self.row = _Inline()
        elif tag in ("b", "strong", "i", "em"):
            self.depth["b" if tag in ("b", "strong") else "i"] += 1
            if tag in ("b", "strong"):
                self.bold = []
            elif self.row is not None:
                self.row.italic.append("")
        elif tag == "a":
            self.link = {"href": dict(attrs).get("href") or "", "text": [], "image": False}
        elif tag == "img" and self.link is not None:
            self.link["image"] = True

    def handle_endtag(self, tag: str) -> None:
        row = self.row
        if tag in ("tr", "li"):
            self._close()
        elif tag in ("b", "strong") and self.depth["b"]:
            self.depth["b"] -= 1
            if row is not None:
                text = " ".join("".join(self.bold).split())
                href = next((lk.href for lk in reversed(row.links) if lk.text == text), "")
                row.bold.append((text, href))
        elif tag in ("i", "em") and self.depth["i"]:
            self.depth["i"] -= 1
        elif tag == "a" and self.link is not None and row is not None:
            text = " ".join("".join(self.link["text"]).split())
            row.links.append(
                _Link(
                    text,
                    str(self.link["href"]),
                    self.link["image"] and not text,
                    self.depth["b"] > 0,
                )
            )
            self.link = None

    def handle_data(self, data: str) -> None:
        row = self.row
        if row is None:
            return
        row.text += data
        if self.link is not None:
            self.link["text"].append(data)
        if self.depth["b"]:
            self.bold.append(data)
        elif self.depth["i"] and row.italic:
            row.italic[-1] += data
        elif self.link is None:
            row.plain.append(data)

    def _close(self) -> None:
        if self.row is not None:
            self.row.text = " ".join(self.row.text.split())
            self.row.italic = [" ".join(i.split()) for i in self.row.italic if i.strip()]
            self.rows.append(self.row)
        self.row = None


def html_entries(html: str, line: int) -> list[Entry]:
    """The entries of an HTML block's rows and items (each on the block's first line)."""
    parser = _HtmlRows()
    parser.feed(html)
    parser.close()
    parser._close()
    return [e for e in (entry_of(row, line) for row in parser.rows if row.text) if e is not None]


def html_title(html: str) -> str:
    parser = _H1()
    parser.feed(html)
    return " ".join("".join(parser.found).split())


def section_name(text: str) -> str:
    """A heading as a section label: leading emoji and marks dropped."""
    return text.lstrip(
        " \t\u200d\ufe0f" + "".join(c for c in text[:4] if not c.isalnum() and c not in "[(\"'")
    ).strip()


# Headings that hold the whole list, which a section's name leaves out ("Papers: Agents").
_CONTAINERS = frozenset(
    [
        "papers",
        "paper list",
        "paper",
        "list",
        "contents",
        "content",
        "the list",
        "papers list",
        "awesome papers",
        "resources",
        "table of contents",
        "literature",
        "publications",
    ]
)


def _container(heading: str) -> bool:
    return _label(re.sub(r"^[\d.\s]+", "", section_name(heading))) in _CONTAINERS


def is_about(heading: str) -> bool:
    """A heading of a part about the list (news, contents, how to cite, licence)."""
    name = _label(re.sub(r"^[\d.\s]+", "", section_name(heading)))
    return name in _ABOUT or any(
        name.startswith(a + " ")
        for a in ("table of contents", "how to", "citation", "star history")
    )


def _inline_of(node: SyntaxTreeNode | None) -> list[Token]:
    """The inline tokens of a paragraph, heading or table cell."""
    if node is None:
        return []
    inline = next((c for c in node.children if c.type == "inline"), None)
    return (
        list(inline.token.children or []) if inline is not None and inline.token is not None else []
    )


def _item_inline(item: SyntaxTreeNode) -> list[Token]:
    """The inline tokens of a list item's own paragraphs, joined by a line break: a loose item
    writes its title, its byline and its links as paragraphs of their own
    ("1. **Title**", a blank line, "*Authors.* [[abs](url)], 2023.5")."""
    tokens: list[Token] = []
    for para in (c for c in item.children if c.type == "paragraph"):
        if tokens:
            tokens.append(Token("softbreak", "br", 0))
        tokens.extend(_inline_of(para))
    return tokens


def _linked_paragraph(node: SyntaxTreeNode) -> Entry | None:
    """The work a paragraph names when the paragraph is one followable link and nothing else."""
    found = _sort_inline(_inline_of(node))
    if len(found.links) != 1 or found.links[0].badge or not _followable(found.links[0].href):
        return None
    if " ".join(found.links[0].text.split()) != found.text or not _substantial(found.text):
        return None
    return entry_of(found, (node.map or (0, 0))[0] + 1)


def _paragraph_entry(node: SyntaxTreeNode) -> Entry | None:
    """The work a paragraph of its own names: its first line a bold title alone, the lines
    below (after a line break) its byline, venue and links (the paragraph-per-entry style)."""
    tokens = _inline_of(node)
    while tokens and tokens[0].type == "text" and not tokens[0].content.strip():
        tokens = tokens[1:]
    if len(tokens) < 4 or tokens[0].type != "strong_open":
        return None
    close = next((i for i, t in enumerate(tokens) if t.type == "strong_close"), -1)
    after = [t for t in tokens[close + 1 :] if not (t.type == "text" and not t.content.strip())]
    if close < 0 or not after or after[0].type not in ("hardbreak", "softbreak"):
        return None
    found = _sort_inline(tokens)
    if not any(_followable(lk.href) and not lk.badge for lk in found.links):
        return None
    entry = entry_of(found, (node.map or (0, 0))[0] + 1)
    if entry is not None and not entry.authors and found.italic and entry.venue == found.italic[0]:
        # the italic line under the title is the byline, even of one name ("*Edgar Poe*")
        entry.authors, entry.venue = [entry.venue], ""
    return entry


def walk_items(
    node: SyntaxTreeNode, inherited: str = "", parent: Entry | None = None
) -> Iterator[tuple[Entry | None, str, Entry | None]]:
    """Every list item under ``node`` as (its entry or None, its text, the entry it is nested
    in); an item that is only a date passes the date on to the items nested in it."""
    for item in node.children:
        if item.type != "list_item":
            continue
        found = _sort_inline(_item_inline(item))
        if parent is not None and _LABELLED.match(found.text) and found.links:
            # "Code: [official](url)", "Dataset: [X](url)" under a work: that work's links
            for lk in found.links:
                _add_link(parent, lk)
            continue
        entry = entry_of(found, (item.map or (0, 0))[0] + 1, inherited) if found.text else None
        date = entry.date if entry else (_date(found.text)[0] or inherited)
        yield entry, found.text, parent
        for sub in item.children:
            if sub.type in ("bullet_list", "ordered_list"):
                yield from walk_items(sub, date, entry or parent)


def table_entries(node: SyntaxTreeNode) -> Iterator[Entry]:
    """The entries of a table: one a row, its title in the column headed title/paper/name (else
    the first cell that names a work); date, venue, authors and code columns by their headers."""
    head = [
        inline_text(_inline_of(th))
        for tr in node.children
        if tr.type == "thead"
        for r in tr.children
        for th in r.children
    ]
    names = [_label(h) for h in head]
    for part in node.children:
        if part.type != "tbody":
            continue
        for row in part.children:
            cells = [_sort_inline(_inline_of(td)) for td in row.children]
            entry = _row_entry(names, cells, (row.map or (0, 0))[0] + 1)
            if entry is not None:
                yield entry


# a venue by its shape: a name and its year ("ICLR 2024", "NeurIPS'23"); a name alone (a model's,
# an organisation's: "BERT", "Google") is not one
_VENUE_CELL = re.compile(r"^[A-Z][A-Za-z&+-]{1,15}[ -]?(?:'\d{2}|(?:19|20)\d\d)(?:\s*\([A-Za-z ]{2,20}\))?$")


def _cell_role(name: str, cell: _Inline) -> str:
    """What a table cell holds: by its column's header where the header says (date, venue,
    authors), else by the cell's own shape (a date, a venue such as ``ICLR 2024``); "" for
    anything else (links, notes)."""
    if any(w in name for w in ("date", "time", "year", "month")):
        return "date"
    if any(w in name for w in ("venue", "conference", "journal", "publication", "published", "source")):
        return "venue"
    if "author" in name:
        return "authors"
    text = " ".join("".join(cell.plain).split()) or ("" if cell.links else cell.text)
    if _DATE.fullmatch(text) or re.fullmatch(r"(?:19|20)\d\d(?:[./-]\d{1,2}){0,2}", text):
        return "date"
    if _VENUE_CELL.match(text) and _label(text) not in _LABELS:
        return "venue"
    return ""


_PLACEHOLDER = re.compile(r"^\s*(?:[-–—/?✗✘]+|n/?a|none|tbd|todo)\s*$", re.I)


def _row_entry(names: Sequence[str], cells: Sequence[_Inline], line: int) -> Entry | None:
    order = sorted(
        range(len(cells)),
        key=lambda i: (
            not any(w in (names[i] if i < len(names) else "") for w in ("title", "paper", "name"))
        ),
    )
    entry = None
    title_at = -1
    for i in order:
        entry = entry_of(cells[i], line)
        if entry is not None:
            title_at = i
            break
    if entry is None:
        return None
    for i, cell in enumerate(cells):
        name = names[i] if i < len(names) else ""
        if i == title_at or not cell.text or (not cell.links and _PLACEHOLDER.match(cell.text)):
            continue  # an empty cell, or one that only says so ("-", "—", "N/A")
        for lk in cell.links:  # a link in any cell is the work's (a venue cell's own too)
            _add_link(entry, lk)
        role = _cell_role(name, cell)
        if role == "date":
            entry.date, entry.year, _ = _date(f"[{cell.text}]")
        elif role == "venue":
            entry.venue = entry.venue or cell.text
        elif role == "authors":
            entry.authors = _people(cell.text + ",")[0]
        elif not cell.links:
            entry.description.append(cell.text)
    if not entry.year:
        m = _YEAR.search(entry.venue)
        entry.year = m.group(1) if m else ""
    return entry


@dataclass
class _Section:
    heading: str  # the heading as written (inline text)
    level: int
    start: int  # 0-based line of the heading
    path: str  # "Parent: Child" for the section column
    about: bool  # a part about the list, whose items are not entries
    entries: int = 0
    end: int = -1


@dataclass
class MarkdownList:
    """What a Markdown list holds: its title, the entries (one per work), the sections in the
    order the file introduces them, and the prose outside the entries."""

    title: str
    description: str
    entries: list[Entry]
    sections: list[str]
    # ("", intro) first, then (heading, body) of every part that holds no entries, as written
    prose: list[tuple[str, str]]
    merged: list[str]  # one line per work listed more than once


@dataclass
class _Reader:
    lines: list[str]
    title: str = ""
    title_block: tuple[int, int] = (-1, -1)
    first_heading: int = -1
    sections: list[_Section] = field(default_factory=list)
    path: list[_Section] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    under_heading: Entry | None = None

    def heading(self, node: SyntaxTreeNode) -> None:
        level = int(node.tag[1]) if node.tag[1:].isdigit() else 1
        start = (node.map or (0, 0))[0]
        found = _sort_inline(_inline_of(node))
        if level == 1 and not self.title and not self.sections:
            self.title, self.title_block = found.text, node.map or (start, start + 1)
            return
        if self.first_heading < 0:
            self.first_heading = start
        entry = entry_of(found, start + 1) if found.links and not self.about else None
        self.under_heading = None
        if entry is not None:  # a heading that is itself a linked title: ### 1. [Title](url)
            self.add(entry)
            self.under_heading = entry
            return
        for s in self.sections:
            if s.end < 0 and s.level >= level:
                s.end = start
        self.path = [s for s in self.path if s.level < level]
        name = section_name(found.text)
        # a part about the list covers the headings under it (Citation > BibTeX), except a
        # "Contents" heading that the whole list sits under
        about = is_about(found.text) or any(
            s.about and not _container(s.heading) for s in self.path
        )
        path = ": ".join(
            [*(section_name(s.heading) for s in self.path if not _container(s.heading)), name]
        )
        section = _Section(found.text, level, start, path, about)
        self.sections.append(section)
        self.path.append(section)

    def _may_hold_works(self) -> bool:
        return bool(self.path) and _label(section_name(self.path[-1].heading)) in _OVERVIEW

    @property
    def about(self) -> bool:
        return bool(self.path) and self.path[-1].about

    def add(self, entry: Entry) -> None:
        if not entry.year:
            # a year heading ("### 2024", "## 2023 papers") dates the works under it
            years = [m.group(1) for s in self.path if (m := _YEAR_HEADING.match(s.heading))]
            entry.year = years[-1] if years else ""
        if self.path:
            entry.sections.append(self.path[-1].path)
            for s in self.path:
                s.entries += 1
        self.entries.append(entry)

    def block(self, node: SyntaxTreeNode) -> None:
        if node.type == "html_block" and not self.title:
            title = html_title(node.content)
            if title:
                self.title, self.title_block = title, node.map or (0, 0)
                return
        if self.about:
            if node.type in ("bullet_list", "ordered_list") and self._may_hold_works():
                # an "Overview" that lists surveys: the items written as works (with a byline)
                for entry, _, _ in walk_items(node):
                    if entry is not None and (entry.authors or entry.venue):
                        self.add(entry)
            return
        if node.type == "html_block":
            for found in html_entries(node.content, (node.map or (0, 0))[0] + 1):
                self.add(found)
            return
        if node.type in ("bullet_list", "ordered_list"):
            for entry, text, parent in walk_items(node):
                if entry is not None:
                    self.add(entry)
                elif parent is not None and text:
                    parent.description.append(text)
                elif self.under_heading is not None and text:
                    # the notes listed under a work written as a heading or a linked paragraph
                    self.under_heading.description.append(text)
        elif node.type == "table":
            for entry in table_entries(node):
                self.add(entry)
        elif node.type == "paragraph" and (work := _paragraph_entry(node)) is not None:
            # a paragraph per work: "**Title** \\", "*Authors* \\", "Venue. [[Paper](url)]"
            self.add(work)
            self.under_heading = None
        elif node.type == "paragraph" and (work := _linked_paragraph(node)) is not None:
            # a paragraph that is only a linked title ("[Title](https://...)"), its notes below
            self.add(work)
            self.under_heading = work
        elif node.type == "paragraph" and self.under_heading is not None:
            # the paragraph under an entry that is a heading: its summary
            text = inline_text(_inline_of(node))
            self.under_heading.description.append(
                re.sub(r"^(summary|abstract|tl;?dr|description)\s*:\s*", "", text, flags=re.I)
            )
            self.under_heading = None


def _repeated_labels(tokens: Sequence[Token]) -> frozenset[str]:
    """The link texts a list uses as labels, known by their shape: short (at most three words)
    and written on many links to different addresses (five or more), whatever they say ("blog in Chinese", "Slides",
    "中文"); a title is written once."""
    targets: dict[str, set[str]] = {}
    for t in tokens:
        link: list[str] | None = None
        href = ""
        for c in t.children or []:
            if c.type == "link_open":
                link, href = [], str(c.attrs.get("href", ""))
            elif c.type == "link_close" and link is not None:
                name = _label("".join(link))
                if name and len(name.split()) <= 3:
                    targets.setdefault(name, set()).add(href)
                link = None
            elif link is not None and c.type == "text":
                link.append(c.content)
    # on five different addresses: a work listed under several headings links the same one
    return frozenset(n for n, hrefs in targets.items() if len(hrefs) >= 5)


_TRAILING_BREAK = re.compile(r"(?<!\\)\\[ \t]+$", re.M)


def read_markdown(text: str) -> MarkdownList:
    """The entries, sections and prose of a Markdown list (see the module's docstring)."""
    # "\\" then spaces at a line's end: the list meant a line break (CommonMark reads one only
    # when the backslash ends the line), as a paragraph per work writes "**Title** \\ "
    text = _TRAILING_BREAK.sub("\\\\", text)
    tokens = _parser().parse(text)
    root = SyntaxTreeNode(tokens)
    reader = _Reader(text.splitlines(keepends=True))
    token = _SHAPE_LABELS.set(_repeated_labels(tokens))
    try:
        for node in root.children:
            if node.type == "heading":
                reader.heading(node)
            else:
                reader.block(node)
    finally:
        _SHAPE_LABELS.reset(token)
    for s in reader.sections:
        if s.end < 0:
            s.end = len(reader.lines)
    entries, merged = _merge(reader.entries)
    short = _short_paths([s.path for s in reader.sections])
    for e in entries:
        e.sections = [short[s] for s in e.sections]
    for section in reader.sections:
        section.path = short[section.path]
    order: list[str] = []
    for e in entries:
        for name in e.sections:
            if name not in order:
                order.append(name)
    order.sort(key=lambda p: next(i for i, s in enumerate(reader.sections) if s.path == p))
    return MarkdownList(reader.title, _description(reader), entries, order, _prose(reader), merged)


def _short_paths(paths: Sequence[str]) -> dict[str, str]:
    """Section labels of at most two levels ("Knowledge: Pretrain model"), the whole path where
    two sections would otherwise share a label."""

    def tail(p: str) -> str:
        return ": ".join(p.split(": ")[-2:])

    counts: dict[str, set[str]] = {}
    for p in paths:
        counts.setdefault(tail(p), set()).add(p)
    return {p: tail(p) if len(counts[tail(p)]) == 1 else p for p in paths}


def _merge(entries: Sequence[Entry]) -> tuple[list[Entry], list[str]]:
    """One entry per work: entries with the same title (as people read it) become one, with
    every section, link and detail either gave."""
    kept: dict[str, Entry] = {}
    merged: list[str] = []
    for e in entries:
        key = normalize_title(e.title) or e.title
        first = kept.get(key)
        if first is None:
            kept[key] = e
            continue
        merged.append(
            f"line {e.line}: {e.title!r} is listed again (first on line {first.line}): one entry"
            + (f" under {len(set(first.sections + e.sections))} sections" if e.sections else "")
        )
        first.sections += [s for s in e.sections if s not in first.sections]
        first.links += [u for u in e.links if u not in first.links]
        for name in ("code", "project", "date", "year", "venue"):
            if not getattr(first, name):
                setattr(first, name, getattr(e, name))
        first.authors = first.authors or e.authors
        first.description += [d for d in e.description if d not in first.description]
    return list(kept.values()), merged


def _body(reader: _Reader, start: int, end: int) -> str:
    skip = range(*reader.title_block)
    lines = [ln for i, ln in enumerate(reader.lines[start:end], start=start) if i not in skip]
    return "".join(lines).strip("\n")


def _prose(reader: _Reader) -> list[tuple[str, str]]:
    """The intro (before the first heading) and every part whose subtree holds no entry, as
    written; a table of contents (links inside the page only) is left out."""
    first = reader.first_heading if reader.first_heading >= 0 else len(reader.lines)
    out: list[tuple[str, str]] = [("", _body(reader, 0, first))]
    taken: list[tuple[int, int]] = []
    for s in reader.sections:
        if s.entries or any(a <= s.start < b for a, b in taken):
            continue
        body = _body(reader, s.start + 1, s.end)
        if not body.strip() or _contents_only(body):
            continue
        out.append((section_name(s.heading), body))
        taken.append((s.start, s.end))
    return out


def _contents_only(body: str) -> bool:
    root = SyntaxTreeNode(_parser().parse(body))
    hrefs = [str(n.attrs.get("href", "")) for n in root.walk() if n.type == "link"]
    return bool(hrefs) and all(h.startswith("#") for h in hrefs)


def _description(reader: _Reader) -> str:
    """The list's own first sentence of prose before its first heading (its tagline)."""
    first = reader.first_heading if reader.first_heading >= 0 else len(reader.lines)
    root = SyntaxTreeNode(_parser().parse(_body(reader, 0, first)))
    for node in root.children:
        # the tagline: the first paragraph, or the one in a blockquote ("> A curated list of...")
        para = (
            next((c for c in node.children if c.type == "paragraph"), None)
            if node.type == "blockquote"
            else node
        )
        if para is not None and para.type == "paragraph":
            text = inline_text(_inline_of(para))
            if len(text.split()) >= 2:
                return text if len(text) <= 300 else text[:300].rsplit(" ", 1)[0] + "..."
    return ""


__all__ = [
    "MarkdownList",
    "read_markdown",
    "Entry",
    "entry_of",
    "html_title",
    "inline_text",
    "is_about",
    "normalize_title",
    "section_name",
    "walk_items",
]


# markdown-it's own bound on nesting (its preset's maxNesting): a block nested deeper is not
# read, and neither is anything after it, without a word; so such a line is refused first.
MAX_NESTING = 20
# The marks the inline parser pairs up (emphasis, code spans, links, autolinks): its time grows
# with their number on a line (1 MB of `*_` took 35 s and 1.17 GiB), so they are counted first.
_MARKS = "*_[]`~<"
_FILE_MARKS = 500  # a file may hold this many times --max-markup (a real list: 10-20 per entry)
_NESTED_MARKERS = re.compile(r"(?:[ \t]*(?:[-*+]|\d{1,9}[.)]|>)(?=[ \t]|$))+")
_MARKER = re.compile(r"[-*+>]|\d{1,9}[.)]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _markup_problems(text: str, label: str) -> list[Problem]:
    """Lines the Markdown parser would take too long on (more marks than ``--max-markup``, or
    more in the file than 100 times that) or would drop (nested past MAX_NESTING)."""
    limit = read_limits().max_markup
    fenced = ""
    for n, line in enumerate(text.splitlines(), start=1):
        fence = _FENCE.match(line)
        if fence:
            fenced = "" if fenced and fence.group(1)[0] == fenced else fenced or fence.group(1)[0]
        if fenced:
            continue
        if len(line) > limit and (marks := sum(line.count(c) for c in _MARKS)) > limit:
            return [Problem(label, n, 0, "", f"{marks:,} emphasis, code and link marks ({_MARKS}) on one line; "
                            f"the limit is {limit:,} (--max-markup raises it)")]
        m = _NESTED_MARKERS.match(line)
        depth = len(_MARKER.findall(m.group(0))) if m else 0
        indent = len(line) - len(line.lstrip(" "))
        if depth > MAX_NESTING or (depth and indent > 4 * MAX_NESTING):
            return [Problem(label, n, 0, "", f"list items or quotes nested deeper than {MAX_NESTING} levels: "
                            "the Markdown reader would leave this line and the rest of the file unread; "
                            "nest the entry less deep")]
    total = sum(text.count(c) for c in _MARKS)
    if total > _FILE_MARKS * limit:
        return [Problem(label, 0, 0, "", f"{total:,} emphasis, code and link marks ({_MARKS}) in the file; the "
                        f"limit is {_FILE_MARKS * limit:,}, {_FILE_MARKS} times --max-markup (--max-markup raises it)")]
    return []




def read_awesome(text: str, label: str) -> Table:
    """A Markdown list (an awesome list, a paper list), read through its token tree by
    :mod:`survey_tools.adopt.markdown_list`: one row per work, its headings as the ``section``
    column (a list where the work is listed under several), the text outside the entries kept
    in :attr:`Table.prose`. A line past the markup limits is refused before it is parsed."""
    problems = _markup_problems(text, label)
    if problems:
        raise InvalidInput(problems, "the Markdown list cannot be read")
    found = read_markdown(text)
    if len(found.entries) > read_limits().max_entries:
        raise too_many(label, found.entries[read_limits().max_entries].line, "entries")
    if not found.entries:
        raise InvalidInput([Problem(label, 1, 0, "", "no entries: no list item, table row or heading in the file "
                                    "names a work with a link (a bold or linked title, or a [paper](...) link)")],
                           "nothing to read")
    several = any(len(e.sections) > 1 for e in found.entries)
    entries: list[tuple[int, Any]] = []
    for e in found.entries:
        cells: dict[str, Any] = {"title": e.title, "authors": list(e.authors), "year": e.year, "date": e.date,
                                 "venue": e.venue, "links": list(e.links), "code": e.code, "project": e.project,
                                 "description": " ".join(e.description)}
        if e.sections or found.sections:
            cells["section"] = list(e.sections) if several else (e.sections[0] if e.sections else "")
        entries.append((e.line, cells))
    table = entries_table(label, "markdown", entries)
    # columns no entry fills (no list here gives dates, say) are left out
    used = [c for c in table.columns if any(filled(r.cells.get(c, "")) for r in table.rows)]
    rows = tuple(Row(r.line, {c: v for c, v in r.cells.items() if c in used}) for r in table.rows)
    return Table(table.file, table.format, tuple(used), rows, tuple(found.merged),
                 list_columns=frozenset(c for c in table.list_columns if c in used), title=found.title,
                 description=found.description, value_order={"section": tuple(found.sections)},
                 prose=tuple(found.prose))
