"""onnxdata.text_format prints and reads exactly what google.protobuf.text_format does.

Each property draws a message of every type (message_strategies), takes
protobuf's own (upb) message of the same bytes, and compares: the text for each
combination of printer options, ``str()``, the message read back from
protobuf's text, and whether mutated text is accepted or refused (and with which
error, at which line and column).
"""

from __future__ import annotations

import io
import math
import pathlib
import random
from typing import Any

import onnx
import pytest
from google.protobuf import text_format as pb
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import text_format
from tests.support import message_strategies as ms
from tests.support.oracle import MESSAGE_TYPES, ORACLE
from tests.support.outcomes import outcome
from tests.support.paths import DATA

DATA = DATA
SAMPLES = sorted(DATA.glob("*.pb"))
FLAGS = (
    "as_utf8",
    "as_one_line",
    "use_short_repeated_primitives",
    "pointy_brackets",
    "use_index_order",
    "use_field_number",
    "print_unknown_fields",
    "force_colon",
)
IDS = [c._SPEC.name for c in MESSAGE_TYPES]

options = st.fixed_dictionaries(
    {name: st.booleans() for name in FLAGS}, optional={"indent": st.sampled_from([0, 1, 4])}
)


def oracle_of(m: Any) -> Any:
    return ORACLE[type(m)].FromString(m.encode())


def parsed(parse: Any, text: Any, message: Any, **kwargs: Any) -> tuple[str, Any]:
    """The outcome of one parser: the bytes it parsed to, or the error's text, line, column."""
    return outcome(
        lambda: parse(text, message, **kwargs),
        (pb.ParseError, text_format.ParseError),
        value=lambda _: message.SerializeToString(),
        error=lambda err: (str(err), err.GetLine(), err.GetColumn()),
    )


def both(text: Any, cls: type, merge: bool = False, **kwargs: Any) -> None:
    """onnxdata's and protobuf's parser agree on ``text``: the same bytes, or the same error."""
    theirs = parsed(pb.Merge if merge else pb.Parse, text, ORACLE[cls](), **kwargs)
    ours = parsed(text_format.Merge if merge else text_format.Parse, text, cls(), **kwargs)
    assert ours == theirs, text


# -- printing ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=IDS)
@settings(max_examples=ms.scaled(0.2))
@given(data=st.data())
def test_message_to_string_is_protobufs_for_every_option(cls: type, data: Any) -> None:
    m = data.draw(ms.messages_of(cls, max_leaves=3, big=False))
    kwargs = data.draw(options)
    o = oracle_of(m)
    expected = pb.MessageToString(o, **kwargs)
    assert text_format.MessageToString(m, **kwargs) == expected
    assert text_format.MessageToString(type(m).decode(m.encode()), **kwargs) == expected
    assert text_format.MessageToString(o, **kwargs) == expected  # onnx's message, too
    assert text_format.MessageToBytes(m, **kwargs) == pb.MessageToBytes(o, **kwargs)
    out_ours, out_theirs = io.StringIO(), io.StringIO()
    text_format.PrintMessage(m, out_ours, **kwargs)
    pb.PrintMessage(o, out_theirs, **kwargs)
    assert out_ours.getvalue() == out_theirs.getvalue()


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=IDS)
@settings(max_examples=ms.scaled(0.2))
@given(data=st.data())
def test_message_str_is_str_of_the_protobuf_message(cls: type, data: Any) -> None:
    m = data.draw(ms.messages_of(cls, max_leaves=3, big=False))
    assert text_format.message_str(m) == str(oracle_of(m))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_samples_print_and_read_back_as_protobuf_does(path: pathlib.Path) -> None:
    m = onnxdata.load(path)
    o = oracle_of(m)
    text = pb.MessageToString(o)
    assert text_format.MessageToString(m) == text
    assert text_format.MessageToString(m, as_one_line=True, as_utf8=False) == pb.MessageToString(
        o, as_one_line=True, as_utf8=False
    )
    assert text_format.message_str(m) == text_format.message_str(o) == str(o)
    assert text_format.Parse(text, type(m)()).encode() == path.read_bytes()


