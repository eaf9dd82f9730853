"""``survey links``: is every URL the records hold still alive?

Collects every http(s) URL of every record (links, evidence of sub-decisions and strict-credit
readings, the corrections file's evidence, and the URLs an identifier resolves to, from the
``url`` templates of ``identifiers`` in ``taxonomy/survey.yaml``), then checks them concurrently
with httpx:

* ``HEAD`` first; ``GET`` when the server refuses ``HEAD`` (405, 501 and the like), reading only
  the status line and headers, never the body;
* redirects followed one hop at a time (so that each hop obeys the per-host limit and a loop is
  caught); a permanent redirect (301, 308) at the start of the chain is a suggested new URL;
* at most ``concurrency`` requests at once, at most ``per_host`` to one host (host and port);
* 429 and 5xx retried with exponential backoff, waiting what ``Retry-After`` asks (and holding
  back the whole host meanwhile); a wait longer than ``max_wait`` is not made: the URL ends as
  rate-limited.

Each URL ends as ok, redirected, broken (4xx, a redirect loop), unreachable (timeout, DNS,
connection refused, 5xx after the retries) or rate-limited, with the records that use it.
Results are cached per URL in the user's cache folder (``$SURVEY_CACHE_DIR/links``) for a
time-to-live, so a re-run checks only what is due. The result is never a build output: it
changes with the world.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

# The toolkit's one HTTP stack (httpx underneath): deadlines, address checks, the retry
# policy; this module is imported only by `survey links`.
import httpx

from survey_tools._version import __version__
from survey_tools.cachedir import cache_base
from survey_tools.columns import pad_columns
from survey_tools.corpus.checks import valid_url
from survey_tools.corpus.records import Corpus
from survey_tools.fileio import atomic_write
from survey_tools.net.client import (
    Limits,
    NetError,
    Refused,
    TimedOut,
    async_client,
    retrying,
    run_coroutine,
    send_once,
)
from survey_tools.net.client import retry_after as retry_after  # re-exported (tests, callers)
from survey_tools.net.hrefs import redacted
from survey_tools.reports.corrections import load_corrections
from survey_tools.reports.tables import md_autolink, md_cell, md_code, md_inert, md_table

STATUSES = ("ok", "redirected", "broken", "unreachable", "rate-limited")
PERMANENT = frozenset({301, 308})
# Answers to HEAD that mean "ask me with GET" rather than "this page is gone".
HEAD_REFUSED = frozenset({400, 403, 405, 406, 501})
MAX_REDIRECTS = 10
# A body this small is read (so that the connection can be reused); a larger one never is.
SMALL_BODY = 16 * 1024
CACHE_FORMAT = 1
# Statuses worth remembering until the time-to-live runs out; the others are transient, and
# a re-run asks again.
CACHEABLE = frozenset({"ok", "redirected", "broken"})
USER_AGENT = f"survey-tools/{__version__} (link check)"


@dataclass(frozen=True, order=True)
class Use:
    """Where a URL appears: a record, its file, and the field (dotted path)."""

    record: str
    file: str
    field: str


@dataclass(frozen=True)
class Hop:
    code: int
    url: str  # where the redirect points


@dataclass(frozen=True)
class LinkResult:
    url: str
    status: str  # one of STATUSES
    code: int | None = None  # the last HTTP status received
    detail: str = ""
    final_url: str | None = None
    suggestion: str | None = None  # the new URL a permanent redirect points to
    redirects: tuple[Hop, ...] = ()
    method: str = "HEAD"
    tries: int = 1
    checked_at: float = 0.0
    cached: bool = False
    uses: tuple[Use, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "status": self.status,
            "code": self.code,
            "detail": self.detail,
            "final_url": self.final_url,
            "suggestion": self.suggestion,
            "redirects": [{"code": h.code, "url": h.url} for h in self.redirects],
            "method": self.method,
            "tries": self.tries,
            "cached": self.cached,
            "uses": [{"record": u.record, "file": u.file, "field": u.field} for u in self.uses],
        }

    def to_cache(self) -> dict[str, Any]:
        d = self.to_dict()
        del d["uses"], d["cached"], d["url"]
        d["checked_at"] = self.checked_at
        return d

    @classmethod
    def from_cache(cls, url: str, d: Mapping[str, Any]) -> LinkResult:
        return cls(
            url=url,
            status=str(d["status"]),
            code=d.get("code"),
            detail=str(d.get("detail", "")),
            final_url=d.get("final_url"),
            suggestion=d.get("suggestion"),
            redirects=tuple(Hop(int(h["code"]), str(h["url"])) for h in d.get("redirects", ())),
            method=str(d.get("method", "HEAD")),
            tries=int(d.get("tries", 1)),
            checked_at=float(d["checked_at"]),
            cached=True,
        )


@dataclass(frozen=True)
class Settings:
    concurrency: int = 32
    per_host: int = 4
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 0.5  # first wait; doubled at each retry
    max_wait: float = 60.0  # longest Retry-After honoured
    ttl: float = 24 * 3600.0  # seconds a cached result stays valid
    use_cache: bool = True
    cache_dir: Path | None = None  # default: cachedir.cache_base() / "links"
    deadline: float | None = None  # the command's deadline (time.monotonic()), if it has one


@dataclass(frozen=True)
class Malformed:
    url: str
    use: Use


@dataclass
class LinkReport:
    results: list[LinkResult]
    malformed: list[Malformed] = field(default_factory=list)
    checked: int = 0  # asked over the network this run
    from_cache: int = 0

    def counts(self) -> dict[str, int]:
        return {s: sum(r.status == s for r in self.results) for s in STATUSES}

    @property
    def broken(self) -> bool:
        return any(r.status == "broken" for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": {"urls": len(self.results), **self.counts(), "checked": self.checked,
                        "from_cache": self.from_cache, "malformed": len(self.malformed)},
            "links": [r.to_dict() for r in self.results],
            "malformed": [{"url": m.url, "record": m.use.record, "file": m.use.file,
                           "field": m.use.field} for m in self.malformed],
        }


# ---------------------------------------------------------------------------------------------
# Which URLs the records hold


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


def _looks_like_url(s: str) -> bool:
    low = s.lstrip().lower()
    return low.startswith(("http://", "https://", "http:", "https:", "www."))


def _well_formed(url: str) -> bool:
    if not valid_url(url):
        return False
    try:
        httpx.URL(url)
    except (httpx.InvalidURL, ValueError):
        return False
    return True


def collect(
    corpus: Corpus, only: Sequence[str] = ()
) -> tuple[dict[str, list[Use]], list[Malformed]]:
    """Every URL of the records (or of the records ``only`` names), with where it is used.

    Strings that start like a URL but are not well-formed are returned apart: `survey
    validate` reports them, and this command does not try them.
    """
    tax = corpus.taxonomy
    wanted = set(only)
    uses: dict[str, list[Use]] = {}
    malformed: list[Malformed] = []

    def add(url: str, use: Use) -> None:
        if _well_formed(url):
            uses.setdefault(url, []).append(use)
        else:
            malformed.append(Malformed(redacted(url), use))  # a credential is not repeated

    by_id: dict[str, tuple[str, str]] = {}
    for rec in corpus:
        by_id.setdefault(rec.id, (rec.id, rec.path))
        if wanted and rec.id not in wanted:
            continue
        for path, s in _strings(dict(rec.data), ""):
            if _looks_like_url(s):
                add(s.strip(), Use(rec.id, rec.path, path))
        idents = rec.get("identifiers")
        if isinstance(idents, Mapping):
            for kind, value in idents.items():
                spec = tax.identifiers.get(str(kind))
                if spec is None or not spec.url or not isinstance(value, str) or not value:
                    continue
                add(spec.url.replace("{id}", value.strip()),
                    Use(rec.id, rec.path, f"identifiers.{kind} (resolved)"))
    loaded = load_corrections(tax)
    if loaded is not None:
        rel, corrections = loaded
        for c in corrections:
            if (wanted and c.record not in wanted) or not isinstance(c.evidence, str):
                continue
            if _looks_like_url(c.evidence):
                add(c.evidence.strip(), Use(c.record, rel, f"corrections.{c.id}.evidence"))
    for u in uses.values():
        u.sort()
    malformed.sort(key=lambda m: (m.use, m.url))
    return dict(sorted(uses.items())), malformed


# ---------------------------------------------------------------------------------------------
# The cache


def cache_path(settings: Settings) -> Path:
    return (settings.cache_dir or cache_base() / "links") / "results.json"


def load_cache(path: Path) -> dict[str, dict[str, Any]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no cache yet, or a damaged one: check everything again
    if not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT:
        return {}
    entries = doc.get("entries")
    return entries if isinstance(entries, dict) else {}


def save_cache(path: Path, entries: Mapping[str, Mapping[str, Any]]) -> None:
    doc = {"format": CACHE_FORMAT, "entries": dict(sorted(entries.items()))}
    atomic_write(path, json.dumps(doc, separators=(",", ":")))


def _fresh(entry: Any, now: float, ttl: float) -> bool:
    try:
        return entry["status"] in CACHEABLE and now - float(entry["checked_at"]) < ttl
    except (KeyError, TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------------
# Checking


def host_of(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:  # an address urllib cannot take apart: no host to name
        return ""
    return parts.netloc.lower().rsplit("@", 1)[-1]


class _Host:
    """One host: its slots, its Retry-After, and its own httpx client.

    A client per host keeps each connection pool as small as the per-host limit: httpcore
    scans its whole pool for every request, which is slow with hundreds of connections.
    """

    def __init__(self, s: Settings, limits: Limits) -> None:
        limit = max(1, s.per_host)
        self.sem = asyncio.Semaphore(limit)
        self.not_before = 0.0  # loop time before which nobody asks this host (Retry-After)
        self.client = async_client(limits, limit, USER_AGENT)


@dataclass
class _Answer:
    code: int | None
    location: str | None = None
    error: str = ""
    retry_after: float | None = None
    method: str = "HEAD"
    tries: int = 1
    refused: bool = False  # we refused it (a private address, a bad URL): the link is broken

    @property
    def transient(self) -> bool:
        return self.code is not None and (self.code == 429 or 500 <= self.code <= 599)


class Checker:
    """Checks URLs with one httpx client per host, honouring the global and per-host limits;
    every request goes through :mod:`survey_tools.net` (deadline, address checks, the retry
    policy), and no body is ever decoded."""

    def __init__(self, settings: Settings) -> None:
        self.s = settings
        self.limits = Limits.from_env(timeout=settings.timeout, retries=settings.retries,
                                      backoff=settings.backoff, max_wait=settings.max_wait,
                                      drain=SMALL_BODY, deadline=settings.deadline)
        self._global = asyncio.Semaphore(max(1, settings.concurrency))
        self._hosts: dict[str, _Host] = {}

    async def aclose(self) -> None:
        for h in self._hosts.values():
            await h.client.aclose()

    def _host(self, url: str) -> _Host:
        key = host_of(url)
        h = self._hosts.get(key)
        if h is None:
            h = self._hosts[key] = _Host(self.s, self.limits)
        return h

    async def _once(self, url: str, method: str) -> _Answer:
        """One request; a small body is read raw and dropped (never decoded), a larger one
        never read."""
        host = self._host(url)
        loop = asyncio.get_running_loop()
        # The host's slot first, then a global one: a request queued behind a busy host must
        # not hold a global slot that another host could use.
        async with host.sem:
            wait = host.not_before - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            async with self._global:
                try:
                    ans = await send_once(host.client, method, url, self.limits, body="drain")
                except TimedOut as err:
                    why = err.reason if "deadline" in err.reason else \
                        f"no answer within {self.s.timeout:g} s"
                    return _Answer(None, error=why, method=method)
                except Refused as err:
                    return _Answer(None, error=err.reason, method=method, refused=True)
                except NetError as err:
                    return _Answer(None, error=err.reason, method=method)
        return _Answer(ans.status, ans.headers.get("location"), retry_after=ans.retry_after,
                       method=method)

    async def _head_then_get(self, url: str) -> _Answer:
        ans = await self._once(url, "HEAD")
        if ans.code in HEAD_REFUSED:
            ans = await self._once(url, "GET")
        return ans

    async def _ask(self, url: str) -> _Answer:
        """HEAD (GET when HEAD is refused) under the one retry policy (429 and 5xx)."""
        host = self._host(url)

        async def hold_host(state: Any) -> None:
            # Politeness: nobody asks this host again before its Retry-After has passed.
            ans = state.outcome.result() if state.outcome and not state.outcome.failed else None
            if ans is not None and ans.retry_after is not None:
                loop = asyncio.get_running_loop()
                host.not_before = max(host.not_before, loop.time() + ans.retry_after)

        policy = retrying(self.limits, before_sleep=hold_host)
        ans: _Answer = await policy(self._head_then_get, url)
        ans.tries = int(policy.statistics.get("attempt_number", 1))
        if ans.transient and ans.retry_after is not None and ans.retry_after > self.s.max_wait:
            ans.error = f"asked to wait {ans.retry_after:g} s (more than {self.s.max_wait:g} s)"
        return ans

    async def check(self, url: str) -> LinkResult:
        hops: list[Hop] = []
        seen = {url}
        current = url
        tries = 0
        while True:
            ans = await self._ask(current)
            tries += ans.tries
            base = LinkResult(url=url, status="ok", code=ans.code, redirects=tuple(hops),
                              method=ans.method, tries=tries, checked_at=time.time())
            if ans.code is None:
                return replace(base, status="broken" if ans.refused else "unreachable",
                               detail=ans.error)
            if 300 <= ans.code <= 399 and ans.code != 304:
                if not ans.location:
                    return replace(base, status="broken",
                                   detail=f"HTTP {ans.code} redirect without a Location")
                nxt = urljoin(current, ans.location.strip())
                hops.append(Hop(ans.code, nxt))
                if nxt in seen:
                    return replace(base, status="broken", redirects=tuple(hops),
                                   detail=f"redirect loop back to {nxt}")
                if len(hops) > MAX_REDIRECTS:
                    return replace(base, status="broken", redirects=tuple(hops),
                                   detail=f"more than {MAX_REDIRECTS} redirects")
                if urlsplit(nxt).scheme not in ("http", "https"):
                    return replace(base, status="broken", redirects=tuple(hops),
                                   detail=f"redirect to a non-http URL {nxt}")
                seen.add(nxt)
                current = nxt
                continue
            final = current if hops else None
            if ans.code == 429:
                return replace(base, status="rate-limited", final_url=final,
                               detail=ans.error or f"HTTP 429 after {ans.tries} tries")
            if 500 <= ans.code <= 599:
                return replace(base, status="unreachable", final_url=final,
                               detail=ans.error or f"HTTP {ans.code} after {ans.tries} tries")
            if ans.code >= 400:
                return replace(base, status="broken", final_url=final,
                               detail=f"HTTP {ans.code} {_reason(ans.code)}".rstrip())
            suggestion = _suggestion(hops)
            if suggestion is not None:
                return replace(base, status="redirected", final_url=final, suggestion=suggestion,
                               detail=f"moved permanently to {suggestion}")
            return replace(base, final_url=final)


def _suggestion(hops: Sequence[Hop]) -> str | None:
    """Where the leading permanent redirects lead (A -301-> B -302-> C suggests B)."""
    out = None
    for h in hops:
        if h.code not in PERMANENT:
            break
        out = h.url
    return out


def _reason(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return ""


async def _check_all(
    urls: Iterable[str], settings: Settings, progress: Callable[[int], None] | None
) -> list[LinkResult]:
    checker = Checker(settings)
    try:
        async def one(u: str) -> LinkResult:
            r = await checker.check(u)
            if progress is not None:
                progress(1)
            return r

        return list(await asyncio.gather(*(one(u) for u in urls)))
    finally:
        await checker.aclose()


def check_urls(
    uses: Mapping[str, Sequence[Use]],
    settings: Settings | None = None,
    progress: Callable[[int], None] | None = None,
    now: float | None = None,
) -> LinkReport:
    """Check every URL in ``uses`` (what is fresh in the cache is not asked again)."""
    settings = settings or Settings()
    now = time.time() if now is None else now
    path = cache_path(settings)
    cache = load_cache(path) if settings.use_cache else {}
    results: dict[str, LinkResult] = {}
    due: list[str] = []
    for url in uses:
        entry = cache.get(url)
        if entry is not None and _fresh(entry, now, settings.ttl):
            try:
                results[url] = LinkResult.from_cache(url, entry)
                if progress is not None:
                    progress(1)
                continue
            except (KeyError, TypeError, ValueError):
                pass
        due.append(url)
    from_cache = len(results)
    if due:
        for r in run_coroutine(_check_all(due, settings, progress)):
            results[r.url] = r
    if settings.use_cache and due:
        entries = {u: e for u, e in cache.items() if _fresh(e, now, settings.ttl)}
        for u in due:
            r = results[u]
            if r.status in CACHEABLE:
                entries[u] = r.to_cache()
            else:
                entries.pop(u, None)
        save_cache(path, entries)
    out = [replace(results[u], uses=tuple(uses[u])) for u in uses]
    return LinkReport(results=out, checked=len(due), from_cache=from_cache)


def check_corpus(
    corpus: Corpus,
    only: Sequence[str] = (),
    settings: Settings | None = None,
    progress_total: Callable[[int], Callable[[int], None] | None] | None = None,
) -> LinkReport:
    """Collect the corpus's URLs and check them; ``progress_total(n)`` may return a callback."""
    uses, malformed = collect(corpus, only)
    progress = progress_total(len(uses)) if progress_total is not None else None
    report = check_urls(uses, settings, progress)
    report.malformed = malformed
    return report


