"""Functions and models in ONNX's textual syntax, and the parser's entry points.

A model is ``<ir_version: 8, opset_import: ["" : 18], ...> graph`` followed by
its local functions; a function is ``<domain: "d", opset_import: [...], ...>
name <attributes> (inputs) => (outputs) <value infos> { nodes }``, where an
attribute with ``= value`` is an ``attribute_proto`` (its default) and one
without a name in ``attribute``.  As in onnx, a failure while reading a
default value is ignored (the attribute keeps what was read) and reading goes
on from where it stopped; the text after a graph, a node or a function is not
read, and after a model's functions only whitespace and comments may follow.
"""

from __future__ import annotations

from .._codec.gcpause import MIN_BYTES, pause, resume
from .._core.errors import EncodeValueError
from .._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    ValueInfoProto,
)
from .._messages.types import TypeProto
from .lexicon import FUNCTION_KEYS, INTEGER_KEYS, MODEL_KEYS, STRING_KEYS
from .parse_attributes import parse_attribute
from .parse_errors import FatalError, StatusError, located
from .parse_graphs import parse_graph, parse_node, parse_nodes, parse_value_infos
from .parse_lexer import MAX_DEPTH, Lexer
from .parse_tensors import parse_string_pairs
from .parse_types import next_is_type, parse_type

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, MutableSequence
    from typing import Any, TypeVar

    from .._messages.message import Message

    M = TypeVar("M", GraphProto, ModelProto, FunctionProto, NodeProto)

__all__ = ["parse_text"]


def _opsets(lx: Lexer, opsets: MutableSequence[OperatorSetIdProto]) -> None:
    """``["domain": version, ...]`` appended to ``opsets``."""
    lx.match("[")
    if not lx.matches("]"):
        while True:
            opset = OperatorSetIdProto()
            opsets.append(opset)
            opset.domain = lx.string()
            lx.match(":")
            opset.version = lx.int64()
            if not lx.matches(","):
                break
        lx.match("]")


def _header(lx: Lexer, message: ModelProto | FunctionProto, keys: frozenset[str]) -> None:
    """``<key: value, ...>`` if a ``<`` comes next: the keys of ``keys`` only."""
    if not lx.matches("<"):
        return
    while True:
        key = lx.identifier()
        lx.match(":")
        if key not in keys:
            raise lx.fault("Unhandled keyword.")
        if key == "opset_import":
            _opsets(lx, message.opset_import)
        elif key in STRING_KEYS:
            setattr(message, key, lx.string())
        elif key in INTEGER_KEYS:
            setattr(message, key, lx.int64())
        else:  # the metadata: string pairs in brackets
            lx.match("[")
            if not lx.matches("]"):
                parse_string_pairs(lx, getattr(message, key))
                lx.match("]")
        if not lx.matches(","):
            break
    lx.match(">")


def _function_attributes(lx: Lexer, function: FunctionProto) -> None:
    """``<name, name = default, ...>``: names to ``attribute``, defaults to
    ``attribute_proto``; a failing default is kept as read, and ignored."""
    names = function.attribute
    defaults = function.attribute_proto
    del names[:]
    del defaults[:]
    if not lx.matches("<"):
        return
    while True:
        name = lx.quotable_identifier()
        if lx.next_char() in (":", "="):
            attr = AttributeProto()
            defaults.append(attr)
            depth = lx.depth
            lx.depth = depth - 1  # the attribute is the function's, not a node's
            try:
                parse_attribute(lx, attr, name, parse_graph)
            except FatalError:
                raise
            except StatusError:
                pass  # onnx ignores this failure and reads on
            lx.depth = depth
        else:
            names.append(name)
        if not lx.matches(","):
            break
    lx.match(">")


