"""The one run of this folder's cases (04:48 UTC, at 69314f6, when they were still here: `git checkout 1258d87 -- tests/data/contrib-heldout2` brings them back as written): each case's exit and lines, and what the record read holds when it passes. Run from the repository root with PYTHONPATH=. SURVEY_NO_CACHE=1."""
import json
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, "tests")
from helpers.contrib_cases import Case, outcome

from survey_tools.corpus.loading import load_corpus

out = {}
for p in sorted(Path("tests/data/contrib-heldout2").glob("*.yaml")):
    spec = yaml.safe_load(p.read_text())
    root = Path(tempfile.mkdtemp()) / "survey"
    shutil.copytree("taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    (root / "exclusions").mkdir()
    spec2 = {**spec, "exit": 0}
    code, lines, vcode = outcome(Case(p.stem, spec2), root)
    data = None
    if code == 0 or spec["check"] == "paths":
        c = load_corpus(root, use_cache=False)
        recs = [r for r in c.retained if r.path == spec["path"]]
        data = dict(recs[0].data) if recs else None
    out[p.stem] = {"exit": code, "lines": lines, "validate_exit": vcode, "read": data}
    print(f"== {p.stem} [{spec['outcome']}] must_say={spec['must_say']}\n   exit {code} (validate {vcode})")
    for line in lines:
        print("   ", line)
    if data is not None and code == 0:
        keys = ["title","authors","year","venue","identifiers","links","is_rl","verified","subdecisions","added","scenario"]
        print("    read:", {k: data.get(k) for k in keys})
Path(tempfile.gettempdir()) / "heldout2-run.json".write_text(json.dumps(out, default=str, indent=1, ensure_ascii=False))
