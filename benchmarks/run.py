"""onnxdata side by side with protobuf (upb) and protobuf's pure-Python backend.

    python benchmarks/run.py            # full run, a few minutes
    python benchmarks/run.py --quick    # under a minute, noisier

Builds the eight workloads of issue 4, checks that every encoding onnxdata
writes is byte-identical to protobuf's (and that its numpy bridge returns the
same arrays as ``onnx.numpy_helper``), times decode, encode, decode->numpy and
numpy->bytes, and writes ``docs/benchmarks.md`` with a chart,
``docs/benchmarks.png``.  Needs the ``test`` extra (onnx, protobuf, numpy) and,
for the chart, the ``bench`` extra (matplotlib); the report is still written
without the chart when matplotlib is missing.

A mismatch stops the run with exit status 1 (``--keep-going`` marks the row
FAIL, carries on, and still exits 1).  ``onnxdata.numpy_helper`` missing, or a
function of it missing, makes those rows "n/a", not a failure.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's onnxdata, installed or not
sys.path.insert(0, str(HERE))

import bridges  # noqa: E402
import report  # noqa: E402
import timing  # noqa: E402
import workloads  # noqa: E402

OP_NAMES = {
    "decode": "decode",
    "encode": "encode",
    "to_numpy": "decode→numpy",
    "from_numpy": "numpy→bytes",
}
BULK = ("raw16MB", "float1M", "int64_1M")


class VerificationError(AssertionError):
    pass


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--quick", action="store_true", help="fewer samples: under a minute")
    p.add_argument("--only", metavar="NAMES", help="comma-separated workloads, e.g. seq10k,map10k")
    p.add_argument("--gc", action="store_true", help="keep the garbage collector on while timing")
    p.add_argument("--keep-going", action="store_true", help="mark mismatches FAIL and go on")
    p.add_argument(
        "--bridge",
        default="onnxdata.numpy_helper",
        help="module with to_array/from_array/... (default: %(default)s)",
    )
    p.add_argument("--no-purepy", action="store_true", help="skip the pure-Python backend")
    p.add_argument("--no-memory", action="store_true", help="skip peak-memory measurements")
    p.add_argument("--no-import", action="store_true", help="skip import time and wheel size")
    p.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="cProfile onnxdata where it misses a target (default: on in a full run, "
        "off with --quick)",
    )
    p.add_argument("--output", default=str(ROOT / "docs" / "benchmarks.md"), help="report path")
    p.add_argument("--chart", default=None, help="chart path (default: next to the report, .png)")
    p.add_argument("--json", default=None, help="also dump the raw results here")
    return p.parse_args(argv)


# -- machine ------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {}
    cpu = "unknown"
    mhz = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and cpu == "unknown":
                    cpu = value.strip()
                elif key == "cpu MHz" and mhz is None:
                    mhz = float(value)
    except OSError:
        cpu = platform.processor() or "unknown"
    info["cpu"] = cpu + (f" @ {mhz:.0f} MHz" if mhz else "")
    info["cores"] = os.cpu_count()
    try:
        info["usable_cores"] = len(os.sched_getaffinity(0))
    except AttributeError:
        info["usable_cores"] = os.cpu_count()
    try:
        with open("/proc/meminfo") as f:
            kb = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
        info["memory"] = f"{kb / 1024**2:.1f} GiB"
    except (OSError, StopIteration):
        info["memory"] = "unknown"
    info["os"] = platform.platform()
    info["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    import google.protobuf
    import numpy
    import onnx
    from google.protobuf.internal import api_implementation

    import onnxdata

    info["onnxdata"] = onnxdata.__version__ + _git_commit()
    info["numpy"] = numpy.__version__
    info["protobuf"] = f"{google.protobuf.__version__} (backend {api_implementation.Type()})"
    info["onnx"] = onnx.__version__
    try:
        import matplotlib

        info["matplotlib"] = matplotlib.__version__
    except ImportError:
        info["matplotlib"] = "not installed (no chart)"
    info["load_start"] = os.getloadavg()
    return info


def _git_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "onnxdata"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return f" (commit {head}{', onnxdata/ modified' if dirty else ''})"


# -- in-process timings: onnxdata and upb ------------------------------------------------


def run_inprocess(
    ws: list[workloads.Workload],
    ours: bridges.Bridge,
    budget: timing.Budget,
    results: dict[str, Any],
    keep_going: bool,
) -> None:
    oracle = bridges.oracle()
    for w in ws:
        print(f"  {w.name}", end="", flush=True)
        results["times"][w.name] = {}
        _time_workload(w, ours, oracle, budget, results, keep_going)
        print()


def _time_workload(
    w: workloads.Workload,
    ours: bridges.Bridge,
    oracle: bridges.Bridge,
    budget: timing.Budget,
    results: dict[str, Any],
    keep_going: bool,
) -> None:
    """Verify, then time, the four operations on one workload: onnxdata, then upb."""
    import onnx

    import onnxdata

    row = results["times"][w.name]
    data = w.data
    od_cls = getattr(onnxdata, w.message)
    pb_cls = getattr(onnx, w.message)

    def fail(op: str, why: str) -> None:
        msg = f"{w.name} {op}: {why}"
        results["failures"].append(msg)
        row[op] = {"status": "FAIL: " + why}
        if not keep_going:
            raise VerificationError(msg)
        print(f"\n!!! VERIFICATION FAILED: {msg}", file=sys.stderr)

    def both(op: str, ours_fn: Any, upb_fn: Any, firsts: tuple[float, float]) -> None:
        """Time both sides; ``firsts``: the times of the verification calls (the warm-ups)."""
        mine, theirs = timing.measure_all([ours_fn, upb_fn], budget, list(firsts))
        row[op]["onnxdata"] = mine.to_dict()
        row[op]["upb"] = theirs.to_dict()
        print(".", end="", flush=True)

    # decode and encode: the core codec
    od_msg, t_od = timing.timed(lambda: od_cls.decode(data))
    pb_msg, t_pb = timing.timed(lambda: pb_cls.FromString(data))
    pb_bytes, t_pbe = timing.timed(pb_msg.SerializeToString)
    if pb_bytes != data:
        raise VerificationError(f"{w.name}: protobuf does not re-encode its own bytes")
    row["decode"] = {"status": "ok"}
    row["encode"] = {"status": "ok"}
    both("decode", lambda: od_cls.decode(data), lambda: pb_cls.FromString(data), (t_od, t_pb))
    od_bytes, t_ode = timing.timed(od_msg.encode)
    if od_bytes != data:
        fail(
            "encode", f"onnxdata's encoding differs from protobuf's ({_first_diff(od_bytes, data)})"
        )
    else:
        both("encode", od_msg.encode, pb_msg.SerializeToString, (t_ode, t_pbe))

    # the numpy bridges
    pb_to, pb_from = oracle.to_numpy[w.kind], oracle.from_numpy[w.kind]
    if w.kind not in ours.to_numpy:
        why = "n/a: " + ours.missing[w.kind]
        row["to_numpy"] = {"status": why}
        row["from_numpy"] = {"status": why}
        print(" (numpy bridge n/a)", end="")
        return
    od_to, od_from = ours.to_numpy[w.kind], ours.from_numpy[w.kind]

    row["to_numpy"] = {"status": "ok"}
    # The oracle's value is also the input of numpy -> bytes, the same object on both sides.
    value, t_pbn = timing.timed(lambda: pb_to(pb_cls.FromString(data)))
    try:
        od_value, t_odn = timing.timed(lambda: od_to(od_cls.decode(data)))
        diff = bridges.same(od_value, value)
        del od_value
    except Exception as exc:
        traceback.print_exc()
        diff = f"{ours.module} raised {type(exc).__name__}: {exc}"
    if diff:
        fail("to_numpy", f"onnxdata's bridge disagrees with onnx.numpy_helper: {diff}")
    else:
        both(
            "to_numpy",
            lambda: od_to(od_cls.decode(data)),
            lambda: pb_to(pb_cls.FromString(data)),
            (t_odn, t_pbn),
        )

    row["from_numpy"] = {"status": "ok"}
    pb_out, t_pbf = timing.timed(lambda: pb_from(value).SerializeToString())
    od_out = None
    try:
        od_out, t_odf = timing.timed(lambda: od_from(value).encode())
    except Exception as exc:
        traceback.print_exc()
        fail("from_numpy", f"{ours.module} raised {type(exc).__name__}: {exc}")
    if od_out is not None and od_out != pb_out:
        diff = _first_diff(od_out, pb_out)
        fail("from_numpy", f"onnxdata's bytes differ from onnx.numpy_helper + protobuf's ({diff})")
    elif od_out is not None:
        both(
            "from_numpy",
            lambda: od_from(value).encode(),
            lambda: pb_from(value).SerializeToString(),
            (t_odf, t_pbf),
        )


def _first_diff(a: bytes, b: bytes) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"{len(a)} vs {len(b)} bytes, first difference at offset {n}"


# -- subprocesses ---------------------------------------------------------------------------


def worker(
    mode: str, job: dict[str, Any], env: dict[str, str] | None = None, timeout: float = 1800
) -> dict[str, Any]:
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(HERE)] + ([full_env["PYTHONPATH"]] if full_env.get("PYTHONPATH") else [])
    )
    full_env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, str(HERE / "worker.py"), mode],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        check=False,
    )
    try:
        out: dict[str, Any] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        out = {"error": f"worker {mode} exited {proc.returncode}", "traceback": proc.stderr}
    if "error" in out:
        sys.stderr.write(out.get("traceback", ""))
    return out


def run_purepy(
    ws: list[workloads.Workload],
    paths: dict[str, str],
    budget: timing.Budget,
    results: dict[str, Any],
) -> None:
    job = {
        "budget": budget.to_dict(),
        "workloads": [{"name": w.name, "message": w.message, "path": paths[w.name]} for w in ws],
    }
    out = worker("purepy", job, {"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"})
    if "error" in out:
        results["purepy_error"] = out["error"]
        print(f"  pure-Python backend failed: {out['error']}", file=sys.stderr)
        return
    for name, res in out["results"].items():
        for op in ("decode", "encode"):
            cell = results["times"][name].setdefault(op, {"status": "ok"})
            cell["purepy"] = res[op]
            cell["onnxdata_paired"] = res[f"{op}_onnxdata"]
        results["purepy_identical"][name] = res["identical"]


def run_nonumpy(
    ws: list[workloads.Workload],
    paths: dict[str, str],
    budget: timing.Budget,
    results: dict[str, Any],
    profile: bool,
) -> None:
    chosen = [w for w in ws if w.name == "int64_1M"]
    if not chosen:
        return
    job = {
        "budget": budget.to_dict(),
        "profile": profile,
        "workloads": [
            {"name": w.name, "message": w.message, "path": paths[w.name]} for w in chosen
        ],
    }
    out = worker("nonumpy", job)
    if "error" in out:
        results["failures"].append(f"numpy-absent run: {out['error']}")
        raise VerificationError(out["error"])
    results["nonumpy"] = out["results"]


def run_memory(
    ws: list[workloads.Workload],
    paths: dict[str, str],
    quick: bool,
    bridge: str,
    results: dict[str, Any],
) -> None:
    chosen = [w for w in ws if w.bulk and (not quick or w.name == "raw16MB")]
    cases = [
        ("onnxdata", "decode"),
        ("upb", "decode"),
        ("purepy", "decode"),
        ("onnxdata", "to_numpy"),
        ("upb", "to_numpy"),
    ]
    for w in chosen:
        mem: dict[str, Any] = {"input": len(w.data)}
        results["memory"][w.name] = mem
        for impl, op in cases:
            job = {
                "impl": impl,
                "op": op,
                "bridge": bridge,
                "workload": {
                    "name": w.name,
                    "message": w.message,
                    "kind": w.kind,
                    "path": paths[w.name],
                },
            }
            env = {"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"} if impl == "purepy" else None
            out = worker("memory", job, env)
            if "error" in out:
                mem[f"{impl} {op}"] = {"error": out["error"]}
            elif "skipped" in out:
                mem[f"{impl} {op}"] = {"skipped": out["skipped"]}
            else:
                mem[f"{impl} {op}"] = {"peak": out["peak"]}
            print(".", end="", flush=True)
    print()


# -- import time and wheel size ---------------------------------------------------------------


_IMPORT_SNIPPETS = {
    "import onnxdata": "import onnxdata",
    "import onnxdata, first decode + encode": (
        "import onnxdata; onnxdata.TensorProto.decode(b'\\x10\\x01').encode()"
    ),
    "import onnxdata.numpy_helper (imports numpy)": "import onnxdata.numpy_helper",
    "import numpy": "import numpy",
    "import onnx": "import onnx",
}


def import_times(runs: int) -> dict[str, Any]:
    """Best of ``runs`` fresh interpreters, timed inside with perf_counter around the import."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    # Bytecode cached, as after `pip install`, but not written into the source tree: the
    # first run compiles into a temporary prefix, the best of the others counts.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    prefix = tempfile.TemporaryDirectory(prefix="onnxdata-pycache-")
    env["PYTHONPYCACHEPREFIX"] = prefix.name
    out: dict[str, Any] = {}
    for label, code in _IMPORT_SNIPPETS.items():
        prog = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
        best = None
        error = None
        for _ in range(runs):
            proc = subprocess.run(
                [sys.executable, "-c", prog],
                capture_output=True,
                text=True,
                env=env,
                cwd=tempfile.gettempdir(),
                check=False,
            )
            if proc.returncode != 0:
                error = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
                break
            t = float(proc.stdout.strip())
            best = t if best is None else min(best, t)
        out[label] = {"seconds": best} if error is None else {"error": error}
    # Interpreter start-up, for scale: `python -c pass`, wall clock, best of runs.
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=False, env=env)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    out["python -c pass (interpreter start-up, wall)"] = {"seconds": best}
    prefix.cleanup()
    return out


