"""The encoder's fast paths give the bytes and the errors of its general paths.

Each fast path (remembered dims, sub-message heads from a table, ...) is fed
the values at its edges; the bytes are compared with the oracle's, and bad
values must fail exactly as they do off the fast path.
"""

from __future__ import annotations

import io
from array import array
from typing import Any

import numpy as np
import onnx
import pytest
from google.protobuf import json_format, text_format
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import MapProto, SequenceProto, TensorProto
from onnxdata._codec import encode as _encode
from tests.support import message_strategies as ms
from tests.support.oracle import to_oracle

DIMS = [
    [3, 4],
    [4, 3],
    [3, 4, 1],
    [0],
    [1],
    [0, 1],
    [127],
    [128],
    [127, 128],
    [255],
    [256],
    [2**63 - 1],
    [-1],
    [-(2**63)],
    [5] * 9,  # longer than what is remembered
    [np.int64(3), 4],
    (3, 4),
    np.array([3, 4]),
]


def _oracle_bytes(m: Any) -> bytes:
    data: bytes = to_oracle(m).SerializeToString()
    return data


@pytest.mark.parametrize("dims", DIMS, ids=repr)
def test_dims_bytes(dims: Any) -> None:
    for _ in range(2):  # the second time from what the first remembered
        t = TensorProto(dims=dims, data_type=1)
        assert t.encode() == _oracle_bytes(TensorProto(dims=list(dims), data_type=1))
        s = onnxdata.SparseTensorProto(dims=dims)
        assert s.encode() == _oracle_bytes(onnxdata.SparseTensorProto(dims=list(dims)))


@pytest.mark.parametrize(
    "dims, error",
    [
        ([True], TypeError),
        ([3, False], TypeError),
        ([1, np.True_], TypeError),
        ([3.0], TypeError),
        ([3, 4.0], TypeError),
        ([2**64], ValueError),
        ([-(2**63) - 1], ValueError),
        (["3"], TypeError),
    ],
    ids=repr,
)
def test_dims_refused(dims: list[Any], error: type[Exception]) -> None:
    for seen in ([1], [3, 0], [1, 1], [3, 3], [3, 4]):  # a remembered shape must still check
        TensorProto(dims=seen).encode()
    with pytest.raises(error) as info:
        TensorProto(dims=dims).encode()
    assert isinstance(info.value, onnxdata.EncodeError)
    assert info.value.path.startswith("TensorProto.dims[")


