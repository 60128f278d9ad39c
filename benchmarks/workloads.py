"""The eight workloads of ``run.py``, built deterministically by the oracle.

Every workload's bytes are written by protobuf (upb) through the ``onnx``
classes or ``onnx.numpy_helper``, so they are what users actually meet.  The
values come from a vectorised splitmix64 hash of the element index (and, for
strings and map keys, ``random.Random`` with a fixed seed), never from numpy's
generators, whose streams may change between numpy versions: the same
checkout gives the same bytes everywhere (``Workload.digest`` is printed in the
report so two runs can be compared).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MiB = 1 << 20


@dataclass
class Workload:
    name: str
    what: str
    message: str  # message class name, the same in onnx and onnxdata
    kind: str  # tensor | sequence | map | optional | sparse: which numpy bridge applies
    data: bytes  # the oracle's encoding
    bulk: bool  # peak memory is measured for these
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()[:16]


def _splitmix64(n: int, seed: int) -> np.ndarray:
    """``n`` pseudo-random uint64 values, the same on every machine and numpy version."""
    with np.errstate(over="ignore"):
        z = np.arange(n, dtype=np.uint64) + np.uint64(seed * 0x9E3779B97F4A7C15 % (1 << 64))
        z = z * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _floats32(n: int, seed: int) -> np.ndarray:
    """Float32 values spread over about [-8, 8), a few exact zeros and integers among them."""
    u = (_splitmix64(n, seed) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return ((u - 0.5) * 16.0).astype(np.float32)


def _int64_mix(n: int, seed: int) -> np.ndarray:
    """Small and large magnitudes, negatives: every varint length from 1 to 10 bytes.

    40 % in [0, 128) (1 byte), 20 % below 2**21 (up to 3 bytes), 15 % below
    2**35 (up to 5), 10 % below 2**62 (up to 9), 15 % negative down to -2**40
    (always 10 bytes on the wire).
    """
    z = _splitmix64(n, seed)
    bucket = (z % np.uint64(100)).astype(np.int64)
    mag = (z >> np.uint64(8)).astype(np.int64) & np.int64((1 << 55) - 1)  # 55 random bits
    out = np.empty(n, dtype=np.int64)
    small = bucket < 40
    out[small] = mag[small] & 0x7F
    m = (bucket >= 40) & (bucket < 60)
    out[m] = mag[m] & ((1 << 21) - 1)
    m = (bucket >= 60) & (bucket < 75)
    out[m] = mag[m] & ((1 << 35) - 1)
    m = (bucket >= 75) & (bucket < 85)
    out[m] = (mag[m] << 7) | (mag[m] & 0x7F)  # up to 62 bits
    m = bucket >= 85
    out[m] = -(mag[m] & ((1 << 40) - 1)) - 1
    return out


def _strings(n: int, seed: int) -> list[str]:
    """Short tokens, 1 to 16 characters; one in ten has non-ASCII characters."""
    rng = random.Random(seed)
    ascii_letters = "abcdefghijklmnopqrstuvwxyz0123456789_-"
    wide = "éüßçñøλπжд日本語中文한국😀"
    out = []
    for _ in range(n):
        k = rng.randint(1, 16)
        alphabet = wide if rng.random() < 0.1 else ascii_letters
        out.append("".join(rng.choices(alphabet, k=k)))
    return out


def _nested(levels: int, leaf: np.ndarray) -> Any:
    """``levels - 1`` nested lists around one array: from_optional makes optional->sequence*."""
    value: Any = [leaf]
    for _ in range(levels - 2):
        value = [value]
    return value


def build(which: list[str] | None = None) -> list[Workload]:
    import onnx
    from onnx import helper
    from onnx import numpy_helper as nh

    out: list[Workload] = []

    def want(name: str) -> bool:
        return which is None or name in which

    if want("raw16MB"):
        arr = _floats32(4 * MiB, 1).reshape(1024, 4096)
        t = onnx.TensorProto(
            dims=arr.shape, data_type=onnx.TensorProto.FLOAT, raw_data=arr.tobytes()
        )
        out.append(
            Workload(
                "raw16MB",
                "FLOAT tensor (1024, 4096), 16 MiB of raw_data",
                "TensorProto",
                "tensor",
                t.SerializeToString(),
                True,
            )
        )
    if want("float1M"):
        arr = _floats32(1_000_000, 2)
        t = onnx.TensorProto(dims=[1000, 1000], data_type=onnx.TensorProto.FLOAT)
        t.float_data.extend(arr.tolist())
        out.append(
            Workload(
                "float1M",
                "FLOAT tensor (1000, 1000), 1,000,000 packed float_data",
                "TensorProto",
                "tensor",
                t.SerializeToString(),
                True,
            )
        )
    if want("int64_1M"):
        arr = _int64_mix(1_000_000, 3)
        t = onnx.TensorProto(dims=[1_000_000], data_type=onnx.TensorProto.INT64)
        t.int64_data.extend(arr.tolist())
        data = t.SerializeToString()
        out.append(
            Workload(
                "int64_1M",
                "INT64 tensor, 1,000,000 packed int64_data: 40 % 1-byte, 15 % 10-byte "
                "(negative), the rest 2-9 byte varints",
                "TensorProto",
                "tensor",
                data,
                True,
                notes=f"about {len(data) / 1e6:.2f} varint bytes per value",
            )
        )
    if want("seq10k"):
        base = _floats32(10_000 * 12, 4).reshape(10_000, 3, 4)
        seq = nh.from_list([base[i].copy() for i in range(10_000)])
        out.append(
            Workload(
                "seq10k",
                "SequenceProto of 10,000 (3, 4) FLOAT tensors in raw_data (from_list)",
                "SequenceProto",
                "sequence",
                seq.SerializeToString(),
                False,
            )
        )
    if want("map10k"):
        rng = random.Random(5)
        keys = rng.sample(range(-(1 << 40), 1 << 40), 10_000)
        vals = _floats32(10_000 * 4, 5).reshape(10_000, 4)
        m = nh.from_dict({k: vals[i].copy() for i, k in enumerate(keys)})
        out.append(
            Workload(
                "map10k",
                "MapProto: 10,000 distinct int64 keys (|k| < 2**40, half negative), "
                "values a sequence of (4,) FLOAT tensors (from_dict)",
                "MapProto",
                "map",
                m.SerializeToString(),
                False,
            )
        )
    if want("strings100k"):
        strs = _strings(100_000, 6)
        t = onnx.TensorProto(dims=[100_000], data_type=onnx.TensorProto.STRING)
        t.string_data.extend(s.encode() for s in strs)
        data = t.SerializeToString()
        out.append(
            Workload(
                "strings100k",
                "STRING tensor, 100,000 entries of 1-16 characters (10 % non-ASCII)",
                "TensorProto",
                "tensor",
                data,
                False,
            )
        )
    if want("nested50"):
        leaf = _floats32(12, 7).reshape(3, 4)
        o = nh.from_optional(_nested(50, leaf))
        out.append(
            Workload(
                "nested50",
                "OptionalProto -> 49 nested SequenceProto -> one (3, 4) FLOAT tensor "
                "(from_optional)",
                "OptionalProto",
                "optional",
                o.SerializeToString(),
                False,
            )
        )
    if want("sparse100k"):
        vals = _floats32(100_000, 8)
        z = _splitmix64(1_000_000, 9)
        idx = np.sort(np.argsort(z, kind="stable")[:100_000]).astype(np.int64)
        sp = helper.make_sparse_tensor(
            helper.make_tensor("values", onnx.TensorProto.FLOAT, [100_000], vals.tolist()),
            helper.make_tensor("indices", onnx.TensorProto.INT64, [100_000], idx.tolist()),
            [1000, 1000],
        )
        out.append(
            Workload(
                "sparse100k",
                "SparseTensorProto (1000, 1000): 100,000 packed float_data values, "
                "int64_data linear indices, sorted (make_tensor + make_sparse_tensor)",
                "SparseTensorProto",
                "sparse",
                sp.SerializeToString(),
                False,
            )
        )
    return out


NAMES = [
    "raw16MB",
    "float1M",
    "int64_1M",
    "seq10k",
    "map10k",
    "strings100k",
    "nested50",
    "sparse100k",
]