def _function_values(
    lx: Lexer, names: MutableSequence[str], infos: MutableSequence[ValueInfoProto]
) -> None:
    """``(name, type name, ...)``: every name to ``names``, the typed ones also to ``infos``."""
    del names[:]
    lx.match("(")
    if lx.matches(")"):
        return
    while True:
        info = None
        if next_is_type(lx):
            info = ValueInfoProto()
            infos.append(info)
            info.type = TypeProto()
            lx.enter(2)
            parse_type(lx, info.type)
            lx.depth -= 2
        name = lx.quotable_identifier()
        names.append(name)
        if info is not None:
            info.name = name
        if not lx.matches(","):
            break
    lx.match(")")


def parse_function(lx: Lexer, function: FunctionProto) -> None:
    """A function, into ``function`` (``Parse(FunctionProto&)``).

    Raises:
        StatusError, FatalError: a malformed function.
    """
    _header(lx, function, FUNCTION_KEYS)
    function.name = lx.quotable_identifier()
    _function_attributes(lx, function)
    del function.value_info[:]
    _function_values(lx, function.input, function.value_info)
    lx.match("=")
    lx.match(">", skip=False)
    _function_values(lx, function.output, function.value_info)
    if lx.next_char() == "<":
        parse_value_infos(lx, function.value_info, "<", ">")
    parse_nodes(lx, function.node)


def parse_model(lx: Lexer, model: ModelProto) -> None:
    """A model and its functions, to the end of the text (``Parse(ModelProto&)``).

    Raises:
        StatusError, FatalError: a malformed model.
    """
    _header(lx, model, MODEL_KEYS)
    model.graph = GraphProto()
    lx.enter(1)
    parse_graph(lx, model.graph)
    lx.depth -= 1
    while not lx.at_end():
        function = FunctionProto()
        model.functions.append(function)
        parse_function(lx, function)


_READERS: dict[type, tuple[Callable[[Lexer, Any], None], int]] = {
    ModelProto: (parse_model, 0),
    GraphProto: (parse_graph, 0),
    FunctionProto: (parse_function, 0),
    NodeProto: (parse_node, -1),  # as if in a graph: its attributes' graphs are 2 deeper
}

_MARGIN = 6
"""How many levels below the deepest counted one a message may still be (a
tensor type's tensor, shape and dimension; an attribute's tensor and its
external-data entries)."""


def parse_text(text: str, cls: type[M]) -> M:
    """The message of class ``cls`` (a model, graph, function or node) that
    ``text`` holds, as onnx's parser reads it: the text ends at its first NUL
    character (onnx reads a C string).

    Raises:
        TypeError: ``text`` is not a ``str``.
        ParseError: the text is not in the syntax, a number is out of range,
            the messages nest deeper than protobuf reads, or the text holds a
            lone surrogate (which is no UTF-8).
    """
    if not isinstance(text, str):
        raise TypeError(f"the text to parse must be a str, not {type(text).__name__}")
    text = text.partition("\0")[0]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise located(
            text[: exc.start],  # the text before it, which is UTF-8
            exc.start,
            f"The text is not valid Unicode (a lone surrogate at character {exc.start}).",
        ) from None
    message = cls()
    read, depth = _READERS[cls]
    lx = Lexer(text, depth)
    # A parse builds a tree of new objects and no cycles: the collector would only
    # rescan it as it grows (the decoder pauses it the same way, and restores it).
    paused = len(text) >= MIN_BYTES and pause()
    try:
        read(lx, message)
    except StatusError as exc:
        raise located(text, exc.pos, exc.message) from None
    except RecursionError:
        raise located(text, lx.pos, "Nesting too deep for the stack.") from None
    finally:
        if paused:
            resume()
    if lx.deepest + _MARGIN > MAX_DEPTH:
        _check_depth(message, text, lx.pos)
    return message


def _check_depth(message: Message, text: str, pos: int) -> None:
    """Refuse ``message`` if protobuf could not read it back: onnx's parser makes
    it, then fails to read it (``DecodeError``).  Only deep messages are checked,
    by encoding them, whose limit is protobuf's."""
    try:
        message.encode()
    except EncodeValueError:
        raise located(
            text, pos, f"Nested deeper than {MAX_DEPTH} messages, which protobuf cannot read."
        ) from None
