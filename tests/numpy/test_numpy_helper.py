"""onnxdata.numpy_helper against onnx.numpy_helper 1.23.2: same dtype, shape, bytes.

Reading: every data type x every storage field (raw_data and the typed
field) x shapes (0-d, empty, small, large), on bytes decoded by both
decoders.  Writing: ``from_*(...).encode()`` equals onnx's
``SerializeToString()`` for arrays of every dtype onnx supports (any memory
layout), numpy scalars, strings, and nested lists, dicts and optionals.  The
places where onnxdata deliberately differs are in test_numpy_onnx_bugs.py.
"""

from __future__ import annotations

import math
import os
from array import array
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import numpy_helper as onh

import onnxdata
from onnxdata import numpy_helper as nh
from tests.support import message_strategies as ms
from tests.support.numpy_support import (
    ALL_TYPES,
    NUMPY_DTYPES,
    arrays,
    assert_same_array,
    assert_same_value,
    build_tensor,
    chdir,
    oracle_and_ours,
    raw_size,
)
from tests.support.oracle import CORPUS

# --------------------------------------------------------------------------
# to_array


@pytest.mark.parametrize(
    ("data_type", "storage"),
    [(t, s) for t in ALL_TYPES for s in ("raw", "typed") if (t, s) != (8, "raw")],
)
@settings(max_examples=ms.scaled(0.06))
@given(data=st.data())
def test_to_array_matches_onnx(data_type: int, storage: str, data: Any) -> None:
    """Every data type from raw_data and from its typed field (STRING has no raw form)."""
    tensor = data.draw(build_tensor(data_type, storage))
    oracle, decoded = oracle_and_ours(tensor)
    expected = onh.to_array(oracle)
    assert_same_array(nh.to_array(decoded), expected)
    assert_same_array(nh.to_array(tensor), expected)  # built by hand, not decoded


@pytest.mark.parametrize("data_type", [t for t in ALL_TYPES if t != 8])
def test_to_array_zero_d_and_empty(data_type: int) -> None:
    for dims in ([], [0], [3, 0], [0, 0, 2]):
        tensor = onnxdata.TensorProto(dims=dims, data_type=data_type)
        tensor.raw_data = bytes(range(1, raw_size(data_type, math.prod(dims)) + 1))
        oracle, decoded = oracle_and_ours(tensor)
        assert_same_array(nh.to_array(decoded), onh.to_array(oracle))


def test_to_array_large_raw_is_a_view() -> None:
    values = np.arange(4 * 1024 * 1024, dtype=np.float32)  # 16 MiB
    tensor = onnxdata.TensorProto(dims=[4, 1024, 1024], data_type=1, raw_data=values.tobytes())
    out = nh.to_array(tensor)
    assert out.shape == (4, 1024, 1024) and out.dtype == np.float32
    assert np.shares_memory(out, np.frombuffer(tensor.raw_data, dtype=np.uint8))
    assert not out.flags.writeable
    assert out.tobytes() == tensor.raw_data


@pytest.mark.parametrize(
    ("data_type", "field", "values"),
    [
        (1, "float_data", array("f", range(1_000_000))),
        (11, "double_data", array("d", range(-500_000, 500_000))),
        (7, "int64_data", list(range(-(2**62), -(2**62) + 600_000, 3))),
        (13, "uint64_data", [2**64 - 1 - i for i in range(200_000)]),
        (10, "int32_data", [i & 0xFFFF for i in range(300_000)]),
        (22, "int32_data", [i & 0xFF for i in range(150_000)]),
    ],
)
def test_to_array_large_typed_fields(data_type: int, field: str, values: Any) -> None:
    count = len(values) * (2 if data_type == 22 else 1)
    tensor = onnxdata.TensorProto(dims=[count], data_type=data_type)
    setattr(tensor, field, values)
    oracle, decoded = oracle_and_ours(tensor)
    assert_same_array(nh.to_array(decoded), onh.to_array(oracle))


def test_to_array_many_strings() -> None:
    strings = [f"s{i}-é".encode() for i in range(100_000)]
    tensor = onnxdata.TensorProto(dims=[100, 1000], data_type=8, string_data=strings)
    oracle, decoded = oracle_and_ours(tensor)
    assert_same_array(nh.to_array(decoded), onh.to_array(oracle))


