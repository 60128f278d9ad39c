"""Contracts 1 and 2 on generated inputs.

For every input ``b`` and every message type ``M``: onnxdata raises
``DecodeError`` exactly when the oracle's ``FromString`` raises; otherwise
``M.decode(b).encode()`` equals the oracle's re-serialization byte for byte
and every field value matches.  No other exception ever escapes.

Inputs are the oracle's serializations of generated messages, rewritten on the
wire (see ``message_strategies.mutated_encodings``), then perhaps damaged byte-wise;
and plain random bytes.  Each input is decoded as *every* message type, so
bytes of one type are also fed to the others.
"""

from __future__ import annotations

import time
from typing import Any

import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
import onnxdata._codec.npvarints as npvarints
from tests.support import wirekit as wk
from tests.support.message_strategies import (
    HEAVY,
    decoder_inputs,
    examples,
    messages_of,
    scaled,
)
from tests.support.oracle import (
    ALL_MESSAGE_TYPES,
    ORACLE,
    VARINT_PATHS,
    assert_same,
    check_decode,
    to_oracle,
    varint_path,
)

_ids = {"ids": lambda c: c.__qualname__}


_LIGHT = [c for c in ALL_MESSAGE_TYPES if c not in HEAVY]
_HEAVY = [c for c in ALL_MESSAGE_TYPES if c in HEAVY]


@pytest.mark.parametrize("cls", _LIGHT, **_ids)
@settings(max_examples=examples(0.3))
@given(data=st.data())
def test_rewritten_encodings_match_oracle(cls: type, data: st.DataObject) -> None:
    _rewritten(cls, data)


@pytest.mark.parametrize("cls", _HEAVY, **_ids)
@settings(max_examples=examples(0.8, heavy=True))
@given(data=st.data())
def test_rewritten_model_encodings_match_oracle(cls: type, data: st.DataObject) -> None:
    _rewritten(cls, data)


def _rewritten(cls: type, data: st.DataObject) -> None:
    b = data.draw(decoder_inputs(cls), label="input")
    # and as a few other types: bytes of one type are fed to the others
    others = data.draw(st.lists(st.sampled_from(ALL_MESSAGE_TYPES), max_size=4), label="others")
    with varint_path(data.draw(st.sampled_from(VARINT_PATHS), label="varint path")):
        check_decode(cls, b)
        for other in others:
            if other is not cls:
                check_decode(other, b)


@settings(max_examples=scaled(0.5))
@given(b=st.binary(max_size=80))
def test_random_bytes_match_oracle(b: bytes) -> None:
    for cls in ALL_MESSAGE_TYPES:
        check_decode(cls, b)


_TAG_LIKE = [0x08, 0x0A, 0x10, 0x12, 0x1A, 0x22, 0x3A, 0x42, 0x0B, 0x0C, 0x80, 0xFF, 0x00, 0x01]


@settings(max_examples=scaled(0.5))
@given(b=st.lists(st.sampled_from(_TAG_LIKE), max_size=40).map(bytes))
def test_tag_like_bytes_match_oracle(b: bytes) -> None:
    # Random bytes drawn from tag-ish values reach far more branches than uniform ones.
    for cls in ALL_MESSAGE_TYPES:
        check_decode(cls, b)


@pytest.mark.parametrize("cls", ALL_MESSAGE_TYPES, **_ids)
@settings(max_examples=scaled(0.06))
@given(data=st.data())
def test_every_truncation_and_byte_flip(cls: type, data: st.DataObject) -> None:
    m = data.draw(messages_of(cls, 4, False), label="message")
    full = to_oracle(m).SerializeToString()
    if len(full) > 400:
        full = full[:400]  # a cut valid prefix: still worth every truncation
    mask = data.draw(st.sampled_from([0x01, 0x80, 0xFF, 0x7F, 0x40]), label="xor mask")
    with varint_path(data.draw(st.sampled_from(VARINT_PATHS), label="varint path")):
        _truncations_and_flips(cls, full, mask)


def _truncations_and_flips(cls: type, full: bytes, mask: int) -> None:
    for i in range(len(full)):
        check_decode(cls, full[:i])
        flipped = bytearray(full)
        flipped[i] ^= mask
        check_decode(cls, bytes(flipped))


@pytest.mark.parametrize("cls", ALL_MESSAGE_TYPES, **_ids)
@settings(max_examples=scaled(0.1))
@given(data=st.data())
def test_concatenation_is_merge(cls: type, data: st.DataObject) -> None:
    """Two encodings back to back decode as protobuf's merge of the two messages:
    singular scalars last-wins, singular messages merged, repeated fields joined."""
    a = data.draw(messages_of(cls, 4, False), label="a")
    b = data.draw(messages_of(cls, 4, False), label="b")
    merged = to_oracle(a)
    merged.MergeFrom(to_oracle(b))
    ours = check_decode(cls, a.encode() + b.encode())
    assert ours is not None
    assert_same(ours, merged)


