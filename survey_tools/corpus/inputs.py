"""The build's input stage: every file besides the records and the configuration, read once.

The records (:mod:`.loading`) and the configuration files with the survey's own texts
(:mod:`.taxonomy`) carry their own digests. Every other file a build draws on (the screening
logs and queue, the audit file) is read through one :class:`Reads` of the survey folder, which
keeps what it read: the readers take a ``Reads``, never the folder, so a file a reader starts
to read is part of the incremental build's key (``buildcache.input_key``) without a list of
inputs kept anywhere else.
"""

from __future__ import annotations

from pathlib import Path

from survey_tools.errors import InvalidInput, Problem
from survey_tools.hashing import content_hasher, hex_of


class Reads:
    """Files of one survey folder read for a build, each once, by path relative to it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # rel -> bytes (None: looked for and absent); a folder listing as "rel/*suffix".
        self._files: dict[str, bytes | None] = {}
        self._listings: dict[str, tuple[str, ...]] = {}

    def file(self, rel: str, limit: int | None = None) -> bytes | None:
        """The file's bytes (None when absent), read the first time it is asked for; a file
        over ``limit`` bytes is refused before it is read."""
        if rel not in self._files:
            self._files[rel] = self._read(rel, limit)
        return self._files[rel]

    def _read(self, rel: str, limit: int | None) -> bytes | None:
        path = self.root / rel
        try:
            if not path.is_file():
                return None
            size = path.stat().st_size
            if limit is not None and size > limit:
                raise InvalidInput(
                    [Problem(rel, 1, 0, "", f"file is {size:,} bytes; the limit is {limit:,}")],
                    f"{rel} cannot be read",
                )
            return path.read_bytes()
        except OSError as err:
            raise InvalidInput(
                [Problem(rel, 0, 0, "", f"cannot read: {err.strerror or err}")],
                f"{rel} cannot be read",
            ) from None

    def names(self, folder: str, suffix: str) -> tuple[str, ...]:
        """The names of the files in ``folder`` ending in ``suffix``, sorted (none when there is
        no such folder). Only the listing is an input: a reader that needs a file's bytes asks
        for them with :meth:`file`."""
        key = f"{folder.rstrip('/')}/*{suffix}"
        if key not in self._listings:
            base = self.root / folder
            found = (
                sorted(p.name for p in base.iterdir() if p.name.endswith(suffix) and p.is_file())
                if base.is_dir()
                else []
            )
            self._listings[key] = tuple(found)
        return self._listings[key]

    def digest(self) -> str:
        """Everything read so far, as one hash (what was absent counts as absent)."""
        h = content_hasher()
        for rel, data in sorted(self._files.items()):
            h.update(rel.encode() + b"\0")
            h.update(b"\0absent" if data is None else len(data).to_bytes(8, "little") + data)
        for key, names in sorted(self._listings.items()):
            h.update(key.encode() + b"\0" + "\0".join(names).encode() + b"\1")
        return hex_of(h, 20)

    @property
    def paths(self) -> tuple[str, ...]:
        """What was read, for a reader of the build (tests, ``--explain``): paths and listings."""
        return (*sorted(self._files), *sorted(self._listings))


__all__ = ["Reads"]
