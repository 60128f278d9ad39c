"""The casts to the types numpy lacks, bit for bit as ml_dtypes and onnx.numpy_helper.

onnxdata casts to FLOAT8*, BFLOAT16, FLOAT4E2M1, FLOAT6*, FLOAT8E8M0 and the
4-/2-bit integers in numpy (``_numpy/floats.py``), so that ``make_tensor`` and
``saturate_cast`` work without ml_dtypes.  Here: every code of every format,
every halfway point between neighbouring values and its neighbours (the
ties), random float64 and float32 bit patterns (NaN payloads, infinities,
subnormals), with and without saturation, against ml_dtypes; the public
``saturate_cast`` and ``to_float8e8m0`` against onnx's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import numpy_helper as onh

from onnxdata import TensorProto
from onnxdata import numpy_helper as nh
from onnxdata._numpy import floats as floats
from tests.support import message_strategies as ms
from tests.support.paths import ROOT

ROOT = ROOT
DT = TensorProto.DataType
ML = {
    DT.FLOAT8E4M3FN: ml_dtypes.float8_e4m3fn,
    DT.FLOAT8E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
    DT.FLOAT8E5M2: ml_dtypes.float8_e5m2,
    DT.FLOAT8E5M2FNUZ: ml_dtypes.float8_e5m2fnuz,
    DT.BFLOAT16: ml_dtypes.bfloat16,
    DT.FLOAT4E2M1: ml_dtypes.float4_e2m1fn,
    DT.FLOAT6E2M3: ml_dtypes.float6_e2m3fn,
    DT.FLOAT6E3M2: ml_dtypes.float6_e3m2fn,
}
INTS = {
    DT.INT4: ml_dtypes.int4,
    DT.UINT4: ml_dtypes.uint4,
    DT.INT2: ml_dtypes.int2,
    DT.UINT2: ml_dtypes.uint2,
}


def ml_codes(x: Any, data_type: int, saturate: bool) -> Any:
    """What ml_dtypes gives: ``astype``, after onnx's clip when saturating."""
    dtype = np.dtype(ML[data_type])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if saturate:
            info = ml_dtypes.finfo(dtype)
            x = np.clip(x, info.min, info.max)
        out = np.asarray(x).astype(dtype)
    return out.view(np.uint16 if dtype.itemsize == 2 else np.uint8)


def assert_same_codes(x: Any, data_type: int, saturate: bool) -> None:
    expected = ml_codes(x, data_type, saturate)
    got = floats.float_codes(x, data_type, saturate=saturate)
    bad = np.flatnonzero(expected.ravel() != got.ravel())
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert not bad.size, [(np.ravel(x)[i], expected.ravel()[i], got.ravel()[i]) for i in bad[:5]]


def test_every_code_has_ml_dtypes_value() -> None:
    for data_type, dtype in ML.items():
        width = np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint8
        codes = np.arange(floats.FORMATS[data_type].sign_bit * 2).astype(width)
        with np.errstate(invalid="ignore"):
            expected = codes.view(dtype).astype(np.float64)
        np.testing.assert_array_equal(floats.code_values(data_type), expected)


@pytest.mark.parametrize("data_type", list(ML))
@pytest.mark.parametrize("saturate", [False, True])
def test_every_value_halfway_point_and_neighbour_rounds_as_ml_dtypes(
    data_type: int, saturate: bool
) -> None:
    values = floats.code_values(data_type)
    values = np.unique(values[np.isfinite(values)])
    halfway = (values[:-1] + values[1:]) / 2  # exact in float64
    beyond = np.array([values[-1] * 1.5, values[-1] * 2, values[0] * 1.5, values[0] * 2])
    for x in (
        values,
        halfway,
        np.nextafter(halfway, np.inf),
        np.nextafter(halfway, -np.inf),
        halfway.astype(np.float32),
        beyond,
        np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e308]),
    ):
        assert_same_codes(x, data_type, saturate)


float64_bits = st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40)
float32_bits = st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=40)


@settings(max_examples=ms.scaled(0.5))
@given(bits=float64_bits, data_type=st.sampled_from(list(ML)), saturate=st.booleans())
def test_float64_bit_patterns_round_as_ml_dtypes(
    bits: list[int], data_type: int, saturate: bool
) -> None:
    assert_same_codes(np.array(bits, dtype=np.uint64).view(np.float64), data_type, saturate)


@settings(max_examples=ms.scaled(0.5))
@given(bits=float32_bits, data_type=st.sampled_from(list(ML)), saturate=st.booleans())
def test_float32_bit_patterns_round_as_ml_dtypes(
    bits: list[int], data_type: int, saturate: bool
) -> None:
    assert_same_codes(np.array(bits, dtype=np.uint32).view(np.float32), data_type, saturate)


