"""onnxdata.helper.make_tensor against onnx.helper.make_tensor 1.23.2: the same bytes.

For every data type, from a list of Python values, from an array of the
type's own dtype, from a float64 array, and with ``raw=True`` from bytes and
from an array: ``make_tensor(...).encode()`` equals onnx's
``SerializeToString()``.  The values include NaN, infinities, subnormals,
values beyond the type's range (saturated for FLOAT8*, rounded up for
FLOAT8E8M0) and the limits of the integer types.  Errors: the same class as
onnx's (DataTypeError is both onnx's KeyError and a TypeError).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as onh

import onnxdata
from onnxdata import TensorProto, helper
from onnxdata import numpy_helper as nh
from tests.support import message_strategies as ms
from tests.support.paths import ROOT

ROOT = ROOT
DT = TensorProto.DataType
ALL = [int(t) for t in oh.get_all_tensor_dtypes()]
NOT_STRING = [t for t in ALL if t != DT.STRING]
INT_RANGES = {
    DT.UINT8: (0, 2**8 - 1), DT.INT8: (-(2**7), 2**7 - 1), DT.UINT16: (0, 2**16 - 1),
    DT.INT16: (-(2**15), 2**15 - 1), DT.INT32: (-(2**31), 2**31 - 1),
    DT.INT64: (-(2**63), 2**63 - 1), DT.UINT32: (0, 2**32 - 1), DT.UINT64: (0, 2**64 - 1),
    DT.INT4: (-8, 7), DT.UINT4: (0, 15), DT.INT2: (-2, 1), DT.UINT2: (0, 3),
}  # fmt: skip


def values_of(data_type: int) -> st.SearchStrategy[Any]:
    if data_type in INT_RANGES:
        low, high = INT_RANGES[data_type]
        return st.integers(low, high)
    if data_type == DT.BOOL:
        return st.booleans()
    if data_type in (DT.COMPLEX64, DT.COMPLEX128):
        return st.complex_numbers(allow_nan=True, allow_infinity=True)
    return st.one_of(
        st.floats(),
        st.floats(-1e3, 1e3),
        st.sampled_from([0.0, -0.0, math.nan, -math.inf, math.inf, 5e-324, 1e-40, 1e40]),
    )


@st.composite
def shaped(draw: Any, data_type: int) -> tuple[list[int], list[Any]]:
    dims = draw(st.lists(st.integers(0, 4), max_size=3))
    values = draw(st.lists(values_of(data_type), min_size=math.prod(dims),
                           max_size=math.prod(dims)))  # fmt: skip
    return dims, values


def both(*args: Any, **kwargs: Any) -> tuple[bytes, bytes]:
    """(onnx's bytes, onnxdata's bytes) of make_tensor(*args)."""
    onnx_args = list(args)
    if args[1] == DT.FLOAT8E8M0 and isinstance(args[3], np.ndarray) and args[3].ndim == 0:
        onnx_args[3] = args[3].reshape(1)  # onnx's to_float8e8m0 fails on 0-d arrays
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        theirs = oh.make_tensor(*onnx_args, **kwargs).SerializeToString()
        ours = helper.make_tensor(*args, **kwargs).encode()
    return theirs, ours


@pytest.mark.parametrize("data_type", NOT_STRING, ids=oh.tensor_dtype_to_string)
@settings(max_examples=ms.scaled(0.1))
@given(data=st.data())
def test_from_a_list_the_same_bytes_as_onnx(data_type: int, data: Any) -> None:
    dims, values = data.draw(shaped(data_type))
    theirs, ours = both("t", data_type, dims, values)
    assert ours == theirs
    assert onnxdata.check(TensorProto.decode(ours)) == []  # and a valid tensor


@pytest.mark.parametrize("data_type", NOT_STRING, ids=oh.tensor_dtype_to_string)
@settings(max_examples=ms.scaled(0.1))
@given(data=st.data())
def test_from_an_array_of_its_dtype_the_same_bytes_as_onnx(data_type: int, data: Any) -> None:
    dims, values = data.draw(shaped(data_type))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        array = np.array(values).astype(oh.tensor_dtype_to_np_dtype(data_type)).reshape(dims)
    theirs, ours = both("t", data_type, array.shape, array)
    assert ours == theirs


@pytest.mark.parametrize(
    "data_type", [t for t in NOT_STRING if t not in INT_RANGES and t not in (9, 14, 15)],
    ids=oh.tensor_dtype_to_string,
)  # fmt: skip
@settings(max_examples=ms.scaled(0.1))
@given(data=st.data())
def test_from_a_float64_array_the_same_bytes_as_onnx(data_type: int, data: Any) -> None:
    dims, values = data.draw(shaped(data_type))
    array = np.array(values, dtype=np.float64).reshape(dims)
    theirs, ours = both("t", data_type, dims, array)
    assert ours == theirs


@pytest.mark.parametrize("data_type", [21, 22, 25, 26], ids=oh.tensor_dtype_to_string)
@settings(max_examples=ms.scaled(0.1))
@given(values=st.lists(st.integers(-1000, 1000), min_size=1, max_size=12))
def test_sub_byte_integers_out_of_range_wrap_as_onnx(data_type: int, values: list[int]) -> None:
    theirs, ours = both("t", data_type, [len(values)], np.array(values))
    assert ours == theirs


@pytest.mark.parametrize("data_type", NOT_STRING, ids=oh.tensor_dtype_to_string)
@settings(max_examples=ms.scaled(0.1))
@given(data=st.data(), as_bytes=st.booleans())
def test_raw_the_same_bytes_as_onnx(data_type: int, data: Any, as_bytes: bool) -> None:
    dims, values = data.draw(shaped(data_type))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        array = np.array(values).astype(oh.tensor_dtype_to_np_dtype(data_type)).reshape(dims)
    vals: Any = array
    if as_bytes:
        vals = onh.from_array(array).raw_data  # packed where the type is
    theirs, ours = both("raw", data_type, dims, vals, raw=True)
    assert ours == theirs
    assert onnxdata.check(TensorProto.decode(ours)) == []


def test_raw_big_endian_array_is_written_little_endian_as_onnx() -> None:
    array = np.arange(6, dtype=">i4")
    theirs, ours = both("t", DT.INT32, [6], array, raw=True)
    assert ours == theirs


@settings(max_examples=ms.scaled(0.3))
@given(
    values=st.one_of(
        st.lists(st.text().filter(lambda s: not s.endswith("\x00")), max_size=6),
        st.lists(st.binary().filter(lambda b: not b.endswith(b"\x00")), max_size=6),
    )
)
def test_strings_the_same_bytes_as_onnx(values: list[Any]) -> None:
    theirs, ours = both("s", DT.STRING, [len(values)], values)
    assert ours == theirs


def test_str_and_bytes_mixed_work_where_onnx_decodes_bytes_as_ascii() -> None:
    with pytest.raises(UnicodeDecodeError):
        oh.make_tensor("s", DT.STRING, [2], ["é", b"\x80"])
    assert helper.make_tensor("s", DT.STRING, [2], ["é", b"\x80"]).string_data == [
        "é".encode(),
        b"\x80",
    ]


def test_strings_keep_trailing_nul_bytes_where_onnx_drops_them() -> None:
    tensor = helper.make_tensor("s", DT.STRING, [2], [b"a\x00", "b\x00"])
    assert tensor.string_data == [b"a\x00", b"b\x00"]
    theirs = oh.make_tensor("s", DT.STRING, [2], [b"a\x00", "b\x00"])
    assert list(theirs.string_data) == [b"a", b"b"]


def test_nested_string_lists_are_flattened_as_onnx() -> None:
    values = [["a", "b"], ["c", "d"]]
    theirs, ours = both("s", DT.STRING, [2, 2], values)
    assert ours == theirs


def test_string_values_must_be_str_or_bytes() -> None:
    with pytest.raises(TypeError, match="str or bytes"):
        helper.make_tensor("s", DT.STRING, [2], [1, 2])
    with pytest.raises(TypeError):
        oh.make_tensor("s", DT.STRING, [2], [1, 2])


def test_the_documented_examples_match_onnx() -> None:
    cases: list[tuple[int, list[Any]]] = [
        (DT.FLOAT8E4M3FN, [0, 0.5, 1, 50000, 10.1]),
        (DT.FLOAT8E4M3FNUZ, [0, 0.5, 1, 50000, 10.1, -0.00001, 0.00001]),
        (DT.FLOAT8E5M2, [0, 0.5, 1, 50000, 96]),
        (DT.FLOAT8E5M2FNUZ, [0, 0.5, 1, 50000, 96, -0.0000001, 0.0000001]),
        (DT.FLOAT8E8M0, [0, 0.124, 1.0, 1.5, 2.0, 2.1, float(np.finfo(np.float32).max)]),
        (DT.FLOAT4E2M1, [0, 0.5, 1, 50000, -0.6, -100, -5]),
        (DT.BFLOAT16, [1.0, 0.099853515625, 0.0998535081744, math.nan, math.inf]),
    ]
    for data_type, values in cases:
        theirs, ours = both("z", data_type, [len(values)], values)
        assert ours == theirs, oh.tensor_dtype_to_string(data_type)


def test_to_array_reads_back_what_make_tensor_wrote() -> None:
    values = [0.0, 0.5, -2.0, 3.0]
    for data_type in (DT.FLOAT8E4M3FN, DT.BFLOAT16, DT.FLOAT4E2M1, DT.FLOAT6E2M3, DT.FLOAT16):
        array = nh.to_array(helper.make_tensor("t", data_type, [4], values))
        assert array.astype(np.float32).tolist() == values


# --------------------------------------------------------------------------
# dims and errors


def test_empty_and_scalar_dims() -> None:
    assert both("t", DT.FLOAT, [], [42.0])[0] == both("t", DT.FLOAT, [], [42.0])[1]
    assert both("t", DT.FLOAT, [0], [])[0] == both("t", DT.FLOAT, [0], [])[1]
    tensor = helper.make_tensor("t", DT.FLOAT, (), [42.0])
    assert tensor.dims == [] and tensor.float_data == [42.0]


@pytest.mark.parametrize(
    ("data_type", "dims", "values"),
    [(DT.FLOAT, (2, 2), [1.0, 2.0, 3.0]), (DT.FLOAT, (2,), [1.0, 2.0, 3.0]),
     (DT.INT4, (2,), [1]), (DT.COMPLEX64, (2,), [1 + 2j]), (DT.STRING, (3,), ["a"]),
     (DT.FLOAT8E5M2, (1,), [1.0, 2.0]), (DT.FLOAT8E8M0, (0,), [1.0])],
)  # fmt: skip
def test_a_count_that_does_not_match_dims_is_a_value_error(
    data_type: int, dims: tuple[int, ...], values: list[Any]
) -> None:
    with pytest.raises(ValueError):
        oh.make_tensor("t", data_type, dims, values)
    with pytest.raises(ValueError, match=r"Number of values \(.*\) does not match tensor dim"):
        helper.make_tensor("t", data_type, dims, values)


@pytest.mark.parametrize("data_type", NOT_STRING, ids=oh.tensor_dtype_to_string)
def test_raw_bytes_of_the_wrong_size_are_a_value_error(data_type: int) -> None:
    for module in (oh, helper):
        with pytest.raises(ValueError, match="Raw data size does not match"):
            module.make_tensor("t", data_type, [3], b"\x00" * 7, raw=True)


def test_raw_strings_and_raw_lists_are_type_errors() -> None:
    for module in (oh, helper):
        with pytest.raises(TypeError, match="Can not use raw_data to store string type"):
            module.make_tensor("t", DT.STRING, [1], [b"a"], raw=True)
        with pytest.raises(TypeError, match=r"Raw data must be bytes or numpy\.ndarray"):
            module.make_tensor("t", DT.FLOAT, [1], [1.0], raw=True)


@pytest.mark.parametrize("data_type", [0, 29, 1000, -1])
def test_an_unknown_data_type_is_onnx_key_error_and_a_type_error(data_type: int) -> None:
    with pytest.raises(KeyError):
        oh.make_tensor("t", data_type, [1], [1.0])
    with pytest.raises(KeyError):
        helper.make_tensor("t", data_type, [1], [1.0])
    with pytest.raises(TypeError, match=r"is not a TensorProto\.DataType"):
        helper.make_tensor("t", data_type, [1], [1.0])


def test_dims_must_be_integers() -> None:
    with pytest.raises(TypeError):
        oh.make_tensor("t", DT.FLOAT, [1.5], [1.0])
    with pytest.raises(TypeError, match="dims must be integers"):
        helper.make_tensor("t", DT.FLOAT, [1.5], [1.0])


def test_numpy_integer_dims_are_taken() -> None:
    array = np.zeros((2, 3), dtype=np.float32)
    theirs, ours = both("t", DT.FLOAT, np.array(array.shape), array)
    assert ours == theirs


def test_an_integer_out_of_range_is_numpys_overflow_error_as_onnx() -> None:
    for module in (oh, helper):
        with pytest.raises(OverflowError):
            module.make_tensor("t", DT.INT8, [1], [300])


@pytest.mark.parametrize("name", [None, 3, b"x", "é"])
def test_names_are_taken_as_protobuf_takes_them(name: Any) -> None:
    try:
        theirs = oh.make_tensor(name, DT.FLOAT, [1], [1.0]).SerializeToString()
    except TypeError:
        with pytest.raises(TypeError, match="name must be a str"):
            helper.make_tensor(name, DT.FLOAT, [1], [1.0])
        with pytest.raises(TypeError):
            helper.make_sequence(name, 1, [])
        return
    assert helper.make_tensor(name, DT.FLOAT, [1], [1.0]).encode() == theirs
    assert (
        helper.make_optional(name, 0, None).encode()
        == oh.make_optional(name, 0, None).SerializeToString()
    )


def sample_values(data_type: int) -> list[Any]:
    """Eight values of ``data_type``: in range for integers, edges for floats."""
    if data_type in INT_RANGES:
        low, high = INT_RANGES[data_type]
        return [max(low, min(high, v)) for v in (0, 1, -1, 7, -8, 3, -2, 2)]
    if data_type == DT.BOOL:
        return [True, False] * 4
    return [0.3, -1e6, 448.0, 1e-9, math.nan, -math.inf, -2.5, 7.0]


def test_without_ml_dtypes_every_data_type_gives_onnxs_bytes() -> None:
    """A fresh interpreter where ``import ml_dtypes`` fails: the same bytes as onnx with it."""
    cases = {t: sample_values(t) for t in NOT_STRING}
    code = f"""
