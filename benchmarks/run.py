"""onnxdata side by side with protobuf (upb), its pure-Python backend and onnx.numpy_helper.

    python -m benchmarks.run                  # full run, a few minutes
    python -m benchmarks.run --quick          # fewer samples, noisier
    python -m benchmarks.run --only seq10k,nested50 --json results.json

Builds the workloads (``workloads.py``), checks that every encoding onnxdata
writes is byte-identical to protobuf's and that its numpy bridge returns what
``onnx.numpy_helper`` returns (any difference: exit status 1, nothing timed),
then times, in one run:

* in this process, onnxdata against upb (``onnx.<Message>.FromString`` /
  ``SerializeToString``, plus ``onnx.numpy_helper`` for the numpy rows):
  decode, encode, decode->numpy, numpy->bytes;
* in a subprocess with ``PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python``,
  protobuf's pure-Python backend, each side paired with onnxdata timed in the
  same process, in turn: as it runs in that program (numpy imported) and,
  for the workloads with such targets, without numpy (its standard-library
  codec, as where numpy is not installed); with them, in turn, the floors of
  the targets that faster code cannot meet (``floors.py``): the least work
  each operation needs, and so the most a speed-up can be;
* the peak memory of decoding raw16MB, import time and the wheel's size.

Times are ``timeit``'s (``common.best_times``).  Writes ``docs/benchmarks.md``
(``--output``): the targets met or missed, then every time and ratio.  Needs
the ``test`` extra (onnx, protobuf, numpy).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from benchmarks import common, first_load, floors, models
from benchmarks.common import ROOT, md_table

OPS = {"decode": "decode", "encode": "encode", "to_numpy": "decode→numpy",
       "from_numpy": "numpy→bytes"}  # fmt: skip
X = "\N{MULTIPLICATION SIGN}"
ALL = ["raw16MB", "float1M", "int64_1M", "seq10k", "map10k", "strings100k", "nested50",
       "sparse100k"]  # fmt: skip

# Targets as (round, kind, workload, op, comparison, limit).  Kinds: "upb" = onnxdata time ÷
# upb (+ onnx.numpy_helper) time; "purepy" = pure-Python time ÷ onnxdata time, onnxdata timed
# in the same subprocess; "nonumpy" = the same with onnxdata's numpy-free codec.
_R1_TO_NUMPY = {"raw16MB": 0.5, "int64_1M": 2, "nested50": 2}  # the others: 1
_R1_PUREPY = {"raw16MB": 1, "float1M": 10, "sparse100k": 10}  # the others: 3
_R2_TO_NUMPY = {"raw16MB": 0.5, "float1M": 0.7, "seq10k": 0.7, "map10k": 0.7,
                "strings100k": 0.8, "sparse100k": 0.8}  # the others: 1  # fmt: skip
_R2_NONUMPY = {"seq10k": 5, "map10k": 5, "strings100k": 5, "nested50": 5, "sparse100k": 10}
_R2_ENCODE = {"int64_1M": 2, "float1M": 1, "raw16MB": 1}
_BOTH = ("decode", "encode")
TARGETS: list[tuple[int, str, str, str, str, float]] = [
    *[(1, "upb", w, "to_numpy", "≤", _R1_TO_NUMPY.get(w, 1)) for w in ALL],
    *[(1, "upb", w, "from_numpy", "≤", 1) for w in ALL],
    *[(1, "nonumpy" if w == "int64_1M" else "purepy", w, op, "≥", _R1_PUREPY.get(w, 3))
      for w in ALL for op in _BOTH],
    *[(2, "upb", w, "to_numpy", "≤", _R2_TO_NUMPY.get(w, 1)) for w in ALL],
    *[(2, "nonumpy", w, op, "≥", t) for w, t in _R2_NONUMPY.items() for op in _BOTH],
    *[(2, "upb", w, "encode", "≤", t) for w, t in _R2_ENCODE.items()],
]  # fmt: skip
_NONUMPY = {w for _, kind, w, *_ in TARGETS if kind == "nonumpy"}  # timed without numpy too
IMPORT_TARGET_MS = 15
WHEEL_TARGET_KB = 300
COPIES_TARGET = 1.05  # "at most one copy of the payload": 5 % for everything else
UPB = {True: "upb", False: "(upb + onnx.numpy_helper)"}
ROUNDS = {1: "the first round (all must hold)", 2: "speed, round 2 (open)"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--quick", action="store_true", help="fewer samples")
    p.add_argument("--only", metavar="NAMES", help="comma-separated workloads, e.g. seq10k,map10k")
    p.add_argument("--no-purepy", action="store_true", help="skip the pure-Python backend")
    p.add_argument("--output", default=str(ROOT / "docs" / "benchmarks.md"), help="report path")
    p.add_argument("--json", help="also write the raw results here")
    p.add_argument("--child", choices=["purepy", "memory"], help=argparse.SUPPRESS)
    return p.parse_args(argv)


# -- numpy bridges: the same calls on both sides ---------------------------------------


def bridge(nh: Any, make_sparse: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(to numpy, from numpy) per workload kind, from a ``numpy_helper`` module.

    Sparse tensors have no conversion in onnx.numpy_helper: their values and
    indices are converted as two tensors (``make_sparse`` rebuilds the message).
    """
    to = {
        "tensor": nh.to_array,
        "sequence": nh.to_list,
        "map": nh.to_dict,
        "optional": nh.to_optional,
        "sparse": lambda m: (nh.to_array(m.values), nh.to_array(m.indices), list(m.dims)),
    }
    frm = {
        "tensor": nh.from_array,
        "sequence": nh.from_list,
        "map": nh.from_dict,
        "optional": nh.from_optional,
        "sparse": lambda v: make_sparse(nh.from_array(v[0]), nh.from_array(v[1]), v[2]),
    }
    return to, frm