def test_floats_print_shortest_and_specials() -> None:
    t = onnxdata.TensorProto(
        float_data=[0.1, math.nan, math.inf, -math.inf, -0.0, 3.0, 1e10, 3.4028234663852886e38],
        double_data=[0.1, 1e16, 1 / 3],
        data_location=1,
    )
    text = text_format.MessageToString(t)
    assert text == pb.MessageToString(oracle_of(t))
    assert "float_data: 0.1\n" in text and "float_data: nan\n" in text
    assert "float_data: -inf\n" in text and "data_location: EXTERNAL\n" in text
    assert str(oracle_of(t)) == text_format.message_str(t)
    assert "float_data: 3\n" in text_format.message_str(t)


def test_float_format_options_are_protobuf_5s() -> None:
    t = onnxdata.TensorProto(float_data=[0.1, 2.5], double_data=[1 / 3])
    assert text_format.MessageToString(t, float_format=".3f") == (
        "float_data: 0.100\nfloat_data: 2.500\ndouble_data: 0.333\n"
    )
    assert text_format.MessageToString(t, float_format=".2e", double_format=".1f") == (
        "float_data: 1.00e-01\nfloat_data: 2.50e+00\ndouble_data: 0.3\n"
    )
    with pytest.raises(TypeError, match="float_format"):
        text_format.MessageToString(t, float_format=3)  # type: ignore[arg-type]


def test_message_formatter_sees_onnxdata_messages() -> None:
    t = onnxdata.TensorProto(name="t", external_data=[onnxdata.StringStringEntryProto(key="k")])

    def formatter(m: Any, indent: int, one_line: bool) -> str | None:
        if isinstance(m, onnxdata.StringStringEntryProto):
            return f"entry {m.key}"
        return None

    def theirs(m: Any, indent: int, one_line: bool) -> str | None:
        if isinstance(m, onnx.StringStringEntryProto):
            return f"entry {m.key}"
        return None

    for one_line in (False, True):
        assert text_format.MessageToString(
            t, message_formatter=formatter, as_one_line=one_line
        ) == pb.MessageToString(oracle_of(t), message_formatter=theirs, as_one_line=one_line)


def test_refuses_what_is_not_a_message() -> None:
    with pytest.raises(TypeError, match=r"expected a message of onnx-ml\.proto"):
        text_format.MessageToString({"name": "x"})
    with pytest.raises(TypeError, match="onnxdata message to fill"):
        text_format.Parse("name: 'x'", onnx.TensorProto())
    with pytest.raises(TypeError, match="str or bytes"):
        text_format.Parse(5, onnxdata.TensorProto())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="indent"):
        text_format.MessageToString(onnxdata.TensorProto(), indent="2")  # type: ignore[arg-type]


def test_unknown_fields_that_are_not_fields_are_refused_when_printed() -> None:
    t = onnxdata.TensorProto(unknown_fields=b"\xff")
    assert text_format.MessageToString(t) == ""
    with pytest.raises(ValueError, match="unknown_fields"):
        text_format.MessageToString(t, print_unknown_fields=True)


def test_a_message_that_contains_itself_is_refused() -> None:
    o = onnxdata.OptionalProto()
    o.optional_value = o
    with pytest.raises(ValueError, match="nested more than 100"):
        text_format.MessageToString(o)


# -- reading -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=IDS)
@settings(max_examples=ms.scaled(0.2))
@given(data=st.data())
def test_parse_reads_protobufs_text_to_the_same_bytes(cls: type, data: Any) -> None:
    m = data.draw(ms.messages_of(cls, max_leaves=3, big=False))
    kwargs = data.draw(options)
    text = pb.MessageToString(oracle_of(m), **kwargs)
    both(text, cls)
    both(text.encode("utf-8"), cls, merge=True, allow_field_number=True)
    ours = text_format.MessageToString(m, **kwargs)
    if parsed(pb.Parse, text, ORACLE[cls]())[0] == "value":  # not when a string is not UTF-8
        assert text_format.Parse(ours, cls()).encode() == text_format.Parse(text, cls()).encode()


