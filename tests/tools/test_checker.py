"""onnxdata.checker against onnx.checker: the same verdict on generated tensors and
sparse tensors, except where onnx is wrong or looser (each such case is named here)."""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys
from typing import Any

import onnx
import onnx.checker
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata import (
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
    checker,
)
from onnxdata import strategies as valid
from onnxdata._core.schema import spec_of
from onnxdata.checker import ValidationError
from tests.support.message_strategies import scaled
from tests.support.message_strategies import tensors as any_tensors
from tests.support.oracle import to_oracle

DT = TensorProto.DataType
STORAGE = ["float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data"]


def verdicts(check_ours: Any, check_theirs: Any, message: Any) -> tuple[str | None, str | None]:
    """(our error, onnx's error), None for accepted."""
    try:
        check_ours(message)
        ours = None
    except ValidationError as err:
        ours = str(err)
    try:
        check_theirs(to_oracle(message))
        theirs = None
    except onnx.checker.ValidationError as err:
        theirs = str(err)
    return ours, theirs


def documented(t: TensorProto, ours: str | None, theirs: str | None) -> bool:
    """Whether a different verdict is one of the differences docs/compat.md lists."""
    if ours is None:
        if t.HasField("segment"):
            return True  # a segment holds part of the data: onnx counts it against all dims
        # onnx resolves an external tensor's location against the current directory, and
        # refuses a valid one whose file is not there (docs/compat.md); every other
        # difference is onnx accepting what onnxdata refuses
        return (
            t.data_location == TensorProto.EXTERNAL
            and theirs is not None
            and (
                "should be stored in" in theirs
                # onnx's message is a C string: a NUL in the tensor's name ends it there
                or theirs == "Data of TensorProto ( tensor name: " + (t.name or "").split("\0")[0]
            )
        )
    # onnx accepts any surplus of values; the 4- and 2-bit types with too few int32_data
    # values (it asks for one per 4 bytes); BOOL raw_data bytes other than 0 and 1; raw_data
    # of a data_type that is no DataType.
    return theirs is None and (
        "values, but dims" in ours
        or "bytes, but dims" in ours
        or "BOOL raw_data bytes must be 0 or 1" in ours
        or (t.HasField("raw_data") and "is not a TensorProto.DataType" in ours)
    )


def mutate(t: TensorProto, how: str, data: Any) -> TensorProto:
    used = [f for f in STORAGE if len(getattr(t, f))]
    if how == "more":
        if t.raw_data:
            t.raw_data = bytes(t.raw_data) + b"\0"
        elif used:
            values = list(getattr(t, used[0]))
            setattr(t, used[0], values + values[:1])
    elif how == "less":
        if t.raw_data:
            t.raw_data = bytes(t.raw_data)[:-1]
        elif used:
            setattr(t, used[0], list(getattr(t, used[0]))[:-1])
    elif how == "data_type":
        data_type = data.draw(st.sampled_from([None, *range(0, 30)]))
        if data_type is None:
            t.ClearField("data_type")
        else:
            t.data_type = data_type
    elif how == "second_field":
        t.raw_data = b"\0\0\0\0"
    elif how == "dims":
        t.dims = data.draw(st.lists(st.integers(-2, 5), max_size=3))
    elif how == "external":
        t.data_location = TensorProto.EXTERNAL
        loc = data.draw(st.sampled_from(["/abs.bin", "../up.bin", "", None]))
        if loc is not None:
            t.external_data = [StringStringEntryProto(key="location", value=loc)]
    return t


@pytest.mark.parametrize("name", ["w", "\0", "a\0b"])
def test_an_external_tensor_whose_file_is_not_there_is_valid_here(name: str) -> None:
    # docs/compat.md: onnx looks for the file (from the current directory) and
    # refuses the tensor, its message cut at a NUL in the tensor's name.
    t = TensorProto(
        name=name,
        data_type=TensorProto.INT64,
        data_location=TensorProto.EXTERNAL,
        external_data=[StringStringEntryProto(key="location", value="no-such-file.bin")],
    )
    ours, theirs = verdicts(checker.check_tensor, onnx.checker.check_tensor, t)
    assert ours is None and theirs is not None
    assert theirs.startswith("Data of TensorProto ( tensor name: " + name.split("\0")[0])
    assert documented(t, ours, theirs)


