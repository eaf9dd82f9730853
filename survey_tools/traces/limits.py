"""Input limits for trace files and importer inputs, and the UTF-8 byte order mark.

Limits, each configurable on the command line:

* ``--max-bytes`` (default 512 MiB): a file above it is refused before it is read.
  The default leaves room for a million-event trace (about 220 MB) and a
  million-span OTLP export (about 500 MB).
* ``--max-string-bytes`` (default 16 MiB): a file holding one JSON string longer
  than that (in its encoded form) is refused before it is parsed. The schema's
  longest field (``content``, a million characters) fits several times over.

The string screen costs next to nothing on ordinary files: a string of at least
``limit`` bytes covers a whole aligned block of ``limit // 2`` bytes free of ``"``,
and ``bytes.find`` leaves each block at its first quote. Only a file with a
quote-free block gets the exact (vectorised) scan.

* ``--max-events`` (default 1,000,000): a trace holding more events (or more edges) than
  that is refused before it is decoded, as an input holding more spans than ``--max-spans``
  is before an importer builds them: what a parser builds, not only the bytes it reads, is
  bounded (4 million tiny events fit in the size limit and need well over a gigabyte as
  structs; a million-event trace is validated in about 500 MiB). The count is exact: every
  event has one ``"agent"`` key and every edge one ``"src"`` key, and inside a JSON string a
  quote is escaped, so these bytes occur nowhere else but as a value (which the colon after
  a key tells apart). A cheaper bound screens first: the keys' first four bytes, counted
  by numpy as ``uint32`` words; only a key whose bound is over the limit is counted again.

A UTF-8 byte order mark (``EF BB BF``) at the very start is accepted and skipped, as
RFC 8259 section 8.1 allows parsers to do; a UTF-16 mark gets its own message.
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
DEFAULT_MAX_STRING_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_SPANS = 1_000_000
DEFAULT_MAX_EVENTS = 1_000_000
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

# A file's bytes: read, or the file mapped into memory.
Buffer = bytes | mmap.mmap


@dataclass(frozen=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_string_bytes: int = DEFAULT_MAX_STRING_BYTES
    # Spans an importer turns into records: counted before it builds them (2.8 million tiny
    # spans fit in the size limit and need gigabytes as records).
    max_spans: int = DEFAULT_MAX_SPANS
    # Events (and edges) a trace may hold: counted in the bytes before they are decoded.
    max_events: int = DEFAULT_MAX_EVENTS


_SPAN_LIMIT: ContextVar[int | None] = ContextVar("max_spans", default=None)


def span_limit() -> int:
    """The spans an import may build (``--max-spans``; the default outside an import)."""
    return _SPAN_LIMIT.get() or DEFAULT_MAX_SPANS


# Spans built so far by the import under way (one list per import: a counter the importers of
# span files bump through count_span).
_SPANS_BUILT: ContextVar[list[int] | None] = ContextVar("spans_built", default=None)


@contextmanager
def spans_limited(n: int) -> Iterator[None]:
    token = _SPAN_LIMIT.set(n)
    built = _SPANS_BUILT.set([0])
    try:
        yield
    finally:
        _SPANS_BUILT.reset(built)
        _SPAN_LIMIT.reset(token)


def count_span() -> str | None:
    """Count one more span built by the import under way; the refusal once past the limit."""
    built = _SPANS_BUILT.get()
    if built is None:
        return None
    built[0] += 1
    return span_count_problem(built[0], "spans or more") if built[0] > span_limit() else None


def span_count_problem(n: int, what: str = "spans") -> str | None:
    """The refusal of an input holding ``n`` spans (or ``what`` counts them), or None."""
    limit = span_limit()
    if n <= limit:
        return None
    return f"the input holds {n:,} {what}, over the {limit:,} spans limit (--max-spans raises it)"


DEFAULT_LIMITS = Limits()


def _keys(data: Buffer, key: bytes) -> int:
    """How many times ``key`` (a quoted name) is an object key in ``data``: the plain count
    bounds it from above (a quote inside a string is escaped), and only a count over a limit
    is made exact (a value spelled as the key has no colon after it)."""
    # finditer, not findall: 4 million matches as a list cost 150 MiB
    return sum(1 for _ in re.finditer(re.escape(key) + rb"\s*:", data))


def _counts(data: Buffer, keys: tuple[bytes, ...]) -> list[int]:
    """``data.count(key)`` for each key, for a mapped file too: in 16 MiB slices (overlapping by
    the longest key), each slice copied once for all the keys (a mapped file has no count())."""
    if isinstance(data, bytes):
        return [data.count(key) for key in keys]
    step, over = 1 << 24, max(map(len, keys)) - 1
    out = [0] * len(keys)
    for i in range(0, len(data), step):
        part = data[i : i + step + over]
        for k, key in enumerate(keys):
            # A match in the overlap belongs to the next slice: only matches starting here count.
            out[k] += part.count(key, 0, step + len(key) - 1)
    return out


def _prefix_counts(data: Buffer, keys: tuple[bytes, ...]) -> list[int]:
    """How often the first four bytes of each key occur in ``data``: an upper bound of
    ``data.count(key)``, at numpy's speed (0.11 s against 0.36 s for ``bytes.count`` of the two
    keys in a 222 MB trace; benchmarks/TRACES.md, round 9). Four bytes are one ``uint32``: each
    1 MiB slice (small enough to stay in the cache: 4 MiB took 0.14 s, 16 MiB 0.16 s) is viewed
    as ``uint32`` at each of the four byte offsets, so every position in the slice starts one
    item of one view, and no copy of a mapped file is made beyond a slice at a time."""
    arr = np.frombuffer(data, dtype=np.uint8)
    want = [int(np.frombuffer(key[:4], dtype="<u4")[0]) for key in keys]
    out = [0] * len(keys)
    step = 1 << 20  # a multiple of 4: each view then covers exactly the starts in its slice
    for i in range(0, arr.size, step):
        part = arr[i : i + step + 3]
        for a in range(4):
            m = (part.size - a) // 4
            if m <= 0:
                continue
            words = part[a : a + 4 * m].view("<u4")
            for k, w in enumerate(want):
                out[k] += int(np.count_nonzero(words == w))
    return out


_COUNTED = ((b'"agent"', "events"), (b'"src"', "edges"))


def event_count_problem(data: Buffer, limits: Limits) -> str | None:
    """The refusal of a trace holding more events or edges than ``limits.max_events``, or None.

    Three counts, each an upper bound of the next, the dearer ones made only for a key whose
    cheaper bound is over the limit: the key's first four bytes (:func:`_prefix_counts`), the
    whole key (``bytes.count``), the key followed by a colon (exact)."""
    limit = limits.max_events
    keys = tuple(key for key, _ in _COUNTED)
    over = [
        key for key, bound in zip(keys, _prefix_counts(data, keys), strict=True) if bound > limit
    ]
    counts = dict(zip(over, _counts(data, tuple(over)), strict=True)) if over else {}
    for key, what in _COUNTED:
        if counts.get(key, 0) > limit and (n := _keys(data, key)) > limit:
            return (
                f"the trace holds {n:,} {what}, over the {limit:,} events limit "
                "(--max-events raises it)"
            )
    return None


def mib(n: int) -> str:
    """A byte count for messages: ``512 MiB``, ``100.0 MiB``, ``2.5 KiB``, ``17 bytes``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} bytes"


