"""End-to-end numpy timings: onnxdata (+ its bridge) against protobuf + onnx.numpy_helper.

Two directions per workload, both measured in the same run:

* bytes -> arrays: ``decode`` then ``to_array``/``to_list``/``to_dict``
  (oracle: ``FromString`` then ``onnx.numpy_helper``);
* arrays -> bytes: ``from_array``/``from_list``/``from_dict`` then ``encode``
  (oracle: ``onnx.numpy_helper`` then ``SerializeToString``).

The typed-field workloads (float_data, int64_data) start from bytes written
with that field; the reverse direction writes ``raw_data``, as both bridges do.
Each result is checked equal on both sides before timing.  Prints the median
time of each side (garbage collector off while timing, as ``timeit`` does)
and the ratio (onnx / onnxdata: above 1 means onnxdata is faster).

    python benchmarks/bench_numpy.py [--quick] [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper as onh

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import onnxdata
from onnxdata import numpy_helper as nh

Workload = tuple[str, str, Callable[[], Any], Callable[[], Any], Callable[[Any, Any], bool]]


def _same_array(a: Any, b: Any) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == object:
        return bool(a.tolist() == b.tolist())
    return bool(a.tobytes() == b.tobytes())


def _same_list(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(_same_array(x, y) for x, y in zip(a, b, strict=True))


def _same_dict(a: dict[Any, Any], b: dict[Any, Any]) -> bool:
    return list(a) == list(b) and _same_list(list(a.values()), list(b.values()))


def _equal(a: Any, b: Any) -> bool:
    return bool(a == b)


def workloads(quick: bool) -> list[Workload]:
    rng = np.random.default_rng(0)
    out: list[Workload] = []

    def tensor(name: str, a: Any, data: bytes) -> None:
        out.append(
            (
                name,
                "bytes -> array",
                lambda: nh.to_array(onnxdata.TensorProto.decode(data)),
                lambda: onh.to_array(onnx.TensorProto.FromString(data)),
                _same_array,
            )
        )
        out.append((name, "array -> bytes",
                    lambda: nh.from_array(a).encode(),
                    lambda: onh.from_array(a).SerializeToString(), _equal))  # fmt: skip

    big = rng.standard_normal(4 * 1024 * 1024).astype(np.float32)  # 16 MiB
    tensor("raw FLOAT 16 MiB", big, onh.from_array(big).SerializeToString())

    floats = rng.standard_normal(1_000_000).astype(np.float32)
    t = onnxdata.TensorProto(
        dims=[floats.size], data_type=1, float_data=array("f", floats.tobytes())
    )
    tensor("float_data 1M", floats, t.encode())

    ints = rng.integers(-(2**40), 2**40, 1_000_000)
    t = onnxdata.TensorProto(dims=[ints.size], data_type=7, int64_data=ints.tolist())
    tensor("int64_data 1M", ints, t.encode())

    strings = np.array([f"token-{i}-é" for i in range(100_000)], dtype=object)
    tensor("STRING 100k", strings, onh.from_array(strings).SerializeToString())

    seq = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(10_000)]
    seq_bytes = onh.from_list(seq).SerializeToString()
    out.append(
        (
            "seq 10k (3,4) FLOAT",
            "bytes -> list",
            lambda: nh.to_list(onnxdata.SequenceProto.decode(seq_bytes)),
            lambda: onh.to_list(onnx.SequenceProto.FromString(seq_bytes)),
            _same_list,
        )
    )
    out.append(("seq 10k (3,4) FLOAT", "list -> bytes",
                lambda: nh.from_list(seq).encode(),
                lambda: onh.from_list(seq).SerializeToString(), _equal))  # fmt: skip

    mapping = {int(k): np.array([k], dtype=np.int64) for k in rng.permutation(10_000)}
    map_bytes = onh.from_dict(mapping).SerializeToString()
    out.append(
        (
            "map 10k INT64 keys",
            "bytes -> dict",
            lambda: nh.to_dict(onnxdata.MapProto.decode(map_bytes)),
            lambda: onh.to_dict(onnx.MapProto.FromString(map_bytes)),
            _same_dict,
        )
    )
    out.append(("map 10k INT64 keys", "dict -> bytes",
                lambda: nh.from_dict(mapping).encode(),
                lambda: onh.from_dict(mapping).SerializeToString(), _equal))  # fmt: skip
    return out


def median_time(func: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``func``, with the garbage collector off while it runs (as timeit)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            func()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats instead of 9")
    parser.add_argument("--repeat", type=int, default=None, help="timed runs per case")
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 9)
    print(f"onnxdata {onnxdata.__version__} vs onnx {onnx.__version__} "
          f"(protobuf upb), numpy {np.__version__}; median of {repeat}")  # fmt: skip
    header = f"{'workload':<22} {'direction':<15} {'onnxdata':>11} {'onnx':>11} {'onnx/ours':>10}"
    print(header)
    print("-" * len(header))
    for name, direction, ours, theirs, same in workloads(args.quick):
        if not same(ours(), theirs()):
            raise SystemExit(f"{name} {direction}: results differ")
        t_ours = median_time(ours, repeat)
        t_theirs = median_time(theirs, repeat)
        print(f"{name:<22} {direction:<15} {t_ours * 1e3:>8.2f} ms {t_theirs * 1e3:>8.2f} ms "
              f"{t_theirs / t_ours:>9.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
