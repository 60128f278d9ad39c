"""A self-contained check of onnxdata, run inside Pyodide and on CPython.

    python tests/pyodide/check.py DATA_DIR

It needs only the standard library and ``onnxdata`` on ``sys.path``.  It
checks golden encodings byte for byte, decodes and re-encodes the sample
``.pb`` files, feeds inputs that must raise ``DecodeError``, and times a
decode and an encode.  Any failure raises; on success the last line printed
is ``RESULT {json}`` with the counts and the timings (which are only reported,
never asserted).  ``tests/package/test_pyodide.py`` runs it in both interpreters.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from array import array
from pathlib import Path

import onnxdata
from onnxdata import (
    DecodeError,
    MapProto,
    ModelProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)

# The sample files in tests/data and the message each holds (see make_samples.py).
SAMPLES = {
    "onnx_float_1x1000.pb": TensorProto,
    "onnx_double_named.pb": TensorProto,
    "onnx_int64_shape.pb": TensorProto,
    "onnx_string_tensor.pb": TensorProto,
    "tensor_all_fields.pb": TensorProto,
    "sequence_of_tensors.pb": SequenceProto,
    "map_int64_keys.pb": MapProto,
    "map_string_keys.pb": MapProto,
    "optional_sequence.pb": OptionalProto,
    "sparse_tensor.pb": SparseTensorProto,
    "model_if_subgraph.onnx": ModelProto,
}


class CheckError(AssertionError):
    pass


def _expect(cond: bool, what: str) -> None:
    if not cond:
        raise CheckError(what)


def _golden() -> list[tuple[str, object, str]]:
    """(name, message, protobuf's encoding in hex), the hex written by protobuf 7.36 (upb)."""
    t = TensorProto
    return [
        ("float_data", t(dims=[2, 3], data_type=t.FLOAT, float_data=[1.0, -2.5]),
         "08020803100122080000803f000020c0"),
        ("int64_negative", t(name="x", data_type=t.INT64, int64_data=[-1]),
         "10073a0affffffffffffffffff01420178"),
        ("int32_negative", t(data_type=t.INT32, int32_data=[-1, 300]),
         "10062a0cffffffffffffffffff01ac02"),
        ("string_data", t(data_type=t.STRING, dims=[2], string_data=[b"a", b""]),
         "080210083201613200"),
        ("double_uint64", t(double_data=[0.1], uint64_data=[2**64 - 1]),
         "52089a9999999999b93f5a0affffffffffffffffff01"),
        ("external_data", t(
            data_location=t.EXTERNAL,
            external_data=[StringStringEntryProto(key="location", value="w.bin")],
        ), "6a110a086c6f636174696f6e1205772e62696e7001"),
        ("sequence", SequenceProto(
            name="s",
            elem_type=SequenceProto.TENSOR,
            tensor_values=[t(data_type=t.FLOAT, raw_data=b"\x00\x00\x80\x3f")],
        ), "0a017310011a0810014a040000803f"),
        ("map", MapProto(key_type=t.INT64, keys=[1, 300], values=SequenceProto(elem_type=1)),
         "1007180118ac022a021001"),
        ("optional_empty_tensor", OptionalProto(elem_type=1, tensor_value=t()), "10011a00"),
        ("sparse", SparseTensorProto(
            values=t(data_type=t.FLOAT, dims=[1], float_data=[0.5]),
            indices=t(data_type=t.INT64, dims=[1], int64_data=[3]),
            dims=[4],
        ), "0a0a0801100122040000003f1207080110073a01031804"),
    ]  # fmt: skip


def check_golden() -> int:
    n = 0
    for name, msg, hexed in _golden():
        want = bytes.fromhex(hexed)
        got = msg.encode()  # type: ignore[attr-defined]
        _expect(got == want, f"golden {name}: encoded {got.hex()}, expected {hexed}")
        back = type(msg).decode(want)
        _expect(back == msg, f"golden {name}: decoded {back!r} != {msg!r}")
        _expect(back.encode() == want, f"golden {name}: re-encoding differs")
        n += 1
    # Unknown fields survive, after the known ones.
    raw = bytes.fromhex("f8070108021001")  # field 127 = 1, then dims = 2, data_type = 1
    t = TensorProto.decode(raw)
    _expect(t.unknown_fields == bytes.fromhex("f80701"), "unknown field not kept")
    _expect(t.encode() == bytes.fromhex("08021001f80701"), "unknown field not written last")
    return n + 1


def check_samples(data_dir: Path) -> int:
    for name, cls in SAMPLES.items():
        data = (data_dir / name).read_bytes()
        msg = cls.decode(data)
        _expect(msg.encode() == data, f"{name}: decode -> encode changed the bytes")
        _expect(cls.decode(memoryview(data)) == msg, f"{name}: memoryview decode differs")
    f = TensorProto.decode((data_dir / "onnx_float_1x1000.pb").read_bytes())
    _expect(list(f.dims) == [1, 1000] and len(f.raw_data or b"") == 4000, "float sample fields")
    model = ModelProto.decode((data_dir / "model_if_subgraph.onnx").read_bytes())
    node = model.graph.node[0]
    _expect(node.op_type == "If" and node.attribute[1].name == "then_branch", "model: the If node")
    _expect(node.attribute[1].g.node[0].op_type == "Identity", "model: the subgraph's node")
    _expect(list(model.graph.node[2].attribute[0].floats) == [0.5, -1.5], "model: unpacked floats")
    dim = model.graph.output[0].type.tensor_type.shape.dim[1]
    _expect(dim.WhichOneof("value") == "dim_param" and dim.dim_param == "n", "model: a oneof")
    return len(SAMPLES)


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _nested_sequences(levels: int) -> bytes:
    """A SequenceProto with ``levels`` SequenceProto levels below it (field 5)."""
    payload = b""
    for _ in range(levels):
        payload = b"\x2a" + _varint(len(payload)) + payload
    return payload


def check_bad_inputs(data_dir: Path) -> int:
    bad: list[tuple[str, type, bytes]] = [
        ("truncated length-delimited field", TensorProto, b"\x4a\x05ab"),
        ("truncated varint", TensorProto, b"\x08\x80"),
        ("truncated tag", TensorProto, b"\x80"),
        ("truncated fixed32 in packed float_data", TensorProto, b"\x22\x03\x00\x00\x80"),
        ("11-byte varint", TensorProto, b"\x08" + b"\x80" * 10 + b"\x00"),
        ("wire type 7", TensorProto, b"\x0f"),
        ("wire type 6", SequenceProto, b"\x0e"),
        ("field number 0", MapProto, b"\x00\x01"),
        ("depth 102", SequenceProto, _nested_sequences(101)),
        ("truncated sample", SequenceProto,
         (data_dir / "sequence_of_tensors.pb").read_bytes()[:-3]),
        ("truncated model", ModelProto,
         (data_dir / "model_if_subgraph.onnx").read_bytes()[:-7]),
    ]  # fmt: skip
    for name, cls, data in bad:
        try:
            cls.decode(data)
        except DecodeError as err:
            _expect(isinstance(err, ValueError), f"{name}: DecodeError is not a ValueError")
            _expect(isinstance(err.offset, int), f"{name}: no offset")
            _expect(str(err).startswith(str(err.path)), f"{name}: message lacks the path")
        else:
            raise CheckError(f"{name}: decoded without DecodeError")
    # One level less is the deepest nesting protobuf accepts: 101 messages.
    deep = SequenceProto.decode(_nested_sequences(100))
    _expect(deep.encode() == _nested_sequences(100), "depth 101 round trip")
    # Every prefix of every small sample either decodes or raises DecodeError
    # (and most raise: only cuts between top-level fields decode).
    prefixes = 0
    for name, cls in SAMPLES.items():
        data = (data_dir / name).read_bytes()
        if len(data) > 200:
            continue
        for i in range(len(data)):
            try:
                cls.decode(data[:i])
            except DecodeError:
                prefixes += 1
    _expect(prefixes > 500, f"only {prefixes} truncations were rejected")
    return len(bad) + prefixes


def _best(fn: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best


def timings(repeat: int = 5) -> dict[str, dict[str, float]]:
    """Best-of-``repeat`` decode and encode times in milliseconds."""
    floats = TensorProto(
        dims=[100_000], data_type=TensorProto.FLOAT, float_data=array("f", range(100_000))
    )
    seq = SequenceProto(
        elem_type=SequenceProto.TENSOR,
        tensor_values=[
            TensorProto(name=f"t{i}", dims=[2, 3], data_type=TensorProto.INT64,
                        int64_data=list(range(i, i + 6)))
            for i in range(1000)
        ],
    )  # fmt: skip
    out: dict[str, dict[str, float]] = {}
    for label, msg in (("tensor_100k_float_data", floats), ("sequence_1000_tensors", seq)):
        data = msg.encode()
        cls = type(msg)
        out[label] = {
            "bytes": len(data),
            "decode_ms": round(_best(lambda: cls.decode(data), repeat) * 1e3, 3),  # noqa: B023
            "encode_ms": round(_best(msg.encode, repeat) * 1e3, 3),
        }
    return out


def main(argv: list[str]) -> dict[str, object]:
    data_dir = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "data"
    result: dict[str, object] = {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": sys.platform,
        "onnxdata": onnxdata.__version__,
        "onnxdata_file": onnxdata.__file__,
        "golden": check_golden(),
        "samples": check_samples(data_dir),
        "bad_inputs": check_bad_inputs(data_dir),
        "timing": timings(),
    }
    print("RESULT " + json.dumps(result, sort_keys=True))
    return result


if __name__ == "__main__":
    main(sys.argv)
