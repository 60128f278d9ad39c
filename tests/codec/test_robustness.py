"""Regressions from fuzzing, and the memory bounds of hostile inputs (no timing).

* ``tests/fuzz/regressions.txt`` holds, one per line as ``<type> <hex>``, every
  input the fuzz targets ever reported (none so far: see docs/robustness.md)
  and the coverage-minimised corpus each target grew (``-merge=1``), inputs of
  at most 128 bytes.  Each is replayed through the full differential check.
  Regenerate with ``python -m tests.fuzz.run --export tests/fuzz/regressions.txt``.
* Forged lengths and counts allocate nothing in proportion to what they claim:
  the tracemalloc peak of rejecting them is a few KiB (allocation counts are
  deterministic; times are left to ``benchmarks/robustness.py``).
"""

from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from onnxdata import (
    DecodeError,
    MapProto,
    OptionalProto,
    SequenceProto,
    TensorProto,
)
from tests.fuzz import differential
from tests.support import wirekit as wk
from tests.support.paths import FUZZ

REGRESSIONS = FUZZ / "regressions.txt"

# Findings reported in bugs-core.md and not fixed yet (none now): their tests are strict xfails.
OPEN: set[str] = set()


def _regressions() -> list[Any]:
    if not REGRESSIONS.exists():
        return []
    rows = []
    for line in REGRESSIONS.read_text().splitlines():
        if line and not line.startswith("#"):
            short, hexdata = [*line.split(), ""][:2]
            rows.append((short, bytes.fromhex(hexdata)))
    return rows


def test_regression_file_is_there() -> None:
    assert REGRESSIONS.exists()
    assert len(_regressions()) >= 100


@pytest.mark.parametrize("short", list(differential.SHORT))
def test_fuzz_regressions_replay(short: str) -> None:
    cases = [data for s, data in _regressions() if s == short]
    assert cases, f"no {short} inputs in {REGRESSIONS.name}"
    cls = differential.SHORT[short]
    for data in cases:
        differential.compare(cls, data)
        for kind in differential.BUFFERS:  # and every other buffer type
            differential.compare(cls, data, kind=kind)


# --------------------------------------------------------------------------
# forged lengths: bounded memory


