"""The incremental build's memory, kept in the survey's cache folder (never in the survey).

Two things are remembered, each under a key that hashes *everything its bytes are drawn from*
plus the versions that shape them (this toolkit's own files, the rendering libraries):

- the **manifest** of the last build: the key of all its inputs (record files, configuration
  files, the screening logs, the audit file) and a hash of every output it wrote. When the
  inputs' key is unchanged and every output on disk still has its recorded hash, ``build`` and
  ``build --check`` are done after validation: nothing is computed or rendered again;
- the **files of each part** of a generator drawn in parts (``render.registry.Parts``: one
  part a figure, keyed by the labels and numbers it shows): while what a part is drawn from is
  unchanged (a summary, a link or a tag no figure counts was edited), its files are taken from
  the cache instead of being drawn again. These are content-addressed and shared by every
  survey folder on the machine (a clone or worktree elsewhere draws nothing its twin drew); the
  newest ``KEEP_OUTPUTS`` entries of each part are kept.

A cache entry that is missing, unreadable or does not hash to what it says is ignored: the
build then renders, so a damaged cache costs time, never correctness. ``SURVEY_NO_CACHE=1``
turns all of this off (and the parse cache with it).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from survey_tools._version import __version__
from survey_tools.cachedir import cache_base, cache_dir
from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.loading import cache_enabled
from survey_tools.corpus.records import Corpus
from survey_tools.fileio import atomic_write
from survey_tools.hashing import content_hasher, content_hexdigest, hex_of, source_digest

MANIFEST = "build-manifest.json"
OUTPUTS = "outputs"
KEEP_OUTPUTS = 8
FORMAT = 2  # 2: outputs hashed with SHA-256 (survey_tools.hashing), not BLAKE2
# Libraries whose version changes the bytes of an output (figures, templates, BibTeX, YAML).
SHAPING = ("matplotlib", "jinja2", "bibtexparser", "PyYAML", "numpy", "markupsafe")
PACKAGE = Path(__file__).resolve().parent


def _h(*parts: bytes) -> str:
    h = content_hasher()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return hex_of(h, 20)


@cache
def toolkit_digest() -> str:
    """This toolkit's code and templates and the shaping libraries' versions: an edit to a
    template or a generator in a development install changes it, as a new release does."""
    parts = [__version__.encode()]
    for name in SHAPING:
        try:
            parts.append(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            parts.append(f"{name}=none".encode())
    # Every file the package ships, whatever its kind: a list of suffixes missed the page's
    # script modules (.mjs) once, and a cached `build --check` then called a stale page fresh.
    parts.append(source_digest(PACKAGE).encode())
    return _h(*parts)


def input_key(corpus: Corpus, reads: Reads) -> str:
    """Everything the build's outputs are drawn from, as one hash: this toolkit, the records,
    the configuration files with the survey's texts (the taxonomy's digest), and every other
    file the input stage read (``reads``: no list of inputs is kept here)."""
    tax = corpus.taxonomy
    return _h(toolkit_digest().encode(), corpus.digest.encode(),
              (tax.configs.digest if tax.configs else "").encode(), reads.digest().encode())


def enabled() -> bool:
    return cache_enabled()


def file_hash(data: bytes) -> str:
    return content_hexdigest(data, 20)


def read_manifest(root: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((cache_dir(root) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = (isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("key"), str)
          and isinstance(data.get("outputs"), dict) and isinstance(data.get("summary"), dict))
    return data if ok else None


def write_manifest(root: Path, key: str, hashes: Mapping[str, str], summary: Mapping[str, Any]) -> None:
    """The manifest of a build: its inputs' key and the hash (:func:`file_hash`) of every output."""
    data = {"format": FORMAT, "key": key, "summary": dict(summary), "outputs": dict(sorted(hashes.items()))}
    _save(cache_dir(root) / MANIFEST, json.dumps(data, sort_keys=True).encode())


def outputs_unchanged(root: Path, manifest: Mapping[str, Any]) -> bool:
    """Every output the manifest lists is on disk with the bytes it recorded."""
    for rel, digest in manifest["outputs"].items():
        try:
            if file_hash((root / rel).read_bytes()) != digest:
                return False
        except OSError:
            return False
    return True


def generator_key(name: str, inputs: bytes) -> str:
    return _h(toolkit_digest().encode(), name.encode(), inputs)


def outputs_folder() -> Path:
    """Where generators' outputs are kept, by key: one folder for every survey on the machine."""
    return cache_base() / OUTPUTS


def load_outputs(name: str, key: str) -> dict[str, bytes] | None:
    """A generator's files from the cache, or None (absent, unreadable or not matching)."""
    path = outputs_folder() / f"{name}-{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = {str(rel): base64.b64decode(entry["data"]) for rel, entry in data.items()}
        if any(file_hash(files[rel]) != data[rel]["hash"] for rel in files):
            return None
        os.utime(path)  # used now: the last to go when old entries are pruned
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return files


def store_outputs(name: str, key: str, files: Mapping[str, bytes]) -> None:
    folder = outputs_folder()
    data = {rel: {"hash": file_hash(b), "data": base64.b64encode(b).decode()} for rel, b in files.items()}
    _save(folder / f"{name}-{key}.json", json.dumps(data, sort_keys=True).encode())
    entries = []
    # Exactly this entry's files: a glob would also match those of a part whose name only
    # starts with this one's ("credit" and "credit-ladder").
    mine = re.compile(re.escape(name) + r"-[0-9a-f]{40}\.json")
    for old in folder.glob(f"{name}-*.json"):
        if not mine.fullmatch(old.name):
            continue
        with contextlib.suppress(OSError):
            entries.append((old.stat().st_mtime_ns, old.name, old))
    # The newest KEEP_OUTPUTS of this generator stay (the one just written among them).
    for _, oname, old in sorted(entries, reverse=True)[KEEP_OUTPUTS:]:
        if oname != f"{name}-{key}.json":
            old.unlink(missing_ok=True)


def _save(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    except OSError:
        pass  # no writable cache folder: the next build renders again, nothing worse


__all__ = ["enabled", "generator_key", "input_key", "load_outputs", "outputs_unchanged",
           "read_manifest", "store_outputs", "toolkit_digest", "write_manifest"]
