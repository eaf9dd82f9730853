"""Issue 57's attacks (round 5): values that become links, parsers' bombs, readers' faults, the
bot's comment, network waits. Run by tools/attack_table.py (``--round 5`` runs these alone).

Every attack runs ``survey`` in a subprocess under a cap: 60 s of wall time and 768 MiB of address
space (RLIMIT_AS), the bound issue 57 holds a bomb to; the row gives the exit code, the seconds,
the peak resident memory (wait4's ru_maxrss) and the first line of the output. Servers listen on
loopback only.
"""

from __future__ import annotations

import gzip
import http.server
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

CAP_SECONDS = 60
CAP_BYTES = 768 << 20


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def capped(
    repo: Path,
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    seconds: int = CAP_SECONDS,
) -> tuple[int, str, float, float]:
    """(exit code, output, seconds, peak MiB) of ``survey --root ROOT ARGS`` under the caps;
    exit -9 is a kill at the time cap."""
    full = {**os.environ, "PYTHONPATH": str(repo), "SURVEY_NO_CACHE": "1", **(env or {})}
    out_path = root.parent / f".out-{root.name}-{time.monotonic_ns()}"
    t = time.monotonic()
    with out_path.open("wb") as out:
        p = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from survey_tools.cli import main; main()",
                "--root",
                str(root),
                *args,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=full,
            preexec_fn=_cap,
        )
        code = None
        while code is None:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() - t > seconds:
                p.kill()
                _, status, ru = os.wait4(p.pid, 0)
                code = -9
                break
            time.sleep(0.05)
    p.returncode = code  # reaped by wait4 above
    text = out_path.read_text(errors="replace")
    out_path.unlink()
    return code, text, time.monotonic() - t, ru.ru_maxrss / 1024


def short(out: str) -> str:
    if "Traceback" in out:
        return "traceback: " + out.strip().splitlines()[-1][:100]
    lines = [ln for ln in out.splitlines() if ln.strip(". ") and not ln.startswith("warning:")]
    return lines[0][:130] if lines else ""


def verdict(result: tuple[int, str, float, float]) -> str:
    code, out, secs, peak = result
    return f"exit {code}, {secs:.1f} s, {peak:.0f} MiB: {short(out)}"


def copy(repo: Path, dest: Path) -> Path:
    for n in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(repo / n, dest / n)
    return dest


def hostile_in(folder: Path, *words: str) -> str:
    """How many files under ``folder`` hold each word (case-insensitive), e.g. ``javascript: 924``."""
    counts = dict.fromkeys(words, 0)
    for f in folder.rglob("*") if folder.exists() else ():
        if f.is_file():
            # the page script's own comment names the schemes it refuses: not a link
            text = (
                f.read_bytes()
                .decode("utf-8", "replace")
                .lower()
                .replace("(javascript:, data:)", "")
            )
            for w in words:
                counts[w] += text.count(w.lower())
    return ", ".join(f"{w} {n}" for w, n in counts.items())


