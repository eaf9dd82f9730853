"""Timings of `survey links`: 5,000 URLs over 50 loopback hosts, each answering after 50 ms.

The hosts are 50 ports of an asyncio HTTP server in a separate process (a port is a host for
the per-host limit). The survey is the tiny survey of tests/data with a `links` field: 500
records of 10 links each. Timed: the whole command in a subprocess, first with an empty cache
(`--per-host 4`), then again within the cache's time-to-live.

    python3 benchmarks/bench_links.py [--urls 5000] [--hosts 50] [--delay 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "data" / "tiny-survey"


def serve(ports: list[int], delay: float, ready: multiprocessing.synchronize.Event) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if not head:
                    break
                await asyncio.sleep(delay)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        servers = [await asyncio.start_server(handle, "127.0.0.1", p, backlog=512) for p in ports]
        ready.set()
        await asyncio.gather(*(s.serve_forever() for s in servers))

    asyncio.run(main())


def free_ports(n: int) -> list[int]:
    import socket

    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def make_survey(root: Path, ports: list[int], urls: int, per_record: int = 10) -> None:
    shutil.copytree(TINY / "taxonomy", root / "taxonomy")
    path = root / "taxonomy" / "survey.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["collections"]["tools"]["fields"]["links"] = {"type": "url_list"}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    (root / "entries").mkdir()
    for r in range(urls // per_record):
        links = [f"http://127.0.0.1:{ports[(r * per_record + i) % len(ports)]}/page/{r}/{i}"
                 for i in range(per_record)]
        rec = {"slug": f"r{r:05d}", "name": f"Record {r}", "homepage": links[0],
               "links": links, "language": ["rust"], "licence": "n/a"}
        (root / "entries" / f"r{r:05d}.yaml").write_text(yaml.safe_dump(rec, sort_keys=False))


def run(root: Path, cache: Path, *args: str) -> tuple[float, dict]:
    # The loopback hosts are private addresses: allowed explicitly, as in the tests.
    env = {**os.environ, "PYTHONPATH": str(REPO), "SURVEY_CACHE_DIR": str(cache),
           "SURVEY_NET_ALLOW": "127.0.0.1"}
    t = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", "from survey_tools.cli import main; main()", "--root", str(root),
         "links", "--format", "json", *args], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if res.returncode != 0:
        sys.exit(f"survey links failed ({res.returncode}): {res.stderr[-2000:]}")
    return elapsed, json.loads(res.stdout)["summary"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--urls", type=int, default=5000)
    ap.add_argument("--hosts", type=int, default=50)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--per-host", type=int, default=4)
    ap.add_argument("--concurrency", type=int, default=200)
    a = ap.parse_args()
    ports = free_ports(a.hosts)
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=serve, args=(ports, a.delay, ready), daemon=True)
    server.start()
    if not ready.wait(30):
        sys.exit("the loopback servers did not start")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root, cache = Path(tmp) / "survey", Path(tmp) / "cache"
            make_survey(root, ports, a.urls)
            opts = ("--per-host", str(a.per_host), "--concurrency", str(a.concurrency),
                    "--timeout", "30")
            cold, s1 = run(root, cache, *opts)
            warm, s2 = run(root, cache, *opts)
    finally:
        server.terminate()
        server.join()
    floor = a.urls / (a.hosts * a.per_host) * a.delay
    rows = [
        (f"{a.urls} URLs, {a.hosts} hosts, empty cache", cold, 20.0, s1),
        ("the same, within the cache's TTL", warm, 1.0, s2),
    ]
    print(f"survey links --per-host {a.per_host} --concurrency {a.concurrency}; "
          f"each answer after {a.delay * 1000:g} ms (floor at this politeness: {floor:.2f} s)")
    print(f"| {'run':<36} | seconds | target s |    ok | checked | from cache |")
    print(f"|{'-' * 38}|--------:|---------:|------:|--------:|-----------:|")
    for name, t, target, s in rows:
        print(f"| {name:<36} | {t:7.2f} | {target:8.1f} | {s['ok']:>5} | {s['checked']:>7} | "
              f"{s['from_cache']:>10} |")


if __name__ == "__main__":
    main()
