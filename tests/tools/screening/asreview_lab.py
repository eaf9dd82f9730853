"""ASReview LAB itself, driven through its own web API: reads our export, writes its exports.

Run with the Python of a virtual environment that has ASReview LAB installed (``tools/ci.sh``
puts one at ``~/.cache/survey-tools-ci/asreview``; ASReview pins pandas and rispy below what the
toolkit uses, so it cannot share the toolkit's environment)::

    ASREVIEW_PYTHON tests/tools/screening/asreview_lab.py read EXPORT.csv
        prints JSON: how ASReview's own reader (asreview.load_dataset) sees our export
    ASREVIEW_PYTHON tests/tools/screening/asreview_lab.py label EXPORT.csv OUTDIR RELEVANT IRRELEVANT
        creates a LAB project from EXPORT.csv (POST /api/projects/create, as the browser does),
        labels the rows whose ``record_id`` column is in the comma-separated RELEVANT and
        IRRELEVANT lists (POST /api/projects/<id>/record/<n>), and downloads the dataset export
        in every format LAB offers (GET /api/projects/<id>/export_dataset?format=csv|tsv|xlsx|ris)
        into OUTDIR/asreview-export.<ext>; prints JSON with the version and the files.
    ASREVIEW_PYTHON tests/tools/screening/asreview_lab.py batch JOBS.json
        runs a JSON list of the commands above in one process (``["read", EXPORT]`` or
        ``["label", EXPORT, OUTDIR, RELEVANT, IRRELEVANT]``) and prints the list of their
        results: LAB's import and start-up (4 s) are paid once for all of them.

Nothing here imports survey_tools: this file runs only in ASReview's environment. The committed
files in tests/fixtures/asreview/ were written by the ``label`` command (see SOURCES.md there).
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path

FORMATS = ("csv", "tsv", "xlsx", "ris")


def read(path: str) -> dict:
    import pandas as pd
    from asreview import load_dataset

    db = load_dataset(path)
    df = db.input.get_df()
    rows = []
    for _, r in df.iterrows():
        authors = r["authors"]
        rows.append({
            "title": r["title"], "abstract": r["abstract"],
            "authors": json.loads(authors) if isinstance(authors, str) else authors,
            "doi": None if pd.isna(r["doi"]) else r["doi"], "url": None if pd.isna(r["url"]) else r["url"],
            "included": None if pd.isna(r["included"]) else int(r["included"]),
        })
    return {"asreview": __import__("asreview").__version__, "n": len(rows), "rows": rows}


def label(path: str, outdir: str, relevant: list[str], irrelevant: list[str]) -> dict:
    import asreview
    from asreview.data.loader import _get_reader

    home = tempfile.mkdtemp(prefix="asreview-lab-")
    os.environ["ASREVIEW_PATH"] = home
    cfg = Path(home) / "no_auth.toml"
    cfg.write_text("TESTING = true\nAUTHENTICATION = false\n")
    from asreview.webapp.app import create_app

    app = create_app(config_path=str(cfg))
    client = app.test_client()
    data = Path(path).read_bytes()
    r = client.post("/api/projects/create", data={"mode": "oracle", "file": (io.BytesIO(data), Path(path).name)},
                    content_type="multipart/form-data")
    if r.status_code != 201:
        raise SystemExit(f"create failed: {r.status_code} {r.get_data(as_text=True)}")
    pid = r.get_json()["id"]
    # ASReview numbers the records 0..n-1 in file order: find ours by their record_id column
    # (our CSV) or by the arXiv id in their notes (our RIS).
    df = _get_reader(path).read_data(path)
    if "record_id" in df.columns:
        ids = [[str(x)] for x in df["record_id"]]
    else:
        ids = [[str(n) for n in notes] if isinstance(notes, list) else [] for notes in df["notes"]]

    def post_label(ref: str, lab: int, prior: int) -> None:
        n = next(i for i, refs in enumerate(ids) if ref in refs)
        r = client.post(f"/api/projects/{pid}/record/{n}", data={"record_id": n, "label": lab, "is_prior": prior})
        if r.status_code >= 300:
            raise SystemExit(f"label failed: {r.status_code} {r.get_data(as_text=True)}")

    # As a screener does in LAB: the first relevant and the first irrelevant record as prior
    # knowledge (a file made from our CSV already holds more), "start reviewing" (the first
    # model trains and ranks the unseen records; in-process, as LAB runs it when TESTING is
    # set, instead of through its task-manager socket), then the other decisions.
    post_label(relevant[0], 1, 1)
    post_label(irrelevant[0], 0, 1)
    r = client.post(f"/api/projects/{pid}/train")
    if r.status_code != 200:
        raise SystemExit(f"train failed: {r.status_code} {r.get_data(as_text=True)}")
    for ref, lab in [(x, 1) for x in relevant[1:]] + [(x, 0) for x in irrelevant[1:]]:
        post_label(ref, lab, 0)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for fmt in FORMATS:
        r = client.get(f"/api/projects/{pid}/export_dataset",
                       query_string={"format": fmt, "collections": ["relevant", "not_seen", "irrelevant"]})
        if r.status_code != 200:
            raise SystemExit(f"export {fmt} failed: {r.status_code} {r.get_data(as_text=True)}")
        target = out / f"asreview-export.{fmt}"
        target.write_bytes(r.get_data())
        files.append(target.name)
    return {"asreview": asreview.__version__, "files": files}


def _one(argv: list[str]) -> dict | None:
    if argv[:1] == ["read"] and len(argv) == 2:
        return read(argv[1])
    if argv[:1] == ["label"] and len(argv) == 5:
        split = [x for x in argv[3].split(",") if x], [x for x in argv[4].split(",") if x]
        return label(argv[1], argv[2], *split)
    return None


def main(argv: list[str]) -> int:
    if argv[:1] == ["batch"] and len(argv) == 2:
        jobs = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        results = [_one([str(x) for x in job]) for job in jobs]
        if all(r is not None for r in results):
            print(json.dumps(results, default=str))
            return 0
    else:
        result = _one(argv)
        if result is not None:
            print(json.dumps(result, default=str))
            return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
