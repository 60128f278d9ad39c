"""onnxdata.json_format writes and reads exactly what google.protobuf.json_format does.

Each property draws a message of every type, takes protobuf's own (upb) message
of the same bytes, and compares: the JSON text and dict for each combination of
options, the message read back from protobuf's JSON (into an empty message and
into one already holding fields), and whether mutated JSON is accepted (to the
same bytes) or refused.
"""

from __future__ import annotations

import copy
import json
import math
import pathlib
import random
import struct
from typing import Any

import onnx
import pytest
from google.protobuf import json_format as pb
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import json_format
from tests.support import message_strategies as ms
from tests.support.oracle import MESSAGE_TYPES, ORACLE
from tests.support.outcomes import outcome
from tests.support.paths import DATA

DATA = DATA
SAMPLES = sorted(DATA.glob("*.pb"))
IDS = [c._SPEC.name for c in MESSAGE_TYPES]
FLOAT32_MAX = "3.4028235e+38"
FLOAT32_MAX_DOUBLE = 3.4028234663852886e38

json_options = st.fixed_dictionaries(
    {
        "preserving_proto_field_name": st.booleans(),
        "indent": st.sampled_from([None, 0, 2, 4]),
        "sort_keys": st.booleans(),
        "use_integers_for_enums": st.booleans(),
        "ensure_ascii": st.booleans(),
        "always_print_fields_with_no_presence": st.booleans(),
        "unquote_int64_if_possible": st.booleans(),
    }
)


def oracle_of(m: Any) -> Any:
    return ORACLE[type(m)].FromString(m.encode())


def has_raw_bytes_in_strings(m: Any) -> bool:
    """A string field holds non-UTF-8 bytes: protobuf writes the repr of bytes for it."""
    return "\\udc" in repr(m)  # repr() shows a lone surrogate as an escape


def parsed(parse: Any, text: Any, message: Any, **kwargs: Any) -> tuple[str, Any]:
    """The outcome of one parser: the bytes it parsed to, or the error's text (None for a
    lone surrogate, where upb's own lookup fails with a SystemError's text)."""
    lone = "\\ud8" in ascii(text) or "\\udc" in ascii(text)
    return outcome(
        lambda: parse(text, message, **kwargs),
        (pb.ParseError, json_format.ParseError),
        value=lambda _: message.SerializeToString(),
        error=lambda err: None if lone else str(err),
    )


def both(text: Any, cls: type, start: Any = None, oracle_text: Any = None, **kwargs: Any) -> None:
    """Both parsers accept ``text`` (into a copy of ``start``) to the same bytes, or both
    refuse; the oracle reads ``oracle_text`` instead when given."""
    mine = cls() if start is None else cls.decode(start.encode())
    theirs = ORACLE[cls]() if start is None else oracle_of(start)
    expected = parsed(pb.Parse, text if oracle_text is None else oracle_text, theirs, **kwargs)
    got = parsed(json_format.Parse, text, mine, **kwargs)
    assert got == expected, text


# -- writing -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=IDS)
@settings(max_examples=ms.scaled(0.2))
@given(data=st.data())
def test_message_to_json_is_protobufs_for_every_option(cls: type, data: Any) -> None:
    m = data.draw(ms.messages_of(cls, max_leaves=3, big=False))
    if has_raw_bytes_in_strings(m):
        return
    kwargs = data.draw(json_options)
    o = oracle_of(m)
    expected = pb.MessageToJson(o, **kwargs)
    assert json_format.MessageToJson(m, **kwargs) == expected
    assert json_format.MessageToJson(cls.decode(m.encode()), **kwargs) == expected
    assert json_format.MessageToJson(o, **kwargs) == expected  # onnx's message, too
    del kwargs["indent"], kwargs["sort_keys"], kwargs["ensure_ascii"]
    assert json_format.MessageToDict(m, **kwargs) == pb.MessageToDict(o, **kwargs)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_samples_write_and_read_back_as_protobuf_does(path: pathlib.Path) -> None:
    m = onnxdata.load(path)
    o = oracle_of(m)
    text = pb.MessageToJson(o)
    assert json_format.MessageToJson(m) == text
    assert json_format.MessageToJson(m, indent=None, preserving_proto_field_name=True) == (
        pb.MessageToJson(o, indent=None, preserving_proto_field_name=True)
    )
    assert json_format.Parse(text, type(m)()).encode() == path.read_bytes()
    assert json_format.ParseDict(pb.MessageToDict(o), type(m)()).encode() == path.read_bytes()


