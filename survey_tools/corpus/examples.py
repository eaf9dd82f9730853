"""Example commands built from a survey's own taxonomy and records.

Generated text (README, CONTRIBUTING) and ``--help`` show these instead of fixed examples, so
another survey's documentation speaks of its own fields, values and papers.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from survey_tools.corpus.checks import TEMPLATE_PERSON
from survey_tools.corpus.options import short_option
from survey_tools.corpus.records import Record
from survey_tools.corpus.taxonomy import (
    Collection,
    ControlledField,
    Taxonomy,
    commands_config,
)
from survey_tools.schema_words import id_words

# Identifier kinds `survey add` can look up, in the order an example prefers them.
LOOKUP_KINDS = ("arxiv", "doi", "openreview")


def example_reference(tax: Taxonomy, records: Sequence[Record]) -> str:
    """What `survey add` is shown with: ``add.example`` from commands.yaml, else the identifier
    of a real record of the corpus (first by key), else "" (the example then uses --set)."""
    configured = (commands_config(tax).get("add") or {}).get("example")
    if configured:
        return str(configured)
    for rec in sorted(records, key=lambda r: r.id):
        ids = rec.get("identifiers")
        if isinstance(ids, dict):
            for kind in LOOKUP_KINDS:
                if isinstance(ids.get(kind), str) and ids[kind]:
                    return f"openreview:{ids[kind]}" if kind == "openreview" else str(ids[kind])
    return ""


def _option(tax: Taxonomy, coll: Collection, cf: ControlledField) -> str:
    flag = short_option(tax, coll, cf)
    if cf.kind == "mapping":
        return f"--{flag} {cf.ids[0]}={cf.mode_ids[0]}" if cf.mode_ids else ""
    return f"--{flag} {shlex.quote(cf.ids[0])}"


def tag_options(tax: Taxonomy, coll: Collection, limit: int | None = None) -> list[str]:
    """One option per required controlled field (every one when none is required), set to
    its first value."""
    fields = [c for c in coll.controlled if c.required] or list(coll.controlled)
    out = [o for o in (_option(tax, coll, c) for c in fields) if o]
    return out if limit is None else out[:limit]


def add_example(tax: Taxonomy, records: Sequence[Record]) -> str:
    coll = tax.retained
    ref = example_reference(tax, records)
    head = f"survey add {shlex.quote(ref)}" if ref else (
        f"survey add --set {coll.title_field}={shlex.quote('Title of the work')}")
    return " ".join([head, *tag_options(tax, coll)])


def exclude_example(tax: Taxonomy) -> str:
    coll = tax.excluded
    if coll is None:
        return ""
    return " ".join(["survey exclude ID_OR_URL", *tag_options(tax, coll), '--note "..."'])


# What a blank record shows for a field of each type (filled in by hand from the paper's page),
# and the comment that says what to write there. Text values are quoted: most titles hold ': ',
# which YAML reads as the start of another field when the value is not in quotes.
_BLANKS: dict[str, tuple[str, str]] = {
    "string": ('""', "inside the quotes"),
    "text": ('""', "in your own words, inside the quotes"),
    "year": ("YYYY", "a number, without quotes"),
    "date": ('"YYYY-MM-DD"', "year, month, day"),
    "url": ('"https://"', "the whole address"),
    "url_list": ("\n- https://", "one line per link, each starting with '- '"),
    "person_list": (f"\n- {TEMPLATE_PERSON}", "one line per person, each starting with '- '"),
    "boolean": ("false", "true or false"),
}
# A key that every survey's default id pattern accepts, shown as an example of a file name.
KEY_EXAMPLE = "zhang2025"


def key_rule(coll: Collection) -> str:
    """How a record's file is named, in words (no regular expression: contributors do not read
    them), for CONTRIBUTING."""
    words = id_words(coll.id_pattern)
    if words:
        return (f"in {words}, for example the first author's name and the year "
                f"(`{KEY_EXAMPLE}.yaml`)")
    return f"like the other files in `{coll.folder}/`"


def _template_line(tax: Taxonomy, coll: Collection, f: Any) -> str:
    editions = tax.editions
    if f.name == coll.id_field:
        value, note = "the-file-name-without-yaml", "the file's name without .yaml"
    elif editions and f.name == editions.field:
        value, note = editions.living.id, "keep as it is"
    elif editions and f.name == editions.added_field:
        value, note = '"YYYY-MM-DD"', "today's date: year, month, day"
    elif f.type == "identifiers":
        kinds = list(tax.identifiers)
        value = "".join(f'\n  {k}: ""  # may stay empty if the work has no {tax.identifiers[k].label}'
                        for k in kinds[:1])
        note = ""
    else:
        value, note = _BLANKS.get(f.type, ('""', "inside the quotes"))
    if value.startswith("\n"):
        head = f"{f.name}:" + (f"  # {note}" if note else "")
        return head + value
    return f"{f.name}: {value}" + (f"  # {note}" if note else "")


def record_template(tax: Taxonomy) -> str:
    """A blank record of the first collection for the web editor: its required fields, its
    identifiers and its edition fields (the living list), then every tag as `untagged`, in the
    taxonomy's order. Comments say what each line wants and which lines may stay empty; text
    values are quoted, so a title with a colon is read as written."""
    coll = tax.retained
    editions = tax.editions
    edition_fields = {editions.field, editions.added_field} if editions else set()
    lines = ["# Fill in every line; only the lines marked \"may stay empty\" can be left as they are.",
             "# Keep the quotes around text (a title with a colon needs them)."]
    for f in coll.fields:
        if f.required or f.type == "identifiers" or f.name in edition_fields:
            lines.append(_template_line(tax, coll, f))
    if coll.controlled:
        lines.append(f"# Tags: replace each {tax.untagged} with a value listed under Tags below.")
    for cf in coll.controlled:
        if cf.where_words:  # placed readings: one entry per tag set, each with where it was read
            lines.extend(_readings_template(cf))
        else:
            lines.append(f"{cf.name}: {tax.untagged}")
    return "\n".join(lines) + "\n"


def _readings_template(cf: ControlledField) -> list[str]:
    """The lines of a field that places readings in the blank record: a comment saying what it
    wants, and the first two tags as entries to copy for every tag the record sets."""
    paper = cf.mode_ids[0]
    code = cf.mode_ids[1] if len(cf.mode_ids) > 1 else paper
    out = ["# Where each tag above was read: one entry per tag you set and per key of the mappings above;",
           f"# how is one of {', '.join(cf.mode_ids)}; where names a section, figure, table, equation,",
           "# appendix or the abstract, or a code file at a commit.",
           f"{cf.name}:"]
    for tag, how, where in ((cf.ids[0], paper, "Section 3.1"), (cf.ids[1] if len(cf.ids) > 1 else cf.ids[0], code,
                                                               "src/train.py at 1a2b3c4")):
        out.extend([f"  {tag}:", f"    how: {how}", f"    where: \"{where}\""])
    return out