def same(a: Any, b: Any, path: str = "value") -> str | None:
    """Where two numpy results differ (type, dtype, shape, bits, structure), or None."""
    import numpy as np

    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if (a.dtype, a.shape) != (b.dtype, b.shape):
            return f"{path}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        equal = a.tolist() == b.tolist() if a.dtype == object else a.tobytes() == b.tobytes()
        return None if equal else f"{path}: values differ"
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path}: keys differ"
        return next((d for k in a if (d := same(a[k], b[k], f"{path}[{k!r}]"))), None)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        diffs = (same(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True)))
        return next((d for d in diffs if d), None)
    return None if type(a) is type(b) and a == b else f"{path}: {a!r:.60} vs {b!r:.60}"


# -- in this process: onnxdata and upb ------------------------------------------------------


def run_upb(ws: list[Any], repeat: int) -> dict[str, Any]:
    """Verify, then time the four operations of every workload, onnxdata against upb."""
    import onnx

    import onnxdata
    from onnxdata import numpy_helper

    def make_ours(values: Any, indices: Any, dims: Any) -> Any:
        return onnxdata.SparseTensorProto(values=values, indices=indices, dims=list(dims))

    ours_bridge = bridge(numpy_helper, make_ours)
    onnx_bridge = bridge(onnx.numpy_helper, onnx.helper.make_sparse_tensor)
    times: dict[str, Any] = {}
    for w in ws:
        print(f"  {w.name}", flush=True)
        ours, theirs = getattr(onnxdata, w.message), getattr(onnx, w.message)
        pairs = operations(w, ours, theirs, ours_bridge, onnx_bridge)
        times[w.name] = {}
        for op, (a, b) in pairs.items():
            od, up = common.best_times([a, b], repeat)
            times[w.name][op] = {"onnxdata": od, "upb": up}
    return times