# ---------------------------------------------------------------------------------------------
# Output


def _records(r: LinkResult) -> str:
    return ", ".join(dict.fromkeys(u.record for u in r.uses))


def _what(r: LinkResult) -> str:
    if r.status == "redirected" and r.suggestion:
        return f"moved permanently to {r.suggestion}"
    return r.detail or (f"HTTP {r.code}" if r.code else "")


def _summary_line(report: LinkReport) -> str:
    c = report.counts()
    parts = [f"{c[s]} {s}" for s in STATUSES]
    extra = f"; {len(report.malformed)} malformed URL(s) skipped (see survey validate)" \
        if report.malformed else ""
    return (f"{len(report.results)} URLs: {', '.join(parts)} "
            f"({report.checked} checked, {report.from_cache} from the cache){extra}")


def to_table(report: LinkReport, show_all: bool = False) -> str:
    rows = [r for r in report.results if show_all or r.status != "ok"]
    order = {s: i for i, s in enumerate(STATUSES[::-1])}
    rows.sort(key=lambda r: (order[r.status], r.url))
    lines: list[str] = []
    if rows:
        table = [("STATUS", "CODE", "URL", "DETAIL", "RECORDS")]
        table += [(r.status, str(r.code or "-"), r.url, _what(r), _records(r)) for r in rows]
        lines += ["  ".join(cells).rstrip() for cells in pad_columns(table, free_last=True)]
    lines.append(_summary_line(report))
    return "\n".join(lines) + "\n"