def _peak(fn: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        with contextlib.suppress(DecodeError):
            fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


FORGED = [
    ("raw_data claims 2**62", TensorProto, b"\x4a" + wk.varint(2**62) + bytes(64)),
    ("raw_data claims 2**32-1", TensorProto, b"\x4a" + wk.varint(2**32 - 1) + bytes(64)),
    ("string_data claims 2**35", TensorProto, b"\x32" + wk.varint(2**35) + bytes(64)),
    ("packed int64 claims 2**34 bytes", TensorProto, b"\x3a" + wk.varint(2**34) + bytes(64)),
    ("packed float claims 2**33 bytes", TensorProto, b"\x22" + wk.varint(2**33) + bytes(64)),
    ("packed dims claims 2**31 bytes", TensorProto, b"\x0a" + wk.varint(2**31) + bytes(64)),
    ("map keys claim 2**40 bytes", MapProto, b"\x1a" + wk.varint(2**40) + bytes(64)),
    ("unknown field claims 2**62", TensorProto, wk.tag(19999, 2) + wk.varint(2**62)),
    ("sub-message claims 2**62", SequenceProto, b"\x1a" + wk.varint(2**62)),
    ("2**62 under 99 levels", OptionalProto, wk.nest(7, b"\x1a" + wk.varint(2**62), 99)),
]


@pytest.mark.parametrize("cls, data", [f[1:] for f in FORGED], ids=[f[0] for f in FORGED])
def test_forged_lengths_are_rejected_without_allocating(cls: type, data: bytes) -> None:
    with pytest.raises(DecodeError):
        cls.decode(data)
    cls.decode(b"")  # imports and caches done before measuring
    assert _peak(lambda: cls.decode(data)) < 64 * 1024


def test_a_forged_length_after_real_data_costs_only_the_real_data() -> None:
    real = wk.f_len(9, bytes(1 << 20))
    data = real + b"\x32" + wk.varint(2**62)
    peak = _peak(lambda: TensorProto.decode(data))
    assert peak < (1 << 20) + 64 * 1024  # the 1 MiB raw_data copy, nothing for the claim


def test_merging_a_singular_message_holds_one_message() -> None:
    # Every repeat merges into the same Segment: the result is one small message,
    # and the peak stays small too (no per-repeat garbage kept alive).
    n = 20_000  # memory, not time: tracemalloc makes each allocation slow
    data = wk.f_len(3, b"\x08\x01\x10\x02") * n
    TensorProto.decode(data[:6])
    tracemalloc.start()
    try:
        m = TensorProto.decode(data)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (m.segment.begin, m.segment.end) == (1, 2)
    assert held < 4096 and peak < 64 * 1024


def test_merged_unknown_fields_grow_with_the_input_only() -> None:
    # Each repeat brings a 4-byte unknown field: they accumulate, in one buffer.
    n = 20_000
    unknown = wk.f_varint(19999, 0)
    data = wk.f_len(3, b"\x08\x01" + unknown) * n
    TensorProto.decode(data[:8])
    tracemalloc.start()
    try:
        m = TensorProto.decode(data)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert m.segment.unknown_fields == unknown * n
    assert held < 2 * len(unknown) * n and peak < 4 * len(unknown) * n + 64 * 1024


# --------------------------------------------------------------------------
# findings of the fuzz targets, each as a minimal case (bugs-core.md)


@pytest.mark.xfail("R10" in OPEN, strict=True, reason="bugs-core.md R10")
@pytest.mark.parametrize(
    "cls, data",
    [
        (TensorProto, bytes.fromhex("22040100807f")),  # float_data = [sNaN 0x7f800001]
        (TensorProto, bytes.fromhex("220cffffbf7f0000807f0100807f")),  # three NaN payloads
        (SequenceProto, bytes.fromhex("1a0622040100807f")),
        # the fuzzer's input (fuzz_map, 226k executions in)
        (MapProto, bytes.fromhex(
            "0a0261621000100118001801220261622aa8010a026162100010011a5808000801100010011a00220c00"
            "0000000100807f0000c03f2a0300017f320261623a0300017f420261624a026162521800000000000000"
            "00000000000000008000000000000004405a0300017f620261626a00700182010022080a001200180018"
            "012a120a026162100010011a0022002a0032003a0032120a0261621000100118001801220261622a003a"
            "120a026162100010011a0022002a0032003a000a0261621000100118001801220261622aa8010a026162"
            "100010011a580800082c100010011a00220c00000000000000800000c03f2a0300017f320261623a0300"
            "017f420261624a02616252180000000000000000000000000000008000000000000004405a0300017f62"
            "0261626a00700182010022080a001200180018012a120a026162100010011a0022002a0032003a003212"
            "0a0261621000100118001801220261622a003a120a026162100010011a0022002a0032003a000a026162"
            "1000100118001801220261622aa8010a026162100010011a5808000801100010011a00220c0000000000"
            "0000800000c03f2a0300017f320261623a0300017f420261624a02616252180000000000000000000000"
            "000000008000000000000004405a0300017f620261626a00700182010022083030303030303030303030"
            "303030303030303030303030303030303030303030303030303030303030303030303030303030303030"
            "303030303030303030303030303030303030303030303030303030303030303030303030303030303030"
            "30303030300a001200100010011a0022002a0032003a0032120a0261621000100118001801220261622a"
            "003a120a026162100010011a0022002a0032203a00"
        )),
    ],
    ids=["one sNaN", "NaN payloads", "in a sequence", "fuzz_map input"],
)  # fmt: skip
def test_r10_views_keep_signalling_nans(cls: type, data: bytes) -> None:
    # decode(copy=False) keeps float_data as a view of the input; encoding it must
    # write the same bits, as the copying decode and the oracle do.
    expected = cls.decode(data).encode()
    assert cls.decode(data, copy=False).encode() == expected
    assert cls.decode(memoryview(data), copy=False).encode() == expected
