"""benchmarks/fuzz_findings.py's machinery: it finds the known divergences of
protobuf's pure-Python backend, finds none in protobuf's upb parser, and
classifies a planted bug by kind and field.

The third-party libraries (betterproto2, pure-protobuf) are not needed: only
protobuf, a test dependency, is fuzzed here.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import onnx

import onnxdata
from benchmarks import fuzz_findings as ff
from tests.support.oracle import ORACLE


def test_pure_python_backend_divergences_are_found(tmp_path: Path) -> None:
    """The mutator loop, run in a subprocess on protobuf's pure-Python backend."""
    result = ff.spawn("protobuf-python", "mutate-empty", 1, 2000, tmp_path)
    causes = result["causes"]
    assert result["executions"] == 2000
    assert (
        "rejects what protobuf accepts: UnicodeDecodeError in decoder._ConvertToUnicode" in causes
    )
    assert "accepts what protobuf rejects: tag is larger than N bits" in causes
    assert all(1 <= k <= 2000 for k in causes.values())
    for cause, example in result["examples"].items():
        name, data = example.split(" ")
        root = next(cls for cls in ff.ROOTS if cls.__name__ == name)
        assert (
            ff.message_check({root: ORACLE[root].FromString})(root, bytes.fromhex(data)) is None
        ), (
            cause  # upb reads each example as the reference does
        )


def test_upb_agrees_with_the_reference_on_mutated_inputs() -> None:
    check = ff.message_check({cls: ORACLE[cls].FromString for cls in ff.ROOTS})
    for structure in (True, False):
        found: dict[str, int] = {}
        causes: dict[str, int] = {}
        ff.guided(check, 7, 1000, True, structure, found, causes)
        assert found == {} and causes == {}


def _through_python_floats(data: bytes) -> onnxdata.TensorProto:
    """The reference reading with every float passed through a Python float."""
    t = onnxdata.TensorProto.decode(data)
    t.float_data = list(t.float_data)  # a signalling NaN turns quiet on the way
    return t


def _without_nested_int32_data(data: bytes) -> Any:
    s = onnx.SequenceProto.FromString(data)
    for t in s.tensor_values:
        t.ClearField("int32_data")
    return s


def test_planted_bugs_are_classified_by_kind_and_field() -> None:
    check = ff.message_check({onnxdata.TensorProto: _through_python_floats})
    quiet = onnxdata.TensorProto(dims=[2], data_type=1, float_data=[1.0, float("nan")])
    assert check(onnxdata.TensorProto, quiet.encode()) is None
    signalling = struct.pack("<f", 1.0) + b"\x01\x00\x80\x7f"  # 1.0 and a signalling NaN
    data = onnxdata.TensorProto(dims=[2], data_type=1, raw_data=b"").encode()
    data = data.replace(b"\x4a\x00", b"\x22\x08" + signalling)  # float_data, packed
    assert check(onnxdata.TensorProto, data) == (
        "float bits of a float field",
        "float bits @ TensorProto.float_data",
    )

    check = ff.message_check({onnxdata.SequenceProto: _without_nested_int32_data})
    tensor = onnxdata.TensorProto(dims=[1], data_type=6, int32_data=[5])
    seq = onnxdata.SequenceProto(elem_type=1, tensor_values=[tensor, tensor])
    assert check(onnxdata.SequenceProto, seq.encode()) == (
        "count of a int32 field",
        "count @ SequenceProto.tensor_values.int32_data",
    )
