"""onnxdata.fuzz.check_parser: it passes for protobuf itself, in each of the
result forms it reads, and it catches planted parser bugs, naming the field."""

from __future__ import annotations

import math
import random
import struct
from types import SimpleNamespace
from typing import Any

import onnx
import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st
from message_strategies import decoder_inputs, messages_of, scaled
from oracle import MESSAGE_TYPES, ORACLE

import onnxdata
from onnxdata._schema import spec_of
from onnxdata.fuzz import Disagreement, check_parser, mutate


def _plain(m: Any) -> Any:
    """A betterproto-like object made from an onnxdata message: every field an
    attribute, unset scalars at their default, unset sub-messages None."""
    out = SimpleNamespace()
    for f in spec_of(type(m)).fields:
        value = getattr(m, f.name)
        if f.kind == "message":
            value = (
                [_plain(v) for v in value]
                if f.repeated
                else None
                if value is None
                else _plain(value)
            )
        elif value is None:
            value = {"string": "", "bytes": b"", "float": 0.0, "double": 0.0}.get(f.kind, 0)
        setattr(out, f.name, value)
    return out


def _parsers(cls: type) -> dict[str, Any]:
    oracle = ORACLE[cls]
    return {
        "protobuf message": oracle.FromString,
        "onnxdata message": cls.decode,
        "MessageToDict": lambda b: MessageToDict(oracle.FromString(b)),
        "MessageToDict, proto names": lambda b: MessageToDict(
            oracle.FromString(b), preserving_proto_field_name=True
        ),
        "attributes": lambda b: _plain(cls.decode(b)),
    }


@settings(max_examples=scaled(0.3))
@given(st.data(), st.sampled_from(MESSAGE_TYPES))
def test_protobuf_itself_passes_in_every_result_form(data: Any, cls: type) -> None:
    raw = data.draw(decoder_inputs(cls))
    for parse in _parsers(cls).values():
        check_parser(parse, raw, message=cls)


@settings(max_examples=scaled(0.2))
@given(st.data(), st.sampled_from(MESSAGE_TYPES))
def test_protobuf_itself_passes_on_valid_messages(data: Any, cls: type) -> None:
    raw = data.draw(messages_of(cls, max_leaves=4, big=False)).encode()
    for parse in _parsers(cls).values():
        check_parser(parse, raw, message=cls)


def test_protobuf_itself_passes_on_mutated_inputs() -> None:
    for cls in MESSAGE_TYPES:
        data = b""
        for seed in range(150):
            out = mutate(data, 2048, seed, message=cls)
            for parse in _parsers(cls).values():
                check_parser(parse, out, message=cls)
            try:
                cls.decode(out)
                data = out
            except onnxdata.DecodeError:
                pass


# -- planted bugs ----------------------------------------------------------------------


def _drops_doc_string(data: bytes) -> Any:
    m = onnx.TensorProto.FromString(data)
    m.ClearField("doc_string")
    return m


def _accepts_truncated_varint(data: bytes) -> Any:
    try:
        return onnx.TensorProto.FromString(data)
    except Exception:
        if data and data[-1] & 0x80:  # read a varint cut short as if it ended there
            return onnx.TensorProto.FromString(data[:-1] + bytes([data[-1] & 0x7F]))
        raise


def _loses_negative_zero(data: bytes) -> Any:
    m = onnx.TensorProto.FromString(data)
    m.float_data[:] = [0.0 if x == 0 else x for x in m.float_data]
    return m


def _loses_presence_of_data_type_0(data: bytes) -> Any:
    m = onnx.TensorProto.FromString(data)
    if m.HasField("data_type") and m.data_type == 0:
        m.ClearField("data_type")
    return m


TENSOR = onnxdata.TensorProto(dims=[2], data_type=1, float_data=[-0.0, 1.0], doc_string="d")

PLANTED = [
    (_drops_doc_string, TENSOR.encode(), "TensorProto.doc_string", "b'd'"),
    (_accepts_truncated_varint, TENSOR.encode() + b"\x08\x96", "", "accepted bytes"),
    (_loses_negative_zero, TENSOR.encode(), "TensorProto.float_data[0]", "0x80000000"),
    (
        _loses_presence_of_data_type_0,
        onnxdata.TensorProto(data_type=0).encode(),
        "TensorProto.data_type",
        "parser reads unset",
    ),
]


@pytest.mark.parametrize(
    ("parse", "data", "path", "shown"), PLANTED, ids=lambda p: getattr(p, "__name__", "")
)
def test_a_planted_bug_is_caught_and_named(parse: Any, data: bytes, path: str, shown: str) -> None:
    with pytest.raises(Disagreement) as caught:
        check_parser(parse, data)
    assert caught.value.path == path
    assert path in str(caught.value) and shown in str(caught.value)
    assert caught.value.data == data