def set_line(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


# ---------------------------------------------------------------------------------------------
# Values that become links


def config_links(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    """A configuration URL that is no web address, or one with credentials (issue 57, 1 and 4)."""
    survey_yaml = "taxonomy/survey.yaml"
    cases: list[tuple[str, str, str]] = [
        (
            "survey.url `javascript:alert(document.domain)`",
            "  url: https://arxiv.org/abs/2605.02801\n",
            "  url: javascript:alert(document.domain)\n",
        ),
        (
            "survey.repository.url `javascript:alert(1)//`",
            "  data_source: >-\n",
            '  repository: {url: "javascript:alert(1)//", branch: main}\n  data_source: >-\n',
        ),
        (
            "readme.badge.link `JaVaScRiPt:alert(1)` (mixed case)",
            'link: "https://awesome.re"}',
            'link: "JaVaScRiPt:alert(1)"}',
        ),
        (
            "readme.badge.image `data:image/svg+xml,<svg onload=alert(1)>`",
            'image: "https://awesome.re/badge.svg"',
            'image: "data:image/svg+xml,<svg onload=alert(1)>"',
        ),
        (
            "survey.url `file:///etc/passwd`",
            "  url: https://arxiv.org/abs/2605.02801\n",
            "  url: file:///etc/passwd\n",
        ),
        (
            "survey.url `vbscript:msgbox(1)`",
            "  url: https://arxiv.org/abs/2605.02801\n",
            "  url: vbscript:msgbox(1)\n",
        ),
        (
            "survey.url with credentials `https://user:secret@example.org/`",
            "  url: https://arxiv.org/abs/2605.02801\n",
            "  url: https://user:secret@example.org/\n",
        ),
        (
            "identifier kind's url `javascript:alert('{id}')`",
            'url: "https://arxiv.org/abs/{id}"',
            "url: \"javascript:alert('{id}')\"",
        ),
        (
            "edition url `java\\tscript:alert(1)` (tab inside the scheme)",
            "      url: https://arxiv.org/abs/2605.02801v1\n",
            '      url: "java\\tscript:alert(1)"\n',
        ),
        (
            "repository.url protocol-relative `//evil.example/x`",
            "  data_source: >-\n",
            '  repository: {url: "//evil.example/x", branch: main}\n  data_source: >-\n',
        ),
    ]
    for i, (what, old, new) in enumerate(cases):
        root = copy(repo, tmp / f"r5-conf-{i}")
        set_line(root / survey_yaml, old, new)
        v = capped(repo, root, "validate")
        b = capped(repo, root, "build")
        found = (
            hostile_in(
                root / "reports",
                "javascript:",
                "vbscript:",
                "data:image",
                "file:///",
                "user:secret@",
                "java\tscript",
                "//evil.example",
            )
            + "; "
            + hostile_in(root / "CITATION.cff", "javascript:")
        )
        rows.append(
            (
                f"{what}: validate / build; hostile links written",
                f"validate {verdict(v)} / build exit {b[0]}; {found}",
            )
        )


def record_links(
    repo: Path, tmp: Path, rows: list[tuple[str, str]], rec: Callable[..., str]
) -> None:
    """A record's link in a spelling the old checks missed."""
    cases = [
        (
            "credentials `https://user:secret@example.org/paper`",
            "https://user:secret@example.org/paper",
        ),
        (
            "`https://arxiv.org@evil.example/abs/2301.00001`",
            "https://arxiv.org@evil.example/abs/2301.00001",
        ),
        (
            "fullwidth loopback `http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/x`",
            "http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/x",
        ),
        ("IPv4 in IPv6 `http://[::ffff:7f00:1]/x`", "http://[::ffff:7f00:1]/x"),
        ("IPv4-compatible `http://[::127.0.0.1]/x`", "http://[::127.0.0.1]/x"),
        (
            "circled letters `http://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/` (NFKC: localhost)",
            "http://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/",
        ),
        (
            "percent-encoded host `http://%6c%6f%63%61%6c%68%6f%73%74/`",
            "http://%6c%6f%63%61%6c%68%6f%73%74/",
        ),
        ("mixed-case `JaVaScRiPt:alert(1)`", "JaVaScRiPt:alert(1)"),
        ("`file:///etc/passwd`", "file:///etc/passwd"),
        ("protocol-relative `//evil.example/x`", "//evil.example/x"),
        (
            "`https://evilarxiv.org/abs/2301.00001` (host ends in arxiv.org)",
            "https://evilarxiv.org/abs/2301.00001",
        ),
    ]
    for i, (what, link) in enumerate(cases):
        root = copy(repo, tmp / f"r5-link-{i}")
        (root / f"corpus/link{i}.yaml").write_text(rec(f"link{i}", links=json.dumps([link])))
        v = capped(repo, root, "validate")
        rows.append((f"record link {what}: validate", verdict(v)))


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: list[str] = []
    status = 200
    retry_after = ""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).seen.append(self.headers.get("Authorization") or "-")
        self.send_response(type(self).status)
        if type(self).retry_after:
            self.send_header("Retry-After", type(self).retry_after)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_HEAD = do_GET  # noqa: N815

    def log_message(self, *args: object) -> None:
        pass


def _serve(
    status: int, retry_after: str = ""
) -> tuple[http.server.ThreadingHTTPServer, type[_Recorder]]:
    handler = type("H", (_Recorder,), {"seen": [], "status": status, "retry_after": retry_after})
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, handler


def network(repo: Path, tmp: Path, rows: list[tuple[str, str]], rec: Callable[..., str]) -> None:
    # `survey links` on a link with credentials: are they sent?
    srv, h = _serve(200)
    try:
        root = copy(repo, tmp / "r5-cred")
        url = f"http://user:secret@127.0.0.1:{srv.server_port}/paper"
        for f in (root / "corpus").glob("*.yaml"):
            f.unlink()
        (root / "corpus/cred.yaml").write_text(rec("cred", links=json.dumps([url])))
        r = capped(repo, root, "links", "--no-cache", env={"SURVEY_NET_ALLOW": "127.0.0.1"})
        sent = [s for s in h.seen if s != "-"]
        rows.append(
            (
                "`survey links` on `http://user:secret@127.0.0.1/...`: Authorization sent",
                f"exit {r[0]}; {len(h.seen)} requests, Authorization on {len(sent)} {sent[:1]}; "
                f"the password in the report: {'secret' in r[1]}",
            )
        )
    finally:
        srv.shutdown()
    # a 503 with Retry-After: 59 on every try
    srv, h = _serve(503, "59")
    try:
        root = copy(repo, tmp / "r5-retry")
        r = capped(
            repo,
            root,
            "add",
            "2301.00001",
            "--arxiv-url",
            f"http://127.0.0.1:{srv.server_port}/api/query",
            env={"SURVEY_NET_ALLOW": "127.0.0.1"},
            seconds=240,
        )
        rows.append(
            (
                "`survey add` against a 503 with `Retry-After: 59` on every try",
                f"{verdict(r)}; {len(h.seen)} requests",
            )
        )
    finally:
        srv.shutdown()


# ---------------------------------------------------------------------------------------------
# Bombs and parser faults in the list readers (survey init) and the trace tools


def _xlsx(path: Path, sheet: str, shared: str | None = None, doctype: str = "") -> None:
    ct = (
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        + (
            '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            if shared
            else ""
        )
        + "</Types>"
    )
    rels = (
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    )
    wb = (
        '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
        '<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>'
    )
    wbrels = (
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
        + (
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
            if shared
            else ""
        )
        + "</Relationships>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", ct)
        z.writestr("_rels/.rels", rels)
        z.writestr("xl/workbook.xml", wb)
        z.writestr("xl/_rels/workbook.xml.rels", wbrels)
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            f.write(
                f'<?xml version="1.0"?>{doctype}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'.encode()
            )
            for chunk in sheet if not isinstance(sheet, str) else [sheet]:
                f.write(chunk.encode() if isinstance(chunk, str) else chunk)
            f.write(b"</sheetData></worksheet>")
        if shared is not None:
            with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as f:
                f.write(
                    b'<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                )
                for chunk in shared if not isinstance(shared, str) else [shared]:
                    f.write(chunk.encode() if isinstance(chunk, str) else chunk)
                f.write(b"</sst>")


_HEAD_ROW = '<row r="1"><c r="A1" t="inlineStr"><is><t>title</t></is></c><c r="B1" t="inlineStr"><is><t>year</t></is></c></row>'


def _rows(n: int) -> object:
    yield _HEAD_ROW
    batch = []
    for i in range(2, n + 2):
        batch.append(f'<row r="{i}"><c r="A{i}" t="inlineStr"><is><t>Paper</t></is></c></row>')
        if len(batch) == 10_000:
            yield "".join(batch)
            batch = []
    yield "".join(batch)


def _shared_bomb(mib: int) -> object:
    yield "<si><t>"
    block = "A" * (1 << 20)
    for _ in range(mib):
        yield block
    yield "</t></si>"


def list_bombs(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    """``survey init --from LIST`` on lists built to expand: each row names the file's size."""
    lists = tmp / "r5-lists"
    lists.mkdir()
    laughs = (
        '<!DOCTYPE lolz [<!ENTITY lol "lololololololololol">'
        + "".join(
            f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">'
            for i in range(1, 10)
        )
        + "]>"
    )
    made: list[tuple[str, Path, Callable[[Path], None]]] = [
        (
            "xlsx: 1 GiB of shared strings",
            lists / "strings.xlsx",
            lambda p: _xlsx(
                p, [_HEAD_ROW, '<row r="2"><c r="A2" t="s"><v>0</v></c></row>'], _shared_bomb(1024)
            ),
        ),
        ("xlsx: 3,000,000 rows", lists / "rows.xlsx", lambda p: _xlsx(p, _rows(3_000_000))),
        (
            "xlsx: a DOCTYPE with nested entities (billion laughs)",
            lists / "laughs.xlsx",
            lambda p: _xlsx(
                p,
                [_HEAD_ROW, '<row r="2"><c r="A2" t="inlineStr"><is><t>&lol9;</t></is></c></row>'],
                doctype=laughs,
            ),
        ),
        (
            "xlsx: an external entity (XXE) naming /etc/passwd",
            lists / "xxe.xlsx",
            lambda p: _xlsx(
                p,
                [_HEAD_ROW, '<row r="2"><c r="A2" t="inlineStr"><is><t>&x;</t></is></c></row>'],
                doctype='<!DOCTYPE w [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
            ),
        ),
        (
            "Markdown: 1 MB of `*_` delimiters in one item",
            lists / "delims.md",
            lambda p: p.write_text(
                "# List\n\n- [Paper](https://example.org/a) " + "*_" * 500_000 + "\n"
            ),
        ),
        (
            "Markdown: a list nested 50,000 levels",
            lists / "nested.md",
            lambda p: p.write_text(
                "# List\n\n- [Shallow paper](https://example.org/a)\n"
                + "- " * 50_000
                + "[Deep paper](https://example.org/deep)\n"
            ),
        ),
        (
            "Markdown: 2,000,000 nested `[` brackets",
            lists / "brackets.md",
            lambda p: p.write_text("# List\n\n- " + "[" * 2_000_000 + "\n"),
        ),
        (
            "JSON: a list nested 100,000 deep",
            lists / "deep.json",
            lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
        ),
        (
            "JSON: NaN and Infinity as years",
            lists / "nan.json",
            lambda p: p.write_text(
                '[\n {"title": "A paper", "year": NaN},\n {"title": "Another", "year": Infinity}\n]\n'
            ),
        ),
        (
            "JSON lines: one line nested 100,000 deep",
            lists / "deep.jsonl",
            lambda p: p.write_text('{"title": "x"}\n' + "[" * 100_000 + "]" * 100_000 + "\n"),
        ),
        (
            "YAML list: nested 100,000 flow levels",
            lists / "deep.yaml",
            lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
        ),
        (
            "YAML list: billion laughs (aliases)",
            lists / "laughs.yaml",
            lambda p: p.write_text(
                'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
                + "".join(
                    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n"
                    for i in range(8)
                )
                + "entries: *i\n"
            ),
        ),
        (
            "BibTeX: a title of 100,000 nested braces",
            lists / "braces.bib",
            lambda p: p.write_text(
                "@article{a, title = " + "{" * 100_000 + "x" + "}" * 100_000 + ", year = 2024}\n"
            ),
        ),
        (
            "BibTeX: 200,000 entries (30 MB)",
            lists / "many.bib",
            lambda p: p.write_text(
                "".join(
                    f"@misc{{k{i}, title = {{Paper number {i} on agents}}, year = 2024}}\n"
                    for i in range(200_000)
                )
            ),
        ),
        (
            "CSV: one quoted cell of 40 MB of line breaks",
            lists / "cell.csv",
            lambda p: p.write_text('title,year\n"' + "\n" * 40_000_000 + '",2024\n'),
        ),
        (
            "Markdown list with `javascript:`, `data:` and credential links",
            lists / "links.md",
            lambda p: p.write_text(
                "# List\n\n- [Script](javascript:alert(1)) - one.\n- [Data](data:text/html,<b>x</b>) - two.\n"
                "- [Creds](https://user:secret@example.org/p) - three.\n- [Fine](https://example.org/ok) - four.\n"
            ),
        ),
        (
            "BibTeX list with `url = {JaVaScRiPt:alert(1)}`",
            lists / "js.bib",
            lambda p: p.write_text(
                "@misc{a, title = {A paper}, year = 2024, url = {JaVaScRiPt:alert(1)}}\n"
                "@misc{b, title = {Another paper}, year = 2024, url = {https://example.org/b}}\n"
            ),
        ),
        (
            "CSV list with a bidi override (U+202E) in a title",
            lists / "bidi.csv",
            lambda p: p.write_text(
                'title,year,url\n"A \u202egnp.exe paper",2024,https://example.org/a\nPlain,2024,https://example.org/b\n'
            ),
        ),
    ]
    for i, (what, path, make) in enumerate(made):
        make(path)
        target = tmp / f"r5-init-{i}"
        r = capped(repo, tmp, "init", str(target), "--from", str(path), "--title", "Bombed")
        written = (
            hostile_in(target / "reports", "javascript:", "data:text", "user:secret@", "\u202e")
            if any(w in what for w in ("link", "url", "bidi"))
            else ""
        )
        rows.append(
            (
                f"survey init --from {what} ({path.stat().st_size:,} bytes)",
                verdict(r) + (f"; {written}" if written else ""),
            )
        )
        path.unlink()


def _spans(n: int) -> object:
    for i in range(n):
        yield (
            f'{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId":"5b8efff798038103d269b633813fc60c",'
            f'"spanId":"{i:016x}","name":"s","startTimeUnixNano":{i},"endTimeUnixNano":{i + 1}}}]}}]}}]}}\n'
        )


def trace_bombs(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    folder = tmp / "r5-traces"
    folder.mkdir()
    deep = folder / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    rows.append(
        (
            "trace validate: JSON nested 100,000 deep",
            verdict(capped(repo, tmp, "trace", "validate", str(deep))),
        )
    )
    rows.append(
        (
            "trace import otel: JSON nested 100,000 deep",
            verdict(
                capped(
                    repo, tmp, "trace", "import", "otel", str(deep), "-o", str(folder / "o.json")
                )
            ),
        )
    )
    gz = folder / "bomb.json.gz"
    with gzip.open(gz, "wb", compresslevel=9) as f:
        for _ in range(256):
            f.write(b" " * (1 << 20))
    rows.append(
        (
            "trace validate: a gzip bomb (256 MiB of spaces) named .json.gz",
            verdict(capped(repo, tmp, "trace", "validate", str(gz))),
        )
    )
    big = folder / "spans.jsonl"
    with big.open("w") as f:
        batch = []
        for line in _spans(2_800_000):
            batch.append(line)
            if len(batch) == 50_000:
                f.write("".join(batch))
                batch = []
        f.write("".join(batch))
    size = f"{big.stat().st_size / (1 << 20):.0f} MiB"
    rows.append(
        (
            f"trace import otel: 2,800,000 tiny spans ({size}, under the size limit)",
            verdict(
                capped(repo, tmp, "trace", "import", "otel", str(big), "-o", str(folder / "o.json"))
            ),
        )
    )
    rows.append(
        (
            "trace import otel: the same with --max-bytes 4294967296 (memory, not size, the bound)",
            verdict(
                capped(
                    repo,
                    tmp,
                    "trace",
                    "import",
                    "otel",
                    str(big),
                    "--max-bytes",
                    "4294967296",
                    "-o",
                    str(folder / "o.json"),
                )
            ),
        )
    )
    big.unlink()
    nan = folder / "nan.json"
    nan.write_text(
        '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "5b8efff798038103d269b633813fc60c", '
        '"spanId": "a000000000000001", "name": "s", "startTimeUnixNano": NaN, "endTimeUnixNano": Infinity}]}]}]}'
    )
    rows.append(
        (
            "trace import otel: NaN and Infinity as times",
            verdict(
                capped(repo, tmp, "trace", "import", "otel", str(nan), "-o", str(folder / "o.json"))
            ),
        )
    )


def yaml_record_bomb(
    repo: Path, tmp: Path, rows: list[tuple[str, str]], rec: Callable[..., str]
) -> None:
    root = copy(repo, tmp / "r5-laughs")
    laughs = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
        f"l{i}: &l{i} [" + ",".join([f"*{'a' if i == 0 else f'l{i - 1}'}"] * 9) + "]\n"
        for i in range(8)
    )
    (root / "corpus/laughs.yaml").write_text(rec("laughs") + laughs)
    rows.append(
        (
            "record with a billion-laughs alias chain: validate",
            verdict(capped(repo, root, "validate")),
        )
    )
    root = copy(repo, tmp / "r5-bidi")
    (root / "corpus/bidi.yaml").write_text(rec("bidi", title='"Agents \\u202Eexe.gnp Everywhere"'))
    v = capped(repo, root, "validate")
    rows.append(("record title with a bidi override (U+202E): validate", verdict(v)))


# ---------------------------------------------------------------------------------------------
# The bot's comment, the workflows, check-paths


def comment(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    paper = {
        "collection": "Papers",
        "key": "x",
        "title": "Fine \u202e)1(trela:tpircsavaj\u2066 title\u0007",
        "path": "corpus/x.yaml",
        "tags": [["Category", "rl\u200fmethod"]],
        "link": "javascript:alert(1)",
        "identifier": "",
        "edition": "living",
        "summary": "A \u061c summary.",
    }
    art = {
        "format": "survey-diff-report/1",
        "rev": "0" * 40,
        "base": "main\u202e",
        "added": [paper],
        "removed": [],
        "changed": [],
        "cells": [],
        "gaps": [],
        "claims": [],
        "notes": ["note \u2067x\u2069"],
    }
    path = tmp / "r5-art.json"
    path.write_text(json.dumps(art))
    code, out, secs, peak = capped(repo, tmp, "diff", "--render-report", str(path))
    bidi = sum(
        out.count(c)
        for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u0007"
    )
    rows.append(
        (
            "bot comment: artifact with bidi controls, a BEL and a `javascript:` link",
            f"exit {code}; bidi/control characters in the comment: {bidi}; `javascript:` in it: {'javascript:' in out.lower()}",
        )
    )
    paper["link"] = "https://evil.example/phish"
    path.write_text(json.dumps(art))
    code, out, _, _ = capped(repo, tmp, "diff", "--render-report", str(path))
    rows.append(
        (
            "bot comment: artifact `link` https://evil.example/phish (any http(s) host)",
            f"exit {code}; shown as a link: {'<https://evil.example' in out or '](https://evil' in out}",
        )
    )


def workflows_and_paths(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    regen = (repo / ".github/workflows/regenerate.yml").read_text()
    ci = (repo / "tools/ci.sh").read_text()
    restored = "cache: pip" in regen
    hashed = "SURVEY_UV_FRESH" in regen and "--require-hashes" in ci
    rows.append(
        (
            "regenerate.yml (a write token): how uv gets there",
            f"pip cache restored: {restored}; uv installed by hash from the index: {hashed}",
        )
    )
    root = tmp / "r5-paths"
    copy(repo, root)
    env = {
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "commit", "-qm", "base"], check=True, env={**os.environ, **env}
    )
    shutil.copy(root / "corpus/c3.yaml", root / "corpus/newpaper.")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    r = capped(repo, root, "check-paths", "--base", "HEAD")
    rows.append(("check-paths: a record saved as `corpus/newpaper.`", verdict(r)))


def round5(repo: Path, tmp: Path, rows: list[tuple[str, str]]) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    base = (repo / "tests/data/records/valid/minimal-na.yaml").read_text()

    def rec(key: str, **kv: str) -> str:
        t = base.replace("key: minimal-na", f"key: {key}").replace(
            "edition: 2605.02801v1", "edition: living\nadded: 2026-11-23"
        )
        for k, v in kv.items():
            lines = [ln for ln in t.splitlines() if not ln.startswith(f"{k}:")]
            t = "\n".join([*lines, f"{k}: {v}"]) + "\n"
        return t

    only = os.environ.get("ATTACKS", "")
    parts: list[tuple[str, Callable[[], None]]] = [
        ("config", lambda: config_links(repo, tmp, rows)),
        ("links", lambda: record_links(repo, tmp, rows, rec)),
        ("yaml", lambda: yaml_record_bomb(repo, tmp, rows, rec)),
        ("comment", lambda: comment(repo, tmp, rows)),
        ("paths", lambda: workflows_and_paths(repo, tmp, rows)),
        ("lists", lambda: list_bombs(repo, tmp, rows)),
        ("traces", lambda: trace_bombs(repo, tmp, rows)),
        ("network", lambda: network(repo, tmp, rows, rec)),
    ]
    for name, run in parts:
        if not only or name in only.split(","):
            run()