# --------------------------------------------------------------------------
# merging many copies of a singular message is linear


def _time_decode(cls: type, data: bytes) -> tuple[float, Any]:
    """The CPU time of this process that decoding took: unlike the wall clock, it
    does not grow with the load other processes put on a shared machine."""
    start = time.process_time()
    result = cls.decode(data)
    return time.process_time() - start, result


@pytest.mark.parametrize("n", [20_000])
def test_merging_repeated_singular_messages_is_linear(n: int) -> None:
    # n copies of OptionalProto.optional_value { tensor_value { dims: i } }:
    # merged, they are one nested message with n dims.  A decoder that re-merges
    # the accumulated message for each copy takes quadratic time.
    def payload(count: int) -> bytes:
        return b"".join(wk.f_len(7, wk.f_len(3, wk.f_varint(1, i))) for i in range(count))

    small, large = payload(n // 8), payload(n)
    t_small, _ = _time_decode(onnxdata.OptionalProto, small)
    t_large, ours = _time_decode(onnxdata.OptionalProto, large)
    assert list(ours.optional_value.tensor_value.dims) == list(range(n))
    assert ours.encode() == onnx.OptionalProto.FromString(large).SerializeToString()
    # 8x the input; allow a generous 30x (quadratic would be about 64x).
    assert t_large < max(30 * t_small, 0.5), (t_small, t_large)


def test_merging_many_segments_last_wins_linear() -> None:
    n = 50_000

    def payload(count: int) -> bytes:
        segments = (wk.f_varint(1, i) + wk.f_varint(2, i + 1) for i in range(count))
        return b"".join(wk.f_len(3, segment) for segment in segments)

    t_small, _ = _time_decode(onnxdata.TensorProto, payload(n // 8))
    t_large, ours = _time_decode(onnxdata.TensorProto, data := payload(n))
    assert ours.segment == onnxdata.TensorProto.Segment(begin=n - 1, end=n)
    assert ours.encode() == ORACLE[onnxdata.TensorProto].FromString(data).SerializeToString()
    # 8x the input, as above: a generous 30x (quadratic would be about 64x)
    assert t_large < max(30 * t_small, 0.5), (t_small, t_large)


# --------------------------------------------------------------------------
# packed varints: the pure-Python loops and the numpy path agree, errors included


def _packed(number: int, values: list[int], sizes: list[int] | None = None) -> bytes:
    payload = b"".join(
        wk.varint(v, 0 if sizes is None else sizes[i % len(sizes)]) for i, v in enumerate(values)
    )
    return wk.f_len(number, payload)


_BIG_PAYLOADS = {
    "int64 small": _packed(7, list(range(3000))),
    "int64 one-byte values only": _packed(7, [0, 1, 127, 5] * 1000),
    "int32 one-byte values only": _packed(5, [1, 0, 1, 1] * 1000),
    "int64 extremes": _packed(7, [0, -1, 2**63 - 1, -(2**63), 1, 127, 128] * 400),
    "uint64 extremes": _packed(11, [0, 2**64 - 1, 2**63, 2**32, 1] * 500),
    "int32 negative": _packed(5, [-1, -(2**31), 2**31 - 1, 300] * 600),
    "int32 wide values keep 32 bits": _packed(5, [2**40 + 5, 2**63 + 7, 2**33 - 1] * 800),
    "over-long varints": _packed(7, [1, 2, 300] * 900, sizes=[10, 1, 5, 2]),
    "10th byte high bits": _packed(7, [(1 << 64) * 3 + 5] * 700, sizes=[10]),
    "dims packed": _packed(1, [2**62, 5, -7] * 900),
    "map keys packed": _packed(3, [-(2**63), 9] * 1200),
    "sparse dims packed": _packed(3, [1, 2**50] * 1200),
    "more than one numpy slice": _packed(7, [300, -1, 5] * 25_000),
    "truncated last varint": _packed(7, list(range(1000, 4000)))[:-1],
    "11-byte varint inside": wk.f_len(7, b"\x01" * 3000 + b"\x80" * 10 + b"\x00" + b"\x02" * 100),
    "payload ends inside a varint": wk.f_len(7, b"\x01" * 3000 + b"\x80\x80"),
    "11-byte varint, then the payload ends inside a varint": wk.f_len(
        7, b"\x01" * 3000 + b"\x80" * 10 + b"\x00" + b"\x02" * 100 + b"\x80"
    ),
    "one long run of continuation bytes": wk.f_len(5, b"\xff" * 4000),
    # numpy decodes a window of the payload at a time, in 4-byte lanes where
    # no varint is longer than 4 bytes, else in 8-byte lanes
    "a whole window without a last byte": wk.f_len(
        7, b"\x01" * 3000 + b"\x80" * npvarints.WINDOW + b"\x00" + b"\x02" * 100
    ),
    "4-byte lanes, then 8-byte lanes": _packed(
        7, [5, 300, 2**28 - 1] * 30_000 + [2**28, -1, 2**56 - 1, 2**56, 2**63] * 9000
    ),
    "int32 from 4-byte lanes": _packed(5, [300, 2**27, 1] * 2000),
    "uint64 from 4-byte lanes": _packed(11, [2**20, 1] * 2000),
    "over-long 4-byte varints": _packed(7, [1, 2**14] * 2000, sizes=[4, 3, 1]),
    "over-long 9-byte varints": _packed(7, [1, 2**14] * 2000, sizes=[9, 10, 2]),
}


@pytest.mark.parametrize("name", list(_BIG_PAYLOADS))
def test_packed_varints_python_and_numpy_paths_agree(name: str) -> None:
    data = _BIG_PAYLOADS[name]
    cls = {
        "map keys packed": onnxdata.MapProto,
        "sparse dims packed": onnxdata.SparseTensorProto,
    }.get(name, onnxdata.TensorProto)
    outcomes = []
    for path in ("python", "numpy", "default", "loop"):
        with varint_path(path):
            ours = check_decode(cls, data)
            if ours is None:
                with pytest.raises(onnxdata.DecodeError) as info:
                    cls.decode(data)
                outcomes.append(("error", info.value.offset, info.value.path))
            else:
                # the decoded arrays re-encode identically on every path
                outcomes.append(("ok", ours.encode()))
    assert outcomes[0] == outcomes[1] == outcomes[2] == outcomes[3]


@pytest.mark.parametrize("window", [11, 17, 1000])
@pytest.mark.parametrize("name", [
    "int64 extremes", "uint64 extremes", "int32 negative", "over-long varints",
    "10th byte high bits", "truncated last varint", "11-byte varint inside",
    "11-byte varint, then the payload ends inside a varint", "a whole window without a last byte",
    "one long run of continuation bytes", "4-byte lanes, then 8-byte lanes",
    "over-long 9-byte varints",
])  # fmt: skip
def test_packed_varints_numpy_windows(name: str, window: int, monkeypatch: Any) -> None:
    """Small windows: many window ends, inside every kind of varint."""
    data = _BIG_PAYLOADS[name]
    if name == "4-byte lanes, then 8-byte lanes":
        data = _packed(7, [5, 300, 2**28 - 1] * 200 + [2**28, -1, 2**56 - 1, 2**56, 2**63] * 100)
    outcomes = []
    for path in ("python", "numpy"):
        with varint_path(path):
            monkeypatch.setattr(npvarints, "WINDOW", window)
            try:
                outcomes.append(("ok", onnxdata.TensorProto.decode(data).encode()))
            except onnxdata.DecodeError as exc:
                outcomes.append(("error", exc.offset, exc.path, str(exc)))
    assert outcomes[0] == outcomes[1]


def test_packed_varints_numpy_error_leaves_the_array_as_it_was() -> None:
    from array import array

    import numpy as np

    good = b"".join(wk.varint(v) for v in [300, -1, 7] * 30_000)  # several windows
    out = array("q", [5, 6])
    assert not npvarints.decode(np, good + b"\x80" * 10 + b"\x01", out)  # the loop says why
    assert out == array("q", [5, 6])
    assert npvarints.decode(np, good, out)
    assert out == array("q", [5, 6] + [300, -1, 7] * 30_000)
    # The error, from the one loop, names the offset in the input.
    data = wk.f_len(7, good + b"\x80" * 10 + b"\x01")
    with varint_path("numpy"), pytest.raises(onnxdata.DecodeError, match="is longer than 10"):
        onnxdata.TensorProto.decode(data)


@pytest.mark.parametrize("code, values", [
    ("q", [0, -1, 2**63 - 1, -(2**63)] * 300),
    ("Q", [0, 2**64 - 1, 2**63] * 300),
    ("i", [0, -1, 2**31 - 1, -(2**31)] * 300),
])  # fmt: skip
def test_packed_varint_encoding_python_and_numpy_paths_agree(code: str, values: list[int]) -> None:
    from array import array

    field = {"q": "int64_data", "Q": "uint64_data", "i": "int32_data"}[code]
    if code == "i" and array("i").itemsize != 4:
        code = "l"
    outputs = []
    for path in ("python", "numpy", "loop"):
        with varint_path(path):
            m = onnxdata.TensorProto(**{field: array(code, values)})
            outputs.append(m.encode())
    assert outputs[0] == outputs[1] == outputs[2] == to_oracle(m).SerializeToString()
