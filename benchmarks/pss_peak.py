"""Peak of the summed PSS (proportional set size) of a command's process tree, sampled
every 10 ms (Linux). ``wait4`` reports the largest process only; this adds a helper
process's own pages to its parent's.

    python benchmarks/pss_peak.py python3 -c "..." trace metrics FILE
"""

from __future__ import annotations

import subprocess
import sys
import time


def tree(pid: int) -> list[int]:
    out = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            kids = fh.read().split()
    except OSError:
        return out
    for k in kids:
        out += tree(int(k))
    return out


def pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main() -> None:
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    peak = 0
    t0 = time.perf_counter()
    while p.poll() is None:
        peak = max(peak, sum(pss(q) for q in tree(p.pid)))
        time.sleep(0.01)
    wall = time.perf_counter() - t0
    print(f"wall {wall:.2f} s, peak summed PSS {peak / 1024:.0f} MiB, exit {p.returncode}")


if __name__ == "__main__":
    main()
