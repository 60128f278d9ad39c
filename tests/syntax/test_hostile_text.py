"""Hostile text: onnxdata's parser refuses it with ``ParseError``, in time and
memory that grow with the text, never with RecursionError, MemoryError or a
hang (docs/robustness.md, "Hostile text").

onnx's C++ parser overflows its stack on deep nesting and throws C++
exceptions on numbers out of range; here each case is a ``ParseError`` that
names its line and column, or (where onnx accepts the text) the same message.
The sizes are large enough that a quadratic step, or a regular expression that
backtracks, would not finish in the suite's time.
"""

from __future__ import annotations

import sys

import onnx.parser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata.parser
from onnxdata.parser import MAX_DEPTH, ParseError
from tests.support.message_strategies import scaled
from tests.support.syntax_oracle import same


def _refused(text: str, kind: str = "node") -> ParseError:
    with pytest.raises(ParseError) as caught:
        getattr(onnxdata.parser, f"parse_{kind}")(text)
    return caught.value


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("graphs in attributes", "y = F <g = " + "g () => () { y = F <g = " * 5000, "node"),
        ("sequences", "g (" + "seq(" * 100_000 + "float" + ")" * 100_000 + " x) => () {}", "graph"),
        ("maps", "g (" + "map(int64, " * 50_000 + "float" + ")" * 50_000 + " x) => () {}", "graph"),
        ("optionals", "f (" + "optional(" * 10_000 + "int8" + ")" * 10_000 + " x) =>", "function"),
    ],
    ids=["graphs in attributes", "sequences", "maps", "optionals in a function"],
)  # fmt: skip
def test_deep_nesting_is_refused_at_the_depth_bound(name: str, text: str, kind: str) -> None:
    error = _refused(text, kind)
    assert error.args[0].endswith(
        f"Nested deeper than {MAX_DEPTH} messages, which protobuf cannot read.".encode()
    )


@pytest.mark.parametrize("levels", [47, 48, 49, 50])
def test_nesting_at_protobuf_s_bound_is_read_or_refused_as_onnx(levels: int) -> None:
    """Up to the bound onnx's result is read back; past it onnx's Python side
    fails (``DecodeError``) and onnxdata refuses the text."""
    text = "g (" + "seq(" * levels + "float" + ")" * levels + " x) => () {}"
    assert same("graph", text) is None
    graphs = "y = F <g = " + "g () => () { y = F <g = " * (levels - 17) + "g () => () {}"
    assert same("node", graphs + "> ()}" * (levels - 17) + "> ()") is None


def test_deep_nesting_from_a_deep_stack_is_a_parse_error() -> None:
    """Called with little stack left, the parser still raises only ParseError."""
    text = "y = F <g = " + "g () => () { y = F <g = " * MAX_DEPTH

    def nested(depth: int) -> None:
        if depth:
            nested(depth - 1)
        else:
            _refused(text)

    nested(sys.getrecursionlimit() - 150)


@pytest.mark.parametrize(
    "literal",
    ["9" * 1_000_000, "-" + "9" * 1_000_000, "1e" + "9" * 1_000_000, "9" * 400 + ".5e999",
     "- 5", "-#comment\n5"],
    ids=["int", "negative int", "exponent", "float overflow", "minus space", "minus comment"],
)  # fmt: skip
def test_huge_and_malformed_numbers_are_parse_errors(literal: str) -> None:
    error = _refused(f"y = F <a = {literal}> ()")
    assert error.line >= 1 and error.column > 1


@pytest.mark.parametrize(
    "literal",
    ["1." + "9" * 1_000_000, "1e-" + "9" * 1_000_000, "0." + "0" * 1_000_000 + "1"],
    ids=["long fraction", "long negative exponent", "long zeros"],
)
def test_long_numbers_that_fit_parse_as_onnx_parses_them(literal: str) -> None:
    text = f"y = F <a = {literal}> ()"
    assert (
        onnxdata.parser.parse_node(text).SerializeToString()
        == onnx.parser.parse_node(text).SerializeToString()
    )


def test_enormous_dimensions_allocate_nothing() -> None:
    """Dimensions are numbers, never a count of values to make."""
    text = "g (float[9223372036854775807, 9223372036854775807] x = {1}) => () {}"
    graph = onnxdata.parser.parse_graph(text)
    assert list(graph.initializer[0].dims) == [2**63 - 1] * 2
    assert graph.SerializeToString() == onnx.parser.parse_graph(text).SerializeToString()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('y = F <a = "' + 'a\\"' * 1_000_000 + "> ()", b"Incomplete string literal."),
        ('y = F <a = "' + "\\" * 1_000_001, b"Incomplete string literal."),
        ("#" * 5_000_000, b"Expected character = not found."),
        (
            " " * 5_000_000 + "y = F (" + "," * 200_000 + ") <",
            b"Identifier expected but not found.",
        ),
        ("g () => () {" + "y = F()" * 50_000 + " ]", b"Expected character = not found."),
    ],
    ids=["escaped quotes", "backslashes", "comment", "spaces and commas", "nodes"],
)
def test_long_texts_fail_in_linear_time(text: str, where: bytes) -> None:
    assert _refused(text, "graph" if text.startswith("g (") else "node").args[0].endswith(where)


def test_a_long_line_is_the_error_context_as_onnx_gives_it() -> None:
    text = "y = F (" + "x, " * 100_000 + "\n\n   ]"
    with pytest.raises(onnx.parser.ParseError) as theirs:
        onnx.parser.parse_node(text)
    assert _refused(text).args[0] == theirs.value.args[0]


def test_a_lone_surrogate_is_a_parse_error_with_its_position() -> None:
    """onnx cannot pass such a str to C++ (TypeError); it is no UTF-8 text."""
    error = _refused('y = F <a = "\udc80"> ()')
    assert (error.line, error.column) == (1, 13)
    assert b"lone surrogate" in error.args[0]


def test_the_text_ends_at_its_first_nul_as_in_onnx() -> None:
    text = "y = Relu (x)\x00 garbage"
    assert onnxdata.parser.parse_node(text) == onnxdata.parser.parse_node("y = Relu (x)")
    assert (
        onnxdata.parser.parse_node(text).SerializeToString()
        == onnx.parser.parse_node(text).SerializeToString()
    )


def test_positions_count_utf8_bytes_as_onnx() -> None:
    text = 'y = F <a = "ééé", b = ) > ()'
    error = _refused(text)
    with pytest.raises(onnx.parser.ParseError) as theirs:
        onnx.parser.parse_node(text)
    assert error.args[0] == theirs.value.args[0]
    assert (error.line, error.column, error.offset) == (1, 26, 25)


def test_text_of_another_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        onnxdata.parser.parse_model(b"agraph () => () {}")  # type: ignore[arg-type]


@given(st.text(max_size=200), st.sampled_from(["model", "graph", "function", "node"]))
@settings(max_examples=scaled(3.0))
def test_any_text_is_parsed_or_a_parse_error(text: str, kind: str) -> None:
    """The parser is total: any ``str`` (surrogates and NULs included) gives a
    message or a ``ParseError``, never another exception."""
    try:
        getattr(onnxdata.parser, f"parse_{kind}")(text)
    except ParseError as error:
        assert error.line >= 1 and error.column >= 1
