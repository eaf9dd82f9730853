"""``CITATION.cff``: how to cite the survey and the list with its toolkit (Citation File Format 1.2.0).

Everything comes from ``survey.citation`` in ``taxonomy/survey.yaml``::

    survey:
      title: ...            # the survey's title, url and arXiv id (already there)
      list_title: ...       # the software's title
      description: ...      # the software's abstract
      citation:
        authors: ["Last, First", ...]      # the survey's authors
        year: 2026
        software:
          authors: ["Last, First" or "An organisation", ...]
          license: MIT                     # an SPDX id
          repository-code: https://...     # optional; also url, keywords, version

The software (this repository: the list and its toolkit) is the top-level work; the survey is
its ``preferred-citation``, so GitHub's "Cite this repository" offers the survey. A survey
without a ``citation`` section gets no file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.yamlio import dump_yaml
from survey_tools.errors import InvalidInput, Problem
from survey_tools.net.hrefs import safe_href

OUTPUT = "CITATION.cff"
SOURCE = "taxonomy/survey.yaml"
_SOFTWARE_KEYS = ("repository-code", "url", "license", "version", "keywords")


def _person(name: Any, where: str) -> dict[str, str]:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput([Problem(SOURCE, 1, 1, where, f"{name!r} is not a name")],
                           f"{SOURCE}: cannot write {OUTPUT}")
    family, sep, given = name.partition(",")
    if not sep:
        return {"name": name.strip()}  # an organisation, or a team
    out = {"family-names": family.strip()}
    if given.strip():
        out["given-names"] = given.strip()
    return out


def _people(names: Any, where: str) -> list[dict[str, str]]:
    if not isinstance(names, Sequence) or isinstance(names, str) or not names:
        raise InvalidInput([Problem(SOURCE, 1, 1, where, "must be a non-empty list of names")],
                           f"{SOURCE}: cannot write {OUTPUT}")
    return [_person(n, where) for n in names]


def citation_cff(tax: Taxonomy) -> str | None:
    """The text of CITATION.cff, or ``None`` when the survey has no ``citation`` section."""
    s = tax.survey
    cit = s.get("citation")
    if not isinstance(cit, Mapping):
        return None
    sw = cit.get("software") or {}
    if not isinstance(sw, Mapping):
        sw = {}
    survey_title = str(s.get("title", "")).strip()
    paper: dict[str, Any] = {
        "type": "article",
        "title": survey_title,
        "authors": _people(cit.get("authors"), "survey.citation.authors"),
    }
    if cit.get("year") is not None:
        paper["year"] = int(cit["year"])
    # Where the converters look: GitHub's "Cite this repository" (the ruby-cff gem) reads the
    # preferred citation's authors, title, journal, year, doi, url and notes, never its
    # identifiers; cffconvert reads only the top level (its url, identifiers of type url,
    # doi). So the arXiv id goes into the journal as arXiv's own BibTeX spells it
    # ("arXiv preprint arXiv:ID"), the survey's page into url, and both also at the top level.
    url = str(s.get("url") or (f"https://arxiv.org/abs/{s['arxiv']}" if s.get("arxiv") else ""))
    url = safe_href(url)  # the href rule once more: validate refuses any other value
    ids: list[dict[str, str]] = []
    if s.get("arxiv"):
        paper["journal"] = f"arXiv preprint arXiv:{s['arxiv']}"
        ids.append({"type": "other", "value": f"arXiv:{s['arxiv']}", "description": "The survey's arXiv id"})
    if url:
        paper["url"] = url
        ids.insert(0, {"type": "url", "value": url, "description": "The survey this list accompanies"})
    if ids:
        paper["identifiers"] = ids
    doc: dict[str, Any] = {
        "cff-version": "1.2.0",
        "message": f"If you use this list or its toolkit, please cite the survey "
                   f"it accompanies: {survey_title}.",
        "type": "software",
        "title": str(s.get("list_title") or survey_title),
        "authors": _people(sw.get("authors") or cit.get("authors"), "survey.citation.software.authors"),
    }
    if s.get("description"):
        doc["abstract"] = " ".join(str(s["description"]).split())
    for key in _SOFTWARE_KEYS:
        if sw.get(key) and (key not in ("url", "repository-code") or safe_href(sw[key])):
            doc[key] = list(sw[key]) if key == "keywords" else str(sw[key])
    if ids:
        # cffconvert ignores preferred-citation: the survey's page and id at the top level too,
        # so its BibTeX, RIS, EndNote, APA, CodeMeta and Zenodo outputs keep them.
        doc["identifiers"] = [dict(x, description=f"{x['description']} ({survey_title})")
                              if x["type"] == "url" else dict(x) for x in ids]
    doc["preferred-citation"] = paper
    return f"# Written by `survey build` from {SOURCE} (survey.citation); do not edit by hand.\n" \
        + dump_yaml(doc)
