"""Attributes in ONNX's textual syntax: ``<alpha = 0.5, perm: ints = [1, 0], ...>``.

A value's kind is read from the value, as onnx's parser reads it: an integer
literal is an ``INT`` (a ``FLOAT`` when annotated ``: float``), a number with a
point or exponent or the words ``inf``/``nan`` a ``FLOAT``, a string a
``STRING``, a type followed by ``{``, ``=`` or a name a ``TENSOR``, a type alone
a ``TYPE_PROTO``, any other name a ``GRAPH``, ``@name`` a reference to a
function's attribute.  A list takes the kind of its elements; tensors and
graphs in a list are read and dropped, as onnx drops them.
"""

from __future__ import annotations

from .._messages.declarations import TensorProto
from .._messages.graphs import AttributeProto, GraphProto
from .._messages.types import TypeProto
from .lexicon import ATTRIBUTE_TYPES
from .parse_lexer import FLOAT, INT, STRING, Lexer
from .parse_tensors import parse_tensor_data
from .parse_types import next_is_type, parse_type

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, MutableSequence

    GraphReader = Callable[[Lexer, GraphProto], None]

__all__ = ["parse_attribute", "parse_attribute_list"]

_A = AttributeProto.AttributeType
_SINGLE = {
    _A.FLOATS: _A.FLOAT, _A.INTS: _A.INT, _A.STRINGS: _A.STRING, _A.TENSORS: _A.TENSOR,
    _A.GRAPHS: _A.GRAPH, _A.SPARSE_TENSORS: _A.SPARSE_TENSOR, _A.TYPE_PROTOS: _A.TYPE_PROTO,
}  # fmt: skip
_SINGLETONS = frozenset(_SINGLE.values())
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


def parse_attribute_list(
    lx: Lexer, attrs: MutableSequence[AttributeProto], graph: GraphReader
) -> None:
    """``<name = value, ...>`` if a ``<`` comes next, into ``attrs`` (``Parse(AttrList&)``).

    Raises:
        StatusError, FatalError: a malformed attribute.
    """
    del attrs[:]
    if lx.matches("<"):
        while True:
            attr = AttributeProto()
            attrs.append(attr)
            parse_attribute(lx, attr, lx.identifier(), graph)
            if not lx.matches(","):
                break
        lx.match(">")


def parse_attribute(lx: Lexer, attr: AttributeProto, name: str, graph: GraphReader) -> None:
    """``[: type] = value`` of the attribute ``name``, into ``attr``
    (``Parse(AttributeProto&, std::string&)``).

    Raises:
        StatusError: an unknown type name; a value of another kind than annotated;
            an empty list without a type, or a list of a single-valued type.
        FatalError: a number out of range.
    """
    attr.name = name
    if lx.matches(":"):
        kind = ATTRIBUTE_TYPES.get(lx.identifier(), 0)
        if not kind:
            raise lx.fault("Unexpected attribute type.")
        attr.type = kind
    lx.match("=")
    if lx.next_char() != "[":
        _single(lx, attr, attr.type, graph)
        return
    lx.match("[")
    if lx.next_char() != "]":
        while True:
            one = AttributeProto()
            _single(lx, one, _SINGLE.get(attr.type, attr.type), graph)
            _add(attr, one)
            if not lx.matches(","):
                break
    elif not attr.type:
        raise lx.fault("Empty list attribute value requires type annotation.")
    elif attr.type in _SINGLETONS:
        raise lx.fault("Singleton attribute value cannot be specified as a list.")
    lx.match("]")


def _add(attr: AttributeProto, one: AttributeProto) -> None:
    """One element read for a list, added as onnx adds it (numbers and strings only)."""
    kind = one.type
    if kind == _A.INT:
        attr.type = _A.INTS
        attr.ints.append(one.i)
    elif kind == _A.FLOAT:
        attr.type = _A.FLOATS
        attr.floats.append(one.f)
    elif kind == _A.STRING:
        attr.strings.append(one.s)
        attr.type = _A.STRINGS


def _single(lx: Lexer, attr: AttributeProto, expected: int, graph: GraphReader) -> None:
    """One value into ``attr`` (``ParseSingleAttributeValue``)."""
    if lx.next_char() in _NAME_START:
        _named(lx, attr, graph)
    elif lx.matches("@"):
        attr.ref_attr_name = lx.quotable_identifier()
    else:
        _literal(lx, attr, expected)
    if expected and expected != attr.type:
        raise lx.fault(
            f"Mismatch between expected type {_A.Name(expected)}"
            f" and specified value's type{_A.Name(attr.type)}"
        )


def _named(lx: Lexer, attr: AttributeProto, graph: GraphReader) -> None:
    """A value that starts with a name: a tensor, a type, ``inf``/``nan``, a graph."""
    if next_is_type(lx):
        kind = TypeProto()
        lx.enter(3)  # the node, the attribute, its type
        parse_type(lx, kind)
        lx.depth -= 3
        ch = lx.next_char()
        if ch == "{" or ch == "=" or lx.peek_identifier():
            attr.type = _A.TENSOR
            tensor = attr.t = TensorProto()
            tensor.name = lx.optional_quotable_identifier()
            lx.matches("=")
            parse_tensor_data(lx, tensor, kind)
        else:
            attr.type = _A.TYPE_PROTO
            attr.tp = kind
    elif lx.next_is_float_word():
        _, text = lx.literal()
        attr.type = _A.FLOAT
        attr.f = lx.convert_float(text)
    else:
        attr.type = _A.GRAPH
        attr.g = GraphProto()
        lx.enter(3)  # the node, the attribute, the graph
        graph(lx, attr.g)
        lx.depth -= 3


def _literal(lx: Lexer, attr: AttributeProto, expected: int) -> None:
    """A number or string literal as the attribute's value."""
    kind, text = lx.literal()
    if kind == INT and expected != _A.FLOAT:
        attr.type = _A.INT
        attr.i = lx.convert_int(text)
    elif kind in (INT, FLOAT):
        attr.type = _A.FLOAT
        attr.f = lx.convert_float(text)
    elif kind == STRING:
        attr.type = _A.STRING
        attr.s = text.encode("utf-8")
    else:
        raise lx.fault("Internal error")