def wheel_size(quick: bool) -> dict[str, Any]:
    """The real wheel (``pip wheel --no-deps``) in a full run; a zip estimate in a quick one."""
    import zipfile

    if not quick:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp, str(ROOT)]
            try:
                import hatchling  # noqa: F401

                cmd.insert(4, "--no-build-isolation")
            except ImportError:
                pass
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
            except subprocess.TimeoutExpired:
                proc = None
            wheels = list(Path(tmp).glob("*.whl"))
            if proc is not None and proc.returncode == 0 and wheels:
                return {"bytes": wheels[0].stat().st_size, "how": f"pip wheel: {wheels[0].name}"}
            err = (
                proc.stderr.strip().splitlines()[-1] if proc and proc.stderr.strip() else "timeout"
            )
            print(f"  pip wheel failed ({err}); estimating", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "estimate.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted((ROOT / "onnxdata").rglob("*")):
                if f.is_file() and "__pycache__" not in f.parts:
                    z.write(f, f.relative_to(ROOT))
        return {
            "bytes": target.stat().st_size + 4000,
            "how": "estimate: deflated zip of onnxdata/ + 4 KB of metadata",
        }


# -- profiles -------------------------------------------------------------------------------------


def profiles(
    ws: list[workloads.Workload],
    ours: bridges.Bridge,
    targets: list[dict[str, Any]],
    results: dict[str, Any],
) -> None:
    """Where onnxdata spends its time, for every target it misses."""
    by_name = {w.name: w for w in ws}
    done: set[tuple[str, str]] = set()
    for t in targets:
        w = by_name.get(t.get("workload", ""))
        if t["status"] != "missed" or w is None or (w.name, t["op"]) in done:
            continue
        done.add((w.name, t["op"]))
        if t.get("nonumpy"):  # profiled in the numpy-blocked worker
            prof = results.get("nonumpy", {}).get(w.name, {}).get("profile", {}).get(t["op"])
            if prof:
                results["profiles"][f"{w.name} {t['op']} (numpy blocked)"] = prof
            continue
        fn = _operation(w, t["op"], ours)
        if fn is not None:
            results["profiles"][f"{w.name} {OP_NAMES[t['op']]}"] = timing.profile(fn)


def _operation(w: workloads.Workload, op: str, ours: bridges.Bridge) -> Any:
    """onnxdata's side of one operation, as a callable (None: the bridge is n/a)."""
    import onnx

    import onnxdata

    cls = getattr(onnxdata, w.message)
    data = w.data
    if op == "decode":
        return lambda: cls.decode(data)
    if op == "encode":
        return cls.decode(data).encode
    if op == "to_numpy" and w.kind in ours.to_numpy:
        to = ours.to_numpy[w.kind]
        return lambda: to(cls.decode(data))
    if op == "from_numpy" and w.kind in ours.from_numpy:
        value = bridges.oracle().to_numpy[w.kind](getattr(onnx, w.message).FromString(data))
        frm = ours.from_numpy[w.kind]
        return lambda: frm(value).encode()
    return None


# -- main --------------------------------------------------------------------------------------


def _phase(t0: float, text: str) -> None:
    print(f"[{time.perf_counter() - t0:5.1f} s] {text}", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.profile is None:
        args.profile = not args.quick
    t_start = time.perf_counter()
    budget = timing.QUICK if args.quick else timing.FULL
    if args.gc:
        budget = timing.Budget(**{**budget.to_dict(), "gc_enabled": True})
    names = args.only.split(",") if args.only else None
    if names and set(names) - set(workloads.NAMES):
        sys.exit(f"unknown workloads: {sorted(set(names) - set(workloads.NAMES))}")

    from google.protobuf.internal import api_implementation

    if api_implementation.Type() != "upb":
        sys.exit(
            f"protobuf backend here is {api_implementation.Type()!r}: run with upb "
            "(unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION)"
        )

    results: dict[str, Any] = {
        "mode": "quick" if args.quick else "full",
        "command": "python benchmarks/run.py"
        + (" " + " ".join(sys.argv[1:]) if sys.argv[1:] else ""),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "budget": budget.to_dict(),
        "machine": machine(),
        "times": {},
        "purepy_identical": {},
        "nonumpy": {},
        "memory": {},
        "imports": {},
        "wheel": {},
        "profiles": {},
        "failures": [],
        "targets": [],
    }
    print(
        f"onnxdata benchmarks ({results['mode']}) - {results['machine']['cpu']}, "
        f"load {results['machine']['load_start'][0]:.2f}"
    )

    _phase(t_start, "building workloads...")
    ws = workloads.build(names)
    results["workloads"] = [
        {
            "name": w.name,
            "what": w.what,
            "message": w.message,
            "bytes": len(w.data),
            "digest": w.digest,
            "notes": w.notes,
        }
        for w in ws
    ]

    ours = bridges.ours(args.bridge)
    results["bridge"] = {"module": args.bridge, "missing": ours.missing}
    if ours.missing:
        for kind, why in sorted(ours.missing.items()):
            print(f"  numpy bridge n/a for {kind}: {why}")

    code = 0
    with tempfile.TemporaryDirectory(prefix="onnxdata-bench-") as tmp:
        paths = {}
        for w in ws:
            paths[w.name] = os.path.join(tmp, w.name + ".pb")
            Path(paths[w.name]).write_bytes(w.data)
        try:
            _phase(t_start, "onnxdata and protobuf upb, in this process:")
            run_inprocess(ws, ours, budget, results, args.keep_going)
            if not args.no_purepy:
                _phase(t_start, "protobuf pure-Python backend (subprocess)...")
                run_purepy(ws, paths, budget, results)
            _phase(t_start, "onnxdata with numpy blocked (subprocess)...")
            run_nonumpy(ws, paths, budget, results, args.profile)
            if not args.no_memory:
                _phase(t_start, "peak memory (one subprocess per measurement)")
                run_memory(ws, paths, args.quick, args.bridge, results)
        except VerificationError as exc:
            print(f"\n{'!' * 72}\nVERIFICATION FAILED: {exc}\n{'!' * 72}", file=sys.stderr)
            return 1
    if not args.no_import:
        _phase(t_start, "import time and wheel size...")
        results["imports"] = import_times(4 if args.quick else 15)
        results["wheel"] = wheel_size(args.quick)

    results["targets"] = report.evaluate(results)
    if args.profile:
        _phase(t_start, "profiling missed targets...")
        profiles(ws, ours, results["targets"], results)
    results["machine"]["load_end"] = os.getloadavg()
    results["duration"] = time.perf_counter() - t_start

    out = Path(args.output)
    chart = Path(args.chart) if args.chart else out.with_suffix(".png")
    out.parent.mkdir(parents=True, exist_ok=True)
    chart_ok = report.chart(results, chart)
    out.write_text(report.markdown(results, chart if chart_ok else None, out, HERE / "notes.md"))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    print()
    print(report.console(results))
    print(
        f"\nwrote {out}"
        + (f" and {chart}" if chart_ok else " (no chart: matplotlib missing)")
        + f" in {results['duration']:.0f} s"
    )
    if results["failures"]:
        print(f"\n{'!' * 72}\n{len(results['failures'])} VERIFICATION FAILURE(S):", file=sys.stderr)
        for f in results["failures"]:
            print("  " + f, file=sys.stderr)
        code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
