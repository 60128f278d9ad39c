"""Bounded cost on hostile input: time and memory of onnxdata's decoder, with figures.

    python -m benchmarks.robustness             # everything, a few minutes
    python -m benchmarks.robustness --quick     # sizes up to 250k, about a minute
    python -m benchmarks.robustness --only forged growth amplification

Three parts; benchmarks, not tests: nothing here
fails a build, it prints tables (Markdown) for ``docs/robustness.md``.

* ``forged``: inputs whose length prefixes lie.  A length claiming 2**62 bytes,
  2**35 bytes, 2**31 bytes, and a packed field claiming more bytes (hence more
  elements) than remain, each behind 1 MiB of real data or nested in
  sub-messages.  Rejected at once: the time and the tracemalloc peak are
  printed, and must not grow with the claim.
* ``growth``: workloads built from N repeats of one small unit, for N =
  125k, 250k, 500k, 1M: the same singular message field repeated (merged each
  time), with and without an unknown field inside; unknown fields; empty nested
  messages (SequenceProto.tensor_values, sequence_values, map_values);
  TensorProto.external_data entries; unpacked dims; string_data; K copies of a
  chain nested exactly 100 deep.  Time is the best of ``--repeat`` runs without
  tracemalloc; memory is the tracemalloc peak of a separate run.  Each doubling
  prints the ratio of time and of peak memory to the previous size (linear = 2;
  the table marks a ratio above 2.5).
* ``amplification``: for the inputs that turn few bytes into the most objects,
  at 1M units: Python objects per input byte (distinct objects reachable from
  the decoded message), tracemalloc bytes per input byte, and the RSS growth per
  input byte of a fresh subprocess decoding it with onnxdata and with the oracle
  (``onnx.<Message>.FromString``: protobuf's upb, its arena counted by RSS).

Runs on one core; numbers vary with the machine's load: compare ratios, not
absolute times.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import onnxdata
from benchmarks.common import ROOT, best_time, f_len, tag, varint
from onnxdata import (
    DecodeError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from onnxdata._core.schema import all_slots, spec_of

UNKNOWN = tag(19999, 0) + b"\x00"  # a 4-byte unknown field


def chain(levels: int) -> bytes:
    """SequenceProto nested ``levels`` deep through sequence_values."""
    data = b""
    for _ in range(levels):
        data = f_len(5, data)
    return data


# --------------------------------------------------------------------------
# measuring


def peak_memory(fn: Callable[[], Any]) -> tuple[int, int]:
    """(tracemalloc peak, memory still held by the result) in bytes, for one call."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak - base, current - base


# Workloads decoded with copy=False (views on the input instead of copies).
VIEWS = {"empty strings, copy=False"}


def decoder(name: str, cls: type) -> Callable[[bytes], Any]:
    if name in VIEWS:
        return lambda data: cls.decode(data, copy=False)
    return cls.decode  # type: ignore[no-any-return]


def decode_or_error(cls: type, data: bytes) -> Any:
    try:
        return cls.decode(data)
    except DecodeError as err:
        return err


# --------------------------------------------------------------------------
# part 1: forged lengths

MIB = 1 << 20


