"""The numpy bridge's fast paths give what its general paths give, errors included.

``tensor_to_array`` reads ``raw_data`` bytes with one ``numpy.ndarray`` call
and leaves everything else (and every error) to ``_general``; ``to_list`` and
``to_optional`` test the other value fields by counting before they call
``_only_field``; STRING tensors decode ``bytes`` elements with
``bytes.decode`` and anything else with ``str(s, "utf-8")``.  Each is compared
here with the general path on the same message: dtype, shape, bytes,
writeability, memory shared with ``raw_data``, or the exception's type and
message.  The comparisons with onnx itself are in test_numpy_helper.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import numpy_helper as nh
from onnxdata._numpy.tensor import _general, tensor_to_array
from tests.support import message_strategies as ms
from tests.support.numpy_support import ALL_TYPES, PACKED_BITS, build_tensor
from tests.support.outcomes import outcome

T = onnxdata.TensorProto
RAW = np.arange(12, dtype=np.float32).tobytes()


def _facts(out: Any) -> Any:
    """An array's facts, comparable with ==: dtype, shape, values and flags."""
    assert isinstance(out, np.ndarray)
    payload = out.tolist() if out.dtype == object else out.tobytes()
    flags = (out.flags.writeable, out.flags.c_contiguous, out.flags.aligned)
    return (out.dtype, out.shape, payload, flags)


def _outcome(f: Any, *args: Any) -> Any:
    """What ``f(*args)`` gives: the array's facts, or the error's class and text."""
    return outcome(lambda: f(*args), value=_facts, error=lambda exc: (type(exc), str(exc)))


def _released() -> memoryview:
    view = memoryview(RAW)
    view.release()
    return view


def _tensor(**changes: Any) -> Any:
    fields: dict[str, Any] = {"dims": [3, 4], "data_type": T.FLOAT, "raw_data": RAW}
    fields.update(changes)
    return T(**fields)


@pytest.mark.parametrize("data_type", [t for t in ALL_TYPES if t != T.STRING])
@settings(max_examples=ms.scaled(0.03))
@given(data=st.data())
def test_raw_fast_path_equals_general_path(data_type: int, data: Any) -> None:
    """Every data type's raw_data (packed types, ml_dtypes), as built and decoded (views too)."""
    tensor = data.draw(build_tensor(data_type, "raw"))
    data = tensor.encode()
    views = (T.decode(data, copy=False), T.decode(bytearray(data), copy=False))  # memoryviews
    for message in (tensor, T.decode(data), *views):
        assert _outcome(tensor_to_array, message) == _outcome(_general, message, "")
        fast = tensor_to_array(message)
        if data_type not in PACKED_BITS:  # packed types are unpacked into a new array
            assert not fast.flags.writeable
            raw = np.frombuffer(message.raw_data, np.uint8)
            aligned = raw.ctypes.data % fast.dtype.alignment == 0
            # A view where the bytes are aligned for the dtype, else an aligned copy.
            assert fast.size == 0 or np.shares_memory(fast, raw) == aligned
            assert fast.flags.aligned