def test_signalling_nan_bits_survive_float_data() -> None:
    values = array("f")
    values.frombytes(bytes.fromhex("0100807f 0000c07f ffffffff 00000080"))
    tensor = onnxdata.TensorProto(dims=[4], data_type=1, float_data=values)
    oracle, decoded = oracle_and_ours(tensor)
    out = nh.to_array(decoded)
    assert out.tobytes() == values.tobytes()
    assert_same_array(out, onh.to_array(oracle))


# --------------------------------------------------------------------------
# from_array


@settings(max_examples=ms.scaled(1.0))
@given(a=arrays(), name=st.one_of(st.none(), st.just(""), st.text(max_size=5)))
def test_from_array_matches_onnx(a: np.ndarray, name: str | None) -> None:
    ours = nh.from_array(a, name)
    theirs = onh.from_array(a, name)
    assert ours.encode() == theirs.SerializeToString()
    oracle, decoded = oracle_and_ours(ours)
    assert_same_array(nh.to_array(decoded), onh.to_array(oracle))


@settings(max_examples=ms.scaled(0.3))
@given(a=arrays([d for d in NUMPY_DTYPES if d.itemsize > 1]))
def test_from_array_big_endian_input(a: np.ndarray) -> None:
    swapped = a.astype(a.dtype.newbyteorder(">"))
    assert nh.from_array(swapped).encode() == onh.from_array(a).SerializeToString()


@settings(max_examples=ms.scaled(0.3))
@given(a=arrays())
def test_from_array_numpy_scalar(a: np.ndarray) -> None:
    scalar = a.reshape(-1)[0] if a.size else np.float32(-0.0)
    assert isinstance(scalar, np.generic)
    assert nh.from_array(scalar).encode() == onh.from_array(scalar).SerializeToString()


@settings(max_examples=ms.scaled(0.5))
@given(
    items=st.lists(st.one_of(st.text(max_size=5), st.binary(max_size=5)), max_size=12),
    kind=st.sampled_from(["U", "object"]),
    name=st.one_of(st.none(), st.text(max_size=3)),
)
def test_from_array_strings(items: list[Any], kind: str, name: str | None) -> None:
    if kind == "U":
        strs = [s for s in items if isinstance(s, str)]
        a = np.array(strs, dtype=str) if strs else np.array([], dtype="<U1")
    else:
        a = np.empty(len(items), dtype=object)
        a[:] = items
    if a.size % 2 == 0 and a.size:
        a = a.reshape(2, -1)
    try:
        theirs = onh.from_array(a, name).SerializeToString()
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            nh.from_array(a, name)
        return
    assert nh.from_array(a, name).encode() == theirs


def test_from_array_zero_d_string_and_refused_objects() -> None:
    a = np.array("héllo")
    assert nh.from_array(a).encode() == onh.from_array(a).SerializeToString()
    bad = np.array([1, "x"], dtype=object)
    with pytest.raises(NotImplementedError):
        onh.from_array(bad)
    with pytest.raises(NotImplementedError, match="Unrecognized object"):
        nh.from_array(bad)


@pytest.mark.parametrize(
    "dtype",
    ["float128", "complex256", "datetime64[s]", "timedelta64[s]", "V4", "i4,f4",
     ml_dtypes.float8_e4m3, ml_dtypes.float8_e3m4, ml_dtypes.float8_e4m3b11fnuz],
)  # fmt: skip
def test_from_array_unsupported_dtype(dtype: Any) -> None:
    a = np.zeros(2, dtype=dtype)
    with pytest.raises(ValueError, match="Unable to convert type") as theirs:
        onh.from_array(a)
    with pytest.raises(ValueError, match="Unable to convert type") as ours:
        nh.from_array(a)
    assert str(ours.value) == str(theirs.value)


def test_from_array_refuses_non_numpy() -> None:
    with pytest.raises(TypeError, match=r"numpy\.asarray"):
        nh.from_array([1.0, 2.0])  # type: ignore[arg-type]


@pytest.mark.parametrize("data_type", [t for t in ALL_TYPES if t != 8])
def test_dtype_table_matches_onnx(data_type: int) -> None:
    from onnx import helper

    dtype = nh.tensor_dtype_to_np_dtype(data_type)
    assert dtype == helper.tensor_dtype_to_np_dtype(data_type)
    assert nh.np_dtype_to_tensor_dtype(dtype) == helper.np_dtype_to_tensor_dtype(dtype)
    assert nh.HAVE_ML_DTYPES


