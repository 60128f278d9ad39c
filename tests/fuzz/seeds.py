"""Seed inputs for the fuzz targets and the CI differential run.

    python -m tests.fuzz.seeds OUT_DIR [--max-size N]

writes ``OUT_DIR/<type>/`` (one file per seed, named by content hash) for the
seven message types, and ``OUT_DIR/wire.dict``, a libFuzzer dictionary of
tags, over-long varints and group markers.  Nothing binary is committed: the
seeds are rebuilt from two sources every time.

* **The onnx wheel's backend test data** (``onnx/backend/test/data/**/*.pb``):
  each file is typed by the model next to it, as onnx's backend runner reads
  it (``input_N.pb`` holds a value of ``graph.input[N]``).  Files above
  ``--max-size`` bytes are left out (the fuzzer is given a ``-max_len`` of
  that size anyway).  ``Segment`` and ``StringStringEntryProto`` have no
  files; they get the hand-made cases and the sub-messages found in tensors.
* **Hand-made cases** built here with :mod:`wirekit` from the oracle's
  descriptors: every field alone with edge values (minimal and over-long
  varints, packed, unpacked, empty), a message with every field, unknown
  fields of each wire type and nested groups, duplicated singular messages,
  nesting at exactly the limit and one past it, and a few malformed inputs
  (truncations, forged lengths, bad wire types).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import struct
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

import onnxdata
from tests.fuzz import differential
from tests.support import wirekit as wk
from tests.support.oracle import ORACLE, corpus_files
from tests.support.paths import FUZZ

HERE = FUZZ

_T = FieldDescriptor


def backend_files() -> list[tuple[type, Path]]:
    """(message class, path) for every ``.pb`` of the onnx wheel's backend test data."""
    return corpus_files()


# --------------------------------------------------------------------------
# hand-made cases

_VARINTS = [0, 1, 127, 128, 300, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1]


def _scalar_payloads(fd: Any) -> list[bytes]:
    """Element encodings (no tag) of field ``fd`` for a packed or unpacked field."""
    if fd.type == _T.TYPE_FLOAT:
        return [struct.pack("<f", x) for x in (0.0, -0.0, 1.5, float("inf"))] + [
            struct.pack("<I", 0x7F800001)
        ]
    if fd.type == _T.TYPE_DOUBLE:
        return [struct.pack("<d", x) for x in (0.0, -0.0, 2.5, float("nan"))] + [
            struct.pack("<Q", 0x7FF0000000000001)
        ]
    return [wk.varint(v) for v in _VARINTS] + [wk.varint(1, 10), wk.varint(5, 3)]


def field_cases(desc: Any, depth: int = 0) -> list[bytes]:
    """Single valid fields of message ``desc``, each in several encodings."""
    out: list[bytes] = []
    for fd in desc.fields:
        n = fd.number
        if fd.type == _T.TYPE_MESSAGE:
            out.append(wk.f_len(n, b""))
            if depth < 2:
                full = full_message(fd.message_type, depth + 1)
                out.append(wk.f_len(n, full))
                out.append(wk.f_len(n, full) + wk.f_len(n, full))  # repeated / merged
        elif fd.type in (_T.TYPE_STRING, _T.TYPE_BYTES):
            for payload in (b"", b"abc", "é日".encode(), b"\xff\xfe", bytes(range(20))):
                out.append(wk.f_len(n, payload))
            out.append(wk.tag(n, wk.LEN) + wk.varint(3, 5) + b"xyz")  # 5-byte length
        else:
            elems = _scalar_payloads(fd)
            wt = wk.element_wire_type(fd)
            if fd.is_repeated:
                out.append(wk.f_len(n, b"".join(elems)))  # packed
                out.append(wk.f_len(n, b""))  # empty packed
                out.append(b"".join(wk.tag(n, wt) + e for e in elems))  # unpacked
                out.append(wk.tag(n, wt) + elems[1] + wk.f_len(n, elems[2]))  # mixed
            else:
                for e in elems:
                    out.append(wk.tag(n, wt) + e)
                out.append(wk.tag(n, wt, 5) + elems[1])  # 5-byte tag
    return out


