"""Shared helpers of the tests that need numpy (test_numpy_*.py, views, streaming, files).

* :func:`assert_same_value` compares what a ``to_*`` function returns on both
  sides: arrays by dtype, shape and bytes (so NaN payloads and ``-0.0``
  count), object arrays element by element with their Python types, lists,
  dicts (keys, their order and types) and ``None``.
* :func:`build_tensor` draws a TensorProto of any of the 28 data types with
  its values in ``raw_data`` or in the data type's typed field, including the
  bit patterns onnx reads from ``int32_data`` (float16/bfloat16/float8/bool,
  packed 4- and 2-bit pairs, 6-bit codes).
* :func:`oracle_and_ours` gives the same bytes to both decoders.
* :func:`sample_tensor`, :func:`raw_tensor` and :func:`every_view` serve the
  tests of views, streaming and files (test_decode_views.py and others).
"""

from __future__ import annotations

import contextlib
import math
import operator
import os
import sys
from array import array
from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import onnxdata
from tests.support.message_strategies import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from tests.support.oracle import ORACLE

# data_type -> bits of the packed types
PACKED_BITS = {21: 4, 22: 4, 23: 4, 25: 2, 26: 2, 27: 6, 28: 6}
# data_type -> (raw item size, typed field) for the whole-byte types
WHOLE = {
    1: (4, "float_data"),
    2: (1, "int32_data"),
    3: (1, "int32_data"),
    4: (2, "int32_data"),
    5: (2, "int32_data"),
    6: (4, "int32_data"),
    7: (8, "int64_data"),
    9: (1, "int32_data"),
    10: (2, "int32_data"),
    11: (8, "double_data"),
    12: (4, "uint64_data"),
    13: (8, "uint64_data"),
    14: (8, "float_data"),
    15: (16, "double_data"),
    16: (2, "int32_data"),
    17: (1, "int32_data"),
    18: (1, "int32_data"),
    19: (1, "int32_data"),
    20: (1, "int32_data"),
    24: (1, "int32_data"),
}
ALL_TYPES = list(range(1, 29))


def oracle_and_ours(message: Any) -> tuple[Any, Any]:
    """The oracle's and onnxdata's decoding of ``message``'s encoding."""
    data = message.encode()
    cls = type(message)
    return ORACLE[cls].FromString(data), cls.decode(data)


def assert_same_value(ours: Any, theirs: Any, path: str = "value") -> None:
    """``ours`` (onnxdata.numpy_helper) equals ``theirs`` (onnx.numpy_helper) exactly."""
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{path}: {type(ours)} is not an ndarray"
        assert ours.dtype == theirs.dtype, f"{path}: dtype {ours.dtype} != {theirs.dtype}"
        assert ours.shape == theirs.shape, f"{path}: shape {ours.shape} != {theirs.shape}"
        if theirs.dtype == object:
            mine, other = ours.ravel().tolist(), theirs.ravel().tolist()
            assert mine == other, f"{path}: {mine!r} != {other!r}"
            assert [type(x) for x in mine] == [type(x) for x in other], f"{path}: element types"
        else:
            assert ours.tobytes() == theirs.tobytes(), f"{path}: bytes differ"
    elif isinstance(theirs, list):
        assert isinstance(ours, list), f"{path}: {type(ours)} is not a list"
        assert len(ours) == len(theirs), f"{path}: {len(ours)} != {len(theirs)} elements"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same_value(a, b, f"{path}[{i}]")
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict), f"{path}: {type(ours)} is not a dict"
        assert list(ours) == list(theirs), f"{path}: keys {list(ours)} != {list(theirs)}"
        assert [type(k) for k in ours] == [type(k) for k in theirs], f"{path}: key types"
        for key in theirs:
            assert_same_value(ours[key], theirs[key], f"{path}[{key!r}]")
    else:
        assert theirs is None, f"{path}: unexpected {type(theirs)}"
        assert ours is None, f"{path}: {ours!r} is not None"