import sys
sys.modules["ml_dtypes"] = None
import json
from onnxdata import helper
cases = json.loads({json.dumps(cases)!r})
out = {{t: helper.make_tensor("t", int(t), [8], v).encode().hex() for t, v in cases.items()}}
print(json.dumps(out))
"""
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(int(t) for t in out) == sorted(NOT_STRING)
    for key, ours in out.items():
        theirs, _ = both("t", int(key), [8], cases[int(key)])
        assert bytes.fromhex(ours) == theirs, oh.tensor_dtype_to_string(int(key))


@pytest.mark.parametrize(
    ("dims", "error"), [([2**63], ValueError), ([-(2**63) - 1], ValueError), ([True], TypeError)]
)
def test_dims_outside_int64_or_boolean_fail_as_protobuf(dims: list[Any], error: type) -> None:
    for module in (oh, helper):
        with pytest.raises(error):
            module.make_tensor("t", DT.FLOAT, dims, b"", raw=True)
    with pytest.raises(error):
        helper.make_sparse_tensor(*pair_of_tensors(), dims)


def pair_of_tensors() -> tuple[Any, Any]:
    values = helper.make_tensor("v", DT.FLOAT, [1], [1.0])
    return values, helper.make_tensor("i", DT.INT64, [1], [0])
