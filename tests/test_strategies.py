"""onnxdata.strategies: valid messages pass check(); wire pairs decode as stated, as the oracle."""

from __future__ import annotations

import subprocess
import sys

import onnx
import pytest
from google.protobuf.message import DecodeError as OracleDecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import DecodeError, TensorProto, check
from onnxdata import strategies as ods

ORACLE = {
    onnxdata.TensorProto: onnx.TensorProto,
    onnxdata.SparseTensorProto: onnx.SparseTensorProto,
    onnxdata.SequenceProto: onnx.SequenceProto,
    onnxdata.MapProto: onnx.MapProto,
    onnxdata.OptionalProto: onnx.OptionalProto,
}
FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize(
    "strategy",
    [
        ods.tensors(),
        ods.tensors(storage="raw"),
        ods.tensors(storage="typed"),
        ods.sparse_tensors(),
        ods.sequences(),
        ods.maps(),
        ods.optionals(),
        ods.messages(),
    ],
    ids=["tensors", "raw", "typed", "sparse", "sequences", "maps", "optionals", "messages"],
)
def test_valid_strategies_pass_check(strategy: st.SearchStrategy[onnxdata.Message]) -> None:
    @FAST
    @given(strategy)
    def valid(msg: onnxdata.Message) -> None:
        assert check(msg) == [], [str(v) for v in check(msg)]
        data = msg.encode()
        assert ORACLE[type(msg)].FromString(data).SerializeToString() == data

    valid()


@pytest.mark.parametrize("dtype", list(TensorProto.DataType)[1:])
def test_every_dtype_and_storage(dtype: int) -> None:
    storages = ["typed"] if dtype == TensorProto.STRING else ["raw", "typed"]

    @settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(storages).flatmap(lambda s: ods.tensors(dtype=dtype, storage=s)))
    def valid(t: TensorProto) -> None:
        assert t.data_type == dtype
        assert check(t) == []

    valid()


@pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")
def test_fixed_shape_and_bad_arguments() -> None:
    @settings(max_examples=5, deadline=None)
    @given(ods.tensors(dtype=TensorProto.INT4, shape=(3, 1), storage="typed"))
    def shaped(t: TensorProto) -> None:
        assert list(t.dims) == [3, 1] and len(t.int32_data) == 2

    shaped()
    with pytest.raises(ValueError):
        ods.tensors(dtype=TensorProto.STRING, storage="raw").example()
    with pytest.raises(ValueError):
        ods.tensors(storage="packed").example()


@FAST
@given(ods.noncanonical_encodings())
def test_noncanonical_pairs_decode_as_stated(pair: tuple[onnxdata.Message, bytes]) -> None:
    msg, data = pair
    cls = type(msg)
    assert cls.decode(data) == msg
    oracle = ORACLE[cls].FromString(data)
    assert oracle.SerializeToString() == msg.encode()


@FAST
@given(ods.malformed_encodings())
def test_malformed_are_rejected_by_both(case: tuple[type[onnxdata.Message], bytes, str]) -> None:
    cls, data, defect = case
    with pytest.raises(DecodeError):
        cls.decode(data)
    with pytest.raises(OracleDecodeError):
        ORACLE[cls].FromString(data)
    assert defect


def test_import_without_hypothesis_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "try:\n    import onnxdata.strategies\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "onnxdata[fuzz]" in out