@pytest.mark.parametrize("data_type", [29, 30, 1000])
def test_raw_data_of_no_data_type_is_refused_where_onnx_accepts_it(data_type: int) -> None:
    # docs/compat.md: onnx checks data_type only for the typed fields.
    t = TensorProto(data_type=data_type, raw_data=bytes(8))
    ours, theirs = verdicts(checker.check_tensor, onnx.checker.check_tensor, t)
    assert theirs is None
    assert ours == f"TensorProto.data_type: {data_type} is not a TensorProto.DataType (0..28)"
    assert documented(t, ours, theirs)


@settings(max_examples=scaled(1.0))
@given(valid.tensors(), st.sampled_from(["none", "more", "less", "data_type", "second_field",
                                          "dims", "external"]), st.data())  # fmt: skip
def test_check_tensor_agrees_with_onnx_on_valid_and_broken_tensors(
    t: TensorProto, how: str, data: Any
) -> None:
    t = mutate(t, how, data)
    ours, theirs = verdicts(checker.check_tensor, onnx.checker.check_tensor, t)
    if (ours is None) != (theirs is None):
        assert documented(t, ours, theirs), (ours, theirs)


@settings(max_examples=scaled(1.0))
@given(any_tensors(big=False))
def test_check_tensor_agrees_with_onnx_on_arbitrary_tensors(t: TensorProto) -> None:
    if t.data_location == TensorProto.EXTERNAL:
        t.ClearField("data_location")  # onnx would look for the file in the current directory
    if not t.name.isascii():
        t.name = "t"  # onnx fails to decode a name that is not UTF-8 in its own message
    ours, theirs = verdicts(checker.check_tensor, onnx.checker.check_tensor, t)
    if (ours is None) != (theirs is None):
        assert documented(t, ours, theirs), (ours, theirs)


@settings(max_examples=scaled(0.6))
@given(valid.sparse_tensors(), st.sampled_from(["none", "swap", "out", "repeat", "shape"]),
       st.data())  # fmt: skip
def test_check_sparse_tensor_agrees_with_onnx(s: SparseTensorProto, how: str, data: Any) -> None:
    assert s.HasField("indices")
    indices = s.indices
    flat = list(indices.int64_data) or [
        int.from_bytes(bytes(indices.raw_data)[i : i + 8], "little", signed=True)
        for i in range(0, len(indices.raw_data or b""), 8)
    ]
    if how == "swap" and len(flat) >= 2 and flat[0] != flat[-1]:
        flat[0], flat[-1] = flat[-1], flat[0]
    elif how == "out" and flat:
        flat[data.draw(st.integers(0, len(flat) - 1))] = data.draw(
            st.sampled_from([-1, math.prod(s.dims), 1 << 40])
        )
    elif how == "repeat" and len(flat) >= 2:
        flat[1] = flat[0]
    elif how == "shape":
        indices.dims = [len(flat), len(s.dims) + 1]
    indices.int64_data = flat
    indices.ClearField("raw_data")
    ours, theirs = verdicts(checker.check_sparse_tensor, onnx.checker.check_sparse_tensor, s)
    assert (ours is None) == (theirs is None), (ours, theirs)


# -- examples: what each refuses, and how it says it -----------------------------------


def test_a_valid_tensor_passes_and_check_tensor_returns_none() -> None:
    t = TensorProto(name="t", data_type=DT.FLOAT, dims=[2, 3], float_data=[1.0] * 6)
    assert checker.check_tensor(t) is None
    assert checker.check_tensor(to_oracle(t)) is None  # onnx's message, through its bytes


def test_validation_error_lists_every_broken_rule() -> None:
    t = TensorProto(name="t", dims=[-1], float_data=[1.0])
    with pytest.raises(ValidationError) as err:
        checker.check_tensor(t)
    assert isinstance(err.value, ValueError)
    text = str(err.value)
    assert "Field 'data_type' of 'tensor' is required but missing." in text
    assert "TensorProto.dims[0]: -1 is negative" in text
    assert len(err.value.violations) == len(text.splitlines())


