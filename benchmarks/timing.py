"""Timing and peak-memory primitives, shared by ``run.py`` and ``worker.py``.

Standard library only: ``worker.py`` imports this module in subprocesses
where numpy is blocked, or where protobuf runs its pure-Python backend.

Timing follows ``timeit``'s conventions, the same for every implementation:
a call to warm up, then samples of ``number`` back-to-back calls timed with
``time.perf_counter``, with the cyclic garbage collector disabled inside a
sample (and a ``gc.collect()`` before each), and the median of the per-call
times reported.  ``--gc`` in ``run.py`` keeps the collector on.  The two
sides of a ratio are sampled alternately (:func:`measure_all`).
"""

from __future__ import annotations

import cProfile
import gc
import os
import pstats
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Budget:
    """How long to spend on one measurement."""

    seconds: float  # stop taking samples after this long ...
    min_samples: int  # ... once at least this many are in
    max_samples: int
    sample_time: float  # aim for samples of about this long (several calls each)
    slow_min_samples: int  # for calls of 0.2 s or more; the warm-up counts (1: it alone)
    gc_enabled: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


QUICK = Budget(seconds=0.12, min_samples=3, max_samples=15, sample_time=0.01, slow_min_samples=1)
FULL = Budget(seconds=1.0, min_samples=7, max_samples=101, sample_time=0.05, slow_min_samples=5)


@dataclass
class Timing:
    median: float  # seconds per call
    best: float
    samples: int
    number: int  # calls per sample

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``fn()`` and how long it took: a first call whose result is needed anyway
    (to verify it) doubles as the warm-up of :func:`measure` (``first=``)."""
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t0


class _Sampler:
    """The samples of one callable, taken one at a time so that two can alternate."""

    def __init__(self, fn: Callable[[], Any], budget: Budget, first: float | None) -> None:
        self.fn = fn
        self.budget = budget
        if first is None:
            _, first = timed(fn)  # warm-up: imports, caches, first page faults
        if first < 0.2:
            # A first call is often slow (page faults of a fresh allocation, lazy set-up);
            # calibrating on it would take too few calls per sample, and the count changes
            # how a large allocation is served (mmap or reused heap), so time a second.
            first = min(first, timed(fn)[1])
        self.samples: list[float] = []
        self.min_samples = budget.min_samples
        if first >= 0.2:
            # A call this long has nothing to warm up that matters: the warm-up
            # counts as a sample, and fewer are taken, so that slow cases (the
            # pure-Python backend on a million floats) stay within a quick run.
            self.samples.append(first)
            self.min_samples = budget.slow_min_samples
        self.number = max(1, int(budget.sample_time / max(first, 1e-7)))

    def wants(self, elapsed: float, seconds: float) -> bool:
        n = len(self.samples)
        return n < self.min_samples or (n < self.budget.max_samples and elapsed < seconds)

    def sample(self) -> None:
        fn = self.fn
        gc.collect()
        was_enabled = gc.isenabled()
        if not self.budget.gc_enabled:
            gc.disable()
        try:
            t0 = time.perf_counter()
            for _ in range(self.number):
                fn()
            dt = time.perf_counter() - t0
        finally:
            if was_enabled:
                gc.enable()
        self.samples.append(dt / self.number)

    def result(self) -> Timing:
        s = self.samples
        return Timing(statistics.median(s), min(s), len(s), self.number)


def measure(fn: Callable[[], Any], budget: Budget, first: float | None = None) -> Timing:
    """The median time of one call of ``fn``; ``first``: the time of a call just made."""
    return measure_all([fn], budget, [first])[0]


def measure_all(
    fns: list[Callable[[], Any]], budget: Budget, firsts: list[float | None] | None = None
) -> list[Timing]:
    """Time several callables with their samples interleaved (A, B, A, B, ...).

    What is compared is timed under the same conditions: on a shared machine
    whose load changes from second to second, a ratio of two interleaved
    medians is much steadier than a ratio of medians taken one after the other.
    Each callable gets ``budget.seconds`` of the time.
    """
    samplers = [
        _Sampler(fn, budget, first)
        for fn, first in zip(fns, firsts or [None] * len(fns), strict=True)
    ]
    seconds = budget.seconds * len(fns)
    start = time.perf_counter()
    while True:
        elapsed = time.perf_counter() - start
        todo = [s for s in samplers if s.wants(elapsed, seconds)]
        if not todo:
            return [s.result() for s in samplers]
        for s in todo:
            s.sample()


# -- peak memory: resident set size, Linux only -------------------------------


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def peak_rss_supported() -> bool:
    try:
        reset_peak_rss()
        _status("VmHWM")
    except OSError:
        return False
    return True


def reset_peak_rss() -> None:
    """Linux: writing 5 to clear_refs resets VmHWM (the peak RSS) to the current RSS."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def peak_extra(fn: Callable[[], Any]) -> int:
    """Bytes of resident memory ``fn()`` needs above what the process holds already.

    Counts everything, C allocations included (upb's arenas, numpy buffers),
    which ``tracemalloc`` would miss.  The result is kept alive until the
    peak is read, as a caller would keep it.
    """
    gc.collect()
    reset_peak_rss()
    before = _status("VmRSS")
    result = fn()
    peak = _status("VmHWM")
    del result
    gc.collect()
    return max(0, peak - before)


# -- profiles ------------------------------------------------------------------


def profile(fn: Callable[[], Any], seconds: float = 0.3, top: int = 8) -> list[dict[str, Any]]:
    """cProfile ``fn`` (repeated for at least ``seconds``); the top functions by own time."""
    prof = cProfile.Profile()
    start = time.perf_counter()
    calls = 0
    while calls == 0 or time.perf_counter() - start < seconds:
        prof.enable()
        fn()
        prof.disable()
        calls += 1
    stats = pstats.Stats(prof)
    total = stats.total_tt or 1e-12  # type: ignore[attr-defined]
    rows = []
    entries = stats.stats.items()  # type: ignore[attr-defined]
    for (filename, line, func), (_cc, nc, tt, ct, _callers) in sorted(
        entries, key=lambda kv: -kv[1][2]
    )[:top]:
        if rows and tt / total < 0.005:
            break
        rows.append(
            {
                "function": _where(filename, line, func),
                "calls": nc // calls,
                "own_ms": 1e3 * tt / calls,
                "own_pct": 100 * tt / total,
                "cum_ms": 1e3 * ct / calls,
            }
        )
    return rows


def _where(filename: str, line: int, func: str) -> str:
    if filename == "~":
        return func  # a builtin, e.g. <method 'append' of 'list' objects>
    parts = filename.replace(os.sep, "/").split("/")
    for anchor in ("onnxdata", "benchmarks", "onnx", "google"):
        if anchor in parts:
            i = len(parts) - 1 - parts[::-1].index(anchor)
            return f"{'/'.join(parts[i:])}:{line}({func})"
    return f"{parts[-1]}:{line}({func})"
