"""Keeping what a build loads and computes out of the collector's full collections.

A build's records, positions, tables and bibliography live until it ends. CPython's collector
walks every tracked object at each full collection, and a build of 100,000 records made 13 of
them, 12.9 s in all, that freed nothing (benchmarks/build-scale.md). Inside :func:`long_lived`,
:func:`keep` marks every object alive at that moment as long-lived (``gc.freeze``): the full
collections leave them out. When the block ends they go back to the oldest generation, so the
collector of a library caller is as it was. A process that freezes objects itself (a test
runner, a server preloading modules) is left alone: :func:`keep` does nothing there.

The loading stage calls :func:`keep` as records pile up, the build after each stage, and
``survey trace metrics`` (``traces/batch.py``) after validating each trace, whose columns' lists
live while its metrics are made; outside a :func:`long_lived` block (``survey validate``, a library
call to ``load_corpus``) it does nothing.

A command that ends its process right after its work may also leave its largest objects to the
operating system instead of freeing them one by one: freeing the million decoded events and the
columns of a large trace took 0.3-0.36 s of CPU in ``survey trace validate`` (benchmarks/TRACES.md,
round 5 of issue 47). Inside :func:`exit_leaves_heap` (the ``survey`` process's entry point,
never click's test runner or a library caller), :func:`leave_to_exit` keeps what it is given and
:func:`release_left` frees it: a batch calls it before the next trace, so at most one trace is
held, and the metrics call it before building arrays of their own, keeping the trace, so that
their peak memory is validation's. The process then ends with ``os._exit`` after flushing its
output, skipping the interpreter's teardown. Outside that block both do nothing: objects are
freed as usual.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

# How many records parsed, or outputs staged, between two keep() calls in those loops.
KEEP_EVERY = 5000

_lock = threading.Lock()
_active = False  # a long_lived() block owns the frozen generation now
# What exit_leaves_heap() will leave to the operating system; None outside that block.
_left: list[Any] | None = None


@contextmanager
def long_lived() -> Iterator[None]:
    """A block within which :func:`keep` freezes what is alive; everything is unfrozen at its end.

    Nested or concurrent blocks and a process that froze objects before are left to the outer
    owner: the block then changes nothing."""
    global _active
    with _lock:
        owner = not _active and gc.get_freeze_count() == 0
        if owner:
            _active = True
    if not owner:
        yield
        return
    try:
        yield
    finally:
        with _lock:
            _active = False
            gc.unfreeze()


def keep() -> None:
    """Inside :func:`long_lived`: every object alive now is left out of full collections."""
    if _active:
        gc.freeze()


@contextmanager
def exit_leaves_heap() -> Iterator[None]:
    """The process's whole run: if anything was left to the exit, end it without a teardown.

    The exit code, and the message of a ``SystemExit`` that carries one, are what Python's own
    exit would give; the standard streams are flushed first. When nothing was left the block
    exits as usual (atexit handlers and all). A process that froze objects itself (a test
    runner calling ``main``, like :func:`keep`) is left alone: nothing is kept there."""
    global _left
    if gc.get_freeze_count():
        yield
        return
    _left = []
    try:
        yield
    except SystemExit as stop:
        if _left:
            _exit_now(stop.code)
        raise
    finally:
        left, _left = _left, None
    if left:
        _exit_now(0)


def _exit_now(code: Any) -> NoReturn:
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): printed, status 1
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: Python's exit would say 120
            status = status or 120
    os._exit(status & 0xFF)


def leave_to_exit(*objs: Any) -> None:
    """Inside :func:`exit_leaves_heap`: keep ``objs`` alive until the process ends."""
    if _left is not None:
        _left.extend(objs)


def release_left(*keep: Any) -> None:
    """Free what :func:`leave_to_exit` kept (before the next large piece of work), except
    ``keep``, which stays left to the exit."""
    if _left:
        _left[:] = keep
