"""One HTTP client (httpx) with one retry policy (tenacity) and hard limits on what it accepts.

Every request, whoever makes it (arXiv, Crossref, OpenReview, DBLP, Semantic Scholar, the link
check), obeys the same :class:`Limits`:

* a **deadline** per request: ``timeout`` seconds from the first byte sent to the last byte
  received (``asyncio.timeout`` around the whole exchange), so a server dripping one byte a
  second cannot hold a command longer than that; a request that ran out of time is not tried
  again (it already used the time it was given);
* a **cap on the body** (``max_body``, checked against ``Content-Length`` before reading and
  while reading) and on its **decompressed size** (``max_decoded``, see :mod:`.body`); a refused
  body is never asked for again;
* **addresses**: only public ones, or those ``SURVEY_NET_ALLOW`` allows (:mod:`.addresses`),
  checked for the first URL and every redirect;
* **one retry policy**: 429, 5xx and a cut-off answer are tried again, up to ``retries`` times,
  waiting what ``Retry-After`` asks (a number or an HTTP date) or else ``backoff`` seconds
  doubled each time; a server asking for more than ``max_wait`` seconds is not waited for.

:class:`HttpClient` is the synchronous face for the metadata services (with a politeness
interval between requests); ``survey links`` uses :func:`send_once` and :func:`retrying` on its
own async clients, one per host.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import contextlib
import email.utils
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import urljoin, urlsplit

import certifi  # httpx's own CA bundle
import httpx
import orjson
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    retry_if_result,
    stop_after_attempt,
    stop_any,
)
from tenacity.stop import stop_base

from survey_tools._version import DISTRIBUTION, __version__
from survey_tools.cachedir import cache_base
from survey_tools.errors import SurveyError
from survey_tools.fileio import atomic_write
from survey_tools.hashing import content_hexdigest
from survey_tools.net.addresses import Allowance, check_addresses, literal_ip
from survey_tools.net.body import ACCEPT_ENCODING, BodyError, decode, encodings, size

USER_AGENT = f"{DISTRIBUTION}/{__version__} (https://pypi.org/project/{DISTRIBUTION}/)"
REDIRECTS = frozenset({301, 302, 303, 307, 308})
# A name's addresses are looked up once a minute, not once a request (a link check asks the
# same hosts hundreds of times); the address connected to is always one that was checked.
DNS_TTL = 60.0
_DNS: dict[tuple[str, int], tuple[float, list[Any]]] = {}
Body = Literal["none", "drain", "full"]


@dataclass(frozen=True)
class Limits:
    timeout: float = 30.0  # seconds for one request, start to last byte
    retries: int = 3  # tries after the first, for 429, 5xx and cut-off answers
    backoff: float = 1.0  # first wait without Retry-After; doubled at each retry
    max_wait: float = 60.0  # the longest Retry-After honoured
    max_body: int = 32 * 1024 * 1024  # bytes received
    max_decoded: int = 128 * 1024 * 1024  # bytes after Content-Encoding is undone
    drain: int = 16 * 1024  # a body this small is read and dropped (the connection is reused)
    max_redirects: int = 10
    allow: Allowance = field(default_factory=Allowance)
    # The command's deadline (time.monotonic()), shared by all its requests and retry waits:
    # a request gets what is left of it when that is less than ``timeout``.
    deadline: float | None = None

    def budget(self) -> float:
        """Seconds the next request may take: ``timeout``, or less near the deadline."""
        if self.deadline is None:
            return self.timeout
        return min(self.timeout, self.deadline - time.monotonic())

    def until(self, seconds: float | None) -> Limits:
        """These limits with a command deadline ``seconds`` from now (None: no deadline)."""
        return self if seconds is None else replace(self, deadline=time.monotonic() + seconds)

    @classmethod
    def from_env(cls, **kw: Any) -> Limits:
        """Limits with the allowance of ``SURVEY_NET_ALLOW`` (None values keep the defaults)."""
        return cls(allow=Allowance.from_env(), **{k: v for k, v in kw.items() if v is not None})


class NetError(SurveyError):
    """A request that did not give a usable answer; ``reason`` is the short why."""

    def __init__(self, reason: str, url: str) -> None:
        self.reason = reason
        self.url = url
        super().__init__(f"{reason} ({url})")


class Unreachable(NetError):
    """DNS failed, the connection was refused or dropped."""


class TimedOut(NetError):
    """No whole answer within the request's deadline."""