def forged_cases() -> list[tuple[str, type, bytes]]:
    body = f_len(9, bytes(MIB))  # 1 MiB of real raw_data first
    packed_claim = tag(7, 2) + varint(2**34) + bytes(16)  # int64_data: 16 bytes for 2**34
    deep_claim = b"\x4a" + varint(2**62)
    for _ in range(50):
        deep_claim = f_len(5, deep_claim)  # inside 50 levels of sequence_values
    return [
        ("raw_data length 2**62 (9-byte varint)", TensorProto, body + b"\x4a" + varint(2**62)),
        ("raw_data length 2**35 (6-byte varint)", TensorProto, body + b"\x4a" + varint(2**35)),
        (
            "raw_data length 2**32-1 (5-byte varint)",
            TensorProto,
            body + b"\x4a" + varint(2**32 - 1),
        ),
        ("raw_data length 2**31", TensorProto, body + b"\x4a" + varint(2**31)),
        ("string_data length 2**62", TensorProto, body + b"\x32" + varint(2**62)),
        ("packed int64_data: 2**34 bytes claimed, 16 left", TensorProto, body + packed_claim),
        (
            "packed float_data: 2**33 bytes claimed",
            TensorProto,
            body + b"\x22" + varint(2**33) + bytes(8),
        ),
        (
            "packed double_data: length 2**31-1",
            TensorProto,
            body + b"\x52" + varint(2**31 - 1) + bytes(8),
        ),
        (
            "packed dims: 2**31 bytes claimed",
            TensorProto,
            body + b"\x0a" + varint(2**31) + bytes(4),
        ),
        ("unknown field: length 2**62", TensorProto, body + tag(19999, 2) + varint(2**62)),
        ("tensor_values[1] length 2**62", SequenceProto, f_len(3, body) + b"\x1a" + varint(2**62)),
        ("length 2**62 under 50 nested sequences", SequenceProto, f_len(3, body) + deep_claim),
        ("map keys packed: 2**40 bytes claimed", MapProto, b"\x1a" + varint(2**40) + bytes(MIB)),
        ("unknown group never closed, 1 MiB", TensorProto, tag(19999, 3) + bytes(MIB)),
    ]


def run_forged(repeat: int) -> list[dict[str, Any]]:
    rows = []
    print("\n### Forged lengths: rejected at once, no large allocation\n")
    print("| input | size | error | time | tracemalloc peak |")
    print("| --- | ---: | --- | ---: | ---: |")
    for label, cls, data in forged_cases():
        t = best_time(lambda cls=cls, data=data: decode_or_error(cls, data), repeat)
        peak, _ = peak_memory(lambda cls=cls, data=data: decode_or_error(cls, data))
        result = decode_or_error(cls, data)
        verdict = f"`{result}`" if isinstance(result, DecodeError) else "ACCEPTED"
        if len(verdict) > 110:
            verdict = verdict[:60] + "…" + verdict[-48:]
        rows.append({"input": label, "bytes": len(data), "time_s": t, "peak": peak,
                     "error": str(result)[:300]})  # fmt: skip
        print(
            f"| {label} | {len(data):,} | {verdict} | {t * 1e3:.2f} ms | {peak / 1024:,.0f} KiB |"
        )
    return rows


# --------------------------------------------------------------------------
# part 2: growth when the input doubles

# name -> (message class, unit bytes, prefix, what it is)
WORKLOADS: dict[str, tuple[type, bytes, bytes, str]] = {
    "merge segment": (
        TensorProto, f_len(3, b"\x08\x01\x10\x02"), b"",
        "TensorProto.segment repeated N times (each merged)",
    ),
    "merge segment + unknown": (
        TensorProto, f_len(3, b"\x08\x01" + UNKNOWN), b"",
        "segment repeated N times, an unknown field in each (unknown bytes accumulate)",
    ),
    "merge sparse values": (
        SparseTensorProto, f_len(1, b"\x08\x03"), b"",
        "SparseTensorProto.values repeated N times, one dim each (dims accumulate)",
    ),
    "merge map values": (
        MapProto, f_len(5, b"\x1a\x00"), b"",
        "MapProto.values repeated N times, one empty tensor each (tensors accumulate)",
    ),
    "merge optional 100 deep": (
        OptionalProto, b"", b"",
        "N/100 copies of a 100-deep OptionalProto chain, all merged into one chain",
    ),
    "unknown fields": (
        TensorProto, UNKNOWN, b"", "TensorProto with N unknown varint fields (field 19999)",
    ),
    "unknown groups": (
        TensorProto, tag(19999, 3) + b"\x08\x01" + tag(19999, 4), b"",
        "N unknown groups, each holding one varint",
    ),
    "empty tensors": (
        SequenceProto, b"\x1a\x00", b"", "SequenceProto with N empty tensor_values",
    ),
    "empty sequences": (
        SequenceProto, b"\x2a\x00", b"", "SequenceProto with N empty sequence_values",
    ),
    "empty maps": (SequenceProto, b"\x32\x00", b"", "SequenceProto with N empty map_values"),
    "empty entries": (
        TensorProto, b"\x6a\x00", b"", "TensorProto with N empty external_data entries",
    ),
    "dims unpacked": (TensorProto, b"\x08\x81\x02", b"", "N dims of value 257 (3 bytes each)"),
    "string_data": (TensorProto, b"\x32\x02ab", b"", "N string_data entries of 2 bytes"),
    "empty strings, copy=False": (
        TensorProto, b"\x32\x00", b"",
        "N empty string_data entries, decoded with copy=False (each a memoryview)",
    ),
    "chains at depth 100": (
        SequenceProto, f_len(5, chain(99)), b"",
        "N/100 sequence_values, each a chain 100 deep in all",
    ),
}  # fmt: skip


