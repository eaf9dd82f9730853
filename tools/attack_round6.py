"""Issue 57's second table of attacks (round 6): kinds round 5 did not try. Other formats' bombs
(CSL-JSON, RIS, BibTeX macros, a YAML record nested block by block, a YAML entry with millions
of keys, a million links on one Markdown line, a 500 MB CSV cell, a gzip inside a gzip, a
workbook whose shared-strings count is a lie), the trace importers without a span count and
trace validate's decoded size, a trace whose parents form a cycle or a chain 200,000 deep,
import-labels on millions of rows, a symlink in the folder init adopts, record keys no file
system takes, and `data:`/`vbscript:` in every place of a record that becomes a link.

Run by tools/attack_table.py (``--round 6`` runs these alone; ``ATTACKS=lists,traces`` picks
parts). Each attack runs under round 5's caps (attack_round5.capped: 60 s, 768 MiB of address
space), and its row gives the exit code, the seconds, the peak memory and the first line said.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from attack_round5 import _HEAD_ROW, _xlsx, capped, copy, hostile_in, verdict


def _write_lines(path: Path, lines: Iterator[str], batch: int = 50_000) -> None:
    with path.open("w") as f:
        buf: list[str] = []
        for ln in lines:
            buf.append(ln)
            if len(buf) == batch:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))


def _size(path: Path) -> str:
    n = path.stat().st_size
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def _bib_macro_doubling(p: Path) -> None:
    # m40 is 16 bytes doubled 40 times: 16 TiB once expanded
    p.write_text(
        '@string{m0 = "xxxxxxxxxxxxxxxx"}\n'
        + "".join(f"@string{{m{i} = m{i - 1} # m{i - 1}}}\n" for i in range(1, 41))
        + "@misc{a, title = m40, year = 2024}\n"
    )


def _xlsx_count_lie(p: Path) -> None:
    shared = "<si><t>Paper</t></si>"
    _xlsx(p, [_HEAD_ROW, '<row r="2"><c r="A2" t="s"><v>0</v></c></row>'], shared)
    # the sst element's count attributes claim two billion strings
    tmp = p.with_suffix(".tmp")
    with zipfile.ZipFile(p) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/sharedStrings.xml":
                data = data.replace(
                    b"<sst ", b'<sst count="2147483647" uniqueCount="2147483647" ', 1
                )
            zout.writestr(item, data)
    tmp.replace(p)


def _lists() -> list[tuple[str, str, Callable[[Path], None], tuple[str, ...]]]:
    """(what, file name, maker, extra init options)."""
    return [
        (
            "CSL-JSON: 3,500,000 tiny entries (49 MB, under the size limit)",
            "many.json",
            lambda p: _write_lines(
                p, iter(["[", *(['{"title":"a"},'] * 3_499_999), '{"title":"a"}]'])
            ),
            (),
        ),
        (
            "RIS: 1,900,000 records (48 MB)",
            "many.ris",
            lambda p: _write_lines(p, ("TY  - JOUR\nTI  - a\nER  - \n" for _ in range(1_900_000))),
            (),
        ),
        (
            "YAML list: one entry with 2,000,000 keys (no anchors)",
            "keys.yaml",
            lambda p: _write_lines(
                p, iter(["- title: a\n", *(f"  k{i}: x\n" for i in range(2_000_000))])
            ),
            (),
        ),
        (
            "BibTeX: a macro doubled 40 times (16 TiB expanded)",
            "double.bib",
            _bib_macro_doubling,
            (),
        ),
        (
            "BibTeX: 1,000,000 @string macros",
            "macros.bib",
            lambda p: _write_lines(
                p,
                iter(
                    [
                        *(f'@string{{m{i} = "v"}}\n' for i in range(1_000_000)),
                        "@misc{a, title = {A paper}, year = 2024}\n",
                    ]
                ),
            ),
            (),
        ),
        (
            "Markdown: 1,000,000 links on one line",
            "links.md",
            lambda p: p.write_text(
                "# List\n\n- " + "[a](https://example.org/a) " * 1_000_000 + "\n"
            ),
            (),
        ),
        (
            "CSV: a 500 MB cell",
            "cell.csv",
            lambda p: _write_lines(
                p, iter(['title,year\n"', *(["x" * (1 << 20)] * 500), '",2024\n']), batch=10
            ),
            (),
        ),
        (
            "CSV: a 500 MB cell, --max-bytes 1000000000",
            "cell2.csv",
            lambda p: _write_lines(
                p, iter(['title,year\n"', *(["x" * (1 << 20)] * 500), '",2024\n']), batch=10
            ),
            ("--max-bytes", "1000000000"),
        ),
        (
            "xlsx: sharedStrings count=2147483647 (one string)",
            "count.xlsx",
            _xlsx_count_lie,
            (),
        ),
    ]


def list_bombs(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    folder = tmp / "r6-lists"
    folder.mkdir()
    for i, (what, name, make, opts) in enumerate(_lists()):
        path = folder / name
        make(path)
        size = _size(path)
        target = tmp / f"r6-init-{i}"
        r = capped(repo, tmp, "init", str(target), "--from", str(path), "--title", "Bombed", *opts)
        rows.append((f"survey init --from {what} ({size})", verdict(r)))
        path.unlink()
        shutil.rmtree(target, ignore_errors=True)


def _otlp(spans: list[dict[str, object]]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


def _span(sid: str, parent: str, t: int) -> dict[str, object]:
    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": sid,
        "parentSpanId": parent,
        "name": "s",
        "startTimeUnixNano": str(t),
        "endTimeUnixNano": str(t + 10),
    }


def _events(n: int) -> Iterator[str]:
    yield (
        '{"schema_version":"1.0","trace_id":"big","task_id":"t","system":"s",'
        '"topology":"centralized","rewards":{},"costs":{},"events":[\n'
    )
    for i in range(n):
        sep = "," if i < n - 1 else ""
        yield f'{{"id":{i},"t":{i},"type":"message","agent":"a","to":"b"}}{sep}\n'
    yield '],"edges":[]}\n'


def trace_bombs(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    folder = tmp / "r6-traces"
    folder.mkdir()
    out = str(folder / "o.json")

    def imp(fmt: str, path: Path, *opts: str) -> str:
        return verdict(capped(repo, tmp, "trace", "import", fmt, str(path), "-o", out, *opts))

    p = folder / "cycle.json"
    p.write_text(_otlp([_span("a" * 16, "b" * 16, 0), _span("b" * 16, "a" * 16, 5)]))
    rows.append(("trace import otel: two spans each the other's parent (no root)", imp("otel", p)))
    chain = [_span(f"{i + 1:016x}", f"{i:016x}" if i else "", i) for i in range(200_000)]
    p = folder / "chain.json"
    p.write_text(_otlp(chain))
    rows.append((f"trace import otel: a parent chain 200,000 deep ({_size(p)})", imp("otel", p)))
    p = folder / "agents.jsonl"
    _write_lines(
        p,
        (
            f'{{"object":"trace.span","id":"s{i}","trace_id":"t","parent_id":null,'
            f'"started_at":"2025-01-01T00:00:00Z","span_data":{{"type":"custom"}}}}\n'
            for i in range(3_000_000)
        ),
    )
    rows.append(
        (f"trace import openai-agents: 3,000,000 tiny spans ({_size(p)})", imp("openai-agents", p))
    )
    p.unlink()
    p = folder / "ww.json"
    _write_lines(
        p,
        iter(
            [
                '{"history":[',
                *('{"role":"a","content":""},' for _ in range(2_999_999)),
                '{"role":"a","content":""}],"mistake_step":"0"}',
            ]
        ),
    )
    rows.append(
        (
            f"trace import who-and-when: 3,000,000 history entries ({_size(p)})",
            imp("who-and-when", p),
        )
    )
    p.unlink()
    p = folder / "events.json"
    _write_lines(p, _events(4_000_000))
    rows.append(
        (
            f"trace validate: 4,000,000 tiny events ({_size(p)}, under the size limit)",
            verdict(capped(repo, tmp, "trace", "validate", str(p))),
        )
    )
    p.unlink()
    p = folder / "nested.json.gz"
    inner = gzip.compress(b"\0" * (1 << 30), compresslevel=9)
    p.write_bytes(gzip.compress(inner, compresslevel=9))
    rows.append(
        (
            f"trace validate: a gzip inside a gzip (1 GiB of zeros, {_size(p)})",
            verdict(capped(repo, tmp, "trace", "validate", str(p))),
        )
    )
    p = folder / "nan.jsonl"
    p.write_text(
        _otlp([_span("a" * 16, "", 0)])
        + "\n"
        + _otlp([_span("b" * 16, "", 0)]).replace('"5"', "NaN").replace('"10"', "Infinity")
        + "\n"
    )
    rows.append(("trace import otel: NaN on line 2 of a JSON-lines file", imp("otel", p)))


def labels(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    root = copy(repo, tmp / "r6-labels")
    shutil.copytree(repo / "screening", root / "screening")
    p = tmp / "r6-labels.csv"
    _write_lines(
        p,
        iter(
            [
                "record_id,title,included\n",
                *(f"arXiv:2601.{i % 100000:05d},Paper {i},1\n" for i in range(2_000_000)),
            ]
        ),
    )
    rows.append(
        (
            f"screen import-labels: 2,000,000 rows ({_size(p)})",
            verdict(capped(repo, root, "screen", "import-labels", str(p))),
        )
    )
    p.unlink()


def _record(base: str, key: str, **kv: str) -> str:
    t = base.replace("key: minimal-na", f"key: {key}")
    for k, v in kv.items():
        lines = [ln for ln in t.splitlines() if not ln.startswith(f"{k}:")]
        t = "\n".join([*lines, f"{k}: {v}"]) + "\n"
    return t


def records(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    base = (repo / "tests/data/records/valid/minimal-na.yaml").read_text()
    root = copy(repo, tmp / "r6-nest")
    (root / "corpus/nest.yaml").write_text(
        _record(base, "nest") + "notes:\n  " + "- " * 50_000 + "x\n"
    )
    rows.append(
        (
            "record nested 50,000 block sequences deep (`- - - ... x`): validate",
            verdict(capped(repo, root, "validate")),
        )
    )
    for what, key in (
        ("Windows reserved name `con`", "con"),
        ("Windows reserved name `nul`", "nul"),
        ("a key of 250 characters", "k" * 250),
    ):
        root = copy(repo, tmp / f"r6-key-{key[:8]}")
        (root / f"corpus/{key}.yaml").write_text(_record(base, key))
        v = capped(repo, root, "validate")
        b = capped(repo, root, "build")
        rows.append(
            (f"record key {what}: validate / build", f"validate {verdict(v)} / build {verdict(b)}")
        )
    root = copy(repo, tmp / "r6-schemes")
    placed = (repo / "tests/data/records/valid/placed-readings.yaml").read_text()
    hostile = (
        placed.replace("key: placed-readings", "key: schemes")
        .replace("- https://example.org/demo\n", "- 'data:text/html,<script>alert(1)</script>'\n")
        .replace("url: https://arxiv.org/abs/2501.00001", "url: 'vbscript:msgbox(1)'")
        .replace("evidence: https://arxiv.org/abs/2501.00001", "evidence: 'data:text/html,x'")
        .replace("evidence: 'https://example.org/demo'", "evidence: 'vbscript:msgbox(2)'")
        .replace("arxiv: '0704.0001'", "arxiv: '0704.0009'")
        .replace("abs/0704.0001", "abs/0704.0009")
        .replace("doi: 10.1000/demo.1", "doi: 10.1000/demo.9")
        .replace("openreview: AbCdEf123", "openreview: ZyXwVu987")
        .replace("A Demonstration Paper on Orchestration", "Schemes Everywhere in One Record")
    )
    (root / "corpus/schemes.yaml").write_text(hostile + "code: 'vbscript:msgbox(3)'\n")
    v = capped(repo, root, "validate")
    (root / "corpus/schemes.yaml").write_text(hostile)
    b = capped(repo, root, "build")
    found = (
        hostile_in(root / "reports", "data:text", "vbscript:")
        + "; "
        + hostile_in(root / "CITATION.cff", "data:", "vbscript:")
    )
    rows.append(
        (
            "`data:`/`vbscript:` in links, evidence, readings, strict_credit url, code: validate / build",
            f"validate {verdict(v)} / build exit {b[0]}; written: {found}",
        )
    )


def adopted_symlink(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    victim = tmp / "r6-victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("x")
    target = tmp / "r6-adopt"
    target.mkdir()
    (target / "list.csv").write_text("title,year,url\nA paper,2024,https://example.org/a\n")
    (target / "corpus").symlink_to(victim)
    (target / "reports").symlink_to(victim)
    r = capped(repo, tmp, "init", str(target), "--from", str(target / "list.csv"), "--title", "T")
    left = sorted(p.name for p in victim.iterdir())
    rows.append(
        (
            "survey init into a folder whose corpus/ and reports/ are links to a folder outside",
            f"{verdict(r)}; outside folder now holds {left[:4]} ({len(left)})",
        )
    )


def round6(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    only = os.environ.get("ATTACKS", "")
    parts: list[tuple[str, Callable[[], None]]] = [
        ("records", lambda: records(repo, tmp, rows)),
        ("adopt", lambda: adopted_symlink(repo, tmp, rows)),
        ("labels", lambda: labels(repo, tmp, rows)),
        ("traces", lambda: trace_bombs(repo, tmp, rows)),
        ("lists", lambda: list_bombs(repo, tmp, rows)),
    ]
    for name, run in parts:
        if not only or name in only.split(","):
            run()