# --------------------------------------------------------------------------
# lists, dicts, optionals (Python values as onnx accepts them)

_VALUE_DTYPES = [np.float32, np.int64, np.int32, np.bool_, np.float16, ml_dtypes.bfloat16,
                 np.uint8, np.float64]  # fmt: skip


@st.composite
def small_arrays(draw: Any, dtype: Any = None) -> np.ndarray:
    if dtype is None:
        dtype = draw(st.sampled_from([*_VALUE_DTYPES, "U"]))
    shape = draw(st.lists(st.integers(0, 3), max_size=2).map(tuple))
    count = math.prod(shape)
    if dtype == "U":
        strs = draw(st.lists(st.text("abcé\x00", max_size=3), min_size=count, max_size=count))
        return np.array(strs, dtype=str).reshape(shape) if strs else np.zeros(shape, "<U1")
    dt = np.dtype(dtype)
    raw = draw(st.binary(min_size=count * dt.itemsize, max_size=count * dt.itemsize))
    a = np.frombuffer(raw, dtype=dt).reshape(shape)
    return np.asarray(a.view(np.uint8) & 1).view(np.bool_) if dt == np.bool_ else a.copy()


_INT_KEYS = st.sampled_from([int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                             np.uint32, np.uint64])  # fmt: skip


@st.composite
def dicts(draw: Any, children: Any) -> dict[Any, Any]:
    key_cls = draw(_INT_KEYS)
    keys = draw(st.lists(st.integers(0, 120), min_size=1, max_size=4, unique=True))
    dtype = draw(st.sampled_from(_VALUE_DTYPES))
    values = [draw(small_arrays(dtype)) for _ in keys]
    return {key_cls(k): v for k, v in zip(keys, values, strict=True)}


def _lists(children: Any) -> Any:
    return st.one_of(
        st.lists(small_arrays(), max_size=3),
        st.lists(st.lists(small_arrays(), max_size=2), max_size=3),
        st.lists(dicts(children), max_size=2),
    )


python_values = st.one_of(small_arrays(), _lists(None), dicts(None))


@settings(max_examples=ms.scaled(0.8))
@given(value=python_values, name=st.one_of(st.none(), st.text(max_size=3)))
def test_containers_match_onnx(value: Any, name: str | None) -> None:
    kind = "list" if isinstance(value, list) else "dict" if isinstance(value, dict) else "array"
    ours = getattr(nh, f"from_{kind}")(value, name)
    theirs = getattr(onh, f"from_{kind}")(value, name)
    assert ours.encode() == theirs.SerializeToString()
    oracle, decoded = oracle_and_ours(ours)
    assert_same_value(
        _strip_nul(getattr(nh, f"to_{kind}")(decoded)), getattr(onh, f"to_{kind}")(oracle)
    )
    # optional wrapping of the same value
    opt_ours, opt_theirs = nh.from_optional(value, name), onh.from_optional(value, name)
    assert opt_ours.encode() == opt_theirs.SerializeToString()
    oracle, decoded = oracle_and_ours(opt_ours)
    assert_same_value(_strip_nul(nh.to_optional(decoded)), onh.to_optional(oracle))