@settings(max_examples=ms.scaled(0.5))
@given(
    x=st.lists(st.floats(width=64, allow_subnormal=True), min_size=1, max_size=30),
    data_type=st.sampled_from(list(ML)),
    saturate=st.booleans(),
)
def test_ordinary_floats_round_as_ml_dtypes(x: list[float], data_type: int, saturate: bool) -> None:
    scale = floats.code_values(data_type)
    top = float(np.nanmax(scale[np.isfinite(scale)]))
    # scaled into the type's range so that most values are neither 0 nor saturated
    with np.errstate(over="ignore"):
        values = np.array(x) * (top / 1e3) if np.isfinite(np.array(x) * top).all() else np.array(x)
    assert_same_codes(values, data_type, saturate)


@settings(max_examples=ms.scaled(0.5))
@given(
    values=st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=30),
    data_type=st.sampled_from(list(INTS)),
)
def test_integers_wrap_as_ml_dtypes(values: list[int], data_type: int) -> None:
    mask = (1 << (4 if data_type in (DT.INT4, DT.UINT4) else 2)) - 1
    expected = np.array(values, dtype=np.int64).astype(INTS[data_type]).view(np.uint8) & mask
    np.testing.assert_array_equal(floats.int_codes(np.array(values), data_type), expected)


@settings(max_examples=ms.scaled(0.5))
@given(
    values=st.lists(st.floats(-7.99, 7.99), min_size=1, max_size=30),
    data_type=st.sampled_from(list(INTS)),
)
def test_floats_in_range_truncate_as_ml_dtypes(values: list[float], data_type: int) -> None:
    low, high = floats.INT_RANGES[data_type]
    x = np.array([v for v in values if low - 1 < v < high + 1] or [0.0])
    mask = (1 << (4 if data_type in (DT.INT4, DT.UINT4) else 2)) - 1
    expected = np.asarray(x, dtype=INTS[data_type]).view(np.uint8) & mask
    np.testing.assert_array_equal(floats.int_codes(x, data_type), expected)


def test_nan_to_a_sub_byte_integer_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="NaN or inf"):
        floats.int_codes(np.array([1.0, np.nan]), DT.INT4)


def test_complex_values_to_a_small_float_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="complex"):
        floats.float_codes(np.array([1j]), DT.FLOAT8E4M3FN, saturate=True)


# --------------------------------------------------------------------------
# the public functions against onnx's


@settings(max_examples=ms.scaled(0.5))
@given(
    bits=float32_bits,
    saturate=st.booleans(),
    round_mode=st.sampled_from(["up", "down", "nearest"]),
)
def test_to_float8e8m0_matches_onnx(bits: list[int], saturate: bool, round_mode: str) -> None:
    x = np.array(bits, dtype=np.uint32).view(np.float32)
    expected = onh.to_float8e8m0(x, saturate, round_mode)
    got = nh.to_float8e8m0(x, saturate, round_mode)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_to_float8e8m0_edges_match_onnx() -> None:
    f32 = np.finfo(np.float32)
    x = np.array(
        [0.0, -0.0, np.nan, np.inf, -np.inf, f32.max, -f32.max, f32.tiny, f32.smallest_subnormal,
         1.5, 3.0, 0.75, 2.0**127, 1.5 * 2.0**127, -2.5, 1.0 + 2.0**-23]
    )  # fmt: skip
    for saturate in (True, False):
        for mode in ("up", "down", "nearest"):
            expected = onh.to_float8e8m0(x, saturate, mode).view(np.uint8)
            got = nh.to_float8e8m0(x, saturate, mode).view(np.uint8)
            np.testing.assert_array_equal(got, expected, err_msg=f"{saturate} {mode}")


def test_to_float8e8m0_takes_a_scalar_where_onnx_fails() -> None:
    with pytest.raises(TypeError):
        onh.to_float8e8m0(np.float32(3.0))
    assert nh.to_float8e8m0(np.float32(3.0)).view(np.uint8) == 129


def test_to_float8e8m0_refuses_an_unknown_round_mode_as_onnx() -> None:
    for module in (onh, nh):
        with pytest.raises(ValueError, match="Unsupported rounding mode"):
            module.to_float8e8m0(np.array([1.0]), round_mode="odd")


NUMPY_TARGETS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                 np.float16, np.float32, np.float64]  # fmt: skip
ML_TARGETS = [*ML.values(), *INTS.values(), ml_dtypes.float8_e8m0fnu]


@settings(max_examples=ms.scaled(0.5))
@given(
    x=st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20),
    target=st.sampled_from(NUMPY_TARGETS + ML_TARGETS),
    scale=st.sampled_from([1e-6, 1.0, 1e3, 1e40]),
)
def test_saturate_cast_matches_onnx(x: list[float], target: Any, scale: float) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.array(x) * scale if np.isfinite(np.array(x) * scale).all() else np.array(x)
        expected = onh.saturate_cast(values, target)
        got = nh.saturate_cast(values, target)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("target", [np.float16, np.float32, *ML.values(), ml_dtypes.float8_e8m0fnu])