def full_message(desc: Any, depth: int = 0) -> bytes:
    """One valid message of ``desc`` with every field set, in field-number order."""
    parts = []
    for fd in sorted(desc.fields, key=lambda f: f.number):
        n = fd.number
        if fd.type == _T.TYPE_MESSAGE:
            parts.append(
                wk.f_len(n, full_message(fd.message_type, depth + 1) if depth < 2 else b"")
            )
        elif fd.type in (_T.TYPE_STRING, _T.TYPE_BYTES):
            parts.append(wk.f_len(n, b"ab"))
        elif fd.type == _T.TYPE_ENUM:
            parts.append(wk.f_varint(n, 1))
        else:
            elems = _scalar_payloads(fd)[:3]
            if fd.is_repeated and fd.name not in ("dims", "keys"):  # written packed
                parts.append(wk.f_len(n, b"".join(elems)))
            else:
                parts.append(b"".join(wk.tag(n, wk.element_wire_type(fd)) + e for e in elems[:2]))
    return b"".join(parts)


def unknown_cases() -> list[bytes]:
    """Fields no message here knows (number 19999 and 2**29-1), of every wire type."""
    big = 2**29 - 1
    return [
        wk.f_varint(19999, 2**64 - 1),
        wk.tag(19999, wk.VARINT) + wk.varint(7, 10),
        wk.tag(19999, wk.I64) + bytes(8),
        wk.tag(19999, wk.I32) + b"\x01\x02\x03\x04",
        wk.f_len(19999, b"payload"),
        wk.f_group(19999),
        wk.f_group(19999, wk.f_varint(1, 1) + wk.f_group(2, wk.f_len(3, b"x")) + wk.f_varint(0, 0)),
        wk.tag(big, wk.VARINT) + b"\x00",
        wk.f_group(big, wk.tag(0, wk.LEN) + b"\x00"),
    ]


def nesting(cls: type, levels: int) -> bytes | None:
    """``cls`` with ``levels`` nested sub-messages (100 is the limit), or None."""
    field = {
        onnxdata.SequenceProto: 5,
        onnxdata.OptionalProto: 7,
    }.get(cls)
    if field is None:
        return None
    return wk.nest(field, b"", levels)