def operations(w: Any, ours: Any, theirs: Any, our_bridge: Any, onnx_bridge: Any) -> Any:
    """op -> (onnxdata's callable, upb's callable), once both are checked to agree."""
    data = w.data
    ours_to, ours_from = our_bridge[0][w.kind], our_bridge[1][w.kind]
    onnx_to, onnx_from = onnx_bridge[0][w.kind], onnx_bridge[1][w.kind]
    msg, pb = ours.decode(data), theirs.FromString(data)
    check(w.name, "encode", msg.encode() == data == pb.SerializeToString())
    value = onnx_to(pb)  # also the input of numpy -> bytes, on both sides
    diff = same(ours_to(ours.decode(data)), value)
    check(w.name, "decode→numpy", diff is None, diff)
    mine = ours_from(value).encode()
    check(w.name, "numpy→bytes", mine == onnx_from(value).SerializeToString())
    return {
        "decode": (lambda: ours.decode(data), lambda: theirs.FromString(data)),
        "encode": (msg.encode, pb.SerializeToString),
        "to_numpy": (lambda: ours_to(ours.decode(data)), lambda: onnx_to(theirs.FromString(data))),
        "from_numpy": (lambda: ours_from(value).encode(),
                       lambda: onnx_from(value).SerializeToString()),
    }  # fmt: skip


def check(workload: str, op: str, ok: bool, why: str | None = None) -> None:
    if not ok:
        sys.exit(f"VERIFICATION FAILED: {workload} {op}: onnxdata differs from protobuf + "
                 f"onnx.numpy_helper{': ' + why if why else ''}")  # fmt: skip


# -- subprocesses -------------------------------------------------------------------------