@pytest.mark.parametrize("parse", [p[0] for p in PLANTED], ids=lambda p: p.__name__)
def test_the_mutator_finds_each_planted_bug_from_an_empty_input(parse: Any) -> None:
    rng = random.Random(0)
    corpus = [b""]
    for seed in range(3000):
        out = mutate(rng.choice(corpus), 1024, seed)
        try:
            check_parser(parse, out)
        except Disagreement:
            return
        try:
            onnxdata.TensorProto.decode(out)
            corpus.append(out)
        except onnxdata.DecodeError:
            pass
    pytest.fail(f"{parse.__name__} not found in 3000 mutations")


def test_a_bug_deep_inside_is_named_by_its_path() -> None:
    def drops_nested_doc(data: bytes) -> Any:
        m = onnx.SequenceProto.FromString(data)
        for t in m.tensor_values:
            t.ClearField("doc_string")
        return m

    seq = onnxdata.SequenceProto(
        elem_type=1, tensor_values=[onnxdata.TensorProto(), onnxdata.TensorProto(doc_string="x")]
    )
    with pytest.raises(Disagreement, match=r"SequenceProto\.tensor_values\[1\]\.doc_string"):
        check_parser(drops_nested_doc, seq.encode(), message=onnxdata.SequenceProto)


def test_rejecting_valid_bytes_is_a_disagreement() -> None:
    def refuses(data: bytes) -> Any:
        raise ValueError("no")

    with pytest.raises(Disagreement, match=r"rejected bytes protobuf accepts.*ValueError: no"):
        check_parser(refuses, TENSOR.encode())
    check_parser(refuses, b"\x08")  # both reject


def test_a_nan_payload_is_compared_by_its_bits() -> None:
    data = b"\x25" + struct.pack("<I", 0x7FC00001)  # float_data = [NaN with payload 1]

    def quiet(data: bytes) -> Any:
        m = onnx.TensorProto.FromString(data)
        m.float_data[:] = [math.nan for _ in m.float_data]
        return m

    with pytest.raises(Disagreement, match=r"float_data\[0\].*0x7fc00001.*0x7fc00000"):
        check_parser(quiet, data)
    # a dict carries no payload: any NaN matches
    check_parser(lambda b: MessageToDict(onnx.TensorProto.FromString(b)), data)


def test_a_dict_is_compared_with_presence_and_negative_zero() -> None:
    def dict_without_data_type(data: bytes) -> Any:
        d = MessageToDict(onnx.TensorProto.FromString(data))
        d.pop("dataType", None)
        return d

    with pytest.raises(Disagreement, match=r"TensorProto\.data_type"):
        check_parser(dict_without_data_type, onnxdata.TensorProto(data_type=0).encode())

    def dict_positive_zero(data: bytes) -> Any:
        d = MessageToDict(onnx.TensorProto.FromString(data))
        d["floatData"] = [abs(x) if isinstance(x, float) else x for x in d.get("floatData", [])]
        return d

    with pytest.raises(Disagreement, match=r"float_data\[0\]"):
        check_parser(dict_positive_zero, TENSOR.encode())


def test_attributes_compare_presence_only_when_asked() -> None:
    data = onnxdata.TensorProto(data_type=0).encode()
    parse = lambda b: _plain(onnxdata.TensorProto.decode(b))  # noqa: E731
    check_parser(parse, data)  # 0 counts as unset or set to 0
    changed = lambda b: SimpleNamespace(**{**vars(parse(b)), "data_type": 3})  # noqa: E731
    with pytest.raises(Disagreement, match=r"TensorProto\.data_type"):
        check_parser(changed, data)


def test_bad_arguments_raise_type_error() -> None:
    with pytest.raises(TypeError):
        check_parser(onnx.TensorProto.FromString, b"", message=onnx.TensorProto)
    with pytest.raises(TypeError):
        check_parser(onnxdata.MapProto.decode, b"")  # an onnxdata message of another type
    with pytest.raises(TypeError, match=r"onnx\.MapProto, not a TensorProto"):
        check_parser(onnx.MapProto.FromString, b"")  # a protobuf message of another type
    with pytest.raises(TypeError):
        check_parser(onnx.TensorProto.FromString, "text")  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: spec_of(c).name)
def test_every_message_type_passes_for_its_own_decoder(cls: type) -> None:
    check_parser(cls.decode, cls().encode(), message=cls)