def test_saturate_cast_of_nan_and_inf_matches_onnx(target: Any) -> None:
    values = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = onh.saturate_cast(values, target)
    got = nh.saturate_cast(values, target)
    assert got.dtype == expected.dtype
    assert got.tobytes() == expected.tobytes()


def test_saturate_cast_takes_a_data_type() -> None:
    got = nh.saturate_cast(np.array([1e6, -0.3]), TensorProto.FLOAT8E4M3FN)
    expected = onh.saturate_cast(np.array([1e6, -0.3]), ml_dtypes.float8_e4m3fn)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
    assert nh.saturate_cast(np.array([300.0]), TensorProto.UINT8).tolist() == [255]


def test_saturate_cast_refuses_non_numeric_targets() -> None:
    for target in (object, np.str_, 0, 99):
        with pytest.raises(TypeError):
            nh.saturate_cast(np.array([1.0]), target)


def test_casts_without_ml_dtypes_refuse_or_give_the_storage_view_asked_for() -> None:
    """In a fresh interpreter where ``import ml_dtypes`` fails: the casts to a
    type numpy lacks raise MissingMLDtypesError (an ImportError naming
    ml_dtypes) instead of returning another dtype; ``storage_view=True`` gives
    ml_dtypes' bits as uint8; make_tensor needs no dtype and writes onnx's bytes."""
    code = """
        import sys
        sys.modules["ml_dtypes"] = None
        import json
        import numpy as np
        from onnxdata import TensorProto, helper, numpy_helper as nh
        x = np.array([0.3, -1e6, 448.0, 1e-9])
        out = {}
        calls = {
            "sat": lambda: nh.saturate_cast(x, TensorProto.FLOAT8E4M3FN),
            "e8m0": lambda: nh.to_float8e8m0(x),
            "np_dtype": lambda: helper.tensor_dtype_to_np_dtype(TensorProto.BFLOAT16),
        }
        for key, call in calls.items():
            try:
                call()
            except ImportError as exc:
                out[key] = [type(exc).__name__, exc.name, str(exc)]
        sat = nh.saturate_cast(x, TensorProto.FLOAT8E4M3FN, storage_view=True)
        out["sat_view"] = [str(sat.dtype), sat.tolist()]
        e8m0 = nh.to_float8e8m0(x, storage_view=True)
        out["e8m0_view"] = [str(e8m0.dtype), e8m0.tolist()]
        out["np_dtype_view"] = str(
            helper.tensor_dtype_to_np_dtype(TensorProto.BFLOAT16, storage_view=True)
        )
        out["bf16"] = helper.make_tensor("t", TensorProto.BFLOAT16, [4], x).encode().hex()
        print(json.dumps(out))
    """
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("sat", "e8m0", "np_dtype"):
        kind, name, message = out[key]
        assert (kind, name) == ("MissingMLDtypesError", "ml_dtypes"), key
        assert "ml_dtypes is not installed" in message and "storage_view=True" in message
        assert "pip install 'onnxdata[numpy]'" in message
    x = np.array([0.3, -1e6, 448.0, 1e-9])
    expected = onh.saturate_cast(x, ml_dtypes.float8_e4m3fn).view(np.uint8)
    assert out["sat_view"] == ["uint8", expected.tolist()]
    assert out["e8m0_view"] == ["uint8", onh.to_float8e8m0(x).view(np.uint8).tolist()]
    assert out["np_dtype_view"] == "uint16"
    from onnx import helper as oh

    assert out["bf16"] == oh.make_tensor("t", 16, [4], list(x)).SerializeToString().hex()


def test_storage_view_casts_are_the_same_with_ml_dtypes() -> None:
    """``storage_view=True`` gives the codes whether ml_dtypes is installed or not:
    the result never depends on the environment; without it, onnx's dtype."""
    x = np.array([0.3, -1e6, 448.0, 1e-9, np.nan])
    for data_type, ml in ML.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            real = nh.saturate_cast(x, data_type)
            view = nh.saturate_cast(x, data_type, storage_view=True)
            expected = onh.saturate_cast(x, ml)
        assert real.dtype == expected.dtype and real.tobytes() == expected.tobytes()
        assert view.dtype == np.dtype(f"u{expected.dtype.itemsize}")
        assert view.tobytes() == expected.tobytes()
    e8m0 = nh.to_float8e8m0(x[:4], storage_view=True)
    assert e8m0.dtype == np.uint8
    assert e8m0.tobytes() == onh.to_float8e8m0(x[:4]).tobytes()
    assert nh.to_float8e8m0(x[:4]).dtype == np.dtype(ml_dtypes.float8_e8m0fnu)
    # a numpy type is the same either way
    assert nh.saturate_cast(x[:4], TensorProto.FLOAT16, storage_view=True).dtype == np.float16