def malformed(valid: bytes) -> list[bytes]:
    out = [
        b"\x80",  # truncated tag
        b"\x08",  # tag with no value
        b"\x08\x80",  # truncated varint
        b"\x08" + b"\xff" * 10 + b"\x01",  # 11-byte varint
        b"\x0a\x05ab",  # length past the end
        b"\x0a" + wk.varint(2**62),  # a length claiming 2**62 bytes
        b"\x0e\x00",  # wire type 6
        b"\x0f\x00",  # wire type 7
        b"\x00\x00",  # field 0
        b"\x0c",  # end-group with no group
        b"\x0b\x14",  # end-group of another field
        b"\x0b",  # group not closed
        b"\xff\xff\xff\xff\x1f",  # tag > 32 bits
        b"\x80\x80\x80\x80\x80\x00",  # 6-byte tag
    ]
    if valid:
        out += [valid[: len(valid) // 2], valid[:-1], valid + b"\x80"]
    return out


def hand_made(cls: type) -> list[bytes]:
    desc = ORACLE[cls].DESCRIPTOR
    full = full_message(desc)
    cases = [b"", full, full + full, *field_cases(desc), *malformed(full)]
    cases += [u + full for u in unknown_cases()] + [full + u for u in unknown_cases()]
    for levels in (99, 100, 101):
        deep = nesting(cls, levels)
        if deep is not None:
            cases.append(deep)
    if cls is onnxdata.SequenceProto:
        # Every kind of sub-message field at level 100 and 101 (each has its own depth check).
        for number, leaf in ((3, wk.f_len(3, b"")), (3, wk.f_len(13, b"")), (4, wk.f_len(2, b"")),
                             (6, wk.f_len(5, b"")), (7, wk.f_len(3, b""))):  # fmt: skip
            for levels in (98, 99):
                cases.append(wk.nest(5, wk.f_len(number, leaf), levels))
    cases += [wk.groups(100), wk.groups(101)]
    return cases + fast_path_cases(cls)


# --------------------------------------------------------------------------
# cases for the decoder's fast paths (runs read in one go, templates, lanes)


def _tensor(dims: list[int], data_type: int | None, raw: bytes | None, extra: bytes = b"") -> bytes:
    """A TensorProto as encoders write it: dims, data_type, raw_data, then ``extra``."""
    out = b"".join(wk.f_varint(1, d) for d in dims)
    if data_type is not None:
        out += wk.f_varint(2, data_type)
    if raw is not None:
        out += wk.f_len(9, raw)
    return out + extra


def tensor_runs() -> list[bytes]:
    """SequenceProto.tensor_values runs (field 3): tensors sharing a head (dims,
    data_type, raw_data length) and near misses, which must not take the template."""
    t = [_tensor([2, 2], 1, bytes([i]) * 16) for i in range(4)]
    same_len_other_dims = _tensor([4, 1], 1, bytes(16))
    other_type = _tensor([2, 2], 6, bytes(16))
    longer = _tensor([2, 2], 1, bytes(17))
    shorter = _tensor([2, 2], 1, bytes(15))
    overlong_dim = wk.tag(1, wk.VARINT) + wk.varint(2, 2) + _tensor([2], 1, bytes(16))
    named = _tensor([2, 2], 1, bytes(16), wk.f_len(8, b"n"))
    reordered = wk.f_len(9, bytes(16)) + wk.f_varint(1, 2) + wk.f_varint(1, 2) + wk.f_varint(2, 1)
    twice_raw = _tensor([2, 2], 1, bytes(4)) + wk.f_len(9, bytes(8))
    big = [_tensor([300, 1], 1, bytes([i]) * 3) for i in range(3)]
    scalar = [_tensor([], 7, bytes([i]) * 8) for i in range(3)]
    empty_raw = [_tensor([0], 1, b"") for _ in range(3)]
    negative_dim = [_tensor([-1, 2], 1, bytes(8)) for _ in range(3)]
    negative_type = [_tensor([2], -1, bytes(8)) for _ in range(3)]
    no_type = [_tensor([2], None, bytes(8)) for _ in range(3)]
    no_raw = [_tensor([2], 1, None, wk.f_len(4, bytes(8))) for _ in range(3)]
    misses = [_tensor([1], 1, bytes(4), wk.f_varint(1, 1)) for _ in range(5)]  # no template
    runs = [
        t,
        t[:2],
        [t[0], same_len_other_dims, t[1], other_type, longer, t[2], shorter, t[3]],
        [overlong_dim, t[0], t[1]],
        [t[0], overlong_dim, named, reordered, twice_raw, t[1]],
        big,
        scalar,
        empty_raw,
        negative_dim,
        negative_type,
        no_type,
        no_raw,
        misses + t,
        misses[:3] + t,
        [b"", *t],
        [t[0], b"", t[1]],
    ]
    out = [b"".join(wk.f_len(3, x) for x in run) for run in runs]
    # Two runs split by another field (each run has its own template), and the
    # elem_type before them.
    out.append(wk.f_varint(2, 1) + out[0] + wk.f_len(1, b"s") + out[1])
    # Cut: the last tensor runs past the end, or its head is cut.
    out += [out[0][:-1], out[0][: len(out[0]) - 17], out[0] + b"\x1a", out[0] + b"\x1a\x17"]
    # A repeat whose length matches but whose head is one byte off.
    off = bytearray(wk.f_len(3, t[1]))
    off[3] ^= 1
    out.append(wk.f_len(3, t[0]) + bytes(off) + wk.f_len(3, t[2]))
    # A long run (numpy-sized sequence of raw tensors).
    out.append(b"".join(wk.f_len(3, _tensor([3], 1, bytes([i]) * 12)) for i in range(40)))
    return out


_KEYS = [1, 2, 300, -1, -(2**63), 2**63 - 1, 0, 127, 128, -2, 2**32, -(2**31)]


def key_runs() -> list[bytes]:
    """MapProto.keys written unpacked (tag 0x18), in runs: minimal varints, 10-byte
    negatives, over-long ones, bits past the 64th, and bad varints in a run."""
    key = functools.partial(wk.tag(3, wk.VARINT).__add__)
    ten_high = b"\xff" * 9 + b"\x7f"  # bits past the 64th, dropped by upb
    ten_one = b"\x80" * 9 + b"\x01"  # 2**63
    runs = [
        b"".join(key(wk.varint(k)) for k in _KEYS),
        b"".join(key(wk.varint(k)) for k in _KEYS[:3]),
        b"".join(key(wk.varint(k)) for k in (-1, -1, -1, -1, -1, -1, -1, -1, -2)),
        b"".join(key(wk.varint(k, 10)) for k in (5, 0, 1, 300)),
        key(ten_high) + key(ten_one) + key(wk.varint(-3)) + key(b"\x01"),
        b"".join(key(wk.varint(k)) for k in range(40)),
        b"".join(key(wk.varint(-k - 1)) for k in range(60)),  # 660 bytes: numpy-sized
        b"".join(key(wk.varint(k * 1000003)) for k in range(90)),
    ]
    out = list(runs)
    out.append(wk.f_varint(2, 7) + runs[0] + wk.f_len(3, b"\x01\x02") + runs[1])  # run, packed, run
    out.append(runs[0] + wk.f_len(4, b"k") + runs[4])  # run, string_keys, run
    out.append(runs[1] + wk.tag(3, wk.VARINT, 2) + b"\x05" + runs[1])  # over-long tag inside
    out.append(runs[0] + key(b"\xff" * 10 + b"\x01") + runs[1])  # 11-byte varint in a run
    out.append(runs[0] + key(b"\xff" * 10 + b"\x01"))
    out.append(runs[0] + key(b"\x80"))  # last key cut
    out.append(runs[0] + key(b""))  # tag with no value
    out.append(runs[0] + b"\x19" + bytes(8))  # keys as fixed64: unknown
    out.append(key(b"\x80\x80") + runs[1])  # a bad first key
    long_ = runs[6]
    out.append(long_[:-1])  # cut inside the last 10-byte key
    out.append(long_[:300] + key(b"\xff" * 10 + b"\x01") + long_[300:])
    return out


def string_runs() -> list[bytes]:
    """TensorProto.string_data (tag 0x32) entries in runs."""
    s = functools.partial(wk.f_len, 6)
    run = s(b"a") + s(b"") + s(b"bc") + s(bytes(range(10)))
    out = [
        run,
        s(b"x") * 20,
        s(b"") * 8,
        run + s(b"y" * 200) + run,  # a 2-byte length inside a run
        s(b"a") + wk.tag(6, wk.LEN) + wk.varint(2, 5) + b"zz" + s(b"b"),  # over-long length
        wk.f_varint(2, 8) + run + wk.f_varint(1, 4) + run,  # a run, another field, a run
        run + b"\x32",  # a tag with no length
        run + b"\x32\x05ab",  # the last entry cut
        run + b"\x32\x80",  # the last length cut
        run + b"\x32\x7f" + b"q" * 10,
        s(b"a") + b"\x33\x00",  # string_data's number, wire type 3 (a group)
    ]
    return out


def packed_ints() -> list[bytes]:
    """Packed int32/int64/uint64 payloads sized for the block paths (lanes: 32 bytes
    and 8 values; numpy: 512), with bad varints at the start, middle and end."""
    vals = [wk.varint(v) for v in (_KEYS * 3)]
    good = b"".join(vals)
    high = b"\xff" * 9 + b"\x7f"
    eleven = b"\xff" * 10 + b"\x01"
    long_ = b"".join(wk.varint(-k - 1) for k in range(60))
    payloads = [
        good,
        good + high + good,
        b"\x01" * 40,
        b"\x01" * 40 + b"\x80\x01",
        wk.varint(2**31) * 8 + wk.varint(2**32 - 1) * 8,
        long_,
        long_ + good,
        good + eleven + good,
        good + b"\x80",
        long_ + b"\x80",
        long_[:300] + eleven + long_[300:],
        eleven + good,
    ]
    out = []
    for number in (5, 7, 11, 1):  # int32_data, int64_data, uint64_data, dims
        out += [wk.f_len(number, p) for p in payloads]
    return out


def fast_path_cases(cls: type) -> list[bytes]:
    """Inputs of ``cls`` that reach the fast paths: see the functions above."""
    tensors = [*string_runs(), *packed_ints()]
    sequences = tensor_runs()
    maps = key_runs()
    if cls is onnxdata.TensorProto:
        return tensors
    if cls is onnxdata.SequenceProto:
        # String runs in a tensor that ends before the sequence does (a cut entry
        # must not read past the tensor).
        strings = [wk.f_len(3, t) + wk.f_varint(2, 1) for t in string_runs()]
        return sequences + [wk.f_len(6, m) for m in maps[:4]] + strings
    if cls is onnxdata.MapProto:
        return maps + [wk.f_len(5, q) for q in sequences[:6]]
    if cls is onnxdata.OptionalProto:
        return [wk.f_len(5, q) for q in sequences] + [wk.f_len(6, m) for m in maps]
    if cls is onnxdata.SparseTensorProto:
        return [wk.f_len(1, t) for t in tensors[:11]] + [
            wk.f_len(2, wk.f_len(7, p)) for p in (b"\x01" * 40, b"\x7f" * 600)
        ]
    return []


def seeds(cls: type, max_size: int = 4096) -> list[bytes]:
    """Every seed for ``cls``: backend files of that type, then the hand-made cases."""
    found = [p.read_bytes() for c, p in backend_files() if c is cls]
    if cls in (onnxdata.TensorProto.Segment, onnxdata.StringStringEntryProto):
        # Sub-message payloads found in the tensors' test data.
        number = 3 if cls is onnxdata.TensorProto.Segment else 13
        for c, p in backend_files():
            if c is onnxdata.TensorProto:
                for f in wk.parse_fields(p.read_bytes()):
                    if f.number == number and f.wire_type == wk.LEN:
                        found.append(f.value)
    out = [b for b in found if len(b) <= max_size] + hand_made(cls)
    return list(dict.fromkeys(b for b in out if len(b) <= max_size))


def dictionary() -> list[bytes]:
    """Tokens for libFuzzer's ``-dict``: every field's tag in each wire type, and more."""
    tokens: set[bytes] = set()
    for cls in ORACLE.values():
        for fd in cls.DESCRIPTOR.fields:
            for wt in range(6):
                tokens.add(wk.tag(fd.number, wt))
    tokens.update(
        [
            b"\x80\x80\x80\x80\x00",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
            b"\xff\xff\xff\xff\x0f",
            b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00",
            wk.tag(19999, wk.SGROUP),
            wk.tag(19999, wk.EGROUP),
            wk.tag(2**29 - 1, wk.LEN),
            struct.pack("<I", 0x7F800001),
        ]
    )
    return sorted(tokens)


def _dict_line(token: bytes) -> str:
    return '"' + "".join(f"\\x{b:02x}" for b in token) + '"'


def write(out: Path, max_size: int) -> dict[str, int]:
    counts = {}
    for short, cls in differential.SHORT.items():
        d = out / short
        d.mkdir(parents=True, exist_ok=True)
        items = seeds(cls, max_size)
        for data in items:
            (d / hashlib.sha1(data).hexdigest()).write_bytes(data)
        counts[short] = len(items)
    (out / "wire.dict").write_text("".join(_dict_line(t) + "\n" for t in dictionary()))
    return counts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--max-size", type=int, default=4096)
    args = p.parse_args()
    for short, n in write(args.out, args.max_size).items():
        print(f"{short}: {n} seeds")


if __name__ == "__main__":
    main()