def test_values_are_written_as_protobuf_writes_them() -> None:
    t = onnxdata.TensorProto(
        dims=[2**62],
        float_data=[0.1, math.nan, -math.inf, 3.4028234663852886e38],
        double_data=[math.inf, 0.1],
        raw_data=b"\xff\x00",
        data_location=1,
        uint64_data=[2**64 - 1],
    )
    obj = json_format.MessageToDict(t)
    assert obj == pb.MessageToDict(oracle_of(t))
    assert obj["floatData"] == [0.1, "NaN", "-Infinity", 3.4028235e38]
    assert obj["dims"] == [str(2**62)] and obj["dataLocation"] == "EXTERNAL"
    assert json_format.MessageToDict(t, unquote_int64_if_possible=True)["dims"] == [2**62]


@pytest.mark.parametrize("sign", ["", "-"])
@pytest.mark.parametrize("bytes_text", [False, True])
def test_the_largest_float32_as_protobuf_writes_it_reads_back(sign: str, bytes_text: bool) -> None:
    """protobuf refuses ``3.4028235e+38`` (docs/compat.md); onnxdata reads FLT_MAX, at any depth."""
    text = '{"indices": {"floatData": [' + sign + FLOAT32_MAX + '], "dims": ["1"]}}'
    full = text.replace(FLOAT32_MAX, repr(FLOAT32_MAX_DOUBLE))
    given: Any = text.encode() if bytes_text else text
    with pytest.raises(pb.ParseError, match=r"too (large|small)"):
        pb.Parse(given, ORACLE[onnxdata.SparseTensorProto]())
    expected = pb.Parse(full, ORACLE[onnxdata.SparseTensorProto]()).SerializeToString()
    assert json_format.Parse(given, onnxdata.SparseTensorProto()).encode() == expected
    assert struct.pack("<f", float(sign + FLOAT32_MAX)) in expected


def test_float_precision_is_protobuf_5s() -> None:
    t = onnxdata.TensorProto(float_data=[0.123456], double_data=[1 / 3])
    assert json_format.MessageToDict(t, float_precision=3) == {
        "floatData": [0.123],
        "doubleData": [1 / 3],
    }
    with pytest.raises(TypeError, match="float_precision"):
        json_format.MessageToDict(t, float_precision="3")  # type: ignore[arg-type]


def test_an_enum_number_the_enum_lacks_is_refused_as_protobuf_refuses_it() -> None:
    t = onnxdata.TensorProto(data_location=7)
    with pytest.raises(json_format.SerializeToJsonError, match="can not mapped"):
        json_format.MessageToJson(t)
    assert json_format.MessageToDict(t, use_integers_for_enums=True) == {"dataLocation": 7}


def test_what_is_not_a_message_is_refused() -> None:
    with pytest.raises(TypeError, match=r"expected a message of onnx-ml\.proto"):
        json_format.MessageToJson({"name": "x"})
    with pytest.raises(TypeError, match="onnxdata message to fill"):
        json_format.Parse("{}", onnx.TensorProto())
    with pytest.raises(json_format.SerializeToJsonError, match="out of range"):
        json_format.MessageToDict(onnxdata.TensorProto(data_type=2**40))


# -- reading -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=IDS)
@settings(max_examples=ms.scaled(0.2))
@given(data=st.data())
def test_parse_reads_protobufs_json_to_the_same_bytes(cls: type, data: Any) -> None:
    m = data.draw(ms.messages_of(cls, max_leaves=3, big=False))
    if has_raw_bytes_in_strings(m):
        return
    start = data.draw(ms.messages_of(cls, max_leaves=2, big=False))
    kwargs = data.draw(json_options)
    text = pb.MessageToJson(oracle_of(m), **kwargs)
    # protobuf refuses the largest float32 as its own writer spells it (3.4028235e+38 is
    # above FLT_MAX as a double); onnxdata reads it as FLT_MAX, which protobuf takes when
    # it is spelled in full: the oracle reads that spelling
    theirs = text.replace(FLOAT32_MAX, repr(FLOAT32_MAX_DOUBLE))
    both(text, cls, oracle_text=theirs)
    both(text, cls, start, oracle_text=theirs)
    both(text.encode(), cls, oracle_text=theirs.encode(), ignore_unknown_fields=True)


_ODD_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    1e39,
    2**31,
    2**63,
    2**64,
    -(2**63) - 1,
    "",
    "x",
    "1e3",
    "0x10",
    " 1",
    "1 ",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "1e400",
    "EXTERNAL",
    "DEFAULT",
    "AP8",
    "AP8=",
    "-_8",
    "+/8=",
    "A===",
    "\ud800",
    [],
    [None],
    [1, "2"],
    ["EXTERNAL"],
    [{}],
    {},
    {"begin": 1},
    {"key": "k"},
    {"nope": 1},
    "é",
]