class Refused(NetError):
    """We refused: a private address, a body over the cap, a bad redirect."""


class Transient(NetError):
    """An answer worth asking again for (a cut-off body): raised to the retry policy."""


@dataclass(frozen=True)
class Answer:
    url: str  # the URL that gave this answer (after redirects)
    status: int
    headers: httpx.Headers
    body: bytes = b""
    tries: int = 1
    redirects: tuple[tuple[int, str], ...] = ()

    @property
    def retry_after(self) -> float | None:
        return retry_after(self.headers.get("retry-after"))

    @property
    def transient(self) -> bool:
        return self.status == 429 or 500 <= self.status <= 599

    def json(self) -> Any:
        """The body as JSON (orjson: nesting deeper than 1024 is an error, never a crash)."""
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError as err:
            raise Refused(f"the answer is not JSON ({err})", self.url) from None


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (a number or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value[:12])
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client (loading the CA bundle takes ~20 ms)."""

    return ssl.create_default_context(cafile=certifi.where())


T = TypeVar("T")


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, also from a thread whose event loop is already running (a notebook,
    or a caller driving a browser through Playwright's sync API): there the coroutine runs on a
    thread of its own, since a running loop cannot be entered twice."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def async_client(limits: Limits, connections: int = 4, user_agent: str = USER_AGENT) -> httpx.AsyncClient:
    """An httpx client as every request of the toolkit wants it: no redirects followed by
    httpx (each hop is checked here), no proxy or netrc from the environment, our UA."""
    return httpx.AsyncClient(
        follow_redirects=False,
        timeout=httpx.Timeout(limits.timeout),
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        headers={"User-Agent": user_agent, "Accept-Encoding": ACCEPT_ENCODING},
        verify=tls_context(),
        trust_env=False,
    )


async def _resolve(host: str, port: int, url: str, allow: Allowance) -> str:
    """The address to connect to, checked against the allowance (Refused otherwise)."""
    ip = literal_ip(host)
    if ip is not None:
        addresses = [ip]
    else:
        key = (host.lower(), port)
        known = _DNS.get(key)
        if known is not None and time.monotonic() - known[0] < DNS_TTL:
            addresses = known[1]
        else:
            addresses = await _lookup(host, port, url)
            _DNS[key] = (time.monotonic(), addresses)
    why = check_addresses(host, addresses, allow)
    if why:
        raise Refused(why, url)
    return str(addresses[0])


async def _lookup(host: str, port: int, url: str) -> list[Any]:
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as err:
        why = err.strerror if isinstance(err, socket.gaierror) else str(err)
        raise Unreachable(f"DNS lookup failed ({why})", url) from None
    addresses = []
    for info in infos:
        found = literal_ip(str(info[4][0]))
        if found is not None:
            addresses.append(found)
    if not addresses:
        raise Unreachable("DNS lookup found no address", url)
    return addresses


def _connect_reason(err: BaseException) -> str:
    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        seen = seen.__cause__ or seen.__context__
    return f"cannot connect ({err or type(err).__name__})"


async def send_once(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    limits: Limits,
    *,
    params: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    body: Body = "full",
) -> Answer:
    """One request to ``url`` (no redirect followed), within the deadline and caps."""
    budget = limits.budget()
    if budget <= 0:
        raise TimedOut("the command's deadline has passed", url)
    try:
        async with asyncio.timeout(budget):
            return await _send(client, method, url, limits, params, headers, body)
    except TimeoutError:
        if budget < limits.timeout:
            raise TimedOut("the command's deadline passed during the request", url) from None
        raise TimedOut(f"no whole answer within {limits.timeout:g} s", url) from None


async def _send(client: httpx.AsyncClient, method: str, url: str, limits: Limits,
                params: Mapping[str, str] | None, headers: Mapping[str, str] | None,
                body: Body) -> Answer:
    try:
        target = httpx.URL(url, params=params) if params else httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError) as err:
        raise Refused(f"not a usable URL ({err})", url) from None
    if target.scheme not in ("http", "https") or not target.host:
        raise Refused("not an http(s) URL", url)
    if target.userinfo:
        # httpx would send `user:secret@` as a Basic credential to whoever answers: a link's
        # credentials are never sent (the href rule refuses them in every record too).
        raise Refused("the URL holds a user name or password; credentials are never sent", url)
    port = target.port or (443 if target.scheme == "https" else 80)
    ip = await _resolve(target.host, port, url, limits.allow)
    # Sent to the address just checked: the name is not resolved a second time.
    hdrs = {"Host": target.netloc.decode("ascii"), **(headers or {})}
    ext = {"sni_hostname": target.host} if target.scheme == "https" else {}
    try:
        req = client.build_request(method, target.copy_with(host=ip), headers=hdrs, extensions=ext)
        resp = await client.send(req, stream=True)
    except httpx.TimeoutException:
        raise TimedOut(f"no answer within {limits.timeout:g} s", url) from None
    except httpx.ConnectError as err:
        raise Unreachable(_connect_reason(err), url) from None
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as err:
        raise Unreachable(f"{type(err).__name__}: {err}".rstrip(": "), url) from None
    try:
        data = b""
        if body != "none" and method != "HEAD":
            data = await _read(resp, limits, body, url)
        return Answer(url, resp.status_code, resp.headers, data)
    finally:
        await resp.aclose()


async def _read(resp: httpx.Response, limits: Limits, body: Body, url: str) -> bytes:
    length = resp.headers.get("content-length", "")
    declared = int(length) if length.isdigit() and len(length) < 20 else None
    cap = limits.drain if body == "drain" else limits.max_body
    if declared is not None and declared > cap:
        if body == "drain":
            return b""  # not worth reading: closing drops the connection instead
        raise Refused(f"the answer is {size(declared)}, more than {size(cap)}", url)
    raw = bytearray()
    try:
        async for chunk in resp.aiter_raw():
            raw += chunk
            if len(raw) > cap:
                if body == "drain":
                    return b""
                raise Refused(f"the answer is larger than {size(cap)}", url)
    except httpx.TimeoutException:
        raise TimedOut(f"no whole answer within {limits.timeout:g} s", url) from None
    except (httpx.RemoteProtocolError, httpx.ReadError) as err:
        raise Transient(f"the answer was cut off ({type(err).__name__})", url) from None
    if body == "drain":
        return b""  # read to reuse the connection; never decoded
    try:
        return decode(bytes(raw), encodings(resp.headers.get("content-encoding")), limits.max_decoded)
    except BodyError as err:
        raise Refused(str(err), url) from None


# ---------------------------------------------------------------------------------------------
# The retry policy


def _wait(limits: Limits) -> Callable[[RetryCallState], float]:
    def wait(state: RetryCallState) -> float:
        outcome = state.outcome
        if outcome is not None and not outcome.failed:
            ra = outcome.result().retry_after
            if ra is not None:
                return ra
        return limits.backoff * 2 ** (state.attempt_number - 1)

    return wait


def retrying(limits: Limits, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
             before_sleep: Callable[[RetryCallState], Awaitable[None] | None] | None = None
             ) -> AsyncRetrying:
    """The one retry policy: answers 429/5xx and cut-off bodies, ``retries`` more tries,
    ``Retry-After`` or exponential backoff; a wait over ``max_wait`` ends the tries. When the
    tries end, the last answer is returned (or the last error raised)."""
    wait = _wait(limits)

    class too_long(stop_base):  # noqa: N801 - tenacity's stop conditions are lower case
        def __call__(self, state: RetryCallState) -> bool:
            w = wait(state)
            late = limits.deadline is not None and time.monotonic() + w >= limits.deadline
            return w > limits.max_wait or late

    def give_up(state: RetryCallState) -> Any:
        assert state.outcome is not None
        return state.outcome.result()  # the last answer, or the last error raised

    kw: dict[str, Any] = {}
    if before_sleep is not None:
        kw["before_sleep"] = before_sleep
    return AsyncRetrying(
        stop=stop_any(stop_after_attempt(limits.retries + 1), too_long()),
        wait=wait,
        retry=retry_if_result(lambda a: a.transient) | retry_if_exception_type(Transient),
        retry_error_callback=give_up,
        sleep=sleep,
        **kw,
    )


async def request(
    client: httpx.AsyncClient,
    url: str,
    limits: Limits,
    *,
    params: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    accept: Callable[[Answer], bool] | None = None,
) -> Answer:
    """GET ``url`` under the retry policy, following redirects (each hop checked).

    ``accept`` tells a whole answer from a cut-off one (a feed that is not well-formed XML):
    an answer it rejects is tried again like a 503."""
    hops: list[tuple[int, str]] = []
    current = url
    tries = 0

    async def once(u: str, p: Mapping[str, str] | None) -> Answer:
        ans = await send_once(client, "GET", u, limits, params=p, headers=headers)
        if accept is not None and not accept(ans):
            raise Transient("the answer is not whole (not well-formed)", u)
        return ans

    while True:
        policy = retrying(limits, sleep)
        ans: Answer = await policy(once, current, params)
        tries += int(policy.statistics.get("attempt_number", 1))
        if ans.status not in REDIRECTS:
            return replace(ans, tries=tries, redirects=tuple(hops))
        location = ans.headers.get("location")
        if not location:
            raise Refused(f"HTTP {ans.status} redirect without a Location", current)
        nxt = urljoin(current if not params else str(httpx.URL(current, params=params)), location.strip())
        if urlsplit(nxt).scheme not in ("http", "https"):
            raise Refused("a redirect to a non-http URL", current)
        hops.append((ans.status, nxt))
        if len(hops) > limits.max_redirects:
            raise Refused(f"more than {limits.max_redirects} redirects", url)
        current, params = nxt, None


class HttpClient:
    """The synchronous client of the metadata services: one request at a time, at least
    ``interval`` seconds apart (a service's politeness rule), every request under ``limits``."""

    def __init__(self, limits: Limits | None = None, *, interval: float = 0.0,
                 user_agent: str = USER_AGENT, sleep: Callable[[float], None] = time.sleep,
                 cache: str | None = None, ttl: float = 7 * 24 * 3600.0) -> None:
        self.limits = limits or Limits.from_env()
        self.interval = interval
        self.user_agent = user_agent
        self.sleep = sleep
        self.requests = 0
        self._last: float | None = None
        # Whole 200 answers kept in the user's cache folder for ``ttl`` seconds (a re-run of a
        # monthly refresh asks again only what is due); ``cache=None`` for none.
        self.cache = None if cache is None else cache_base() / "http" / cache
        self.ttl = ttl

    def _cache_file(self, url: str, params: Mapping[str, str] | None) -> Path | None:
        if self.cache is None:
            return None
        key = str(httpx.URL(url, params=params) if params else httpx.URL(url))
        return self.cache / f"{content_hexdigest(key.encode(), 32)}.json"

    def _cached(self, path: Path | None, url: str) -> Answer | None:
        if path is None:
            return None
        try:
            doc = orjson.loads(path.read_bytes())
            if time.time() - float(doc["t"]) < self.ttl and doc["status"] == 200:
                return Answer(url, 200, httpx.Headers(), base64.b64decode(doc["body"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # no entry, an old one, or a damaged one: ask again
        return None

    def _keep(self, path: Path | None, ans: Answer) -> None:
        if path is None or ans.status != 200:
            return
        doc = {"t": time.time(), "status": 200, "url": ans.url,
               "body": base64.b64encode(ans.body).decode("ascii")}
        with contextlib.suppress(OSError):  # a cache that cannot be written is no cache
            atomic_write(path, orjson.dumps(doc).decode("utf-8"))

    def get(self, url: str, params: Mapping[str, str] | None = None,
            headers: Mapping[str, str] | None = None,
            accept: Callable[[Answer], bool] | None = None) -> Answer:
        """GET with the retry policy; the final answer whatever its status (NetError when
        there is none)."""

        async def go() -> Answer:
            async def pause(seconds: float) -> None:
                await asyncio.sleep(0)
                self.sleep(seconds)

            async with async_client(self.limits, 2, self.user_agent) as client:
                return await request(client, url, self.limits, params=params, headers=headers,
                                     sleep=pause, accept=accept)

        entry = self._cache_file(url, params)
        hit = self._cached(entry, url)
        if hit is not None and (accept is None or accept(hit)):
            return hit
        if self._last is not None and self.interval > 0:
            wait = self._last + self.interval - time.monotonic()
            if wait > 0:
                self.sleep(wait)
        try:
            ans = run_coroutine(go())
        finally:
            self._last = time.monotonic()
            self.requests += 1
        self._keep(entry, ans)
        return ans