@pytest.mark.parametrize("data_type", [None, DT.UNDEFINED])
def test_a_tensor_needs_a_data_type(data_type: Any) -> None:
    with pytest.raises(ValidationError, match="data_type"):
        checker.check_tensor(TensorProto(name="t", data_type=data_type))
    with pytest.raises(onnx.checker.ValidationError, match="data_type"):
        onnx.checker.check_tensor(to_oracle(TensorProto(name="t", data_type=data_type)))


@pytest.mark.parametrize(
    ("t", "match"),
    [
        (TensorProto(data_type=DT.STRING, dims=[1], raw_data=b"Test"), "not allowed"),
        (TensorProto(data_type=DT.INT32, dims=[1], float_data=[1.0]), "not allowed"),
        (TensorProto(data_type=DT.FLOAT, dims=[2, 3], raw_data=bytes(23)), "23 bytes"),
        (TensorProto(data_type=DT.FLOAT, dims=[2**62, 2**62], raw_data=b"\0"), "product overflow"),
        (TensorProto(data_type=DT.COMPLEX64, dims=[3], float_data=[0.0] * 5), "need 6"),
        (TensorProto(data_type=DT.UINT64, dims=[4], uint64_data=[0] * 3), "need 4"),
        (TensorProto(data_type=DT.FLOAT, dims=[0], float_data=[1.0]), "need 0"),
        (TensorProto(data_type=DT.FLOAT6E2M3, dims=[1], raw_data=b"\xc0"), "padding bits"),
    ],
)
def test_broken_tensors_are_refused_by_both(t: TensorProto, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        checker.check_tensor(t)
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_tensor(to_oracle(t))


def test_an_int4_tensor_with_too_few_int32_values_is_refused_where_onnx_accepts_it() -> None:
    # 10 INT4 values take 5 bytes, one per int32_data value as make_tensor writes them;
    # onnx asks for ceil(10 / 8) = 2 values and accepts a tensor missing 6 of its values.
    t = TensorProto(name="t", data_type=DT.INT4, dims=[10], int32_data=[0, 0])
    onnx.checker.check_tensor(to_oracle(t))
    with pytest.raises(ValidationError, match="2 values, but dims \\[10\\] of INT4 need 5"):
        checker.check_tensor(t)
    checker.check_tensor(TensorProto(name="t", data_type=DT.INT4, dims=[10], int32_data=[0] * 5))


def test_external_tensors_are_judged_without_the_file_system() -> None:
    def ext(location: str, **kw: Any) -> TensorProto:
        return TensorProto(
            name="w", data_type=DT.FLOAT, dims=[2], data_location=TensorProto.EXTERNAL,
            external_data=[StringStringEntryProto(key="location", value=location)], **kw,
        )  # fmt: skip

    checker.check_tensor(ext("no-such-file-here.bin"))  # onnx looks in the current directory
    for bad in ("/etc/passwd", "../w.bin", "C:\\w.bin"):
        with pytest.raises(ValidationError, match="Location of external tensor"):
            checker.check_tensor(ext(bad))
    with pytest.raises(ValidationError, match="must not be in the message too: raw_data"):
        checker.check_tensor(ext("w.bin", raw_data=bytes(8)))
    with pytest.raises(ValidationError, match="no non-empty 'location'"):
        checker.check_tensor(TensorProto(data_type=DT.FLOAT, data_location=TensorProto.EXTERNAL))


def sparse(dims: list[int], idims: list[int], idx: list[int]) -> SparseTensorProto:
    nnz = idims[0]
    return SparseTensorProto(
        dims=dims,
        values=TensorProto(name="v", data_type=DT.INT64, dims=[nnz], int64_data=list(range(nnz))),
        indices=TensorProto(name="i", data_type=DT.INT64, dims=idims, int64_data=idx),
    )


@pytest.mark.parametrize(
    ("s", "ok"),
    [
        (sparse([100], [3], [9, 27, 81]), True),
        (sparse([100], [3], [9, 27, 181]), False),  # out of range
        (sparse([100], [3], [27, 9, 81]), False),  # not ascending
        (sparse([100], [3], [9, 9, 81]), False),  # repeated
        (sparse([10, 10], [3, 2], [0, 9, 2, 7, 8, 1]), True),  # COO
        (sparse([10, 10], [3, 2], [0, 9, 0, 27, 8, 1]), False),
        (sparse([10, 10], [3, 2], [2, 7, 0, 9, 8, 1]), False),
        (sparse([10, 10], [2, 3], [0, 9, 2, 7, 8, 1]), False),
        (sparse([10, 10], [3, 1], [0, 1, 2]), False),
        (sparse([], [0], []), False),  # dense rank 0
        (sparse([4, 0], [0], []), False),  # a dim that is not positive
        (SparseTensorProto(dims=[4]), False),  # no values
    ],
)
def test_check_sparse_tensor_examples_agree_with_onnx(s: SparseTensorProto, ok: bool) -> None:
    ours, theirs = verdicts(checker.check_sparse_tensor, onnx.checker.check_sparse_tensor, s)
    assert (ours is None, theirs is None) == (ok, ok), (ours, theirs)


def test_sequences_maps_and_optionals_are_checked_inside() -> None:
    good = TensorProto(name="t", data_type=DT.FLOAT, dims=[1], float_data=[1.0])
    checker.check_sequence(SequenceProto(elem_type=1, tensor_values=[good]))
    with pytest.raises(ValidationError, match="elem_type"):
        checker.check_sequence(SequenceProto(tensor_values=[good]))
    with pytest.raises(ValidationError, match=r"tensor_values\[0\].data_type"):
        checker.check_sequence(SequenceProto(elem_type=1, tensor_values=[TensorProto(name="x")]))
    values = SequenceProto(elem_type=1, tensor_values=[good])
    keys = MapProto(key_type=DT.INT64, keys=[1], values=values)
    checker.check_map(keys)
    with pytest.raises(ValidationError, match="1 keys but 0 values"):
        checker.check_map(MapProto(key_type=DT.INT64, keys=[1], values=SequenceProto(elem_type=1)))
    with pytest.raises(ValidationError, match="'values' of 'map' is required"):
        checker.check_map(MapProto(key_type=DT.INT64))
    checker.check_optional(OptionalProto(elem_type=0))
    checker.check_optional(OptionalProto(elem_type=1, tensor_value=good))
    with pytest.raises(ValidationError, match="elem_type"):
        checker.check_optional(OptionalProto(elem_type=6))
    with pytest.raises(ValidationError, match="not have a valid element type"):
        checker.check_sequence(SequenceProto(elem_type=0))


def test_the_wrong_message_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="TensorProto"):
        checker.check_tensor(SparseTensorProto())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="SparseTensorProto"):
        checker.check_sparse_tensor(onnx.TensorProto())  # type: ignore[arg-type]