def assert_same_array(ours: Any, theirs: Any) -> None:
    """:func:`assert_same_value` plus the same writeability (views are read-only)."""
    assert_same_value(ours, theirs)
    assert ours.flags.writeable == theirs.flags.writeable, "writeable flag differs"


@contextlib.contextmanager
def chdir(path: Any) -> Iterator[None]:
    """``contextlib.chdir`` (Python 3.11+), for 3.10 too."""
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def packed_size(count: int, bits: int) -> int:
    return -(-count * bits // 8)


def raw_size(data_type: int, count: int) -> int:
    if data_type in PACKED_BITS:
        return packed_size(count, PACKED_BITS[data_type])
    return count * WHOLE[data_type][0]


def typed_field(data_type: int) -> str:
    if data_type == 8:
        return "string_data"
    if data_type in PACKED_BITS:
        return "int32_data"
    return WHOLE[data_type][1]


shapes = st.one_of(
    st.just(()),
    st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple),
    st.lists(st.integers(1, 40), min_size=1, max_size=1).map(tuple),
)

texts_no_trailing_nul = st.text(max_size=6).filter(lambda s: not s.endswith("\x00"))


def _int32_values(draw: Any, data_type: int, count: int) -> list[int]:
    """Values for int32_data: mostly the canonical range, sometimes any int32."""
    wide = st.integers(INT32_MIN, INT32_MAX)
    if data_type == 6:
        canonical = wide
    elif data_type in (27, 28):
        canonical = st.integers(0, 63)  # anything else is refused (tested elsewhere)
        wide = canonical
    elif data_type == 9:
        canonical = st.integers(0, 1)
    elif data_type in (4, 5, 10, 16):
        canonical = st.integers(0, 0xFFFF) if data_type != 5 else st.integers(-(2**15), 2**15 - 1)
    elif data_type == 3:
        canonical = st.integers(-128, 127)
    else:
        canonical = st.integers(0, 255)
    return draw(
        st.lists(st.one_of(canonical, canonical, canonical, wide), min_size=count, max_size=count)
    )


@st.composite
def build_tensor(draw: Any, data_type: int | None = None, storage: str | None = None) -> Any:
    """An onnxdata TensorProto of ``data_type`` with a valid storage of its values."""
    if data_type is None:
        data_type = draw(st.sampled_from(ALL_TYPES))
    shape = draw(shapes)
    count = math.prod(shape)
    tensor = onnxdata.TensorProto(dims=list(shape), data_type=data_type)
    if draw(st.booleans()):
        tensor.name = draw(st.text(max_size=4))
    if storage is None:
        storage = "typed" if data_type == 8 else draw(st.sampled_from(["raw", "typed"]))
    if storage == "raw":
        size = raw_size(data_type, count)
        tensor.raw_data = draw(st.binary(min_size=size, max_size=size))
        return tensor
    field = typed_field(data_type)
    if field == "string_data":
        items = draw(st.lists(texts_no_trailing_nul, min_size=count, max_size=count))
        tensor.string_data = [s.encode("utf-8", "surrogatepass") for s in items]
        if any(_not_utf8(s) for s in tensor.string_data):
            tensor.string_data = [s.encode("utf-8", "replace") for s in items]
    elif field in ("float_data", "double_data"):
        per = 2 if data_type in (14, 15) else 1
        code, width = ("f", 4) if field == "float_data" else ("d", 8)
        raw = draw(st.binary(min_size=count * per * width, max_size=count * per * width))
        values = array(code)
        values.frombytes(raw)
        setattr(tensor, field, values)
    elif field == "int64_data":
        tensor.int64_data = draw(
            st.lists(st.integers(INT64_MIN, INT64_MAX), min_size=count, max_size=count)
        )
    elif field == "uint64_data":
        narrow = st.integers(0, 2**32 - 1) if data_type == 12 else st.integers(0, 2**64 - 1)
        tensor.uint64_data = draw(
            st.lists(
                st.one_of(narrow, narrow, st.integers(0, 2**64 - 1)), min_size=count, max_size=count
            )
        )
    else:
        bits = PACKED_BITS.get(data_type)
        n = packed_size(count, bits) if bits in (4, 2) else count
        tensor.int32_data = _int32_values(draw, data_type, n)
    return tensor


