"""Per-trace metrics of a folder as Parquet: streamed in batches in one process, and the
same rows from Ray Data on a local cluster (ray.init(num_cpus=2))."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.scale_cases import folder as folder  # a fixture, found by name
from helpers.scale_cases import pq  # skips the module without pyarrow

from survey_tools.cli import cli
from survey_tools.traces.batch import measure_all
from survey_tools.traces.metrics import flat_row
from survey_tools.traces.scale import to_parquet


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["trace", *args])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stderr


def _expected(folder: Path) -> dict[str, dict]:
    paths = sorted(folder.glob("*.json"))
    return {
        str(m.path): flat_row(m.metrics) if m.metrics is not None else None
        for m in measure_all(paths, limit=1, max_taint_paths=0)
    }


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, int | float):
        return a == pytest.approx(b)
    return a == b


def test_folder_to_parquet_in_batches(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.parquet"
    written = to_parquet(sorted(folder.glob("*.json")), out, batch_rows=5)
    n = len(list(folder.glob("*.json")))
    assert written.traces == n and written.invalid == 1
    meta = pq.ParquetFile(out).metadata
    assert meta.num_rows == n and meta.num_row_groups == -(-n // 5)  # one group per batch
    rows = pq.read_table(out).to_pylist()
    expected = _expected(folder)
    assert [r["file"] for r in rows] == sorted(expected)
    for r in rows:
        want = expected[r["file"]]
        if want is None:
            assert r["valid"] is False and r["problems"] >= 1 and "[cycle]" in r["first_problem"]
            continue
        assert r["valid"] is True and r["problems"] == 0
        assert all(_same(r[k], v) for k, v in want.items()), r["file"]


def test_cli_glob_to_parquet(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs.parquet"
    code, err = run("metrics", str(folder / "run-*.json"), "--format", "parquet", "-o", str(out))
    assert code == 0, err
    assert "24 trace(s)" in err and "0 invalid" in err
    assert pq.read_table(out).num_rows == 24
    code, err = run("metrics", str(folder), "--format", "parquet")
    assert code == 2 and "needs -o" in err