def workload(name: str, n: int) -> tuple[type, bytes]:
    cls, unit, prefix, _ = WORKLOADS[name]
    if name == "merge optional 100 deep":
        one = b""
        for _ in range(99):
            one = f_len(7, one)
        return cls, f_len(7, one) * max(1, n // 100)
    if name == "chains at depth 100":
        return cls, unit * max(1, n // 100)
    return cls, prefix + unit * n


def run_growth(sizes: list[int], repeat: int) -> list[dict[str, Any]]:
    rows = []
    print("\n### Doubling the input: time and peak memory ratios (linear = 2.0; ! marks > 2.5)\n")
    print("| workload | N | input | time | peak memory | time ratio | memory ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in WORKLOADS:
        prev: tuple[float, int] | None = None
        for n in sizes:
            cls, data = workload(name, n)
            decode = decoder(name, cls)
            decode(data)  # warm up; a DecodeError here is a bug in the workload
            t = best_time(lambda decode=decode, data=data: decode(data), repeat)
            peak, _ = peak_memory(lambda decode=decode, data=data: decode(data))
            tr = mr = ""
            if prev:
                rt, rm = t / prev[0], peak / prev[1]
                tr = f"{rt:.2f}" + (" !" if rt > 2.5 else "")
                mr = f"{rm:.2f}" + (" !" if rm > 2.5 else "")
            prev = (t, peak)
            rows.append({"workload": name, "n": n, "bytes": len(data), "time_s": t, "peak": peak})
            print(f"| {name} | {n:,} | {len(data) / MIB:.1f} MiB | {t:.3f} s | "
                  f"{peak / MIB:.1f} MiB | {tr} | {mr} |", flush=True)  # fmt: skip
    growth_summary(rows, sizes)
    return rows


def growth_summary(rows: list[dict[str, Any]], sizes: list[int]) -> None:
    """Smallest to largest size in one ratio: less noisy than each doubling."""
    k = sizes[-1] // sizes[0]
    print(f"\n### From N = {sizes[0]:,} to N = {sizes[-1]:,} (input x{k}; linear = x{k})\n")
    print("| workload | what it is | input | time | peak memory | time ratio | memory ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name in WORKLOADS:
        mine = [r for r in rows if r["workload"] == name]
        first, last = mine[0], mine[-1]
        rt = last["time_s"] / first["time_s"]
        rm = last["peak"] / max(first["peak"], 1)
        size, t, peak = last["bytes"] / MIB, last["time_s"], last["peak"] / MIB
        print(f"| {name} | {WORKLOADS[name][3]} | {size:.1f} MiB | {t:.2f} s | {peak:.1f} MiB "
              f"| x{rt:.2f} | x{rm:.2f} |")  # fmt: skip


# --------------------------------------------------------------------------
# part 3: amplification


def count_objects(m: Any) -> int:
    """Distinct Python objects reachable from a decoded message (itself included)."""
    seen: set[int] = set()
    stack = [m]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, onnxdata.Message):
            # the slots: reading an unset field by name would make a default or a stand-in
            stack.extend(getattr(x, slot) for slot in all_slots(spec_of(type(x))))
        elif type(x) is list:
            stack.extend(x)
    return len(seen)


_RSS_SCRIPT = r"""
import sys, time
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
which, name, path, views = sys.argv[1:5]
data = open(path, "rb").read()
if which == "oracle":
    import onnx
    decode = getattr(onnx, name).FromString
else:
    import onnxdata
    cls = getattr(onnxdata, name)
    decode = (lambda b: cls.decode(b, copy=False)) if views == "1" else cls.decode
decode(b"")  # import and warm up before measuring
before = rss()
t = time.perf_counter()
m = decode(data)
took = time.perf_counter() - t
print(rss() - before, took)
"""


def rss_growth(which: str, cls: type, data: bytes, tmp: Path, views: bool) -> tuple[int, float]:
    path = tmp / "input.pb"
    path.write_bytes(data)
    out = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, which, cls.__name__, str(path), "1" if views else "0"],
        capture_output=True, text=True, check=True, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    grown, took = out.stdout.split()
    return int(grown), float(took)


AMPLIFIERS = [
    "empty tensors", "empty sequences", "empty maps", "empty entries", "merge map values",
    "dims unpacked", "string_data", "empty strings, copy=False", "unknown fields",
    "chains at depth 100",
]  # fmt: skip


def run_amplification(n: int, tmp: Path) -> list[dict[str, Any]]:
    rows = []
    print(f"\n### Memory amplification at N = {n:,} (per input byte)\n")
    print("| input | bytes | onnxdata objects/byte | onnxdata tracemalloc B/byte | "
          "onnxdata RSS B/byte | oracle (upb) RSS B/byte | onnxdata / oracle |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    tmp.mkdir(parents=True, exist_ok=True)
    for name in AMPLIFIERS:
        cls, data = workload(name, n)
        decode = decoder(name, cls)
        m = decode(data)
        objects = count_objects(m)
        del m
        _, held = peak_memory(lambda decode=decode, data=data: decode(data))
        views = name in VIEWS
        ours, _ = rss_growth("onnxdata", cls, data, tmp, views)
        theirs, _ = rss_growth("oracle", cls, data, tmp, views)
        size = len(data)
        rows.append({"input": name, "bytes": size, "objects": objects, "traced": held,
                     "rss_onnxdata": ours, "rss_oracle": theirs})  # fmt: skip
        print(f"| {WORKLOADS[name][3]} | {size:,} | {objects / size:.2f} | {held / size:.0f} | "
              f"{ours / size:.0f} | {theirs / size:.0f} | {ours / max(theirs, 1):.1f}x |",
              flush=True)  # fmt: skip
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="sizes up to 250k")
    p.add_argument("--repeat", type=int, default=3, help="time: best of this many runs")
    p.add_argument("--only", nargs="*", choices=["forged", "growth", "amplification"])
    p.add_argument("--json", type=Path, help="also write the figures here")
    p.add_argument("--tmp", type=Path, default=Path("/tmp/onnxdata-robustness"))
    args = p.parse_args()
    parts = args.only or ["forged", "growth", "amplification"]
    sizes = [31_250, 62_500, 125_000, 250_000] if args.quick else [125_000, 250_000, 500_000,
                                                                    1_000_000]  # fmt: skip
    import platform

    print(f"Python {platform.python_version()}, onnxdata {onnxdata.__version__}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")  # fmt: skip
    figures: dict[str, Any] = {}
    if "forged" in parts:
        figures["forged"] = run_forged(args.repeat)
    if "growth" in parts:
        figures["growth"] = run_growth(sizes, args.repeat)
    if "amplification" in parts:
        figures["amplification"] = run_amplification(sizes[-1], args.tmp)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
