"""Peak memory of a decode, per input family, against protobuf (upb).

    python -m benchmarks.memory_families            # 10 MiB per family
    python -m benchmarks.memory_families --mib 2    # quicker

Each family is one hostile or extreme shape of input, 10 MiB of it by default.
Every measurement runs in a fresh process: the growth of the process's peak
resident set while one decode runs, divided by the input's size: extra bytes
per input byte.  upb is ``onnx.<Message>.ParseFromString``; onnxdata decodes
from ``bytes`` (``copy=True``) and with ``copy=False``.  The table goes to
stdout; docs/robustness.md quotes it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name -> (message, unit of input repeated, or a (head, size) for one payload)
FAMILIES: dict[str, tuple[str, bytes]] = {
    "2-byte unknown fields": ("TensorProto", b"\x78\x05"),
    "empty tensors in a sequence": ("SequenceProto", b"\x1a\x00"),
    "tiny tensors in a sequence": ("SequenceProto", b"\x1a\x04\x08\x01\x10\x01"),
    "empty sequences in a sequence": ("SequenceProto", b"\x2a\x00"),
    "empty maps in a sequence": ("SequenceProto", b"\x32\x00"),
    "empty metadata_props entries": ("TensorProto", b"\x82\x01\x00"),
    "1-byte string_data entries": ("TensorProto", b"\x32\x01a"),
    "unpacked int64_data": ("TensorProto", b"\x38\x01"),
    "unpacked map keys": ("MapProto", b"\x18\x01"),
    "dims of value 257": ("TensorProto", b"\x08\x81\x02"),
    "raw_data": ("TensorProto", b""),
}

_CHILD = """
import resource, sys
sys.path.insert(0, {root!r})
message, unit, size, impl = {args!r}
if unit:
    data = unit * (size // len(unit))
else:
    n = size - 6
    data = b"\\x4a" + bytes([n & 0x7f | 0x80, n >> 7 & 0x7f | 0x80, n >> 14 & 0x7f | 0x80,
                            n >> 21 & 0x7f | 0x80, n >> 28]) + bytes(n)
if impl == "upb":
    import onnx
    cls = getattr(onnx, message)
    cls().ParseFromString(b"")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    m = cls()
    m.ParseFromString(data)
else:
    import onnxdata
    cls = getattr(onnxdata, message)
    cls.decode(b"")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    m = cls.decode(data, copy=impl == "copy")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024 / len(data))
"""


def measure(message: str, unit: bytes, size: int, impl: str) -> float:
    code = _CHILD.format(root=str(ROOT), args=(message, unit, size, impl))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=10, help="input size per family (MiB)")
    args = parser.parse_args(argv)
    size = args.mib << 20
    print(f"extra peak memory per input byte, {args.mib} MiB per family (fresh process each)\n")
    print("| family | upb | onnxdata | ÷ upb | copy=False | ÷ upb |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    worst = ("", 0.0)
    for name, (message, unit) in FAMILIES.items():
        upb = measure(message, unit, size, "upb")
        ours = measure(message, unit, size, "copy")
        views = measure(message, unit, size, "views")
        base = max(upb, 1.0)  # a family upb holds in place: compare with one copy
        ratio = max(ours, views) / base
        if ratio > worst[1]:
            worst = (name, ratio)
        print(
            f"| {name} | {upb:.1f} | {ours:.1f} | {ours / base:.1f}x | {views:.1f} | "
            f"{views / base:.1f}x |"
        )
    print(f"\nworst: {worst[0]}, {worst[1]:.1f}x upb's peak")
    return 0


if __name__ == "__main__":
    sys.exit(main())
