"""The first model a fresh process loads: what the generated code costs it.

``python -m benchmarks.first_load [--runs N] [--no-save]`` times, in fresh
interpreters (bytecode cached, as after an install), ``import onnxdata`` and
then the first ``onnxdata.load`` of ``tests/data/model_if_subgraph.onnx`` (a
small model with subgraphs: its decoders are generated and compiled on that
first load), three ways: without the code cache (``ONNXDATA_CACHE_DIR=""``),
with an empty cache folder (the first process after an install or a change),
and with a filled one (every process after).  Wall and CPU times, best and
median of the runs, and the target: the first load costs at most 20 ms above
``import onnxdata`` with a filled cache.  The section it writes into
``docs/benchmarks.md`` is kept by ``python -m benchmarks.run``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import common

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "tests" / "data" / "model_if_subgraph.onnx"
START = "<!-- first load benchmarks: start -->"
END = "<!-- first load benchmarks: end -->"
TARGET_MS = 20.0

_PROGRAM = """
import sys, time
c0, t0 = time.process_time(), time.perf_counter()
import onnxdata
c1, t1 = time.process_time(), time.perf_counter()
onnxdata.load(sys.argv[1])
c2, t2 = time.process_time(), time.perf_counter()
print(t1 - t0, t2 - t1, c1 - c0, c2 - c1)
"""

WAYS = {"no cache": "off", "empty cache": "empty", "filled cache": "filled"}


def one(way: str, pycache: str, filled: str, checkout: Path = ROOT) -> list[float]:
    """Import and first-load times (wall, CPU) of one fresh interpreter, in ms."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as empty:
        env["ONNXDATA_CACHE_DIR"] = {"off": "", "empty": empty, "filled": filled}[way]
        done = subprocess.run([sys.executable, "-c", _PROGRAM, str(MODEL)], env=env,
                              cwd=pycache, capture_output=True, text=True, check=True)  # fmt: skip
    return [1e3 * float(x) for x in done.stdout.split()]


def measure(runs: int, other: Path | None = None) -> dict[str, list[list[float]]]:
    """Each way's runs, taken in turn so that the machine's load falls on all
    alike; with ``other``, another checkout's runs too (``"other"``: its package
    without a cache, for a before and after)."""
    out: dict[str, list[list[float]]] = {way: [] for way in WAYS.values()}
    if other is not None:
        out["other"] = []
    with tempfile.TemporaryDirectory() as pycache, tempfile.TemporaryDirectory() as filled:
        one("filled", pycache, filled)  # bytecode written, the cache filled
        if other is not None:
            one("off", pycache, filled, other)
        for _ in range(runs):
            for way in out:
                if way == "other":
                    out[way].append(one("off", pycache, filled, other or ROOT))
                else:
                    out[way].append(one(way, pycache, filled))
    return out


def section(results: dict[str, list[list[float]]], runs: int) -> str:
    machine = common.machine()
    when = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    lines = [
        START,
        "## The first load in a fresh process (`python -m benchmarks.first_load`)",
        "",
        f"Run {when}, {runs} fresh interpreters per row (taken in turn), bytecode cached; "
        f"load average {machine['load'][0]:.2f} at the start. `import onnxdata`, then the first "
        "`onnxdata.load` of `tests/data/model_if_subgraph.onnx` (its decoders generated on "
        "that load); best and median, wall clock and CPU.",
        "",
        "| code cache | import: wall | import: CPU | first load: wall | first load: CPU |",
        "| --- | --- | --- | --- | --- |",
    ]
    rows = dict(WAYS)
    if "other" in results:
        rows["none (the checkout before: `--before`)"] = "other"
    for label, way in rows.items():
        cols = list(zip(*results[way], strict=True))
        cells = [f"{min(c):.1f} ms (median {statistics.median(c):.1f})" for c in cols]
        lines.append(f"| {label} | {cells[0]} | {cells[2]} | {cells[1]} | {cells[3]} |")
    wall = min(r[1] for r in results["filled"])
    cpu = min(r[3] for r in results["filled"])
    status = "✅ met" if cpu <= TARGET_MS else "❌ missed"
    lines += [
        "",
        f"Target (issue 40): the first load with a filled cache at most {TARGET_MS:g} ms above "
        f"`import onnxdata`: {cpu:.1f} ms of CPU, {status} ({wall:.1f} ms of wall clock; "
        "judged on CPU time, which the load of a shared machine does not inflate: there the "
        "wall clock is mostly the wait for a core).",
        END,
    ]
    return "\n".join(lines)


def write_section(output: Path, text: str) -> None:
    """Put ``text`` in place of the section in ``output``, or after it."""
    old = output.read_text(encoding="utf-8") if output.exists() else ""
    if START in old and END in old:
        head, rest = old.split(START, 1)
        new = head + text + rest.split(END, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    output.write_text(new, encoding="utf-8")


def kept_section(output: Path) -> str:
    """The section of ``output`` as it is, for a runner that rewrites the rest."""
    text = output.read_text(encoding="utf-8") if output.exists() else ""
    if START in text and END in text:
        return "\n" + START + text.split(START, 1)[1].split(END, 1)[0] + END + "\n"
    return ""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--runs", type=int, default=15, help="fresh interpreters per row")
    p.add_argument("--output", default=str(ROOT / "docs" / "benchmarks.md"), help="report path")
    p.add_argument("--no-save", action="store_true", help="print the section only")
    p.add_argument("--before", type=Path, help="another checkout, timed alike in turn")
    args = p.parse_args(argv)
    text = section(measure(args.runs, args.before), args.runs)
    print(text)
    if not args.no_save:
        write_section(Path(args.output), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