@pytest.mark.parametrize(
    "changes",
    [
        # The fast path's own cases.
        {},
        {"data_location": 0},
        {"data_location": 5},  # not EXTERNAL
        {"data_type": T.DataType.FLOAT},
        {"data_type": np.int64(1)},
        {"dims": [], "raw_data": RAW[:4]},
        {"dims": [0], "raw_data": b""},
        {"dims": [0, 5], "raw_data": b""},
        {"dims": np.array([3, 4])},
        {"raw_data": type("Sub", (bytes,), {})(RAW)},
        {"data_type": T.COMPLEX128, "dims": [3]},
        {"data_type": T.BFLOAT16, "dims": [24]},
        {"data_type": T.FLOAT8E8M0, "dims": [48]},
        # Fall-backs that succeed: raw_data that is not bytes, packed types.
        {"raw_data": bytearray(RAW)},
        {"raw_data": memoryview(RAW)},
        {"raw_data": memoryview(bytearray(RAW))},
        {"raw_data": memoryview(RAW).cast("f")},  # nbytes, not len, is the size
        {"raw_data": memoryview(RAW).cast("B", (6, 8))},
        {"data_type": T.INT4, "dims": [96]},
        {"data_type": True, "dims": [12]},
        # Fall-backs that raise.
        {"float_data": [1.0]},
        {"int32_data": [1]},
        {"string_data": [b"a"]},
        {"int64_data": [1]},
        {"double_data": [1.0]},
        {"uint64_data": [1]},
        {"float_data": None},
        {"float_data": np.float32(0)},
        {"dims": [-3, -4]},  # a positive product
        {"dims": [-1, 12], "name": "x"},
        {"dims": [3, 5]},  # raw_data too short
        {"dims": [3, 3]},  # raw_data too long
        {"dims": []},
        {"dims": [], "raw_data": b""},
        {"dims": [1], "raw_data": b""},
        {"dims": [2**70]},
        {"dims": [2**40] * 3},
        {"dims": [3.0, 4.0]},
        {"dims": [True, 12]},
        {"data_type": 0},
        {"data_type": None},
        {"data_type": 99},
        {"data_type": T.STRING},
        {"data_type": T.INT4, "dims": [24]},
        {"segment": T.Segment()},
        {"raw_data": memoryview(RAW)[::2], "dims": [6]},  # not contiguous
        {"raw_data": memoryview(RAW)[::2], "dims": [3]},
        {"raw_data": memoryview(RAW).cast("f"), "dims": [48]},
        {"raw_data": _released()},
        {"data_location": T.EXTERNAL},
    ],
)
def test_raw_fast_path_cases(changes: dict[str, Any]) -> None:
    tensor = _tensor(**changes)
    assert _outcome(tensor_to_array, tensor) == _outcome(_general, tensor, "")


def test_raw_fast_path_is_a_read_only_view() -> None:
    tensor = T.decode(_tensor().encode())
    out = nh.to_array(tensor)
    assert out.tolist() == np.arange(12, dtype=np.float32).reshape(3, 4).tolist()
    assert not out.flags.writeable and np.shares_memory(
        out, np.frombuffer(tensor.raw_data, np.uint8)
    )
    shared = T.decode(bytearray(_tensor().encode()), copy=False)  # a writeable buffer
    view = nh.to_array(shared)
    assert not view.flags.writeable and np.shares_memory(view, np.asarray(shared.raw_data))


_BYTES = st.lists(st.binary(max_size=6), max_size=8)


def _strings_tensor(values: Any, dims: Any = None) -> Any:
    return T(data_type=T.STRING, dims=[len(values)] if dims is None else dims, string_data=values)


@settings(max_examples=ms.scaled(0.5))
@given(items=_BYTES, data=st.data())
def test_strings_bytes_and_other_buffers_agree(items: list[bytes], data: Any) -> None:
    """bytes.decode (bytes elements) and str(s, "utf-8") (the rest) give the same array or error."""
    kinds = data.draw(
        st.lists(
            st.sampled_from([bytes, bytearray, memoryview]),
            min_size=len(items),
            max_size=len(items),
        )
    )
    mixed = [kind(s) for kind, s in zip(kinds, items, strict=True)]
    got = _outcome(nh.to_array, _strings_tensor(items))
    assert got == _outcome(nh.to_array, _strings_tensor(mixed))
    try:
        expected = [s.decode("utf-8") for s in items]  # trailing NULs kept
    except UnicodeDecodeError as exc:
        assert got == ("raised", (UnicodeDecodeError, str(exc)))
    else:
        assert got[0] == "value" and got[1][2] == expected


@pytest.mark.parametrize(
    ("values", "dims", "error"),
    [
        (["ab"], None, "decoding str is not supported"),
        ([b"\xff", "ab"], None, "can't decode byte 0xff"),
        ([b"a", 5], None, "need a bytes-like object, int found"),
        ([None], None, "need a bytes-like object, NoneType found"),
        ([b"\xed\xa0\x80"], None, "invalid continuation byte"),  # an encoded surrogate
        ([b"a"], [2], "string_data holds 1, dims \\[2\\] need 2"),
    ],
)
def test_strings_errors(values: list[Any], dims: Any, error: str) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        nh.to_array(_strings_tensor(values, dims))


