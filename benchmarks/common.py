"""What every benchmark script here needs: timing with ``timeit``, peak memory, the machine.

Standard library only, so that a subprocess with numpy blocked or protobuf's
pure-Python backend can import it.
"""

from __future__ import annotations

import gc
import os
import platform
import subprocess
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MiB = 1 << 20


def best_times(fns: list[Callable[[], Any]], repeat: int, slow: float = 1.0) -> list[float]:
    """The best time per call of each callable (``timeit``: the collector off while timing).

    ``Timer.autorange`` picks each callable's number of calls (its measurement is the
    first sample); then ``repeat - 1`` more samples are taken, the callables in turn
    (A, B, A, B, ...), so that both sides of a ratio see the same load.  A callable
    whose single call takes longer than ``slow`` seconds gets no more samples.
    """
    timers = [timeit.Timer(fn) for fn in fns]
    numbers, best = [], []
    for t in timers:
        number, total = t.autorange()
        numbers.append(number)
        best.append(total / number)
    for _ in range(repeat - 1):
        for i, t in enumerate(timers):
            if numbers[i] == 1 and best[i] > slow:
                continue
            best[i] = min(best[i], t.timeit(numbers[i]) / numbers[i])
    return best


def best_time(fn: Callable[[], Any], repeat: int, slow: float = 1.0) -> float:
    """:func:`best_times` of one callable."""
    return best_times([fn], repeat, slow)[0]


# -- protobuf wire bytes, for inputs that no encoder writes -------------------------


def varint(value: int) -> bytes:
    """``value`` (non-negative) as a minimal varint."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def f_len(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return tag(number, 2) + varint(len(payload)) + payload


# -- peak memory: resident set size, Linux only -------------------------------------


def proc_status(key: str) -> int:
    """A byte count from ``/proc/self/status`` (``VmRSS``, ``VmHWM``, ...)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def reset_peak_rss() -> None:
    """Linux: writing 5 to clear_refs resets VmHWM (the peak RSS) to the current RSS."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def peak_extra(fn: Callable[[], Any]) -> int:
    """Bytes of resident memory ``fn()`` needs above what the process holds already.

    Counts C allocations too (upb's arenas, numpy buffers), which tracemalloc
    misses; the result is kept alive until the peak is read, as a caller would.
    """
    gc.collect()
    reset_peak_rss()
    before = proc_status("VmRSS")
    result = fn()
    peak = proc_status("VmHWM")
    del result
    return max(0, peak - before)


# -- the machine ----------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """CPU, cores, Python, package versions, load: the first lines of every report."""
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line for line in f if line.startswith("model name")).split(":")[1].strip()
    except (OSError, StopIteration):
        pass
    info: dict[str, Any] = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "onnxdata commit": git_commit(),
        "load": os.getloadavg(),
    }
    for name in ("numpy", "onnx", "google.protobuf"):
        try:
            module = __import__(name, fromlist=["__version__"])
            info[name.split(".")[-1]] = module.__version__
        except ImportError:
            info[name.split(".")[-1]] = "not installed"
    return info


def git_commit() -> str:
    """The checkout's short commit, marked when onnxdata/ has uncommitted changes."""
    try:
        git = ["git", "-C", str(ROOT)]
        head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run([*git, "status", "--porcelain", "onnxdata"], capture_output=True,
                               text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (onnxdata/ modified)" if dirty else "")


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table."""

    def line(cells: list[Any]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "|" + "|".join(" --- " for _ in header) + "|"]
                     + [line(r) for r in rows])  # fmt: skip
