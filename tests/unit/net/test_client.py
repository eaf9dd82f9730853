"""The HTTP layer against hostile loopback servers: every case bounded in time.

Each case of HOSTILE sets up one server behaviour, asks one URL with tight limits, and states
the error (kind and message) and the most seconds it may take. The loopback server is allowed
explicitly (``SURVEY_NET_ALLOW``) except where the case is about that refusal.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.loopback import LoopbackServer as HTTPServer
from werkzeug import Request, Response

from survey_tools.net import addresses
from survey_tools.net.client import (
    HttpClient,
    Limits,
    NetError,
    Refused,
    TimedOut,
    Unreachable,
    retry_after,
)

BOMB = Path(__file__).resolve().parents[2] / "fixtures" / "net" / "gzip-bomb.bin"
LOOPBACK = addresses.Allowance.parse("127.0.0.1")


def client(**kw: float) -> HttpClient:
    sleeps: list[float] = []
    c = HttpClient(Limits(allow=LOOPBACK, **kw), sleep=sleeps.append)  # type: ignore[arg-type]
    c.sleeps = sleeps  # type: ignore[attr-defined]
    return c


def drip(release: threading.Event, every: float = 0.5) -> Callable[[Request], Response]:
    def handler(_req: Request) -> Response:
        def body() -> Iterator[bytes]:
            for _ in range(600):
                yield b"x"
                if release.wait(every):
                    return

        return Response(body(), content_type="text/plain")

    return handler


def hang(release: threading.Event) -> Callable[[Request], Response]:
    def handler(_req: Request) -> Response:
        release.wait(30)
        return Response("late")

    return handler


def huge_declared(_req: Request) -> Response:
    r = Response(b"x" * 10, content_type="application/json")
    r.headers["Content-Length"] = str(5 * 1024**3)
    r.automatically_set_content_length = False
    return r


def huge_chunked(_req: Request) -> Response:
    return Response((b"y" * 65536 for _ in range(1000)), content_type="text/plain")


def bomb(_req: Request) -> Response:
    r = Response(BOMB.read_bytes(), content_type="application/json")
    r.headers["Content-Encoding"] = "gzip, gzip"
    return r


def brotli(_req: Request) -> Response:
    r = Response(b"\x0b\x02\x80hello\x03", content_type="text/plain")
    r.headers["Content-Encoding"] = "br"
    return r


# name -> (handler factory, limits, error kind, message, most seconds). The bounds leave room
# for a loaded machine; without the limits each case would take minutes (the drip 300 s, the
# hang 30 s) or gigabytes (the bomb 2 GiB, the declared body 5 GiB).
HOSTILE: dict[str, tuple[Callable[[threading.Event], Callable[[Request], Response]],
                         dict[str, float], type[NetError], str, float]] = {
    "slow drip": (drip, {"timeout": 1.0}, TimedOut, "no whole answer within 1 s", 10.0),
    "hang": (hang, {"timeout": 0.5}, TimedOut, "within 0.5 s", 10.0),
    "huge Content-Length": (lambda _r: huge_declared, {}, Refused,
                            "the answer is 5 GiB, more than 32 MiB", 10.0),
    "huge chunked body": (lambda _r: huge_chunked, {"max_body": 1024**2}, Refused,
                          "the answer is larger than 1 MiB", 15.0),
    "double gzip bomb": (lambda _r: bomb, {}, Refused,
                         "the body decompresses to more than 128 MiB", 15.0),
    "unknown encoding": (lambda _r: brotli, {}, Refused,
                         "the body uses the encoding 'br', which was not asked for", 10.0),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_servers(server: HTTPServer, release: threading.Event, case: str) -> None:
    make, kw, kind, message, most = HOSTILE[case]
    handler = make(release)
    calls: list[int] = []

    def counted(req: Request) -> Response:
        calls.append(1)
        return handler(req)

    server.expect_request("/x").respond_with_handler(counted)
    c = client(**kw)
    start = time.monotonic()
    with pytest.raises(kind) as err:
        c.get(server.url_for("/x"))
    took = time.monotonic() - start
    assert message in str(err.value)
    assert took < most, f"{case} took {took:.1f} s"
    # A refused or timed-out body is never asked for again.
    assert len(calls) == 1


def test_bomb_fixture_is_what_it_claims() -> None:
    raw = BOMB.read_bytes()
    assert len(raw) < 4096
    inner = gzip.decompress(raw)
    # the inner layer alone would be 2 GiB: only its first megabyte is checked here
    import zlib

    d = zlib.decompressobj(31)
    head = d.decompress(inner, 1024**2)
    assert head == bytes(1024**2)


def test_json_answer_and_gzip(server: HTTPServer) -> None:
    server.expect_request("/j", query_string="q=a+b").respond_with_data(
        gzip.compress(b'{"ok": [1, 2]}'), headers={"Content-Encoding": "gzip"},
        content_type="application/json")
    ans = client().get(server.url_for("/j"), params={"q": "a b"})
    assert (ans.status, ans.json(), ans.tries) == (200, {"ok": [1, 2]}, 1)
    assert server.log[0][0].headers["Host"] == f"127.0.0.1:{server.port}"


def test_deep_json_is_an_error_not_a_crash(server: HTTPServer) -> None:
    server.expect_request("/deep").respond_with_data("[" * 100_000 + "]" * 100_000)
    with pytest.raises(Refused, match="the answer is not JSON"):
        client().get(server.url_for("/deep")).json()


def test_retry_after_is_honoured_then_success(server: HTTPServer) -> None:
    server.expect_ordered_request("/r").respond_with_data("busy", status=503,
                                                          headers={"Retry-After": "7"})
    server.expect_ordered_request("/r").respond_with_data("busy", status=429)
    server.expect_ordered_request("/r").respond_with_data("fine")
    c = client(backoff=0.25)
    ans = c.get(server.url_for("/r"))
    assert (ans.status, ans.body, ans.tries) == (200, b"fine", 3)
    assert c.sleeps == [7.0, 0.5]  # type: ignore[attr-defined]


def test_retry_after_too_long_is_not_waited_for(server: HTTPServer) -> None:
    server.expect_request("/r").respond_with_data("later", status=503,
                                                  headers={"Retry-After": "3600"})
    c = client(max_wait=60)
    ans = c.get(server.url_for("/r"))
    assert (ans.status, ans.retry_after, ans.tries) == (503, 3600.0, 1)
    assert c.sleeps == []  # type: ignore[attr-defined]


def test_retries_end(server: HTTPServer) -> None:
    server.expect_request("/r").respond_with_data("down", status=502)
    c = client(retries=2, backoff=1)
    ans = c.get(server.url_for("/r"))
    assert (ans.status, ans.tries, len(server.log)) == (502, 3, 3)
    assert c.sleeps == [1.0, 2.0]  # type: ignore[attr-defined]


def test_http_date_retry_after() -> None:
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after("soon") is None
    assert retry_after("9" * 400) == 999999999999.0


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://10.0.0.1/x", "a private address (10.0.0.1)"),
        ("http://169.254.169.254/latest/meta-data/", "a link-local address (169.254.169.254)"),
        ("http://[::1]:9/x", "a loopback address (::1)"),
        ("http://2130706433/", "a loopback address (2130706433 = 127.0.0.1)"),
        ("http://0.0.0.0:9/", "an unspecified address (0.0.0.0)"),
        ("http://[::ffff:192.168.0.1]/", "a private address"),
    ],
)
def test_private_addresses_are_refused_before_connecting(url: str, why: str) -> None:
    c = HttpClient(Limits(timeout=30), sleep=lambda _s: None)
    start = time.monotonic()
    with pytest.raises(Refused) as err:
        c.get(url)
    assert why in str(err.value) and "SURVEY_NET_ALLOW allows it" in str(err.value)
    assert time.monotonic() - start < 5  # no connection attempted: a blackholed 10.0.0.1 would take 30 s


def test_loopback_server_needs_the_allowance(server: HTTPServer) -> None:
    server.expect_request("/ok").respond_with_data("fine")
    with pytest.raises(Refused, match=r"a loopback address \(127.0.0.1\)"):
        HttpClient(Limits(), sleep=lambda _s: None).get(server.url_for("/ok"))
    with pytest.raises(Refused, match=r"loopback address \(localhost = 127.0.0.1\)"):
        HttpClient(Limits(), sleep=lambda _s: None).get(f"http://localhost:{server.port}/ok")
    assert server.log == []


def test_allowance_from_the_environment(server: HTTPServer, allow_loopback: None) -> None:
    server.expect_request("/ok").respond_with_data("fine")
    assert HttpClient(sleep=lambda _s: None).get(server.url_for("/ok")).body == b"fine"


@pytest.mark.parametrize("target", ["http://169.254.169.254/latest/meta-data/",
                                    "http://10.1.2.3/admin", "http://127.0.0.2:{port}/x"])
def test_redirect_to_a_private_address_is_refused(server: HTTPServer, target: str) -> None:
    target = target.format(port=server.port)
    server.expect_request("/go").respond_with_data("", status=302, headers={"Location": target})
    with pytest.raises(Refused, match="refused to connect"):
        client().get(server.url_for("/go"))
    assert len(server.log) == 1


def test_redirects_followed_and_recorded(server: HTTPServer) -> None:
    server.expect_request("/a").respond_with_data("", status=301, headers={"Location": "/b"})
    server.expect_request("/b").respond_with_data("here")
    ans = client().get(server.url_for("/a"))
    assert (ans.body, ans.redirects) == (b"here", ((301, server.url_for("/b")),))


def test_connection_refused() -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(Unreachable, match="connection refused"):
        client().get(f"http://127.0.0.1:{port}/")


def test_bad_allowance_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from survey_tools.errors import UsageError

    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1, intranet")
    with pytest.raises(UsageError, match="SURVEY_NET_ALLOW: 'intranet' is not an IP address"):
        Limits.from_env()


def test_run_coroutine_works_inside_a_running_event_loop() -> None:
    # A notebook, or Playwright's sync API in the same process, keeps a loop running in the
    # main thread; the synchronous client must still work there.
    import asyncio

    from survey_tools.net.client import run_coroutine

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def caller() -> int:
        return run_coroutine(answer())

    assert run_coroutine(answer()) == 42
    assert asyncio.run(caller()) == 42