CHECKS = {
    TensorProto: checker.check_tensor,
    SparseTensorProto: checker.check_sparse_tensor,
    SequenceProto: checker.check_sequence,
    MapProto: checker.check_map,
    OptionalProto: checker.check_optional,
}
WRONG = [object(), "text", "\ud800", b"b", 1.5, True, -1, 2**64, [None], [[1]], ["a"], {"a": 1},
         5, TensorProto(), SequenceProto(), None, []]  # fmt: skip


@pytest.mark.parametrize("cls", list(CHECKS), ids=lambda c: c.__name__)
def test_a_wrong_value_in_any_field_is_a_validation_error_never_a_crash(cls: type) -> None:
    for f in spec_of(cls).fields:
        for value in WRONG:
            message = cls()
            try:
                setattr(message, f.name, value)
            except TypeError:
                # protobuf's rule: None is no value for a scalar (ClearField unsets it)
                assert value is None and not f.repeated and f.kind != "message"
                continue
            try:
                message.encode()
            except (TypeError, ValueError, OverflowError):
                with pytest.raises(ValidationError):  # what cannot be encoded is never valid
                    CHECKS[cls](message)
                continue
            with contextlib.suppress(ValidationError):
                CHECKS[cls](message)


def test_the_onnx_modules_are_attributes_after_import_onnxdata_alone() -> None:
    code = (
        "import onnxdata, sys\n"
        "assert 'onnxdata.checker' not in sys.modules\n"
        "onnxdata.checker.check_tensor(onnxdata.TensorProto(data_type=1, dims=[0]))\n"
        "assert onnxdata.serialization.registry.get('protobuf')\n"
        "assert onnxdata.external_data_helper.uses_external_data(onnxdata.TensorProto()) is False\n"
        "try:\n    onnxdata.no_such_module\nexcept AttributeError:\n    pass\n"
        "else:\n    raise AssertionError\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
