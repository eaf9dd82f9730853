"""An answer's body, read with a cap on the bytes received and on the bytes they decompress to.

httpx decodes ``Content-Encoding`` itself, in one ``decompress`` call per chunk and without a
limit: a 3 KB body gzipped twice becomes 2 GiB in memory before anyone can count. So bodies are
read raw (``aiter_raw``) and decoded here, layer by layer, each ``decompress`` call asked for at
most what is still allowed (zlib's ``max_length``): a bomb is refused after the cap is reached,
having cost the time to produce the cap and no more.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

# The encodings we ask for (Accept-Encoding); a server sending another one is refused.
ACCEPT_ENCODING = "gzip, deflate"
_WBITS = {"gzip": 31, "x-gzip": 31, "deflate": 15}
_STEP = 64 * 1024  # compressed bytes handed to zlib at a time


class BodyError(Exception):
    """The body cannot be used: too large once decoded, an unknown encoding, corrupt data."""


def encodings(header: str | None) -> list[str]:
    """The ``Content-Encoding`` layers in the order they were applied (identity dropped)."""
    if not header:
        return []
    return [e.strip().lower() for e in header.split(",") if e.strip() and e.strip().lower() != "identity"]


def _inflate(data: bytes, wbits: int, cap: int, name: str) -> bytes:
    out = bytearray()
    d = zlib.decompressobj(wbits)
    view = memoryview(data)
    pos = 0
    pending = b""
    while True:
        if not pending:
            if pos >= len(view):
                break
            pending = bytes(view[pos:pos + _STEP])
            pos += _STEP
        try:
            chunk = d.decompress(pending, cap + 1 - len(out))
        except zlib.error as err:
            if wbits == 15 and not out and pos <= _STEP:
                # Some servers send raw deflate under "deflate": try that once.
                return _inflate(data, -15, cap, name)
            raise BodyError(f"the {name} body is corrupt ({err})") from None
        out += chunk
        if len(out) > cap:
            raise BodyError(f"the body decompresses to more than {_size(cap)}")
        pending = d.unconsumed_tail
        if d.eof:
            rest = d.unused_data + bytes(view[pos:])
            if rest.strip(b"\0"):
                # Concatenated gzip members are one stream (RFC 1952).
                return bytes(out) + _inflate(rest, wbits, cap - len(out), name)
            return bytes(out)
    if not d.eof and wbits != -15:
        raise BodyError(f"the {name} body is cut off")
    return bytes(out)


def decode(raw: bytes, layers: Sequence[str], cap: int) -> bytes:
    """``raw`` with its encodings undone (last applied first), never longer than ``cap``."""
    data = raw
    for name in reversed(layers):
        wbits = _WBITS.get(name)
        if wbits is None:
            raise BodyError(f"the body uses the encoding {name!r}, which was not asked for")
        data = _inflate(data, wbits, cap, name)
    if len(data) > cap:
        raise BodyError(f"the body is larger than {_size(cap)}")
    return data


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit == "bytes" else f"{n:.0f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return f"{n} bytes"


def size(n: int) -> str:
    """``33554432`` -> ``32 MiB`` (for messages)."""
    return _size(n)