def _not_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


NUMPY_DTYPES: list[np.dtype[Any]] = [
    np.dtype(t)
    for t in (
        np.float32, np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64, np.bool_,
        np.float16, np.float64, np.uint32, np.uint64, np.complex64, np.complex128,
        np.intc, np.uintc, np.longlong, np.ulonglong,
        ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz,
        ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz, ml_dtypes.uint4, ml_dtypes.int4,
        ml_dtypes.float4_e2m1fn, ml_dtypes.float8_e8m0fnu, ml_dtypes.uint2, ml_dtypes.int2,
        ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn,
    )
]  # fmt: skip


@st.composite
def arrays(draw: Any, dtypes: list[np.dtype[Any]] = NUMPY_DTYPES) -> np.ndarray:
    """Arrays of any supported dtype and bit pattern, in C, Fortran or strided layout."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes)
    count = math.prod(shape)
    raw = draw(st.binary(min_size=count * dtype.itemsize, max_size=count * dtype.itemsize))
    a = np.frombuffer(raw, dtype=dtype).reshape(shape)
    if dtype == np.bool_:
        a = (a.view(np.uint8) & 1).view(np.bool_)
    layout = draw(st.sampled_from(["C", "F", "strided", "reversed"]))
    if layout == "F":
        a = np.asfortranarray(a)
    elif layout == "strided" and a.ndim:
        a = np.repeat(a, 2, axis=0)[::2]
    elif layout == "reversed" and a.ndim:
        a = a[::-1]
    return a


# --------------------------------------------------------------------------
# samples of the big-data tests (views, streaming, files)

LITTLE = sys.byteorder == "little"
SNAN32 = b"\x01\x00\x80\x7f"  # a signalling NaN: a float round trip would quiet it


def sample_tensor() -> onnxdata.TensorProto:
    """A tensor with every bulk field set: raw, strings, floats (a signalling NaN), ints."""
    return onnxdata.TensorProto(
        dims=[2, 2],
        data_type=onnxdata.TensorProto.FLOAT,
        name="t",
        raw_data=np.arange(4, dtype=np.float32).tobytes(),
        string_data=[b"ab", b"", b"\xff\x00"],
        float_data=array("f", SNAN32 + np.float32(1.5).tobytes()),
        double_data=array("d", [2.5, -0.0]),
        int64_data=array("q", [1, -1]),
    )


def raw_tensor() -> onnxdata.TensorProto:
    """A 2x2 float tensor in ``raw_data``."""
    return onnxdata.numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(2, 2))


def every_view(m: Any) -> list[tuple[str, memoryview]]:
    """(path, view) for every memoryview held anywhere in ``m``."""
    found = []
    # The slots, not the properties: an unset sub-message reads as a new empty
    # stand-in, and walking those would never end (optional_value).
    for f in m._SPEC.fields:
        name, value = f.name, getattr(m, f.slot)
        if isinstance(value, memoryview):
            found.append((name, value))
        elif isinstance(value, onnxdata.Message):
            found += [(f"{name}.{p}", v) for p, v in every_view(value)]
        elif type(value) is list:
            for i, item in enumerate(value):
                if isinstance(item, memoryview):
                    found.append((f"{name}[{i}]", item))
                elif isinstance(item, onnxdata.Message):
                    found += [(f"{name}[{i}].{p}", v) for p, v in every_view(item)]
    return found


def numpy_bool_is_an_index() -> bool:
    """Whether numpy's bool has an ``__index__`` (numpy before 2.3): protobuf then
    takes it for an integer, where onnxdata refuses it on every numpy."""
    try:
        operator.index(np.bool_(True))
    except TypeError:
        return False
    return True
