"""onnxdata.fuzz.check_parser: it passes for protobuf itself, in each of the
result forms it reads, and it catches planted parser bugs, naming the field."""

from __future__ import annotations

import enum
import math
import os
import random
import re
import struct
import subprocess
import sys
from array import array
from types import SimpleNamespace
from typing import Any

import onnx
import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata._core.schema import spec_of
from onnxdata.fuzz import Disagreement, WrongType, check_parser, mutate
from tests.support.message_strategies import decoder_inputs, messages_of, scaled
from tests.support.oracle import MESSAGE_TYPES, ORACLE
from tests.support.paths import ROOT


def _plain(m: Any) -> Any:
    """A betterproto-like object made from an onnxdata message: every field an
    attribute, unset scalars at their default, unset sub-messages None."""
    out = SimpleNamespace()
    for f in spec_of(type(m)).fields:
        # A singular field's slot (None while unset): its name would give the default.
        value = getattr(m, f.name) if f.repeated else getattr(m, f.slot)
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


def test_an_onnxdata_result_is_compared_with_presence() -> None:
    """Unset and set to the default read the same from an onnxdata message, but only the
    slots (HasField) tell what the parser read: both directions are a Disagreement."""
    unset = onnxdata.TensorProto(dims=[1]).encode()
    zero = onnxdata.TensorProto(dims=[1], data_type=0, name="").encode()

    def sets_data_type_0(data: bytes) -> Any:
        t = onnxdata.TensorProto.decode(data)
        t.data_type = 0
        return t

    def unsets_name(data: bytes) -> Any:
        t = onnxdata.TensorProto.decode(data)
        t.ClearField("name")
        return t

    with pytest.raises(Disagreement, match=r"TensorProto\.data_type: protobuf reads unset, "):
        check_parser(sets_data_type_0, unset)
    with pytest.raises(Disagreement, match=r"TensorProto\.name: protobuf reads b'', the parser "):
        check_parser(unsets_name, zero)
    check_parser(onnxdata.TensorProto.decode, zero)


def test_unset_sub_messages_of_a_recursive_type_end() -> None:
    """A parser that read (not set) every sub-message, nested: the stand-ins it read are unset,
    and an OptionalProto holding itself is walked to its end, not for ever."""
    inner = onnxdata.OptionalProto(elem_type=5, optional_value=onnxdata.OptionalProto())
    data = onnxdata.OptionalProto(elem_type=5, optional_value=inner).encode()

    def reads_everything(data: bytes) -> Any:
        o = onnxdata.OptionalProto.decode(data)
        probe = o
        for _ in range(10):
            assert probe.tensor_value.segment.begin == 0  # a read sets nothing
            probe = probe.optional_value
        return o

    check_parser(reads_everything, data, message=onnxdata.OptionalProto)

    def drops_the_innermost(data: bytes) -> Any:
        o = onnxdata.OptionalProto.decode(data)
        o.optional_value.ClearField("optional_value")  # the empty OptionalProto() inside
        return o

    with pytest.raises(Disagreement, match=r"OptionalProto\.optional_value\.optional_value: "):
        check_parser(drops_the_innermost, data, message=onnxdata.OptionalProto)


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


# -- results of the wrong shape ------------------------------------------------------------
# Each is a Disagreement naming the field, what protobuf reads and what the parser holds:
# never a crash, an allocation the size of an int, or a pass.


def _attributes_with(cls: type, **changes: Any) -> Any:
    """A parser returning the reference reading as attributes, with ``changes`` made."""
    return lambda b: SimpleNamespace(**{**vars(_plain(cls.decode(b))), **changes})


def _dict_with(cls: type, **changes: Any) -> Any:
    return lambda b: {**MessageToDict(ORACLE[cls].FromString(b)), **changes}


def _wrong(parse: Any, data: bytes, cls: type = onnxdata.TensorProto, **kw: Any) -> Disagreement:
    with pytest.raises(Disagreement) as caught:
        check_parser(parse, data, message=cls, **kw)
    assert isinstance(caught.value.parsed, WrongType), str(caught.value)
    return caught.value


