"""Helpers for the init tests: the CLI in-process, a loopback server replaying recorded answers."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner, Result

from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "init"
# Words of the main survey that must not reach another survey's generated text or help.
FORBIDDEN = re.compile(r"reward|credit|orchestration|sub-?decision|Multi-Agent Systems through", re.I)
FORBIDDEN_CODES = re.compile(r"\bO[1-5]\b")


def run(root: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--root", str(root), *args], catch_exceptions=False)


def survey_words(text: str) -> list[str]:
    return FORBIDDEN.findall(text) + FORBIDDEN_CODES.findall(text)


@contextmanager
def replay(routes: Mapping[str, bytes]) -> Iterator[str]:
    """A loopback HTTP server answering GET path (with query) -> recorded JSON; 404 otherwise."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json" if body is not None else "text/plain")
            payload = body if body is not None else b"Resource not found."
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