def size_problem(size: int, limits: Limits) -> str | None:
    """The message for a file too large to read, or None."""
    if size <= limits.max_bytes:
        return None
    return (
        f"the file is {mib(size)}, over the {mib(limits.max_bytes)} limit (--max-bytes raises it)"
    )


def strip_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte order mark."""
    return data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data


def _unescaped_quotes(data: Buffer) -> np.ndarray:
    arr = np.frombuffer(data, dtype=np.uint8)
    q = np.flatnonzero(arr == 34)
    after_bs = q[(q > 0) & (arr[np.maximum(q - 1, 0)] == 92)]
    escaped = []
    for p in after_bs.tolist():
        k = p - 1
        while k >= 0 and data[k] == 92:
            k -= 1
        if (p - 1 - k) % 2 == 1:  # an odd run of backslashes escapes the quote
            escaped.append(p)
    if escaped:
        q = q[~np.isin(q, np.array(escaped, dtype=q.dtype))]
    return q


def long_string(data: Buffer, limit: int) -> tuple[int, int] | None:
    """(offset of the opening quote, length in bytes) of the first JSON string in
    ``data`` longer than ``limit`` bytes, or None."""
    block = max(1, limit // 2)
    n = len(data)
    if not any(data.find(b'"', s, s + block) < 0 for s in range(0, n - block + 1, block)):
        return None
    # Exact: outside strings JSON has no quotes, so unescaped quotes pair up as
    # open/close (for broken JSON this is a best effort; the parser reports the rest).
    q = _unescaped_quotes(data)
    opens, closes = q[0::2], q[1::2]
    k = closes.size
    lengths = closes - opens[:k] - 1
    big = np.flatnonzero(lengths > limit)
    if big.size:
        i = int(big[0])
        return int(opens[i]), int(lengths[i])
    if opens.size > k and n - int(opens[-1]) - 1 > limit:  # unterminated
        return int(opens[-1]), n - int(opens[-1]) - 1
    return None


def string_problem(data: Buffer, limits: Limits) -> tuple[str, int, int] | None:
    """(message, line, column) for a string over the limit, or None."""
    found = long_string(data, limits.max_string_bytes)
    if found is None:
        return None
    pos, length = found
    line = data[:pos].count(b"\n") + 1  # a slice: a mapped file has no count()
    col = pos - data.rfind(b"\n", 0, pos)
    return (
        f"a string of {mib(length)} is over the {mib(limits.max_string_bytes)} limit "
        "for one string (--max-string-bytes raises it)",
        line,
        col,
    )


def parse_size(text: str) -> int:
    """``"512M"``, ``"1G"``, ``"300000"`` -> bytes (K, M, G are powers of 1024)."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    mult = 1
    if t and t[-1] in "KMG":
        mult = 1 << {"K": 10, "M": 20, "G": 30}[t[-1]]
        t = t[:-1]
    try:
        value = float(t)
    except ValueError:
        raise ValueError(f"{text!r} is not a size (e.g. 600M, 1G, 100000)") from None
    if not value > 0 or value * mult >= 1 << 62:
        raise ValueError(f"{text!r} is not a positive size")
    return int(value * mult)
