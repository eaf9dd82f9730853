"""Identifiers of papers (arXiv, DOI, OpenReview): parsing, normalising, extracting from URLs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from survey_tools.net.hrefs import host_is, href_problem

_NEW_ARXIV = re.compile(r"^(\d{4})\.(\d{4,5})(v\d+)?$")
_OLD_ARXIV = re.compile(r"^([a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?$")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf|html)/([^?#]+?)(?:\.pdf)?/?$", re.I)


def normalize_arxiv(value: str) -> str | None:
    """``arXiv:2505.19591v2``, ``2505.19591`` or an abs/pdf URL -> ``2505.19591``; None if not one."""
    v = value.strip()
    m = _ARXIV_URL.search(v)
    if m:
        if "://" in v and not host_is(v, "arxiv.org"):
            # `https://arxiv.org@evil.example/abs/...` or `https://evil.example/arxiv.org/abs/...`
            # names another host: not an arXiv page.
            return None
        v = m.group(1)
    if v.lower().startswith("arxiv:"):
        v = v[6:]
    m = _NEW_ARXIV.match(v)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    m = _OLD_ARXIV.match(v)
    if m:
        return m.group(1)
    return None


def arxiv_year(arxiv_id: str) -> int | None:
    """The year a new-style arXiv id was issued (``2505.x`` -> 2025)."""
    m = _NEW_ARXIV.match(arxiv_id)
    if not m:
        return None
    return 2000 + int(m.group(1)[:2])


def normalize_doi(value: str) -> str | None:
    v = unquote(value.strip())
    v = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", v, flags=re.I)
    if not re.match(r"^10\.\d{4,9}/\S+$", v):
        return None
    return v.lower()


def normalize(kind: str, how: str, value: str) -> str:
    if how == "arxiv":
        return normalize_arxiv(value) or value.strip()
    if how == "lower":
        return (normalize_doi(value) if kind == "doi" else None) or value.strip().lower()
    return value.strip()


def ids_from_url(url: str) -> dict[str, str]:
    """Identifiers that a link reveals (an arXiv abs page, a DOI resolver, an OpenReview forum)."""
    out: dict[str, str] = {}
    low = url.lower()
    # Most links name none of these hosts; skip parsing them (a noticeable cost at 100k records).
    if "arxiv.org" not in low and "doi" not in low and "openreview.net" not in low:
        return out
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return out
    if href_problem(url.strip()) is not None:  # credentials, another scheme: names no work
        return out
    if host_is(url, "arxiv.org"):
        a = normalize_arxiv(url)
        if a:
            out["arxiv"] = a
    elif host_is(url, "doi.org"):
        d = normalize_doi(parts.path.lstrip("/"))
        if d:
            out["doi"] = d
    elif "/doi/" in parts.path:
        d = normalize_doi(parts.path.split("/doi/", 1)[1])
        if d:
            out["doi"] = d
    if host_is(url, "openreview.net"):
        q = parse_qs(parts.query).get("id")
        if q:
            out["openreview"] = q[0]
    return out


def ids_from_label(label: str) -> dict[str, str]:
    """Identifiers in an exclusion's identifier column (``arXiv:2305.14325``, ``OpenReview:x``)."""
    v = label.strip()
    low = v.lower()
    if low.startswith("arxiv:"):
        a = normalize_arxiv(v)
        return {"arxiv": a} if a else {}
    if low.startswith("openreview:"):
        return {"openreview": v.split(":", 1)[1]}
    if low.startswith("doi:"):
        d = normalize_doi(v)
        return {"doi": d} if d else {}
    return {}


def record_identifiers(
    data: Mapping[str, Any], kinds: Mapping[str, str], link_fields: Iterable[str] = ("links", "url")
) -> dict[str, str]:
    """Every identifier a record carries, normalised: declared ones first, then those in its links.

    ``kinds`` maps identifier kind -> normalisation (from the taxonomy).
    """
    out: dict[str, str] = {}
    declared = data.get("identifiers")
    if isinstance(declared, dict):
        for k, v in declared.items():
            if k in kinds and isinstance(v, str) and v:
                out[k] = normalize(k, kinds[k], v)
    ident = data.get("identifier")
    if isinstance(ident, str):
        for k, v in ids_from_label(ident).items():
            out.setdefault(k, v)
    for f in link_fields:
        links = data.get(f)
        if isinstance(links, str):
            links = [links]
        if isinstance(links, list):
            for link in links:
                if isinstance(link, str):
                    for k, v in ids_from_url(link).items():
                        if k in kinds:
                            out.setdefault(k, v)
    return out


_NEW_ARXIV_ID = re.compile(r"^(\d{2})(\d{2})\.(\d+)$")
_OLD_ARXIV_ID = re.compile(r"^[a-z-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})(\d{3})$")


def arxiv_format_problem(arxiv_id: str) -> str | None:
    """Why ``arxiv_id`` (without version) cannot be an arXiv id of its era; None when it can.

    arXiv's scheme: ``archive/YYMMNNN`` until March 2007, ``YYMM.NNNN`` from April 2007 to
    December 2014, ``YYMM.NNNNN`` from January 2015 on.
    """
    m = _NEW_ARXIV_ID.match(arxiv_id)
    if m:
        yy, mm, num = int(m.group(1)), int(m.group(2)), m.group(3)
        if not 1 <= mm <= 12:
            return f"month {m.group(2)} does not exist"
        if (yy, mm) < (7, 4):
            return "ids of the form YYMM.NNNN start in April 2007 (0704); older ones are archive/YYMMNNN"
        want = 5 if yy >= 15 else 4
        if len(num) != want:
            era = "from 2015 on" if yy >= 15 else "from April 2007 to 2014"
            return f"ids {era} have {'five' if want == 5 else 'four'} digits after the dot"
        return None
    m = _OLD_ARXIV_ID.match(arxiv_id)
    if m:
        yy, mm = int(m.group(1)), int(m.group(2))
        if not 1 <= mm <= 12:
            return f"month {m.group(2)} does not exist"
        if 7 < yy < 91 or (yy == 7 and mm > 3):
            return "old-style ids (archive/YYMMNNN) end in March 2007; later ids are YYMM.NNNNN"
        return None
    return None  # the pattern check reports ids of neither shape
