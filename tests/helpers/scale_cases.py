"""What test_scale.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.trace_paths import EXAMPLES, REPO

INSTALL = "pip install -e '.[scale]'"


pq = pytest.importorskip("pyarrow.parquet", reason=f"pyarrow is not installed ({INSTALL})")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import sys

    sys.path.insert(0, str(REPO))
    from benchmarks.synthetic_traces import SynthParams, write

    d = tmp_path_factory.mktemp("traces")
    for seed in range(24):
        write(str(d / f"run-{seed:03d}.json"), SynthParams(n_events=120, n_agents=6, seed=seed))
    for p in sorted((EXAMPLES / "valid").glob("*.json")):
        shutil.copy(p, d / f"example-{p.name}")
    shutil.copy(EXAMPLES / "invalid" / "cycle.json", d / "zz-invalid.json")
    return d