def _mutate(obj: Any, rng: random.Random, fields: list[str]) -> Any:
    """One change deep in the JSON value: a value replaced, a key renamed or added."""
    if isinstance(obj, dict) and obj and rng.random() < 0.7:
        key = rng.choice(sorted(obj))
        action = rng.random()
        if action < 0.5:
            obj[key] = _mutate(obj[key], rng, fields)
        elif action < 0.6:
            obj[key + "x"] = obj.pop(key)
        elif action < 0.8:
            obj[rng.choice(fields)] = _odd(rng)
        else:
            obj[key] = _odd(rng)
        return obj
    if isinstance(obj, list) and obj and rng.random() < 0.7:
        i = rng.randrange(len(obj))
        obj[i] = _mutate(obj[i], rng, fields)
        return obj
    if isinstance(obj, dict) and rng.random() < 0.5:
        obj[rng.choice(fields)] = _odd(rng)
        return obj
    return _odd(rng)


def _odd(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(_ODD_VALUES))  # a fresh copy: mutations must not leak


_FIELD_NAMES = sorted(
    {name for cls in MESSAGE_TYPES for f in cls._SPEC.fields for name in (f.name, f.json_name)}
)


@pytest.mark.slow
@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=IDS)
@settings(max_examples=ms.scaled(0.3))
@given(data=st.data())
def test_mutated_json_is_accepted_or_refused_as_protobuf_does(cls: type, data: Any) -> None:
    m = data.draw(ms.messages_of(cls, max_leaves=3, big=False))
    if has_raw_bytes_in_strings(m):
        return
    obj = pb.MessageToDict(oracle_of(m), preserving_proto_field_name=data.draw(st.booleans()))
    rng = data.draw(st.randoms(use_true_random=False))
    for _ in range(data.draw(st.integers(1, 3))):
        obj = _mutate(obj, rng, _FIELD_NAMES)
    text = json.dumps(obj, allow_nan=True)
    if FLOAT32_MAX in text:
        return
    both(text, cls)
    both(text, cls, ignore_unknown_fields=True)
    both(text, cls, max_recursion_depth=2)


@pytest.mark.parametrize(
    "text",
    [
        '{"data_type": "1", "dims": [2, "3"], "floatData": ["NaN", "-Infinity", 1]}',
        '{"rawData": "AP8", "stringData": ["-_8=", "+/8"], "dataLocation": 1}',
        '{"dataLocation": "EXTERNAL", "name": null, "int32Data": [1.0, "2e0"]}',
        '{"segment": {"begin": "-1", "end": 5}, "uint64Data": ["18446744073709551615"]}',
        '{"floatData": [true, "1e39", 1e-50], "doubleData": ["1e400", "-Infinity"]}',
        '{"dims": [1e3, "1e3", "\\t5"], "dataLocation": true}',
        '{"dataLocation": 1.5}',
        '{"dataLocation": "1"}',
        '{"doc_string": "a", "docString": "b"}',
        '{"dims": [1], "dims": [2]}',
        '{"segment": []}',
        '{"segment": ""}',
        '{"segment": ["begin"]}',
        '{"segment": ["nope"]}',
        "[]",
        '""',
        '"ab"',
        "[1]",
        "null",
        "5",
        "{",
        '{"nope": 1}',
        '{"dims": 3}',
        '{"dims": [1.5]}',
        '{"dataType": true}',
        '{"floatData": ["nan"]}',
        '{"floatData": [NaN]}',
        '{"floatData": [Infinity]}',
        '{"dataLocation": "SOMEWHERE"}',
        '{"dataLocation": 2}',
        '{"dataLocation": [1]}',
        '{"dataLocation": {}}',
        '{"dims": ["1 2"]}',
        '{"int32Data": [4294967296]}',
        '{"dims": [null]}',
        '{"segment": 3}',
        '{"name": "a", "name": "b"}',
        '{"name": 1}',
        '{"name": "\\ud800"}',
        '{"name": "\\ud83d\\ude00"}',
        '{"int64Data": [9223372036854775808]}',
        '{"rawData": "Q Q"}',
        '{"rawData": 5}',
        '{"rawData": "*"}',
        '{"externalData": [null]}',
        '{"externalData": {}}',
        '{"externalData": [{"key": 1}]}',
        '{"[ext]": 1}',
    ],
)
def test_hand_written_json_is_read_as_protobuf_reads_it(text: str) -> None:
    both(text, onnxdata.TensorProto)
    both(text, onnxdata.TensorProto, ignore_unknown_fields=True)
    start = onnxdata.TensorProto(dims=[7], name="n", segment=onnxdata.TensorProto.Segment(end=3))
    both(text, onnxdata.TensorProto, start)