def test_strings_shapes() -> None:
    assert nh.to_array(_strings_tensor([b"z"], [])).tolist() == "z"
    assert nh.to_array(_strings_tensor([], [0, 3])).shape == (0, 3)
    out = nh.to_array(_strings_tensor((b"a", b"b\x00", b"\xc3\xa9", b"d"), [2, 2]))
    assert out.dtype == object and out.tolist() == [["a", "b\x00"], ["é", "d"]]


S, Opt, M = onnxdata.SequenceProto, onnxdata.OptionalProto, onnxdata.MapProto


class _EqualsThree:
    """Equal to 3 (SEQUENCE) without 3's hash."""

    def __eq__(self, other: object) -> bool:
        return other == 3

    def __hash__(self) -> int:
        return 12345


def test_to_list_field_checks() -> None:
    t = _tensor()
    assert len(nh.to_list(S(elem_type=1, tensor_values=[t, t]))) == 2
    assert len(nh.to_list(S(elem_type=np.int64(1), tensor_values=(t,)))) == 1
    # unhashable, or equal to a code under another hash: compared with ==, as before
    assert len(nh.to_list(S(elem_type=np.array(1), tensor_values=[t]))) == 1  # type: ignore[arg-type]
    assert nh.to_list(S(elem_type=_EqualsThree(), sequence_values=[S(elem_type=1)])) == [[]]  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"has elem_type .* but tensor_values is set"):
        nh.to_list(S(elem_type=_EqualsThree(), sequence_values=[S()], tensor_values=[t]))  # type: ignore[arg-type]
    assert len(nh.to_list(S(elem_type=1, tensor_values=[t], map_values=None))) == 1  # None: empty
    with pytest.raises(ValueError, match="SequenceProto '' has elem_type 1 but sequence_values"):
        nh.to_list(S(elem_type=1, tensor_values=[t], sequence_values=[S()]))
    with pytest.raises(ValueError, match="SequenceProto 'n' has elem_type 3 but tensor_values"):
        nh.to_list(S(elem_type=3, name="n", tensor_values=[t]))
    with pytest.raises(ValueError, match="has elem_type 1 but map_values is set"):
        nh.to_list(S(elem_type=1, tensor_values=None, map_values=[M()]))
    # None in a repeated field is empty, as protobuf's constructor reads it
    assert nh.to_list(S(elem_type=1, tensor_values=None)) == []
    with pytest.raises(TypeError, match="has no len"):
        nh.to_list(S(elem_type=1, tensor_values=[t], map_values=0))
    for elem_type in (None, 0, 9, [1]):
        with pytest.raises(TypeError, match="input sequence is not supported"):
            nh.to_list(S(elem_type=elem_type))  # type: ignore[arg-type]


def test_to_optional_field_checks() -> None:
    t = _tensor()
    assert nh.to_optional(Opt(elem_type=1)) is None
    assert nh.to_optional(Opt()) is None and nh.to_optional(Opt(elem_type=0.0)) is None  # type: ignore[arg-type]
    assert nh.to_optional(Opt(elem_type=3, sequence_value=S(elem_type=1), tensor_value=[])) == []  # type: ignore[arg-type]
    nested = Opt(
        elem_type=5,
        optional_value=Opt(elem_type=3, sequence_value=S(elem_type=1, tensor_values=[t])),
    )
    assert nh.to_optional(nested)[0].shape == (3, 4)
    with pytest.raises(ValueError, match="OptionalProto '' has elem_type 0 but tensor_value"):
        nh.to_optional(Opt(tensor_value=t))
    with pytest.raises(ValueError, match="OptionalProto 'q' has elem_type 1 but sequence_value"):
        nh.to_optional(Opt(elem_type=1, name="q", tensor_value=t, sequence_value=S()))
    with pytest.raises(ValueError, match="has elem_type 3 but tensor_value is set"):
        nh.to_optional(Opt(elem_type=3, tensor_value=t))
    with pytest.raises(TypeError, match="has no len"):
        nh.to_optional(Opt(elem_type=1, tensor_value=t, map_value=0))  # type: ignore[arg-type]
    for elem_type in (9, [1]):
        with pytest.raises(TypeError, match="input optional is not supported"):
            nh.to_optional(Opt(elem_type=elem_type))  # type: ignore[arg-type]
