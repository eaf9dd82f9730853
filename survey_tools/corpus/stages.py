"""The screening stage of a retention agrees with what its record says was read.

A decision of ``screening/decisions.yaml`` names its stage (``abstract_screen``, ...); the
protocol's ``screening.read_at`` says what each stage means was read (``abstract``,
``full_text`` or ``artifact``), and the record the retention wrote places every reading
(``readings``: ``{how, where}`` per tag). ``survey validate`` reports a decision whose stage says
more or less than the readings do: a ``full_text`` stage whose readings all name the abstract,
an ``abstract`` stage whose readings name a section, figure, table or a code file.

The words come from the survey: ``abstract_places`` (where-words that place a reading on the
abstract page), ``secondhand`` (someone else's notes on the paper: neither abstract nor full
text of ours) and ``artifact_modes`` (the readings' modes that rest on code or documentation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from survey_tools.corpus.checks import CODE_PLACE, places_named
from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.protocol import Protocol, has_protocol, load_protocol
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.screening_logs import DECISIONS, parse_log
from survey_tools.corpus.taxonomy import ControlledField
from survey_tools.corpus.yamlio import parse_yaml_bytes
from survey_tools.errors import InvalidInput, Problem


@dataclass(frozen=True)
class Read:
    """What a record's readings say was read: the tags read beyond the abstract (with the place),
    those read in an artifact, and whether any reading is placed at all."""

    beyond: tuple[tuple[str, str], ...]  # (tag, where) naming a section, figure, ... or code
    artifact: tuple[tuple[str, str], ...]  # (tag, where) resting on code or documentation
    placed: bool


def what_was_read(rec: Record, cf: ControlledField, protocol: Protocol) -> Read:
    """The record's readings classified by the protocol's words (``screening.abstract_places``,
    ``secondhand``, ``artifact_modes``) and the readings field's ``where_words``."""
    placed = rec.get(cf.name)
    beyond: list[tuple[str, str]] = []
    artifact: list[tuple[str, str]] = []
    if not isinstance(placed, Mapping):
        return Read((), (), False)
    abstract = {w.lower() for w in protocol.abstract_places}
    second = {w.lower() for w in protocol.secondhand}
    for tag, entry in placed.items():
        if not isinstance(entry, Mapping):
            continue
        where = str(entry.get("where") or "")
        named = {w.lower() for w in places_named(where, (*cf.where_words, *protocol.secondhand))}
        if named & second:
            continue  # someone else's reading: no place in the paper itself was read
        if str(entry.get("how") or "") in protocol.artifact_modes:
            artifact.append((str(tag), where))
        if named - abstract - {CODE_PLACE.lower()} or CODE_PLACE.lower() in named:
            beyond.append((str(tag), where))
    return Read(tuple(beyond), tuple(artifact), bool(placed))


def _disagreement(meaning: str, read: Read) -> str:
    """Why the stage says more or less than the readings ("" when they agree)."""
    if meaning == "abstract" and (read.beyond or read.artifact):
        tag, where = (read.beyond or read.artifact)[0]
        return f"the readings place {tag} at {where!r}, beyond the abstract"
    if meaning == "full_text" and not read.beyond:
        return "every reading names the abstract only (or someone else's notes)"
    if meaning == "artifact" and not read.artifact:
        return "no reading rests on code or documentation"
    return ""


def _advice(stages: Mapping[str, str], read: Read) -> str:
    """The stage the readings support, as the line to write: full text when a paper reading
    names a place beyond the abstract, artifact when only code or documentation does."""
    paper = [t for t in read.beyond if t not in read.artifact]
    wanted = "full_text" if paper else "artifact" if read.artifact else "abstract"
    stage = next((s for s, m in stages.items() if m == wanted), "")
    return f"write `stage: {stage}`" if stage else "give the stage that says what was read"


def stage_problems(corpus: Corpus, root: Path | None = None) -> list[Problem]:
    """Every retention of ``screening/decisions.yaml`` whose stage disagrees with its record's
    placed readings (none when the survey has no protocol, no ``read_at`` or no decisions)."""
    tax = corpus.taxonomy
    if not has_protocol(tax):
        return []
    try:
        protocol = load_protocol(tax)
    except InvalidInput:
        return []  # the protocol's own problems are reported where it is checked
    cf = next((c for c in tax.retained.controlled if c.kind == "mapping" and c.where_words), None)
    if cf is None or not protocol.read_at:
        return []
    raw = Reads(root or tax.root).file(DECISIONS)
    try:
        entries = parse_log(raw, DECISIONS)
    except InvalidInput as err:
        return list(err.problems)
    by_path = {str(r.path): r for r in corpus.retained if r.path}
    found: list[tuple[int, str]] = []
    for i, e in enumerate(entries):
        rec = by_path.get(str(e.get("record") or ""))
        meaning = protocol.read_at.get(str(e.get("stage") or ""))
        if e.get("decision") != "retained" or rec is None or meaning is None:
            continue
        read = what_was_read(rec, cf, protocol)
        why = _disagreement(meaning, read) if read.placed else ""
        if why:
            advice = _advice(protocol.read_at, read)
            more = (
                ", or place the reading where it was read (where: Section 3.2)"
                if meaning != "abstract"
                else ""
            )
            found.append((i, f"{e.get('stage')} for {rec.path}, but {why}: {advice}{more}"))
    return _located(raw, found)


def _located(raw: bytes | None, found: Sequence[tuple[int, str]]) -> list[Problem]:
    if not found or raw is None:
        return []
    doc = parse_yaml_bytes(raw, DECISIONS)
    out = []
    for i, msg in found:
        line, col = doc.position((i, "stage"))
        out.append(Problem(DECISIONS, line, col, f"[{i}].stage", msg))
    return out