def test_parse_fills_the_message_in_place() -> None:
    t = onnxdata.TensorProto(dims=[1, 2], name="a", segment=onnxdata.TensorProto.Segment(begin=1))
    text = '{"dims": ["3"], "segment": {"end": 4}, "name": null}'
    back = json_format.Parse(text, t)
    assert back is t
    # null unsets the field (protobuf's ClearField): it reads as its default, and is absent
    assert (list(t.dims), t.name, t.HasField("name")) == ([3], "", False)
    assert (t.segment.begin, t.segment.end) == (1, 4)
    o = pb.Parse(text, onnx.TensorProto(dims=[1, 2], name="a", segment={"begin": 1}))
    assert t.encode() == o.SerializeToString()
    assert json_format.ParseDict({"docString": "d"}, t) is t and t.doc_string == "d"


def test_max_recursion_depth_is_protobufs() -> None:
    def nested(depth: int) -> str:
        text = "{}"
        for _ in range(depth):
            text = '{"optionalValue": ' + text + "}"
        return text

    for depth in (0, 1, 4, 5, 99, 100):
        for limit in (1, 5, 6, 100):
            both(nested(depth), onnxdata.OptionalProto, max_recursion_depth=limit)


def test_unknown_enum_names_are_skipped_with_ignore_unknown_fields() -> None:
    t = json_format.Parse(
        '{"dataLocation": "SOMEWHERE", "nope": 1, "name": "x"}',
        onnxdata.TensorProto(),
        ignore_unknown_fields=True,
    )
    # the skipped enum leaves the field unset: its default reads, and it is absent
    assert (t.data_location, t.HasField("data_location"), t.name) == (0, False, "x")
    o = pb.Parse(
        '{"dataLocation": "SOMEWHERE", "nope": 1, "name": "x"}',
        onnx.TensorProto(),
        ignore_unknown_fields=True,
    )
    assert t.encode() == o.SerializeToString()
    with pytest.raises(json_format.ParseError, match="Invalid enum value SOMEWHERE"):
        json_format.Parse('{"dataLocation": "SOMEWHERE"}', onnxdata.TensorProto())


def test_bytes_that_are_not_utf8_are_a_parse_error() -> None:
    with pytest.raises(json_format.ParseError):
        json_format.Parse(b'{"name": "\xff"}', onnxdata.TensorProto())
    assert json_format.Parse('{"name": "é"}'.encode(), onnxdata.TensorProto()).name == "é"


def test_errors_are_value_errors_of_this_module() -> None:
    for cls in (json_format.ParseError, json_format.SerializeToJsonError):
        assert issubclass(cls, json_format.Error) and issubclass(cls, ValueError)
    assert issubclass(json_format.EnumStringValueParseError, json_format.ParseError)


def test_messages_decoded_without_copies_write_and_take_fields_alike() -> None:
    t = onnxdata.TensorProto(dims=[2], float_data=[1.5, 2.5], string_data=[b"a"], raw_data=b"\0")
    view = onnxdata.TensorProto.decode(t.encode(), copy=False)
    assert json_format.MessageToJson(view) == json_format.MessageToJson(t)
    text = '{"floatData": [1], "stringData": ["Yg=="], "rawData": "AAE="}'
    assert json_format.Parse(text, view).encode() == json_format.Parse(text, t).encode()


@pytest.mark.slow
def test_the_onnx_backend_test_data_writes_and_reads_back_as_protobuf_does() -> None:
    from tests.support.oracle import corpus_files

    for cls, path in corpus_files():
        data = path.read_bytes()
        o = ORACLE[cls].FromString(data)
        text = pb.MessageToJson(o)
        assert json_format.MessageToJson(cls.decode(data)) == text, path
        expected = pb.Parse(text, ORACLE[cls]()).SerializeToString()
        assert json_format.Parse(text, cls()).encode() == expected, path


def test_numpy_values_are_written_as_the_numbers_they_hold() -> None:
    np = pytest.importorskip("numpy")
    t = onnxdata.TensorProto(
        dims=np.array([2, 3]),
        float_data=np.array([1.5, 0.1], dtype=np.float32),
        data_type=np.int32(1),
    )
    plain = onnxdata.TensorProto(dims=[2, 3], float_data=[1.5, 0.1], data_type=1)
    assert json_format.MessageToJson(t) == json_format.MessageToJson(plain)
    with pytest.raises(TypeError, match="not an integer"):
        json_format.MessageToJson(onnxdata.TensorProto(dims=[np.bool_(True)]))
