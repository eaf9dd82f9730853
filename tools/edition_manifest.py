"""Write the manifest that closes a published edition: ``data/editions/<edition>.yaml``.

Run once by a maintainer when an edition is published (after its records are final), then commit
the file: from then on `survey validate` refuses a record that claims the edition without being
listed in it (a hand-copied record keeping `edition: <id>`) and reports an edition record whose
facts (title, authors, year, venue, identifiers) changed. An existing manifest is never rewritten
unless --force is given.

    python3 tools/edition_manifest.py [--root DIR] [EDITION_ID] [--force]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.validation import edition_manifest, manifest_path
from survey_tools.fileio import atomic_write


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("edition", nargs="?", help="the published edition (default: the latest)")
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--force", action="store_true", help="rewrite an existing manifest")
    args = ap.parse_args(argv)
    corpus = load_corpus(args.root)
    eds = corpus.taxonomy.editions
    if eds is None or not eds.published:
        print("error: taxonomy/survey.yaml declares no published edition", file=sys.stderr)
        return 2
    edition = eds.get(args.edition) if args.edition else eds.latest
    if edition is None or edition is eds.living:
        print(f"error: {args.edition!r} is not a published edition ({', '.join(e.id for e in eds.published)})",
              file=sys.stderr)
        return 2
    target = args.root / manifest_path(edition)
    if target.exists() and not args.force:
        print(f"error: {target} exists; an edition's manifest is written once (--force to rewrite)",
              file=sys.stderr)
        return 1
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, edition_manifest(corpus, edition))
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
