"""The cost of onnx's operator catalog in onnxdata, beside onnx's (C++) own.

    python -m benchmarks.defs              # 7 fresh interpreters per row
    python -m benchmarks.defs --runs 15

Each figure is taken in a fresh interpreter, since what is measured is a first use: importing
``onnxdata.defs``, the first ``get_schema`` (which loads the catalog), the first
``get_all_schemas_with_history`` (which builds every schema), then a later ``get_schema``
(``timeit``).  Twice: with the bytecode cached (as after ``pip install``, which compiles it),
and with none (a read-only tree, or bytecode turned off), where the tables are compiled from
source on the first lookup.  Prints the median and the best of the runs, in ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from benchmarks.common import ROOT, md_table

_PROBE = r"""
import json, sys, time, timeit
lib = sys.argv[1]
t0 = time.perf_counter()
if lib == "onnxdata":
    import onnxdata.defs as defs
else:
    import onnx.defs as defs
t1 = time.perf_counter()
defs.get_schema("Relu", 13)
t2 = time.perf_counter()
defs.get_all_schemas_with_history()
t3 = time.perf_counter()
number, total = timeit.Timer(lambda: defs.get_schema("Conv", 11)).autorange()
print(json.dumps({"import": t1 - t0, "first get_schema": t2 - t1,
                  "first get_all_schemas_with_history": t3 - t2,
                  "later get_schema": total / number}))
"""


def _run(lib: str, env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, lib], env=env, cwd=ROOT,
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    result: dict[str, float] = json.loads(done.stdout)
    return result


def measure(runs: int) -> list[list[str]]:
    """Rows of (library and bytecode, figure, median ms, best ms)."""
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        base = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        base["PYTHONPATH"] = str(ROOT)
        cached = {**base, "PYTHONPYCACHEPREFIX": cache}
        _run("onnxdata", cached)  # writes the bytecode
        cases = [
            ("onnxdata, bytecode cached", "onnxdata", cached),
            ("onnxdata, no bytecode", "onnxdata", {
                **base, "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONPYCACHEPREFIX": os.path.join(cache, "none"),
            }),
            ("onnx 1.23.2 (C++)", "onnx", cached),
        ]  # fmt: skip
        for label, lib, env in cases:
            samples = [_run(lib, env) for _ in range(runs)]
            for figure in samples[0]:
                values = [s[figure] * 1e3 for s in samples]
                rows.append([label, figure, f"{statistics.median(values):.3g}",
                             f"{min(values):.3g}"])  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh interpreters per row")
    args = parser.parse_args(argv)
    rows = measure(max(1, args.runs))
    print(md_table(["library", "figure", "median ms", "best ms"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