def _strip_nul(value: Any) -> Any:
    """onnx drops trailing NULs of strings (test_numpy_onnx_bugs.py); do the same here."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        out = np.empty(value.shape, dtype=object)
        out.reshape(-1)[:] = [s.rstrip("\x00") for s in value.reshape(-1).tolist()]
        return out
    if isinstance(value, list):
        return [_strip_nul(v) for v in value]
    if isinstance(value, dict):
        return {k: _strip_nul(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("dtype", [None, *range(6)])
def test_from_optional_none_matches_onnx(dtype: int | None) -> None:
    ours = nh.from_optional(None, "n", dtype)
    assert ours.encode() == onh.from_optional(None, "n", dtype).SerializeToString()
    assert nh.to_optional(ours) is None


@pytest.mark.parametrize("dtype", [None, 1, 3])
def test_from_list_empty_matches_onnx(dtype: int | None) -> None:
    ours = nh.from_list([], "e", dtype)
    assert ours.encode() == onh.from_list([], "e", dtype).SerializeToString()
    assert nh.to_list(ours) == onh.to_list(onh.from_list([], "e", dtype)) == []


def test_argument_errors_match_onnx() -> None:
    cases: list[tuple[str, tuple[Any, ...], type[BaseException]]] = [
        ("from_list", ([np.float32(1), np.array(2.0)],), TypeError),
        ("from_list", ([1, 2.0],), TypeError),
        ("from_list", ([np.zeros(1)], None, 9), TypeError),
        ("from_dict", ({},), ValueError),
        ("from_dict", ({1: np.zeros(1), np.int32(2): np.zeros(1)},), TypeError),
        ("from_dict", ({1: np.zeros(1), 2: np.zeros(1, np.int32)},), TypeError),
        ("from_dict", ({1.5: np.zeros(1)},), TypeError),
        ("from_dict", ({True: np.zeros(1)},), TypeError),
        ("from_dict", ({2**64: np.zeros(1)},), TypeError),
        ("from_optional", (np.zeros(1), None, 9), TypeError),
        ("from_optional", (np.zeros(1), None, 0), TypeError),
    ]
    for func, args, exc in cases:
        with pytest.raises(exc):
            getattr(onh, func)(*args)
        with pytest.raises(exc):
            getattr(nh, func)(*args)


def test_to_functions_refuse_like_onnx() -> None:
    seq = onnxdata.SequenceProto(elem_type=0)
    with pytest.raises(TypeError, match="not supported"):
        nh.to_list(seq)
    with pytest.raises(TypeError):
        onh.to_list(onnx.SequenceProto())
    with pytest.raises(TypeError, match="not supported"):
        nh.to_optional(onnxdata.OptionalProto(elem_type=9))
    with pytest.raises(TypeError, match="UNDEFINED"):
        nh.to_array(onnxdata.TensorProto(dims=[1], float_data=[1.0]))
    with pytest.raises(TypeError):
        nh.to_array(onnxdata.TensorProto(dims=[1], data_type=99))
    with pytest.raises(ValueError, match="segments"):
        nh.to_array(onnxdata.TensorProto(data_type=1, segment=onnxdata.TensorProto.Segment()))
    with pytest.raises(TypeError):
        nh.to_array(np.zeros(1))  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# corpora

_DATA = str(CORPUS)
_PB_FILES = sorted(
    os.path.relpath(os.path.join(root, f), _DATA)
    for root, _, files in os.walk(_DATA)
    for f in files
    if f.endswith(".pb")
)
_MODEL_FILES = sorted(
    os.path.relpath(os.path.join(root, f), _DATA)
    for root, _, files in os.walk(_DATA)
    for f in files
    if f.endswith(".onnx")
)


def test_corpus_is_there() -> None:
    assert len(_PB_FILES) > 300 and len(_MODEL_FILES) > 100


@pytest.mark.parametrize("path", _PB_FILES)
def test_backend_data_files(path: str) -> None:
    with open(os.path.join(_DATA, path), "rb") as f:
        data = f.read()
    oracle = onnx.TensorProto.FromString(data)
    ours = onnxdata.TensorProto.decode(data)
    assert_same_array(nh.to_array(ours), onh.to_array(oracle))
    back = nh.from_array(nh.to_array(ours), ours.name)
    assert back.encode() == onh.from_array(onh.to_array(oracle), oracle.name).SerializeToString()


def test_backend_model_initializers() -> None:
    """Every initializer and Constant tensor of the wheel's test models."""
    seen = 0
    for path in _MODEL_FILES:
        model = onnx.load(os.path.join(_DATA, path), load_external_data=False)
        tensors = list(model.graph.initializer)
        for node in model.graph.node:
            tensors += [a.t for a in node.attribute if a.type == onnx.AttributeProto.TENSOR]
        for oracle in tensors:
            ours = onnxdata.TensorProto.decode(oracle.SerializeToString())
            assert_same_array(nh.to_array(ours), onh.to_array(oracle))
            seen += 1
    assert seen > 100


@pytest.fixture(scope="module")
def node_cases() -> list[Any]:
    import warnings

    import onnx.backend.test.case.node as node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(node.collect_testcases(None))


def _write(value: Any, type_proto: Any, name: str, helper: Any) -> Any:
    """What onnx's backend test generator (cmd_tools.generate_data) writes."""
    if type_proto.HasField("map_type"):
        return helper.from_dict(value, name)
    if type_proto.HasField("sequence_type"):
        return helper.from_list(value, name)
    if type_proto.HasField("optional_type"):
        return helper.from_optional(value, name)
    return helper.from_array(value, name)