_JUNK = [
    "",
    " ",
    "#",
    "\n",
    ":",
    "{",
    "}",
    "<",
    ">",
    "[",
    "]",
    ",",
    ";",
    '"',
    "'",
    "\\",
    "-",
    "0x",
    "0",
    "9",
    "e5",
    ".",
    "f",
    "nope",
    "EXTERNAL",
    "DEFAULT",
    "2147483648",
    "18446744073709551616",
    "-9223372036854775809",
    "inf",
    "nan",
    "\\777",
    "\\x",
    "\\u00e9",
    "\\xff",
    "é",
    "\t",
    "true",
]


@st.composite
def mutated_text(draw: Any, cls: type) -> str:
    """protobuf's text of a generated message with a few tokens replaced, inserted or deleted."""
    m = draw(ms.messages_of(cls, max_leaves=3, big=False))
    text = pb.MessageToString(oracle_of(m), **draw(options.map(_no_unknown)))
    rng: random.Random = draw(st.randoms(use_true_random=False))
    for _ in range(draw(st.integers(1, 3))):
        at = rng.randrange(len(text) + 1)
        junk = rng.choice(_JUNK)
        if rng.random() < 0.5:  # replace a stretch
            text = text[:at] + junk + text[at + rng.randrange(1, 6) :]
        else:
            text = text[:at] + junk + text[at:]
    return text


def _no_unknown(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {**kwargs, "print_unknown_fields": False}


@pytest.mark.slow
@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=IDS)
@settings(max_examples=ms.scaled(0.3))
@given(data=st.data())
def test_mutated_text_is_accepted_or_refused_as_protobuf_does(cls: type, data: Any) -> None:
    text = data.draw(mutated_text(cls))
    both(text, cls)
    both(text, cls, merge=True, allow_unknown_field=True)


@pytest.mark.parametrize(
    "text",
    [
        "# a comment\nname: 'x' # another\n",
        "dims: 1 dims: [2, 3] dims: []",
        "dims: 0x10, dims: 017; dims: -0x8000000000000000",
        "dims: 1_000",
        'name: "a" \'b\' "c"',
        r'name: "\u00e9\x41\101\n\t\"\'\\"',
        r'raw_data: "\xff\0\1\12\x4"',
        r'raw_data: "\N{DIGIT ONE}"',
        "float_data: [-inf, inf, nan, 1.5f, -Infinity, NaNf, 1e39, 1e-50, .5, 1, -0]",
        "double_data: [1e400, 2.5F, -1]",
        "data_location: EXTERNAL",
        "data_location: 1",
        "data_location: 0x1",
        "data_type: 1 segment { begin: 1 end: -1 }",
        "segment < begin: 1 >",
        "segment: { begin: 1 }",
        "external_data { key: 'k' } external_data: < value: 'v' >",
        "external_data [{ key: 'a' }, < key: 'b' >]",
        "external_data: []",
        "uint64_data: 18446744073709551615",
        "int32_data: -2147483648",
        "name: 'x';",
        "name: 'x',",
        "",
        "   \n\n  # only a comment",
        "name: 'unterminated",
        "name: 'x",
        "name: \"x'",
        "name: 'a' name: 'b'",
        "segment {} segment {}",
        "nope: 1",
        "[ext]: 1",
        "[a.b.c]: { }",
        "data_location: SOMEWHERE",
        "data_location: 2",
        "data_location: 01",
        "data_type: 2147483648",
        "dims: 9223372036854775808",
        "uint64_data: -1",
        "dims: 1e5",
        "dims: 1.5",
        "dims: 'x'",
        "name: 5",
        "float_data: 01.5",
        "float_data: 'x'",
        "float_data: infinityx",
        "segment { begin: 1",
        "segment begin: 1 }",
        "segment: 1",
        "name 'x'",
        "dims: [1, 2",
        "dims: [1 2]",
        "dims: [,]",
        "name: '\\777'",
        "name: '\\xff'",
        "raw_data: '\\x'",
        "name: 'a' 5",
        "}",
        "name: 'é'",
        "1: 'x'",
        "8: 'x'",
        "external_data { 1: 'k' }",
        "name: '\\q'",
        'name: "\\\'"',
    ],
)
def test_hand_written_text_is_read_as_protobuf_reads_it(text: str) -> None:
    both(text, onnxdata.TensorProto)
    both(text, onnxdata.TensorProto, merge=True)
    both(text, onnxdata.TensorProto, allow_field_number=True)
    both(text, onnxdata.TensorProto, allow_unknown_field=True)


