"""A forked child process that does one piece of work and pipes pickled answers back.

Used to put the second core to work on large traces: the child shares the parent's pages
copy-on-write, writes its answers to a pipe and ends with ``os._exit`` (no cleanup, no
flushing of the parent's buffers). A child that dies or sends garbage reads as None, and the
caller falls back to doing the work itself.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from typing import Any


class ForkedChild:
    """Run ``work(write_fd)`` in a forked child; read its answers with :meth:`read`."""

    def __init__(self, work: Callable[[int], None]) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            try:
                os.close(read_fd)
                work(write_fd)
            finally:
                os._exit(0)
        os.close(write_fd)
        self.pid = pid
        self.done = False
        self.fh = os.fdopen(read_fd, "rb")

    def read(self) -> Any:
        """The child's next answer, or None when it died (EOF) or sent garbage."""
        try:
            return pickle.load(self.fh)
        except Exception:
            return None

    def cancel(self) -> None:
        """Kill the child if it still runs, and reap it; safe to call twice."""
        if self.done:
            return
        self.done = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        self.fh.close()
        os.waitpid(self.pid, 0)