def _read(message: Any, helper: Any) -> Any:
    name = type(message).__name__
    func = {"TensorProto": "to_array", "SequenceProto": "to_list", "MapProto": "to_dict",
            "OptionalProto": "to_optional"}[name]  # fmt: skip
    return getattr(helper, func)(message)


@pytest.mark.slow
def test_node_test_data(node_cases: list[Any]) -> None:
    """The inputs/outputs of onnx's ~1900 node tests, written and read by both sides."""
    counts = {"written": 0, "tensor_protos": 0}
    for case in node_cases:
        graph = case.model.graph
        for inputs, outputs in case.data_sets:
            for values, infos in ((inputs, graph.input), (outputs, graph.output)):
                for value, info in zip(values, infos, strict=False):
                    if isinstance(value, onnx.TensorProto):
                        data = value.SerializeToString()
                        counts["tensor_protos"] += 1
                        oracle_msg = value
                    else:
                        theirs = _write(value, info.type, info.name, onh)
                        ours = _write(value, info.type, info.name, nh)
                        data = theirs.SerializeToString()
                        assert ours.encode() == data, (case.name, info.name)
                        counts["written"] += 1
                        oracle_msg = theirs
                    decoded = type(_OURS[type(oracle_msg)]).decode(data)
                    assert_same_value(
                        _strip_nul(_read(decoded, nh)), _read(oracle_msg, onh), case.name
                    )
    assert counts["written"] > 5000 and counts["tensor_protos"] > 400, counts


_OURS = {
    onnx.TensorProto: onnxdata.TensorProto(),
    onnx.SequenceProto: onnxdata.SequenceProto(),
    onnx.MapProto: onnxdata.MapProto(),
    onnx.OptionalProto: onnxdata.OptionalProto(),
}


# --------------------------------------------------------------------------
# any message: onnxdata raises only ValueError/TypeError/OSError, else agrees


def _onnx_gap(message: Any) -> bool:
    """Whether ``message`` uses what onnx cannot read but onnxdata can."""
    if isinstance(message, onnxdata.SparseTensorProto):
        return True
    if isinstance(message, onnxdata.SequenceProto):
        if message.elem_type in (2, 5):
            return True
        children = [*message.sequence_values, *message.map_values, *message.optional_values]
        return any(_onnx_gap(c) for c in children)
    if isinstance(message, onnxdata.MapProto):  # onnx cannot read a map without values
        return not message.HasField("values") or _onnx_gap(message.values)
    if isinstance(message, onnxdata.OptionalProto):
        field = {1: "tensor_value", 2: "sparse_tensor_value", 3: "sequence_value",
                 4: "map_value", 5: "optional_value"}.get(message.elem_type or 0)  # fmt: skip
        if field is None:
            return False
        if not message.HasField(field):
            return True
        return message.elem_type == 2 or _onnx_gap(getattr(message, field))
    return False


@pytest.fixture(scope="module")
def empty_dir(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return tmp_path_factory.mktemp("empty")


@settings(max_examples=ms.scaled(0.5))
@given(message=ms.values())
def test_any_message_contract(empty_dir: Any, message: Any) -> None:
    """Random (mostly invalid) messages: only ValueError/TypeError/OSError, else onnx's result."""
    kind = type(message).__name__
    func = {"TensorProto": "to_array", "SparseTensorProto": "to_array",
            "SequenceProto": "to_list", "MapProto": "to_dict",
            "OptionalProto": "to_optional"}[kind]  # fmt: skip
    with chdir(empty_dir):  # external data reads find nothing here
        try:
            ours = getattr(nh, func)(message)
        except (ValueError, TypeError, OSError):
            return
        if _onnx_gap(message):
            return
        oracle = onnxdata_to_oracle(message)
        theirs = getattr(onh, func)(oracle)
    assert_same_value(_strip_nul(ours), theirs)


def onnxdata_to_oracle(message: Any) -> Any:
    return type(_ORACLE_OF[type(message)]).FromString(message.encode())


_ORACLE_OF = {
    onnxdata.TensorProto: onnx.TensorProto(),
    onnxdata.SequenceProto: onnx.SequenceProto(),
    onnxdata.MapProto: onnx.MapProto(),
    onnxdata.OptionalProto: onnx.OptionalProto(),
}