@pytest.mark.parametrize("value", [3, 0, -1, 2**31, 2**63 - 1, 2**64 + 5, 2**200])
def test_an_int_in_a_bytes_field_is_not_read_as_bytes(value: int) -> None:
    # betterproto2 reads raw_data with the wrong wire type as a varint (TensorProto 4803)
    exc = _wrong(_attributes_with(onnxdata.TensorProto, raw_data=value), b"")
    assert exc.path == "TensorProto.raw_data" and exc.parsed.value is value
    assert "protobuf reads unset, the parser holds int " in str(exc)
    assert "not a bytes value" in str(exc)
    exc = _wrong(_dict_with(onnxdata.TensorProto, rawData=value), TENSOR.encode())
    assert exc.path == "TensorProto.raw_data"


def test_a_list_in_a_singular_field_is_named() -> None:
    data = onnxdata.TensorProto(data_type=1).encode()
    exc = _wrong(_attributes_with(onnxdata.TensorProto, data_type=[1, 5]), data)
    assert exc.path == "TensorProto.data_type" and exc.reference == 1
    assert "protobuf reads 1, the parser holds list [1, 5], not an int32 value" in str(exc)
    exc = _wrong(_dict_with(onnxdata.TensorProto, dataType=[1]), data)
    assert exc.path == "TensorProto.data_type"


@pytest.mark.parametrize("presence", [None, False, True])
def test_a_number_in_a_message_field_is_not_an_empty_message(presence: bool | None) -> None:
    parse = lambda b: SimpleNamespace(tensor_value=7)  # noqa: E731 - every other field unset
    exc = _wrong(parse, b"", onnxdata.OptionalProto, presence=presence)
    assert exc.path == "OptionalProto.tensor_value"
    assert "protobuf reads unset, the parser holds int 7, not a TensorProto message" in str(exc)
    parse = _dict_with(onnxdata.OptionalProto, tensorValue=7)
    exc = _wrong(parse, b"", onnxdata.OptionalProto, presence=presence)
    assert exc.path == "OptionalProto.tensor_value"


