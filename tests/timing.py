"""CPU timing for the tests that check a cost grows linearly.

A collection of the cyclic garbage collector that one run happens to trigger walks every
object the test process holds (a CI worker holds thousands of tests' worth), which is no
cost of the code timed: the collector is off while it runs, and the best of a few runs
is kept (another process may have had the core)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_cpu(fn: Callable[[], T], runs: int = 3) -> tuple[float, T]:
    """The least CPU seconds of ``runs`` calls of ``fn``, and what the last one gave."""
    best, got = float("inf"), None
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            t = time.process_time()
            got = fn()
            best = min(best, time.process_time() - t)
    finally:
        gc.enable()
    return best, got  # type: ignore[return-value]
