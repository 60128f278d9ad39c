"""Big data benchmarks: zero-copy decoding, files, streaming.

    python -m benchmarks.bigdata            # all four, a few minutes, ~8 GB of disk
    python -m benchmarks.bigdata --quick    # smaller files (1 GiB, 100k elements)
    python -m benchmarks.bigdata --only raw16MB,encode3G

1. ``raw16MB``: ``decode(copy=False)`` + ``numpy_helper.to_array`` of a 16 MiB
   ``raw_data`` tensor against ``onnx.TensorProto.FromString`` +
   ``onnx.numpy_helper.to_array``, interleaved in one process (target: 0.05x).
2. ``load4G``: ``onnxdata.load`` of a 4 GiB single-tensor file, and the same
   plus a pass over every value, against ``numpy.fromfile`` (the floor) and
   the oracle (open + ``FromString``: it cannot; what happens is recorded).
3. ``iter1M``: ``iter_sequence`` over a 1,000,000-element sequence file, with
   the resident set sampled as it goes, against the oracle parsing the file.
4. ``encode3G``: ``encode_to`` of a 3 GiB ``SequenceProto`` (3,072 tensors of
   1 MiB) into a file, against ``file.write`` of the same payloads, and the
   oracle's ``SerializeToString`` of the same message.

Every file and memory figure comes from a fresh subprocess (this script with
``--child``): wall time with ``time.perf_counter``, peak resident set from
``VmHWM`` (reset with ``clear_refs`` just before the timed step), so that one
case's pages cannot inflate another's.  Files go to a temporary directory
(``--dir``) and are deleted right after use.  The page cache is warm: the
files were just written, as after a download or a training run's save.

Writes ``docs/bigdata-benchmarks.md`` (``--output``) and prints it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, MiB, best_times, machine, proc_status, reset_peak_rss, varint

GiB = 1 << 30


# -- helpers run in the children -------------------------------------------------------


class Step:
    """Time one step and the peak resident set above the start of it."""

    def __init__(self) -> None:
        reset_peak_rss()
        self.rss0 = proc_status("VmRSS")
        self.t0 = time.perf_counter()

    def done(self, **extra: Any) -> dict[str, Any]:
        seconds = time.perf_counter() - self.t0
        return {
            "seconds": seconds,
            "peak_rss": proc_status("VmHWM"),
            "rss_before": self.rss0,
            "peak_extra": proc_status("VmHWM") - self.rss0,
            **extra,
        }


# Each child prints one JSON object on its last line.
def child(name: str, args: list[str]) -> dict[str, Any]:
    if name == "load":
        import numpy as np

        import onnxdata
        from onnxdata import numpy_helper

        path, explicit = args[0], args[1] == "typed"
        step = Step()
        kind = onnxdata.TensorProto if explicit else None
        t = onnxdata.load(path, kind, mmap=True)  # the mapped way: what this section measures
        loaded = step.done(type=type(t).__name__)
        step = Step()
        values = numpy_helper.to_array(t)
        total = float(values.sum(dtype=np.float64))
        touched = step.done(sum=total)
        return {"load": loaded, "read_all": touched}
    if name == "fromfile":
        import numpy as np

        path, offset = args[0], int(args[1])
        step = Step()
        values = np.fromfile(path, dtype=np.float32, offset=offset)
        read = step.done(n=int(values.size))
        step = Step()
        total = float(values.sum(dtype=np.float64))
        return {"fromfile": read, "sum": step.done(sum=total)}
    if name == "oracle_load":
        import onnx

        path = args[0]
        step = Step()
        with open(path, "rb") as f:
            data = f.read()
        read = step.done()
        step = Step()
        try:
            t = onnx.TensorProto.FromString(data)
            return {"read": read, "parse": step.done(ok=True, raw=len(t.raw_data))}
        except Exception as exc:  # record whatever happens
            error = f"{type(exc).__name__}: {exc}"[:300]
            return {"read": read, "parse": step.done(error=error)}
    if name == "iter":
        import onnxdata
        from onnxdata import numpy_helper

        path, mode = args[0], args[1]
        samples = []
        step = Step()
        n = 0
        for element in onnxdata.iter_sequence(path, mmap=True):
            if mode == "to_array":
                numpy_helper.to_array(element)  # type: ignore[arg-type]
            n += 1
            if n % 100_000 == 0:
                samples.append((n, proc_status("VmRSS")))
        return step.done(elements=n, rss_samples=samples)
    if name == "decode_seq":
        import onnxdata

        path = args[0]
        step = Step()
        s = onnxdata.load(path, onnxdata.SequenceProto, mmap=True)
        return step.done(elements=len(s.tensor_values))
    if name == "oracle_seq":
        import onnx

        path = args[0]
        step = Step()
        with open(path, "rb") as f:
            s = onnx.SequenceProto.FromString(f.read())
        n = 0
        for t in s.tensor_values:
            n += len(t.dims)  # touch each element, as iter_sequence's loop does
        return step.done(elements=len(s.tensor_values))
    if name == "write_seq":
        import numpy as np

        import onnxdata
        from onnxdata import numpy_helper

        path, count = args[0], int(args[1])
        base = np.arange(12, dtype=np.float32).reshape(3, 4)
        step = Step()
        with onnxdata.SequenceWriter(path, onnxdata.SequenceProto.TENSOR) as w:
            for i in range(count):
                w.append(numpy_helper.from_array(base + i))
        return step.done(elements=count, bytes=os.path.getsize(path))
    if name in ("encode_to", "writer", "file_write", "oracle_serialize"):
        path, count = args[0], int(args[1])
        payload = os.urandom(MiB)
        if name == "oracle_serialize":
            import onnx

            seq = onnx.SequenceProto(elem_type=onnx.SequenceProto.TENSOR)
            for _ in range(count):
                seq.tensor_values.add(
                    dims=[MiB], data_type=onnx.TensorProto.UINT8, raw_data=payload
                )
            step = Step()
            try:
                data = seq.SerializeToString()
            except Exception as exc:
                return {"error": f"{type(exc).__name__}: {exc}"[:300], **step.done()}
            result = step.done(ok=True, bytes=len(data))
            del seq
            try:  # and can it read what it wrote?
                onnx.SequenceProto.FromString(data)
                result["parse_back"] = "ok"
            except Exception as exc:
                result["parse_back"] = f"{type(exc).__name__}: {exc}"[:300]
            return result
        import onnxdata

        tensors = [
            onnxdata.TensorProto(dims=[MiB], data_type=onnxdata.TensorProto.UINT8, raw_data=payload)
            for _ in range(count)
        ]
        seq = onnxdata.SequenceProto(elem_type=onnxdata.SequenceProto.TENSOR, tensor_values=tensors)
        # The floor writes the same file with the fewest Python steps: the
        # bytes before each payload made in advance, then write, write.
        start = onnxdata.SequenceProto(elem_type=onnxdata.SequenceProto.TENSOR).encode()
        element = tensors[0].encode()
        assert element.endswith(payload)
        head = b"\x1a" + varint(len(element)) + element[: -len(payload)]
        del element
        step = Step()
        with open(path, "wb") as f:
            if name == "encode_to":
                n = seq.encode_to(f)
            elif name == "writer":
                with onnxdata.SequenceWriter(f, onnxdata.SequenceProto.TENSOR) as w:
                    for t in tensors:
                        w.append(t)
                    n = w._sink.written
            else:
                n = f.write(start)
                write = f.write
                for _ in range(count):
                    n += write(head)
                    n += write(payload)
        return step.done(bytes=n)
    raise SystemExit(f"unknown child {name}")


def run_child(name: str, *args: Any, timeout: float = 900) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.bigdata", "--child", name, *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"exit status {proc.returncode}: {' | '.join(tail)}"[:400]}
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


# -- the four cases -------------------------------------------------------------------------


def case_raw16(quick: bool) -> dict[str, Any]:
    import numpy as np
    import onnx
    import onnx.numpy_helper

    import onnxdata
    from onnxdata import numpy_helper

    arr = np.random.default_rng(1).random((1024, 4096), dtype=np.float32)
    data = onnx.numpy_helper.from_array(arr).SerializeToString()
    assert len(data) > 16 * MiB

    def ours() -> Any:
        return numpy_helper.to_array(onnxdata.TensorProto.decode(data, copy=False))

    def ours_copy() -> Any:
        return numpy_helper.to_array(onnxdata.TensorProto.decode(data))

    def oracle() -> Any:
        return onnx.numpy_helper.to_array(onnx.TensorProto.FromString(data))

    assert np.array_equal(ours(), oracle()) and np.array_equal(ours_copy(), oracle())
    t_ours, t_copy, t_oracle = best_times([ours, ours_copy, oracle], 3 if quick else 7)
    return {
        "bytes": len(data),
        "onnxdata_copy_false": t_ours,
        "onnxdata_copy_true": t_copy,
        "oracle": t_oracle,
        "ratio": t_ours / t_oracle,
    }


def case_load4g(folder: Path, size: int) -> dict[str, Any]:
    import numpy as np

    import onnxdata

    path = folder / "tensor.pb"
    payload_path = folder / "payload.bin"
    out: dict[str, Any] = {"payload_bytes": size}
    try:
        # 4 GiB of float32: a 64 MiB random block, repeated (the content does not
        # matter to reading speed), written as the payload of one tensor.
        block = np.random.default_rng(2).random(16 * MiB, dtype=np.float32).tobytes()
        with open(payload_path, "wb") as f:
            for _ in range(size // len(block)):
                f.write(block)
        import mmap

        with open(payload_path, "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        t = onnxdata.TensorProto(
            dims=[size // 4], data_type=onnxdata.TensorProto.FLOAT, name="weights"
        )
        t.raw_data = memoryview(mm)  # type: ignore[assignment]
        t0 = time.perf_counter()
        with open(path, "wb") as f:
            written = t.encode_to(f)
        out["encode_to_seconds"] = time.perf_counter() - t0
        out["file_bytes"] = written
        del t
        mm.close()
        payload_path.unlink()
        header = os.path.getsize(path) - size
        out["load_detect"] = run_child("load", path, "detect")
        out["load_typed"] = run_child("load", path, "typed")
        out["fromfile"] = run_child("fromfile", path, header)
        out["oracle"] = run_child("oracle_load", path)
    finally:
        path.unlink(missing_ok=True)
        payload_path.unlink(missing_ok=True)
    return out


def case_iter(folder: Path, count: int) -> dict[str, Any]:
    path = folder / "seq.pb"
    out: dict[str, Any] = {"elements": count}
    try:
        out["write"] = run_child("write_seq", path, count)
        out["iter"] = run_child("iter", path, "plain")
        out["iter_to_array"] = run_child("iter", path, "to_array")
        out["decode_whole"] = run_child("decode_seq", path)
        out["oracle"] = run_child("oracle_seq", path)
    finally:
        path.unlink(missing_ok=True)
    return out


def case_encode(folder: Path, count: int) -> dict[str, Any]:
    path = folder / "big_seq.pb"
    out: dict[str, Any] = {"tensors": count, "payload_bytes": count * MiB}
    names = ("file_write", "encode_to", "writer")
    try:
        # To a file: alternated, best of three, each after os.sync() so that it
        # starts with no dirty pages of the one before; the page cache still
        # makes these noisy.  To /dev/null: the encoder's own cost, no disk.
        for target, rounds, key in ((path, 3, ""), (Path(os.devnull), 3, "null_")):
            for _ in range(rounds):
                for name in names:
                    if target == path:
                        os.sync()
                    result = run_child(name, target, count)
                    if target == path:
                        path.unlink(missing_ok=True)
                    best = out.get(key + name)
                    if best is None or result.get("seconds", 1e9) < best.get("seconds", 1e9):
                        out[key + name] = result
        out["oracle"] = run_child("oracle_serialize", path, count)
    finally:
        path.unlink(missing_ok=True)
    return out


# -- report ---------------------------------------------------------------------------------------


def _mb(n: float | None) -> str:
    return "—" if n is None else f"{n / MiB:,.0f} MiB"


def _s(t: float | None) -> str:
    if t is None:
        return "—"
    return f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"


def report(results: dict[str, Any], meta: dict[str, Any]) -> str:
    lines = [
        "# Big data benchmarks",
        "",
        f"Generated by `python -m benchmarks.bigdata{meta['args']}` on {meta['date']} "
        f"({meta['seconds']:.0f} s). Do not edit by hand: re-run the script. The API is in "
        "[bigdata.md](bigdata.md).",
        "",
        f"Machine: {meta['machine']}; load average at the start {meta['load']}. Shared and "
        "noisy: read ratios rather than absolute times. Files were just written, so the page "
        "cache is warm. Peak RSS is the child process's `VmHWM`, reset just before the step; "
        "*extra* is that peak minus the resident set at the start of the step.",
        "",
    ]
    r = results.get("raw16MB")
    if r:
        ok = "✅" if r["ratio"] <= 0.05 else "❌"
        lines += [
            "## decode(copy=False) + to_array, 16 MiB raw_data tensor",
            "",
            "| | best time (`timeit`) |",
            "| --- | --- |",
            "| onnxdata `decode(copy=False)` + `numpy_helper.to_array` | "
            f"{_s(r['onnxdata_copy_false'])} |",
            f"| onnxdata `decode()` (copy) + `to_array` | {_s(r['onnxdata_copy_true'])} |",
            f"| oracle `FromString` + `onnx.numpy_helper.to_array` | {_s(r['oracle'])} |",
            "",
            f"Ratio onnxdata (copy=False) ÷ oracle: **{r['ratio']:.4f}x** (target ≤ 0.05x) {ok}. "
            "The result is a read-only `numpy.frombuffer` view of the input bytes: no copy at all.",
            "",
        ]
    r = results.get("load4G")
    if r:
        size = r["payload_bytes"]
        ld, lt, ff, orc = r["load_detect"], r["load_typed"], r["fromfile"], r["oracle"]
        lines += [
            f"## load of a {size / GiB:.0f} GiB single-tensor file",
            "",
            f"A FLOAT tensor of {size / GiB:.0f} GiB of `raw_data` ({r['file_bytes']:,} bytes), "
            f"written by `encode_to` in {r['encode_to_seconds']:.1f} s.",
            "",
            "| step | time | peak RSS | extra |",
            "| --- | --- | --- | --- |",
        ]
        for label, d in (
            ("`onnxdata.load(path, mmap=True)` (type detected, zero-copy)", ld.get("load")),
            ("`onnxdata.load(path, TensorProto, mmap=True)`", lt.get("load")),
            ("then `to_array(t).sum()`: every value read once", lt.get("read_all")),
            ("`numpy.fromfile(path, offset=header)`: the floor", ff.get("fromfile")),
            ("then `.sum()`", ff.get("sum")),
        ):
            if d:
                rss, extra = _mb(d["peak_rss"]), _mb(d["peak_extra"])
                lines.append(f"| {label} | {_s(d['seconds'])} | {rss} | {extra} |")
        if "error" in orc:
            lines += ["", f"The oracle's child failed: `{orc['error']}`"]
        else:
            read, parse = orc["read"], orc["parse"]
            lines.append(
                f"| oracle: `f.read()` | {_s(read['seconds'])} | {_mb(read['peak_rss'])} "
                f"| {_mb(read['peak_extra'])} |"
            )
            verdict = f"fails after {_s(parse['seconds'])}" if "error" in parse else ""
            lines.append(
                f"| oracle: `onnx.TensorProto.FromString` | {verdict or _s(parse['seconds'])} | "
                f"{_mb(parse['peak_rss'])} | {_mb(parse['peak_extra'])} |"
            )
            if "error" in parse:
                lines += ["", f"The oracle cannot: `{parse['error']}`"]
        lines += [
            "",
            "The mapped pages of a full read count in RSS while they are mapped (they are the "
            "page cache's, shared and reclaimable, and the kernel drops them as it needs); "
            "`fromfile`'s are private copies, and on this VM first-touching fresh memory is "
            "slow (a few hundred MB/s), which is most of its time.",
            "",
        ]
    r = results.get("iter1M")
    if r:
        n = r["elements"]
        it, ita, dw, orc, wr = (
            r["iter"], r["iter_to_array"], r["decode_whole"], r["oracle"], r["write"],
        )  # fmt: skip
        lines += [
            f"## iter_sequence over a {n:,}-element sequence file",
            "",
            f"(3, 4) FLOAT tensors in `raw_data`, {wr.get('bytes', 0) / MiB:,.0f} MiB, written "
            f"by `SequenceWriter` at {n / wr['seconds']:,.0f} elements/s "
            f"(peak RSS {_mb(wr['peak_rss'])}).",
            "",
            "| | time | elements/s | peak RSS | extra |",
            "| --- | --- | --- | --- | --- |",
        ]
        for label, d in (
            ("`for e in iter_sequence(path, mmap=True)`", it),
            ("the same, `to_array(e)` each", ita),
            ("`load(path, SequenceProto, mmap=True)`: all at once (zero-copy)", dw),
            ("oracle: `SequenceProto.FromString(f.read())`, then each element", orc),
        ):
            if "error" in d:
                lines.append(f"| {label} | {d['error']} | | | |")
                continue
            lines.append(
                f"| {label} | {_s(d['seconds'])} | {d['elements'] / d['seconds']:,.0f} | "
                f"{_mb(d['peak_rss'])} | {_mb(d['peak_extra'])} |"
            )
        samples = ", ".join(f"{k // 1000}k: {_mb(v)}" for k, v in it.get("rss_samples", []))
        lines += ["", f"Resident set during `iter_sequence` (elements read: RSS): {samples}.", ""]
    r = results.get("encode3G")
    if r:
        orc = r["oracle"]
        total = r["payload_bytes"]
        lines += [
            f"## encode_to of a {total / GiB:.0f} GiB sequence of tensors",
            "",
            f"A `SequenceProto` of {r['tensors']:,} UINT8 tensors of 1 MiB of `raw_data` each "
            "(one shared 1 MiB buffer, so that the payloads cost no memory), written to a "
            "file (best of three runs each, alternated, `os.sync()` before each: the page "
            "cache makes these noisy, the floor included) and to `/dev/null` (the writers' "
            "own cost).",
            "",
            "| | to a file | throughput | to /dev/null | throughput | peak extra memory |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        sizes = {r[name].get("bytes") for name in ("file_write", "encode_to", "writer")}
        assert len(sizes) == 1, sizes  # the same file, byte count at least
        for label, name in (
            ("the floor: `f.write(head)`, `f.write(payload)` per tensor", "file_write"),
            ("`seq.encode_to(f)`", "encode_to"),
            ("`SequenceWriter(f, TENSOR)`, `append` each", "writer"),
        ):
            d, z = r[name], r["null_" + name]
            if "error" in d or "error" in z:
                lines.append(f"| {label} | {d.get('error') or z.get('error')} | | | | |")
                continue
            lines.append(
                f"| {label} | {_s(d['seconds'])} | {d['bytes'] / d['seconds'] / GiB:.2f} GiB/s | "
                f"{_s(z['seconds'])} | {z['bytes'] / z['seconds'] / GiB:.1f} GiB/s | "
                f"{_mb(max(d['peak_extra'], z['peak_extra']))} |"
            )
        if "error" in orc:
            lines += ["", f"The oracle's `SerializeToString` of the same message: `{orc['error']}`"]
        else:
            lines += [
                "",
                f"The oracle's `SerializeToString` of the same message (built in memory, "
                f"{_mb(orc['rss_before'])} resident): {_s(orc['seconds'])}, "
                f"{_mb(orc['peak_extra'])} extra at its peak, {orc['bytes']:,} bytes; "
                f"`FromString` of those bytes: `{orc.get('parse_back')}`.",
            ]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--quick", action="store_true", help="smaller files")
    p.add_argument("--only", help="comma-separated: raw16MB,load4G,iter1M,encode3G")
    p.add_argument("--dir", help="where the big files go (default: the temp dir)")
    p.add_argument("--output", default=str(ROOT / "docs" / "bigdata-benchmarks.md"))
    p.add_argument("--json", help="also dump the raw results here")
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1:])))
        return 0
    only = set(args.only.split(",")) if args.only else {"raw16MB", "load4G", "iter1M", "encode3G"}
    sizes = {
        "load": (1 if args.quick else 4) * GiB,
        "iter": 100_000 if args.quick else 1_000_000,
        "encode": 1024 if args.quick else 3072,
    }
    folder = Path(tempfile.mkdtemp(prefix="onnxdata-bigdata-", dir=args.dir))
    free = shutil.disk_usage(folder).free
    need = 2 * sizes["load"] + GiB if "load4G" in only else 4 * GiB
    if free < need:
        print(f"not enough disk in {folder}: {free / GiB:.1f} GiB free, {need / GiB:.1f} needed")
        return 1
    start = time.perf_counter()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    results: dict[str, Any] = {}
    steps = [
        ("raw16MB", lambda: case_raw16(args.quick)),
        ("load4G", lambda: case_load4g(folder, sizes["load"])),
        ("iter1M", lambda: case_iter(folder, sizes["iter"])),
        ("encode3G", lambda: case_encode(folder, sizes["encode"])),
    ]
    try:
        for name, fn in steps:
            if name not in only:
                continue
            print(f"[{time.perf_counter() - start:6.1f} s] {name}...", flush=True)
            try:
                results[name] = fn()
            except Exception:
                traceback.print_exc()
                return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    meta = {
        "args": "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:])),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": time.perf_counter() - start,
        "machine": "{cpu}, {cores} cores, {python}, {os}".format(**machine()),
        "load": load,
    }
    text = report(results, meta)
    Path(args.output).write_text(text + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