def _detail_md(r: LinkResult) -> str:
    """The Detail cell. Everything in it came from a server (a Location header, an error
    text): a redirect's target is a code span, the rest inert text, so that no mention,
    image or link can reach the issue this report becomes."""
    if r.status == "redirected" and r.suggestion:
        return "moved permanently to " + md_cell(md_code(r.suggestion))
    return md_inert(_what(r))


def to_markdown(report: LinkReport, show_all: bool = False) -> str:
    """A Markdown report (the body of the maintenance issue)."""
    c = report.counts()
    out = ["# Link check", "", _summary_line(report), ""]
    out.append(md_table(["Status", "URLs"], [(s, c[s]) for s in STATUSES], "lr", pad=False))
    for status in ("broken", "unreachable", "rate-limited", "redirected", "ok"):
        rows = [r for r in report.results if r.status == status]
        if not rows or (status == "ok" and not show_all):
            continue
        table = [(md_cell(md_autolink(r.url)), r.code or "-", _detail_md(r), md_inert(_records(r)))
                 for r in rows]
        out += ["", f"## {status.capitalize()} ({len(rows)})", "",
                md_table(["URL", "Code", "Detail", "Records"], table, "lrll", pad=False)]
    if report.malformed:
        values = [(md_cell(md_code(m.url)), md_inert(m.use.record), md_inert(m.use.field))
                  for m in report.malformed]
        out += ["", f"## Malformed ({len(report.malformed)})", "",
                "Not checked; `survey validate` reports them.", "",
                md_table(["Value", "Record", "Field"], values, pad=False)]
    return "\n".join(out) + "\n"


def to_json(report: LinkReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