@pytest.mark.usefixtures("fast_paths")
def test_dims_memory_is_bounded() -> None:
    for i in range(2 * _encode.SEEN_MAX):
        dims = [i % 128, i // 128 + 2]
        assert TensorProto(dims=dims).encode() == _oracle_bytes(TensorProto(dims=dims))
    assert max(_encode.remembered()) == _encode.SEEN_MAX


@pytest.mark.parametrize("raw", [0, 1, 120, 127, 128, 200, 20_000])
def test_sub_message_lengths(raw: int) -> None:
    """Sub-message lengths around the one-byte head table's edge, in every repeated field."""
    t = TensorProto(dims=[2], data_type=2, raw_data=bytes(raw))
    e = onnxdata.StringStringEntryProto(key="k" * raw, value="")
    seq = SequenceProto(elem_type=1, tensor_values=[t, TensorProto(), t])
    nested = SequenceProto(elem_type=3, sequence_values=[seq, SequenceProto(), seq])
    for m in (
        seq,
        nested,
        TensorProto(external_data=[e, e], metadata_props=[e]),
        SequenceProto(sparse_tensor_values=[onnxdata.SparseTensorProto(values=t)] * 2),
        SequenceProto(map_values=[MapProto(keys=[1], values=seq)] * 2),
        SequenceProto(optional_values=[onnxdata.OptionalProto(tensor_value=t)] * 2),
    ):
        assert m.encode() == _oracle_bytes(m)


def test_bad_element_named_by_position() -> None:
    good = TensorProto(dims=[1])
    bad = TensorProto(dims=[1.5])
    m = SequenceProto(tensor_values=[good, good, bad, bad])
    with pytest.raises(TypeError) as info:
        m.encode()
    assert isinstance(info.value, onnxdata.EncodeError)
    assert info.value.path == "SequenceProto.tensor_values[2].dims[0]"


def test_array_dims() -> None:
    t = TensorProto(dims=array("q", [3, 4]))
    assert t.encode() == _oracle_bytes(TensorProto(dims=[3, 4]))


def _edges() -> list[int]:
    """Values at every varint length's edges, both signs, and 0."""
    out = [0, 1, -1, 2**63 - 1, -(2**63)]
    for k in range(1, 10):
        out += [2 ** (7 * k) - 1, 2 ** (7 * k), -(2 ** (7 * k)), -(2 ** (7 * k)) + 1]
    return [x for x in out if -(2**63) <= x < 2**63]


@pytest.mark.parametrize(
    "keys",
    [
        _edges(),
        _edges()[::-1],
        [0] * 20,
        [0, *range(-20, 20), 0],
        list(range(1, 17)),  # all one byte
        [x for x in _edges() if x] * 3,  # no zero: one run of slots
        list(range(-5000, 5000, 3)),  # several blocks of lanes, zero inside one
        [2**40 + i for i in range(1024)],  # exactly a block
        [2**40 + i for i in range(1025)],  # a block and one value
        [-(2**40) - i for i in range(9)],  # part of the smallest block
        [np.int64(300), *range(300, 330)],  # not all int: the per-value loop
    ],
    ids=lambda k: f"{len(k)} keys",
)
def test_many_keys(keys: list[Any]) -> None:
    m = MapProto(key_type=7, keys=keys)
    assert m.encode() == _oracle_bytes(MapProto(key_type=7, keys=[int(k) for k in keys]))
    s = onnxdata.SparseTensorProto(dims=keys)
    assert s.encode() == _oracle_bytes(onnxdata.SparseTensorProto(dims=[int(k) for k in keys]))


@pytest.mark.parametrize(
    "bad, error",
    [(True, TypeError), (2**63, ValueError), (-(2**63) - 1, ValueError), (1.0, TypeError)],
    ids=repr,
)
def test_many_keys_refused(bad: Any, error: type[Exception]) -> None:
    keys = list(range(100, 140))
    keys[33] = bad
    with pytest.raises(error) as info:
        MapProto(keys=keys).encode()
    assert isinstance(info.value, onnxdata.EncodeError)
    assert info.value.path == "MapProto.keys[33]"


class _Sub(bytes):
    """A bytes subclass with a ``__dict__``: its size says more than its length."""


class _SlotSub(bytes):
    __slots__ = ()


STRINGS = [
    [b""],
    [b"", b"", b""],
    [b"x" * 127],
    [b"x" * 128],
    [b"a", b"x" * 127, b"b"],
    [b"a", b"x" * 128, b"b"],
    [b"x" * 222, b"y"],  # sizes past a byte's range
    [b"x" * 300] * 3,
    [b"%c%b%%", b"%", b"%s"],  # the template's own characters in the entries
    [b"x" * 37, b"%" * 37, b"2%%b" * 9 + b"2", b'"%%b', b"", b"%" * 37],  # length 37 is "%"
    [b"x" * 37],
    [b"a"] * 100 + [b"%" * 37] + [b"b"] * 100 + [b"2%%b" * 9 + b"2"] + [b"c"] * 10,  # a few 37s
    [b"x" * 37, *[b"a"] * 100, b"y" * 37],
    [b"x" * 37, *[b"a"] * 200, b"y" * 37],  # few enough 37s to be cut out, first and last
    [*[b"%" * 37, b"a" * 36] * 5, *[b"a"] * 600],  # five 37s among 610: cut out too
    [b"b" * 37, b"%" * 98, b"x" * 50, b"%" * 34, b"x" * 2],  # lengths "%", "b", "2", '"'
    [bytes(range(256))[:100], b"\x00", b"\xff"],
    [b"ab", bytearray(b"cd"), b"ef"],
    [b"ab", memoryview(b"cd"), b"ef"],
    [memoryview(array("i", [1, 2])), b"q"],
    [_Sub(b"ab"), b"cd"],
    [_SlotSub(b"ab"), b"cd"],
    [np.bytes_(b"ab"), b"cd"],
    [f"token-{i}-é".encode() for i in range(1000)],
]


@pytest.mark.parametrize("strings", STRINGS, ids=lambda s: repr(s)[:40])
def test_string_data(strings: list[Any]) -> None:
    plain = [bytes(s) for s in strings]
    t = TensorProto(dims=[len(strings)], data_type=8, string_data=strings)
    assert t.encode() == _oracle_bytes(
        TensorProto(dims=[len(plain)], data_type=8, string_data=plain)
    )
    m = MapProto(key_type=8, string_keys=strings)
    assert m.encode() == _oracle_bytes(MapProto(key_type=8, string_keys=plain))
    file = io.BytesIO()  # encode_to's plan takes another path
    t.encode_to(file)
    assert file.getvalue() == t.encode()


class _OwnBytes(bytes):
    """A bytes subclass whose methods say other things than its bytes."""

    def __bytes__(self) -> bytes:
        return b"not these"

    def __getitem__(self, i: Any) -> Any:
        return b"nor these"

    def __len__(self) -> int:
        return 99


class _OwnText(str):
    """A str subclass whose methods say other things than its characters."""

    __slots__ = ()

    def encode(self, *args: Any, **kwargs: Any) -> bytes:
        return b"not these"

    def __str__(self) -> str:
        return "nor these"


@pytest.mark.parametrize("many", [1, 3, 300])
def test_subclasses_are_written_as_their_own_bytes_and_characters(many: int) -> None:
    # upb writes a bytes or str subclass instance's own bytes and characters
    # whatever its methods say; so must every path here (one entry, a run, a
    # singular field, the streaming plan).
    def fields(text: Any, data: Any) -> dict[str, Any]:
        return {
            "name": text("naïve"),
            "doc_string": text("d" * 200),
            "raw_data": data(b"\x00raw"),
            "string_data": [data(b"%b%s"), b"x", data(b"y" * 130)] * many,
        }

    ours = TensorProto(**fields(_OwnText, _OwnBytes))
    theirs = onnx.TensorProto(**fields(_OwnText, _OwnBytes))
    assert ours.encode() == theirs.SerializeToString()
    for utf8 in (True, False):  # and so do the text and JSON writers
        mine = onnxdata.text_format.MessageToString(ours, as_utf8=utf8)
        assert mine == text_format.MessageToString(theirs, as_utf8=utf8)
    assert onnxdata.json_format.MessageToJson(ours) == json_format.MessageToJson(theirs)
    assert ours.encode() == TensorProto(**fields(str, bytes)).encode()
    file = io.BytesIO()
    ours.encode_to(file)
    assert file.getvalue() == ours.encode()
    keys = [_OwnBytes(b"k%d" % i) for i in range(many)]
    assert MapProto(key_type=8, string_keys=keys).encode() == (
        onnx.MapProto(key_type=8, string_keys=keys).SerializeToString()
    )
    entry = onnxdata.StringStringEntryProto(key=_OwnText("k"), value=_OwnText("v"))
    assert entry.encode() == onnx.StringStringEntryProto(key="k", value="v").SerializeToString()


@settings(max_examples=ms.scaled(0.4))
@given(
    lengths=st.lists(st.integers(0, 60).filter(lambda n: n != 37), min_size=64, max_size=700),
    percents=st.lists(st.tuples(st.integers(0, 700), st.binary(min_size=37, max_size=37))),
)
def test_string_data_with_some_entries_of_length_37(lengths: list[int], percents: Any) -> None:
    """Entries of length 37 (``%``) among many others, few or many: both ways of
    escaping them in the template give protobuf's bytes."""
    strings = [(b"%%2b"[i % 4 :] * n)[:n] for i, n in enumerate(lengths)]
    for at, entry in percents:
        strings.insert(min(at, len(strings)), entry)
    t = TensorProto(string_data=strings)
    assert t.encode() == _oracle_bytes(t)


@pytest.mark.parametrize("bad", ["ab", 3, None, array("b", [1])], ids=repr)
def test_string_data_refused(bad: Any) -> None:
    t = TensorProto(string_data=[b"a", b"b", bad])
    with pytest.raises(TypeError) as info:
        t.encode()
    assert isinstance(info.value, onnxdata.EncodeError)
    assert info.value.path == "TensorProto.string_data[2]"


def test_subclass_elements_written_once() -> None:
    """A subclass of the field's class is accepted, and written once (not twice)."""

    class Tensor(TensorProto):
        __slots__ = ()

    m = SequenceProto(elem_type=1, tensor_values=[Tensor(dims=[1]), TensorProto(dims=[2])])
    plain = SequenceProto(elem_type=1, tensor_values=[TensorProto(dims=[1]), TensorProto(dims=[2])])
    assert m.encode() == plain.encode() == _oracle_bytes(plain)


@pytest.mark.parametrize("name", [None, "", "seq"])
@pytest.mark.parametrize("elem_type", [None, 0, 1, 127, 128, -1, 2**31 - 1, np.int32(3)])
def test_container_heads(name: str | None, elem_type: Any) -> None:
    t = TensorProto(dims=[1])
    plain = None if elem_type is None else int(elem_type)
    for cls, kw in (
        (SequenceProto, {"elem_type": elem_type, "tensor_values": [t]}),
        (onnxdata.OptionalProto, {"elem_type": elem_type, "tensor_value": t}),
        (MapProto, {"key_type": elem_type, "keys": [1], "values": SequenceProto()}),
    ):
        field = "key_type" if cls is MapProto else "elem_type"
        m = cls(name=name, **kw)
        assert m.encode() == _oracle_bytes(cls(name=name, **{**kw, field: plain}))


@pytest.mark.parametrize("bad, error", [(True, TypeError), (1.0, TypeError), (2**31, ValueError)])
def test_container_heads_refused(bad: Any, error: type[Exception]) -> None:
    for m, path in (
        (SequenceProto(elem_type=bad), "SequenceProto.elem_type"),
        (onnxdata.OptionalProto(elem_type=bad), "OptionalProto.elem_type"),
        (MapProto(key_type=bad), "MapProto.key_type"),
    ):
        with pytest.raises(error) as info:
            m.encode()
        assert isinstance(info.value, onnxdata.EncodeError)
        assert info.value.path == path