def _tensor_class_without(*dropped: str) -> Any:
    """A protobuf class named TensorProto without some of its fields: a parser that keeps
    those fields as unknown fields."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    full = descriptor_pb2.DescriptorProto()
    onnx.TensorProto.DESCRIPTOR.CopyToProto(full)
    proto = descriptor_pb2.FileDescriptorProto(name="dropped.proto", package="dropped")
    kept = proto.message_type.add(name="TensorProto")
    scalars = [f for f in full.field if f.type not in (f.TYPE_MESSAGE, f.TYPE_ENUM)]
    kept.field.extend(f for f in scalars if f.name not in dropped)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("dropped.TensorProto"))


def test_a_known_field_kept_as_unknown_is_lost_even_when_the_order_is_kept() -> None:
    cls = _tensor_class_without("dims")
    data = onnxdata.TensorProto(dims=[1], data_type=3).encode()  # dims comes first
    assert cls.FromString(data).SerializeToString() == b"\x10\x03\x08\x01"  # dims last
    with pytest.raises(Disagreement) as caught:
        check_parser(cls.FromString, data)
    assert caught.value.path == "TensorProto.dims"
    assert "protobuf reads [1], the parser reads unset" in str(caught.value)


def test_the_pure_python_backend_loses_a_field_behind_an_over_long_tag() -> None:
    """TensorProto 8800011003: dims written with a 2-byte tag, then data_type."""
    script = (
        "import onnx\n"
        "from google.protobuf.internal import api_implementation\n"
        "from onnxdata.fuzz import Disagreement, check_parser\n"
        "assert api_implementation.Type() == 'python'\n"
        "try:\n"
        "    check_parser(onnx.TensorProto.FromString, bytes.fromhex('8800011003'))\n"
        "except Disagreement as exc:\n"
        "    print(exc.path)\n"
    )
    env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "TensorProto.dims"


ROOT = ROOT


class _Location(enum.Enum):  # an enum whose members are not ints
    DEFAULT = 0
    EXTERNAL = 1


WRONG_SHAPES = [
    # (parser, input, path, text of the message)
    (
        _attributes_with(onnxdata.TensorProto, data_type=True),
        b"\x10\x01",
        "TensorProto.data_type",
        "protobuf reads 1, the parser holds bool True, not an int32 value",
    ),
    (
        _attributes_with(onnxdata.TensorProto, data_type=1.0),
        b"\x10\x01",
        "TensorProto.data_type",
        "holds float 1.0, not an int32 value",
    ),
    (
        _attributes_with(onnxdata.TensorProto, float_data=["1.5"]),
        b"\x25\x00\x00\xc0\x3f",
        "TensorProto.float_data[0]",
        "protobuf reads 1.5 (bits 0x3fc00000), the parser holds str '1.5', not a float value",
    ),
    (
        _attributes_with(onnxdata.TensorProto, float_data=b"\x00\x00\xc0\x3f"),
        b"\x25\x00\x00\xc0\x3f",
        "TensorProto.float_data",
        "holds bytes b'\\x00\\x00\\xc0?', not a sequence of float values",
    ),
    (
        _attributes_with(onnxdata.TensorProto, double_data=[10**400]),
        b"",
        "TensorProto.double_data[0]",
        "not a double value (out of its range)",
    ),
    (
        _attributes_with(onnxdata.TensorProto, float_data=[1e39]),
        b"",
        "TensorProto.float_data[0]",
        "protobuf reads nothing there, the parser holds float 1e+39, not a float value (out of",
    ),
    (  # betterproto2 reads the markers of a group as None (TensorProto 0b08050c)
        _attributes_with(onnxdata.TensorProto, dims=[None, 5, None]),
        b"\x0b\x08\x05\x0c",
        "TensorProto.dims[0]",
        "protobuf reads nothing there, the parser holds None, not an int64 value",
    ),
    (
        _attributes_with(onnxdata.TensorProto, dims=[5, None]),
        b"\x08\x05",
        "TensorProto.dims[1]",
        "holds None",
    ),
    (
        _attributes_with(onnxdata.TensorProto, doc_string=5),
        b"",
        "TensorProto.doc_string",
        "holds int 5, not a string value",
    ),
    (
        _attributes_with(onnxdata.TensorProto, raw_data="ab"),
        b"\x4a\x02ab",
        "TensorProto.raw_data",
        "protobuf reads b'ab', the parser holds str 'ab', not a bytes value",
    ),
    (
        _attributes_with(onnxdata.TensorProto, segment={"begin": 1}),
        b"\x1a\x02\x08\x01",
        "TensorProto.segment",
        "the parser holds dict {'begin': 1}, not a TensorProto.Segment message",
    ),
    (
        _attributes_with(onnxdata.TensorProto, segment=onnxdata.StringStringEntryProto()),
        b"",
        "TensorProto.segment",
        "not a TensorProto.Segment message",
    ),
    (
        _attributes_with(onnxdata.TensorProto, external_data=[None]),
        b"",
        "TensorProto.external_data[0]",
        "holds None, not a StringStringEntryProto message",
    ),
    (
        _attributes_with(onnxdata.SequenceProto, tensor_values=onnxdata.TensorProto()),
        b"\x1a\x00",
        "SequenceProto.tensor_values",
        "not a sequence of TensorProto values",
    ),
    (
        _dict_with(onnxdata.TensorProto, rawData="not base64!"),
        b"",
        "TensorProto.raw_data",
        "holds str 'not base64!', not a bytes value (base64)",
    ),
    (
        _dict_with(onnxdata.TensorProto, dims=["12a"]),
        b"\x08\x0c",
        "TensorProto.dims[0]",
        "protobuf reads 12, the parser holds str '12a', not an int64 value",
    ),
    (
        _dict_with(onnxdata.TensorProto, dataLocation="ELSEWHERE"),
        b"\x70\x01",
        "TensorProto.data_location",
        "protobuf reads 1, the parser holds str 'ELSEWHERE', not an enum value",
    ),
    (
        _dict_with(onnxdata.TensorProto, floatData=["one"]),
        b"\x25\x00\x00\x80\x3f",
        "TensorProto.float_data[0]",
        "holds str 'one', not a float value",
    ),
    (
        _dict_with(onnxdata.TensorProto, floatData="NaN"),
        b"",
        "TensorProto.float_data",
        "holds str 'NaN', not a sequence of float values",
    ),
    (
        _dict_with(onnxdata.TensorProto, segment=[]),
        b"",
        "TensorProto.segment",
        "holds list [], not a TensorProto.Segment message",
    ),
    (
        lambda b: None,
        b"",
        "TensorProto",
        "protobuf reads {}, the parser holds None, not a TensorProto message",
    ),
    (
        lambda b: [onnxdata.TensorProto.decode(b)],
        b"",
        "TensorProto",
        "not a TensorProto message",
    ),
]


@pytest.mark.parametrize(("parse", "data", "path", "text"), WRONG_SHAPES,
                         ids=[w[2] + ": " + w[3][:40] for w in WRONG_SHAPES])  # fmt: skip
def test_a_value_of_the_wrong_shape_is_a_disagreement(
    parse: Any, data: bytes, path: str, text: str
) -> None:
    cls = getattr(onnxdata, path.split(".")[0])
    exc = _wrong(parse, data, cls)
    assert exc.path == path
    assert text in str(exc)


def test_what_each_form_takes_is_read() -> None:
    """Enum members, bytearrays, memoryviews, numeric JSON strings and URL-safe base64
    are values, not wrong types."""
    data = onnxdata.TensorProto(data_location=1, raw_data=b"\xfb\xff", dims=[3]).encode()
    check_parser(_attributes_with(onnxdata.TensorProto, data_location=_Location.EXTERNAL), data)
    check_parser(_attributes_with(onnxdata.TensorProto, raw_data=bytearray(b"\xfb\xff")), data)
    check_parser(_attributes_with(onnxdata.TensorProto, raw_data=memoryview(b"\xfb\xff")), data)
    check_parser(_attributes_with(onnxdata.TensorProto, dims=array("q", [3])), data)
    check_parser(_dict_with(onnxdata.TensorProto, rawData="-_8", dataLocation=1), data)
    floats = onnxdata.TensorProto(float_data=[1.5]).encode()
    check_parser(_dict_with(onnxdata.TensorProto, floatData=["1.5"]), floats)
    check_parser(_dict_with(onnxdata.TensorProto, floatData=[1.5]), floats)


# -- any wrong-typed value, anywhere --------------------------------------------------------

_INT_TEXT = re.compile(r"-?[0-9]+")
_NUMBER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_FLOAT_NAMES = {"NaN", "Infinity", "-Infinity"}


def _wrong_values(f: Any, role: str, form: str) -> st.SearchStrategy[Any]:
    """Values that ``f`` cannot hold in ``role`` (root, singular, element, whole) and
    ``form`` (attributes, dict)."""
    kind = "message" if role == "root" else f.kind
    numbers = [st.integers(), st.booleans(), st.floats(), st.complex_numbers(max_magnitude=9)]
    shared = [*numbers, st.text(max_size=4), st.binary(max_size=4)]
    none = [st.none()] if role in ("element", "root") else []
    if role == "whole":
        return st.one_of(*shared, st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))
    if kind == "message":
        maps = [st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)]
        lists = [st.lists(st.integers(), max_size=2)]
        extra = maps if form == "attributes" and role != "root" else []
        return st.one_of(*shared, *lists, *extra, *none)
    lists = [st.lists(st.integers(), max_size=2), *none]
    if kind in ("float", "double"):
        text = st.text(max_size=4)
        if form == "dict":
            text = text.filter(lambda s: s not in _FLOAT_NAMES and not _NUMBER_TEXT.fullmatch(s))
        huge = st.integers(min_value=10**309, max_value=10**330).map(lambda n: -n if n % 2 else n)
        big = [st.floats(min_value=3.5e38, allow_infinity=False)] if kind == "float" else []
        return st.one_of(st.booleans(), st.complex_numbers(max_magnitude=9), huge, *big, text,
                         st.binary(max_size=4), *lists)  # fmt: skip
    if kind == "string":
        return st.one_of(*numbers, *lists)
    if kind == "bytes":
        text = st.text(max_size=4)
        if form == "dict":
            text = text.map(lambda s: s + "!")  # never base64
        return st.one_of(*numbers, text, *lists)
    names = set(f.enum.keys()) if f.enum is not None else set()
    text = st.text(max_size=4)
    if form == "dict":
        text = text.filter(lambda s: s not in names and not _INT_TEXT.fullmatch(s))
    return st.one_of(st.booleans(), st.floats(), st.complex_numbers(max_magnitude=9), text,
                     st.binary(max_size=4), *lists)  # fmt: skip


Slot = tuple[str, Any, Any, Any, str]  # path, container, key, field, role


def _attribute_slots(obj: Any, spec: Any, path: str, out: list[Slot]) -> None:
    for f in spec.fields:
        here = f"{path}.{f.name}"
        value = getattr(obj, f.name)
        if f.repeated:
            out.append((here, obj, f.name, f, "whole"))
            items = list(value)
            if f.kind in ("float", "double") and any(math.isnan(x) for x in items):
                continue  # a list of Python floats would lose a NaN's payload
            setattr(obj, f.name, items)  # a list, whose elements can be replaced
            for k, item in enumerate(items):
                out.append((f"{here}[{k}]", items, k, f, "element"))
                if f.kind == "message":
                    _attribute_slots(item, spec_of(f.message), f"{here}[{k}]", out)
        else:
            out.append((here, obj, f.name, f, "singular"))
            if f.kind == "message" and value is not None:
                _attribute_slots(value, spec_of(f.message), here, out)


def _dict_slots(d: dict[str, Any], spec: Any, path: str, out: list[Slot]) -> None:
    for f in spec.fields:
        here = f"{path}.{f.name}"
        value = d.get(f.json_name)
        out.append((here, d, f.json_name, f, "whole" if f.repeated else "singular"))
        for k, item in enumerate(value if f.repeated and value else []):
            out.append((f"{here}[{k}]", value, k, f, "element"))
            if f.kind == "message":
                _dict_slots(item, spec_of(f.message), f"{here}[{k}]", out)
        if f.kind == "message" and not f.repeated and value is not None:
            _dict_slots(value, spec_of(f.message), here, out)


@settings(max_examples=scaled(0.5))
@given(st.data(), st.sampled_from(MESSAGE_TYPES), st.sampled_from(["attributes", "dict"]))
def test_a_wrong_typed_value_anywhere_is_a_disagreement_at_its_path(
    data: Any, cls: type, form: str
) -> None:
    raw = data.draw(messages_of(cls, max_leaves=3, big=False)).encode()
    name = spec_of(cls).name
    if form == "attributes":
        result = _plain(cls.decode(raw))
        slots: list[Slot] = [(name, None, None, None, "root")]
        _attribute_slots(result, spec_of(cls), name, slots)
    else:
        result = MessageToDict(ORACLE[cls].FromString(raw))
        slots = [(name, None, None, None, "root")]
        _dict_slots(result, spec_of(cls), name, slots)
    path, container, key, f, role = data.draw(st.sampled_from(slots))
    value = data.draw(_wrong_values(f, role, form))
    if role == "root":
        result = value
    elif isinstance(container, (list, dict)):
        container[key] = value
    else:
        setattr(container, key, value)
    with pytest.raises(Disagreement) as caught:
        check_parser(lambda b: result, raw, message=cls)
    assert caught.value.path == path, str(caught.value)
    assert isinstance(caught.value.parsed, WrongType)
    assert caught.value.parsed.value is value