@pytest.mark.parametrize(
    "text",
    [
        "nope: 1 name: 'x'",
        "nope { a: 1 b { c: [1, 2] } } name: 'x'",
        "nope: [1, 'a', { x: 1 }, < y: 2 >] name: 'x'",
        "nope < [a.b]: 1 > name: 'x'",
        "nope: { [a.b.c/d.e]: 1 } name: 'x'",
        "nope: -inf nope: 'a' 'b' nope: 18446744073709551615 nope: -1.5f nope: x",
        "nope: }",
        "nope: [1,]",
        "nope { 1 }",
    ],
)
def test_unknown_fields_are_skipped_as_protobuf_skips_them(text: str) -> None:
    both(text, onnxdata.TensorProto, allow_unknown_field=True)
    both(text, onnxdata.TensorProto, allow_unknown_extension=True)


def test_parse_fills_the_message_in_place_as_protobuf_does() -> None:
    start = onnxdata.TensorProto(dims=[1], name="a", segment=onnxdata.TensorProto.Segment(begin=1))
    for text, merge in [
        ("dims: 2 doc_string: 'd'", False),
        ("name: 'b'", False),
        ("name: 'b' segment { end: 2 }", True),
        ("segment { end: 2 }", False),
    ]:
        o = oracle_of(start)
        ours = type(start).decode(start.encode())
        theirs = parsed(pb.Merge if merge else pb.Parse, text, o)
        mine = parsed(text_format.Merge if merge else text_format.Parse, text, ours)
        assert mine == theirs
    t = onnxdata.TensorProto()
    assert text_format.Parse("name: 'x'", t) is t
    assert text_format.ParseLines(["dims: 1", "dims: 2"], t).dims == [1, 2]
    assert text_format.MergeLines(["name: 'y'"], t).name == "y"


def test_max_recursion_depth_is_protobufs() -> None:
    def nested(depth: int) -> str:
        return "optional_value { " * depth + "}" * depth

    for depth in (0, 1, 5, 6):
        for limit in (1, 5, 6, 7):
            both(nested(depth), onnxdata.OptionalProto, max_recursion_depth=limit)
    with pytest.raises(text_format.ParseError, match="too deep"):
        text_format.Parse(nested(100_000), onnxdata.OptionalProto())


def test_text_that_is_not_utf8_is_a_parse_error() -> None:
    for text in (b"name: '\xff'", b"dims: 1\nname: '\xff'"):
        with pytest.raises(text_format.ParseError) as info:
            text_format.Parse(text, onnxdata.TensorProto())
        assert info.value.GetLine() == text.count(b"\n") + 1
    both(b"name: '\\303\\251'\n", onnxdata.TensorProto)
    both("name: 'é'".encode(), onnxdata.TensorProto)
    both(b"name: '\\377'", onnxdata.TensorProto)


def test_parse_error_is_a_value_error_with_line_and_column() -> None:
    with pytest.raises(ValueError) as info:
        text_format.Parse("dims: 1\n  nope: 2", onnxdata.TensorProto())
    err = info.value
    assert isinstance(err, text_format.ParseError) and isinstance(err, text_format.Error)
    assert (err.GetLine(), err.GetColumn()) == (2, 3)
    assert str(err) == '2:3 : Message type "onnx.TensorProto" has no field named "nope".'


