"""The tests of test_metadata.py that feed huge inputs or wait for a command's deadline."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from helpers.loopback import LoopbackServer as HTTPServer
from helpers.metadata_cases import DOI, TAGS
from helpers.metadata_cases import server as server  # a fixture, found by name

from survey_tools.cli import cli


def test_the_command_deadline_bounds_add(server: HTTPServer, survey: Path) -> None:
    """--deadline bounds the whole command's network time, below a generous --timeout."""
    import threading

    from werkzeug import Response

    stop = threading.Event()
    server.expect_request(f"/works/{DOI}").respond_with_handler(
        lambda _r: (stop.wait(60), Response(b"late"))[1]
    )
    try:
        res = CliRunner().invoke(
            cli,
            [
                "--root",
                str(survey),
                "add",
                DOI,
                "--crossref-url",
                server.url_for("").rstrip("/"),
                "--timeout",
                "60",
                "--deadline",
                "1",
                *TAGS,
            ],
        )
    finally:
        stop.set()
    assert res.exit_code == 1
    assert res.stderr.startswith("error: Crossref (") and res.stderr.rstrip().endswith(
        "the command's deadline passed during the request"
    ), res.stderr
