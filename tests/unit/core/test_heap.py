"""survey_tools.heap: what a build keeps out of the collector's full collections, and the
collector as it was afterwards. Each case runs in a process of its own: the test process has
frozen its imported modules already (tests/conftest.py), and heap leaves such a process alone."""

from __future__ import annotations

from helpers.support import probe

PROBE = """
import gc, json
from survey_tools import heap
out = {}
data = [[i] for i in range(5000)]
heap.keep()
out["outside"] = gc.get_freeze_count()
with heap.long_lived():
    heap.keep()
    out["kept"] = gc.get_freeze_count()
    with heap.long_lived():  # a nested block (a build inside a build) changes nothing
        more = [[i] for i in range(5000)]
        heap.keep()
        out["nested"] = gc.get_freeze_count()
    out["after_nested"] = gc.get_freeze_count()
out["after"] = gc.get_freeze_count()
try:
    with heap.long_lived():
        heap.keep()
        raise RuntimeError("a failed build")
except RuntimeError:
    out["after_failure"] = gc.get_freeze_count()
gc.freeze()  # the process freezes objects of its own from now on
own = gc.get_freeze_count()
with heap.long_lived():
    extra = [[i] for i in range(5000)]
    heap.keep()
    out["own_inside"] = gc.get_freeze_count() - own
out["own_after"] = gc.get_freeze_count() - own
print(json.dumps(out))
"""


def test_keep_freezes_only_inside_a_block_and_the_block_restores_the_collector() -> None:
    got = probe(PROBE, timeout=60)
    assert got["outside"] == 0  # no block: nothing frozen
    assert got["kept"] > 5000  # the 5,000 lists at least
    assert got["nested"] > got["kept"] + 5000  # the outer block still owns the freezing
    # the inner block's end unfroze nothing (a few objects freed since leave the count)
    assert got["nested"] - 100 <= got["after_nested"] <= got["nested"]
    assert got["after"] == 0 and got["after_failure"] == 0
    assert got["own_inside"] == 0 and got["own_after"] == 0  # a freezing process is left alone