def test_module_helpers_agree_with_protobufs() -> None:
    for text in ["0", "-1", "0x7fffffff", "0x80000000", "017", "-017", "1e5", "x", "1_0"]:
        for signed in (False, True):
            for long in (False, True):
                expected: Any
                try:
                    expected = pb.ParseInteger(text, signed, long)
                except ValueError as err:
                    expected = str(err)
                got: Any
                try:
                    got = text_format.ParseInteger(text, signed, long)
                except ValueError as err:
                    got = str(err)
                assert got == expected
    for text in ["1", "1.5f", "-inf", "Infinity", "NAN", "nanf", "01.5", "x", "1e400", ".5"]:
        try:
            expected = pb.ParseFloat(text)
        except ValueError as err:
            expected = str(err)
        try:
            got = text_format.ParseFloat(text)
        except ValueError as err:
            got = str(err)
        assert repr(got) == repr(expected)
    for text in ["true", "t", "1", "True", "false", "f", "0", "False", "yes"]:
        try:
            expected = pb.ParseBool(text)
        except ValueError as err:
            expected = str(err)
        try:
            got = text_format.ParseBool(text)
        except ValueError as err:
            got = str(err)
        assert got == expected


def test_messages_decoded_without_copies_print_and_take_fields_alike() -> None:
    t = onnxdata.TensorProto(
        dims=[2], float_data=[1.5, 2.5], string_data=[b"a\xff"], raw_data=b"\x00", name="n"
    )
    view = onnxdata.TensorProto.decode(t.encode(), copy=False)
    assert text_format.MessageToString(view) == text_format.MessageToString(t)
    assert text_format.message_str(view) == text_format.message_str(t)
    text_format.Merge("float_data: 3.5 string_data: 'b' raw_data: 'r'", view)
    text_format.Merge("float_data: 3.5 string_data: 'b' raw_data: 'r'", t)
    assert view.encode() == t.encode()


@settings(max_examples=ms.scaled(0.4))
@given(
    st.lists(st.integers(0, 2**32 - 1), max_size=40),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=10),
)
def test_float_and_double_values_print_as_protobuf_prints_them(
    bits: list[int], doubles: list[float]
) -> None:
    from array import array

    floats = array("f", array("I", bits).tobytes())
    t = onnxdata.TensorProto(float_data=floats, double_data=doubles)
    o = oracle_of(t)
    assert text_format.message_str(t) == str(o)
    assert text_format.MessageToString(t) == pb.MessageToString(o)
    assert text_format.Parse(pb.MessageToString(o), onnxdata.TensorProto()).encode() == (
        pb.Parse(pb.MessageToString(o), onnx.TensorProto()).SerializeToString()
    )


def test_message_to_bytes_encodes_utf8_by_default() -> None:
    # protobuf encodes ASCII unless as_utf8 is passed, and fails on this very message.
    t = onnxdata.TensorProto(name="é")
    assert text_format.MessageToBytes(t) == 'name: "é"\n'.encode()
    assert text_format.MessageToBytes(t, as_utf8=False) == b'name: "\\303\\251"\n'
    with pytest.raises(UnicodeEncodeError):
        pb.MessageToBytes(oracle_of(t))


@pytest.mark.slow
def test_the_onnx_backend_test_data_prints_and_reads_back_as_protobuf_does() -> None:
    from tests.support.oracle import corpus_files

    files = corpus_files()
    for cls, path in files:
        data = path.read_bytes()
        o = ORACLE[cls].FromString(data)
        m = cls.decode(data)
        text = pb.MessageToString(o)
        assert text_format.MessageToString(m) == text, path
        assert text_format.message_str(m) == str(o), path
        assert text_format.Parse(text, cls()).encode() == data, path


def test_numpy_values_print_as_the_numbers_they_hold() -> None:
    np = pytest.importorskip("numpy")
    t = onnxdata.TensorProto(
        dims=np.array([2, 3]),
        float_data=np.array([1.5, 0.1], dtype=np.float32),
        data_type=np.int32(1),
    )
    plain = onnxdata.TensorProto(dims=[2, 3], float_data=[1.5, 0.1], data_type=1)
    assert text_format.MessageToString(t) == text_format.MessageToString(plain)
    assert text_format.message_str(t) == text_format.message_str(plain)
    with pytest.raises(TypeError, match="not an integer"):
        text_format.MessageToString(onnxdata.TensorProto(dims=[np.bool_(True)]))
