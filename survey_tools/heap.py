"""Keeping what a build loads and computes out of the collector's full collections.

A build's records, positions, tables and bibliography live until it ends. CPython's collector
walks every tracked object at each full collection, and a build of 100,000 records made 13 of
them, 12.9 s in all, that freed nothing (benchmarks/build-scale.md). Inside :func:`long_lived`,
:func:`keep` marks every object alive at that moment as long-lived (``gc.freeze``): the full
collections leave them out. When the block ends they go back to the oldest generation, so the
collector of a library caller is as it was. A process that freezes objects itself (a test
runner, a server preloading modules) is left alone: :func:`keep` does nothing there.

The loading stage calls :func:`keep` as records pile up, the build after each stage; outside a
:func:`long_lived` block (``survey validate``, a library call to ``load_corpus``) it does nothing.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# How many records parsed, or outputs staged, between two keep() calls in those loops.
KEEP_EVERY = 5000

_lock = threading.Lock()
_active = False  # a long_lived() block owns the frozen generation now


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
