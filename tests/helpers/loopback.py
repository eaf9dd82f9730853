"""The suite's one loopback HTTP server: pytest-httpserver's, told to notice a stop at once.

pytest-httpserver serves with ``socketserver``'s default poll interval of half a second, so each
``stop()`` waited up to 0.5 s for the serving loop to look at its shutdown flag. With a server
or three per test, that was about a minute of the quick loop spent idle in teardowns.
``thread_target`` is the hook pytest-httpserver documents for tailoring the serving thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

# Seconds between the serving loop's looks at the shutdown flag (the CPU cost of a look is nil).
POLL = 0.01


class LoopbackServer(HTTPServer):
    def thread_target(self) -> None:
        assert self.server is not None
        self.server.serve_forever(poll_interval=POLL)


@contextmanager
def serving(path: str, handler: Callable[[Request], Response], on_stop: Callable[[], None]) -> Iterator[str]:
    """``handler`` answering ``path`` on 127.0.0.1 (a free port) until the block ends; yields the
    URL. ``on_stop`` runs first when it ends (to release a handler held waiting)."""
    server = LoopbackServer(host="127.0.0.1", threaded=True)
    server.expect_request(path).respond_with_handler(handler)
    server.start()
    try:
        yield server.url_for(path)
    finally:
        on_stop()
        server.clear()
        server.stop()
