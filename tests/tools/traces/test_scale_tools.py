"""The tests of test_scale.py that run a real outside program on what the toolkit writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.scale_cases import INSTALL, pq  # skips the module without pyarrow
from helpers.scale_cases import folder as folder  # a fixture, found by name

from survey_tools.traces.scale import to_parquet, to_parquet_ray


def test_ray_local_cluster_gives_the_same_rows(folder: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray", reason=f"ray is not installed ({INSTALL})")
    pytest.importorskip("ray.data", reason=f"ray[data] is not installed ({INSTALL})")
    paths = sorted(folder.glob("*.json"))
    one, many = tmp_path / "one.parquet", tmp_path / "ray.parquet"
    to_parquet(paths, one)
    written = to_parquet_ray(paths, many, num_cpus=2, batch_rows=4)
    assert written.traces == len(paths) and written.invalid == 1
    assert pq.read_table(many).equals(pq.read_table(one))
    assert json.dumps(pq.read_table(many).to_pylist(), sort_keys=True) == json.dumps(
        pq.read_table(one).to_pylist(), sort_keys=True
    )