def child(mode: str, job: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run this module with ``--child MODE``, the job as JSON on stdin, the result on stdout."""
    full_env = dict(os.environ)
    full_env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    proc = subprocess.run([sys.executable, "-m", "benchmarks.run", "--child", mode],
                          input=json.dumps(job), capture_output=True, text=True,
                          env={**full_env, **(env or {})}, cwd=ROOT, check=False)  # fmt: skip
    if proc.returncode:
        sys.exit(f"the {mode} subprocess failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def child_main(mode: str) -> None:
    job = json.load(sys.stdin)
    import onnxdata

    if mode == "memory":  # one operation of one implementation, nothing decoded before it
        w = job["workload"]
        data = Path(w["path"]).read_bytes()
        if w["impl"] == "upb":
            import onnx

            cls = getattr(onnx, w["message"])
            to = onnx.numpy_helper.to_array
        else:
            from onnxdata import numpy_helper

            cls = getattr(onnxdata, w["message"])
            to = numpy_helper.to_array
        cls.FromString(b"")  # the decoder's modules loaded
        if w["op"] == "decode":
            peak = common.peak_extra(lambda: cls.FromString(data))
        else:
            peak = common.peak_extra(lambda: to(cls.FromString(data)))
        json.dump({"peak": peak}, sys.stdout)
        return
    import onnx
    from google.protobuf.internal import api_implementation

    assert api_implementation.Type() == "python", api_implementation.Type()
    out: dict[str, Any] = {}
    for w in job["workloads"]:
        data = Path(w["path"]).read_bytes()
        ours, theirs = getattr(onnxdata, w["message"]), getattr(onnx, w["message"])
        msg, pb = ours.decode(data), theirs.FromString(data)
        if msg.encode() != data or without_numpy(msg.encode)() != data:
            raise AssertionError(f"{w['name']}: onnxdata's encoding differs")
        if without_numpy(lambda: ours.decode(data))() != msg:  # noqa: B023
            raise AssertionError(f"{w['name']}: onnxdata decodes differently without numpy")
        out[w["name"]] = {"identical": pb.SerializeToString() == data}
        for op, a, b in (
            ("decode", lambda: theirs.FromString(data), lambda: ours.decode(data)),  # noqa: B023
            ("encode", pb.SerializeToString, msg.encode),
        ):
            fns = [a, b, without_numpy(b)] if w["name"] in _NONUMPY else [a, b]
            floor = floors.find(w["name"], op)
            if floor:
                fn, expected = floor.make(data, msg)
                if fn() != expected:
                    raise AssertionError(f"{w['name']} {op}: the floor's result is wrong")
                fns.append(fn)
            best = common.best_times(fns, job["repeat"], slow=0.5)
            cell = out[w["name"]][op] = {"purepy": best[0], "onnxdata": best[1]}
            if w["name"] in _NONUMPY:
                cell["nonumpy"] = best[2]
            if floor:
                cell["floor"] = best[-1]
        entries, candidates = floors.steps(w["name"], msg)
        if candidates:
            out[w["name"]]["steps"] = [
                [step, call, used, common.best_time(fn, job["repeat"]) / entries]
                for step, call, used, fn in candidates
            ]
    json.dump(out, sys.stdout)


def without_numpy(fn: Any) -> Any:
    """``fn`` run as in a program that has not imported numpy.

    The codec uses numpy only if the program has already imported it (it
    looks in ``sys.modules``); with the entry set to None it takes its
    standard-library code, as where numpy is not installed.  The
    pure-Python backend never uses numpy, so both sides of these ratios are
    timed in one process, in turn.
    """

    def call() -> Any:
        saved = sys.modules["numpy"]
        sys.modules["numpy"] = None  # type: ignore[assignment]
        try:
            return fn()
        finally:
            sys.modules["numpy"] = saved

    return call


def run_children(ws: list[Any], folder: Path, repeat: int, purepy: bool) -> dict[str, Any]:
    jobs = []
    for w in ws:
        path = folder / f"{w.name}.pb"
        path.write_bytes(w.data)
        jobs.append({"name": w.name, "message": w.message, "path": str(path)})
    out: dict[str, Any] = {}
    if purepy:
        print("  protobuf's pure-Python backend (subprocess)", flush=True)
        env = {"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}
        out["purepy"] = child("purepy", {"workloads": jobs, "repeat": repeat}, env)
    out["memory"] = {}
    raw = [j for j in jobs if j["name"] == "raw16MB"]
    if raw and sys.platform == "linux":
        print("  peak memory of raw16MB (a subprocess per figure)", flush=True)
        for impl in ("onnxdata", "upb"):
            for op in ("decode", "to_numpy"):
                job = {"workload": {**raw[0], "impl": impl, "op": op}}
                size = Path(raw[0]["path"]).stat().st_size
                out["memory"][f"{impl} {op}"] = child("memory", job)["peak"] / size
    return out


def import_ms(runs: int) -> float:
    """``import onnxdata``, best of fresh interpreters, bytecode cached (as after install)."""
    prog = "import time; t = time.perf_counter(); import onnxdata; print(time.perf_counter() - t)"
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cmd = [sys.executable, "-c", prog]
        runs_s = [subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cache,
                                 check=True).stdout for _ in range(runs)]  # fmt: skip
        return 1e3 * min(float(t) for t in runs_s)


def wheel_kb(quick: bool) -> tuple[float, str]:
    """The wheel built by pip in a full run; a deflated zip of onnxdata/ in a quick one."""
    with tempfile.TemporaryDirectory() as tmp:
        if not quick:
            cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp, str(ROOT)]
            if subprocess.run(cmd, capture_output=True, check=False).returncode == 0:
                wheel = next(Path(tmp).glob("*.whl"))
                return wheel.stat().st_size / 1000, f"pip wheel: {wheel.name}"
        target = Path(tmp) / "estimate.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted((ROOT / "onnxdata").rglob("*")):
                if f.is_file() and "__pycache__" not in f.parts:
                    z.write(f, f.relative_to(ROOT))
        return target.stat().st_size / 1000 + 4, "estimate: deflated onnxdata/ + 4 KB metadata"


# -- targets and the report -------------------------------------------------------------------


def measured(r: dict[str, Any], kind: str, w: str, op: str) -> float | None:
    try:
        if kind == "upb":
            cell = r["times"][w][op]
            return float(cell["onnxdata"] / cell["upb"])
        cell = r["purepy"][w][op]
        od = cell["nonumpy"] if kind == "nonumpy" else cell["onnxdata"]
        return float(cell["purepy"] / od)
    except KeyError:
        return None


def evaluate(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for rnd, kind, w, op, cmp, limit in TARGETS:
        if w not in r["times"]:
            continue
        label = (f"{OPS[op]} {w}: onnxdata ÷ {UPB[op in _BOTH]}" if kind == "upb" else
                 f"{op} {w}: pure-Python backend ÷ onnxdata"
                 + (" (without numpy)" if kind == "nonumpy" else ""))  # fmt: skip
        rows.append({"round": rnd, "label": label, "value": measured(r, kind, w, op),
                     "cmp": cmp, "limit": limit, "unit": X,
                     "ceiling": ceiling(r, w, op) if kind != "upb" else None})  # fmt: skip
    if "import_ms" in r:
        rows.append({"round": 1, "label": "`import onnxdata` (ms)", "value": r["import_ms"],
                     "cmp": "≤", "limit": IMPORT_TARGET_MS, "unit": ""})  # fmt: skip
        rows.append({"round": 1, "label": "wheel size (KB)", "value": r["wheel_kb"],
                     "cmp": "≤", "limit": WHEEL_TARGET_KB, "unit": ""})  # fmt: skip
    for op in ("decode", "to_numpy"):
        if f"onnxdata {op}" in r.get("memory", {}):
            rows.append({"round": 1, "label": f"peak memory, {OPS[op]} raw16MB (copies of the "
                         "payload)", "value": r["memory"][f"onnxdata {op}"], "cmp": "≤",
                         "limit": COPIES_TARGET, "unit": ""})  # fmt: skip
    for row in rows:
        v = row["value"]
        met = v is not None and (v <= row["limit"] if row["cmp"] == "≤" else v >= row["limit"])
        row["status"] = "n/a" if v is None else ("✅ met" if met else "❌ missed")
        if v is not None and not met and row.get("ceiling") is not None:
            row["status"] += f" (floor: at most {fmt(row['ceiling'], X)}, see Floors)"
    return rows


def ceiling(r: dict[str, Any], w: str, op: str) -> float | None:
    """pure-Python ÷ the floor of ``op`` on ``w``: the most a speed-up made of its calls can be."""
    cell = r.get("purepy", {}).get(w, {}).get(op, {})
    return float(cell["purepy"] / cell["floor"]) if "floor" in cell else None


def floor_rows(r: dict[str, Any]) -> list[list[str]]:
    rows = []
    for f in floors.FLOORS:
        cell = r.get("purepy", {}).get(f.workload, {}).get(f.op, {})
        if "floor" in cell:
            od = cell.get("nonumpy", cell["onnxdata"])
            rows.append([f.workload, f.op + (" (without numpy)" if "nonumpy" in cell else ""),
                         f.what, ms(cell["floor"]), ms(cell["purepy"]), ms(od),
                         fmt(ceiling(r, f.workload, f.op), X),
                         fmt(od / cell["floor"], X)])  # fmt: skip
    return rows


def step_rows(r: dict[str, Any]) -> list[list[str]]:
    return [[f"{w}: {step}", call, f"{1e9 * seconds:.1f}", "✓" if used else ""]
            for w, ops in r.get("purepy", {}).items()
            for step, call, used, seconds in ops.get("steps", [])]  # fmt: skip


def fmt(v: float | None, unit: str = "") -> str:
    if v is None:
        return "—"
    return (f"{v:.3g}" if v < 100 else f"{v:,.0f}") + unit


def ms(seconds: float | None) -> str:
    return fmt(None if seconds is None else 1e3 * seconds)


def time_rows(r: dict[str, Any]) -> list[list[str]]:
    rows = []
    for w, ops in r["times"].items():
        for op, cell in ops.items():
            pure = r.get("purepy", {}).get(w, {}).get(op, {})
            speed = measured(r, "purepy", w, op) if pure else None
            rows.append([w, OPS[op], ms(cell["onnxdata"]), ms(cell["upb"]), ms(pure.get("purepy")),
                         fmt(cell["onnxdata"] / cell["upb"], X), fmt(speed, X)])  # fmt: skip
        for op in _BOTH:
            pure = r.get("purepy", {}).get(w, {}).get(op, {})
            if "nonumpy" in pure:
                speed = measured(r, "nonumpy", w, op)
                rows.append([w, f"{op} (without numpy)", ms(pure["nonumpy"]), "",
                             ms(pure["purepy"]), "", fmt(speed, X)])  # fmt: skip
    return rows


TIME_HEADER = ["workload", "operation", "onnxdata ms", "upb ms", "pure-Python ms",
               "onnxdata ÷ upb", "pure-Python ÷ onnxdata"]  # fmt: skip


def markdown(r: dict[str, Any], ws: list[Any]) -> str:
    m = r["machine"]
    out = [
        "# Benchmarks", "",
        f"Generated by `{r['command']}` on {r['date']} ({r['mode']} run, {r['seconds']:.0f} s). "
        "Do not edit by hand: re-run the script.", "",
        "onnxdata against protobuf's C backend (upb, through `onnx.<Message>.FromString` / "
        "`SerializeToString`, with `onnx.numpy_helper` for the numpy rows) and protobuf's "
        "pure-Python backend (a subprocess with `PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python` "
        "reading the same bytes), in one run on one machine. *onnxdata ÷ upb* below 1: onnxdata "
        "is faster; *pure-Python ÷ onnxdata*: onnxdata's speed-up over the pure-Python "
        "backend.", "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['python']}, {m['os']}; numpy {m['numpy']}, "
        f"protobuf {m['protobuf']}, onnx {m['onnx']}; onnxdata at commit {m['onnxdata commit']}; "
        f"load average {m['load'][0]:.2f} at the start (near the core count or above: noisy "
        "times; ratios suffer less, both sides being timed in turn).", "",
    ]  # fmt: skip
    for rnd, title in ROUNDS.items():
        rows = [[t["label"], fmt(t["value"], t["unit"]), f"{t['cmp']} {t['limit']:g}{t['unit']}",
                 t["status"]] for t in r["targets"] if t["round"] == rnd]  # fmt: skip
        if rows:
            out += [f"## Targets: {title}", "", md_table(["target", "measured", "goal", "status"],
                                                        rows), ""]  # fmt: skip
    if floor_rows(r):
        out += [
            "## Floors", "",
            "A floor is the least work an operation needs, done by a complete encoder or decoder "
            "of that workload only (its result checked against the real bytes), each step once, "
            "by the cheapest standard-library call found for it (`benchmarks/floors.py`). "
            "Timed in turn with the pure-Python backend and onnxdata in its subprocess, "
            "*pure-Python ÷ floor* is the ceiling of that target: no implementation made of "
            "these calls can be faster than its floor, but for noise. raw16MB's floors are one "
            "16 MiB copy, as each side's work is: one copy's time varies from sample to sample "
            "by more than the microseconds that the rest of either side takes, so these three "
            "times differ by noise, in either order, and the ratio is a coin toss around 1.", "",
            md_table(["workload", "operation", "the floor", "floor ms", "pure-Python ms",
                      "onnxdata ms", "pure-Python ÷ floor", "onnxdata ÷ floor"],
                     floor_rows(r)), "",
        ]  # fmt: skip
        if step_rows(r):
            out += [
                "Each step of a floor by every call found that can take it, in nanoseconds per "
                "entry (best of the samples); ✓: the one the floor uses.", "",
                md_table(["step", "call", "ns per entry", "floor"], step_rows(r)), "",
            ]  # fmt: skip
    out += [
        "## Times", "",
        "Best time per call. *decode*: bytes → message; *encode*: message → bytes; "
        "*decode→numpy*: bytes → message → `to_array` / `to_list` / `to_dict` / `to_optional`; "
        "*numpy→bytes*: `from_array` / `from_list` / `from_dict` / `from_optional` → bytes. "
        "*pure-Python ÷ onnxdata* divides by onnxdata timed in the pure-Python backend's "
        "subprocess, the two sampled in turn (so a change of load between phases does not skew "
        "it); the *without numpy* rows time onnxdata there with `sys.modules[\"numpy\"]` set to "
        "None, so that it runs its standard-library codec, as where numpy is not installed.", "",
        md_table(TIME_HEADER, time_rows(r)), "",
        "## Workloads", "",
        "Built deterministically by `benchmarks/workloads.py`, encoded by protobuf; the digest "
        "(SHA-256, first 16 hex digits) is the same on every run.", "",
        md_table(["workload", "message", "bytes", "sha256", "what"],
                 [[w.name, w.message, f"{len(w.data):,}", f"`{w.digest}`", w.what] for w in ws]),
        "",
    ]  # fmt: skip
    if r.get("memory"):
        out += ["## Peak memory of raw16MB", "",
                "Resident memory one call needs above what the process holds, as a multiple of "
                "the input's size; a fresh subprocess per figure, the peak reset through "
                "`/proc/self/clear_refs`, C allocations counted.", "",
                md_table(["", "copies of the input"],
                         [[k, f"{v:.2f}"] for k, v in r["memory"].items()]), ""]  # fmt: skip
    if "import_ms" in r:
        out += [f"`import onnxdata`: {r['import_ms']:.1f} ms (best of fresh interpreters, "
                f"bytecode cached). Wheel: {r['wheel_kb']:.1f} KB ({r['wheel_how']}).",
                ""]  # fmt: skip
    out += [
        "## Method", "",
        "- `timeit`: `Timer.autorange` picks the calls per sample, the best of "
        f"{r['repeat']} samples counts (calls above a second get fewer), the collector is off "
        "while timing; the two sides of a ratio are sampled in turn.",
        "- Before timing, every onnxdata encoding is checked byte for byte against protobuf's, "
        "and decode→numpy results against `onnx.numpy_helper`'s (dtype, shape, bits).",
        "- Sparse tensors: `onnx.numpy_helper` has no sparse conversion, so decode→numpy is "
        "`to_array` of `values` and of `indices`, numpy→bytes `from_array` of both "
        "(`onnx.helper.make_sparse_tensor` on the oracle side).", "",
    ]  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        child_main(args.child)
        return 0
    from google.protobuf.internal import api_implementation

    if api_implementation.Type() != "upb":
        sys.exit("run with protobuf's upb backend (unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION)")
    from benchmarks import workloads

    names = args.only.split(",") if args.only else ALL
    if set(names) - set(ALL):
        sys.exit(f"unknown workloads: {sorted(set(names) - set(ALL))}")
    start = time.perf_counter()
    repeat = 3 if args.quick else 7
    r: dict[str, Any] = {
        "mode": "quick" if args.quick else "full", "repeat": repeat,
        "command": " ".join(["python -m benchmarks.run", *sys.argv[1:]]),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": common.machine(),
    }  # fmt: skip
    print(f"onnxdata benchmarks ({r['mode']}), load {r['machine']['load'][0]:.2f}", flush=True)
    ws = workloads.build(names)
    print("onnxdata and upb, in this process:", flush=True)
    r["times"] = run_upb(ws, repeat)
    with tempfile.TemporaryDirectory(prefix="onnxdata-bench-") as tmp:
        r.update(run_children(ws, Path(tmp), repeat, not args.no_purepy))
    r["import_ms"] = import_ms(4 if args.quick else 15)
    r["wheel_kb"], r["wheel_how"] = wheel_kb(args.quick)
    r["targets"] = evaluate(r)
    r["seconds"] = time.perf_counter() - start
    # The model section (``benchmarks.models``) is its own run's: kept as it is.
    kept = models.kept_section(Path(args.output)) + first_load.kept_section(Path(args.output))
    Path(args.output).write_text(markdown(r, ws) + kept, encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1, default=str), encoding="utf-8")
    print(md_table(TIME_HEADER, time_rows(r)))
    for t in r["targets"]:
        if t["status"] != "✅ met":
            print(f"{t['status']} (round {t['round']}): {t['label']}: {fmt(t['value'], t['unit'])} "
                  f"(goal {t['cmp']} {t['limit']:g})")  # fmt: skip
    met = sum(t["status"] == "✅ met" for t in r["targets"])
    print(f"{met} of {len(r['targets'])} targets met; wrote {args.output} in {r['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
