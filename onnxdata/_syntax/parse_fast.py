"""Fast path: a node in the common form read by one regular expression.

``[name] a, b = domain.Op <k = 1, f: float = 0.5, s = "x", v = [1, 2]> (x, y)``,
with identifiers only (no quotes, no empty names), no comments, no overload,
and attribute values that are numbers, strings without escapes, or non-empty
lists of them: most nodes of printed models.  The expression matches only text
the general path reads in one way, and the values are converted by the same
functions (``parse_numbers``), typed by the same rules; anything else (a
conversion that would fail, a type that does not match its annotation, a text
the expression does not take) is left to the general path, from the same
position, which then reads it or raises its error.  ``ONNXDATA_GENERAL_PATHS``
turns the path off (``_core/switches.py``); the differential tests run both.
"""

from __future__ import annotations

import re

from .._core import switches
from .._messages.graphs import AttributeProto, NodeProto
from .lexicon import ATTRIBUTE_TYPES
from .parse_numbers import to_float, to_int64

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .parse_lexer import Lexer

__all__ = ["fast_node"]

_W = r"[ \t\n\v\f\r]*"
_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_NUM = r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?"
_STR = r'"[^"\\]*"'
_ITEM = rf"(?:{_NUM}|{_STR})"
_VALUE = rf"(?:{_ITEM}|\[{_W}{_ITEM}(?:{_W},{_W}{_ITEM})*{_W}\])"
_ATTR = rf"{_ID}(?:{_W}:{_W}{_ID})?{_W}={_W}{_VALUE}"
_IDS = rf"{_ID}(?:{_W},{_W}{_ID})*"
_NODE = re.compile(
    rf"{_W}(?:(\[){_W}({_ID})?{_W}\]{_W})?"  # [name]
    rf"({_IDS})?{_W}={_W}"  # outputs =
    rf"((?:{_ID}\.)*)({_ID}){_W}"  # domain.op
    rf"(?:<{_W}({_ATTR}(?:{_W},{_W}{_ATTR})*){_W}>{_W})?"  # <attributes>
    rf"\({_W}({_IDS})?{_W}\)"  # (inputs)
)
_AFTER = re.compile(rf"{_W}[<#]")  # attributes after the inputs, or a comment that may hide them
_ONE_ATTR = re.compile(
    rf"({_ID})(?:{_W}:{_W}({_ID}))?{_W}={_W}(?:({_ITEM})|\[{_W}({_ITEM}(?:{_W},{_W}{_ITEM})*){_W}\])"
)
_ITEMS = re.compile(_ITEM)
_SPLIT = re.compile(rf"{_W},{_W}")

_A = AttributeProto.AttributeType
_FLOAT, _INT, _STRING = int(_A.FLOAT), int(_A.INT), int(_A.STRING)
_FLOATS, _INTS, _STRINGS = int(_A.FLOATS), int(_A.INTS), int(_A.STRINGS)
_SINGLE = {_FLOATS: _FLOAT, _INTS: _INT, _STRINGS: _STRING}
_KNOWN = frozenset({_FLOAT, _INT, _STRING, _FLOATS, _INTS, _STRINGS})
_FIELD = {_FLOAT: "f", _INT: "i", _STRING: "s"}
_IS_FLOAT = frozenset(".eE")


def fast_node(lx: Lexer) -> NodeProto | None:
    """The node at ``lx``'s position if it has the common form (the position
    moves past it), else None (the position unchanged)."""
    if switches.GENERAL_PATHS:
        return None
    text = lx.text
    found = _NODE.match(text, lx.pos)
    if found is None:
        return None
    bracket, name, outputs, domain, op_type, attrs, inputs = found.groups()
    if attrs is None and _AFTER.match(text, found.end()):
        return None
    node = NodeProto(
        input=_SPLIT.split(inputs) if inputs else [],
        output=_SPLIT.split(outputs) if outputs else [],
        op_type=op_type,
        domain=domain[:-1],
    )
    if bracket:
        node.name = name or ""
    if attrs is not None:
        made = node.attribute
        for one in _ONE_ATTR.finditer(attrs):
            attr = _attribute(*one.groups())
            if attr is None:
                return None
            made.append(attr)
    lx.pos = found.end()
    return node


def _attribute(
    name: str, annotation: str | None, item: str | None, items: str | None
) -> AttributeProto | None:
    """One attribute as the general path makes it, or None where it would fail
    (a conversion error, a value of another type than annotated)."""
    expected = 0
    if annotation is not None:
        expected = ATTRIBUTE_TYPES.get(annotation, 0)
        if expected not in _KNOWN:
            return None
    try:
        if item is not None:
            kind, value = _literal(item, expected)
            if expected and expected != kind:
                return None
            fields: dict[str, Any] = {_FIELD[kind]: value}
            return AttributeProto(name=name, type=kind, **fields)
        single = _SINGLE.get(expected, expected)
        kind = expected
        lists: dict[int, list[Any]] = {_INT: [], _FLOAT: [], _STRING: []}
        for text in _ITEMS.findall(items):  # type: ignore[arg-type]
            one, value = _literal(text, single)
            if single and single != one:
                return None
            lists[one].append(value)
            kind = one + 5  # FLOAT, INT, STRING -> FLOATS, INTS, STRINGS
    except ValueError:
        return None
    attr = AttributeProto(name=name, type=kind)
    if lists[_INT]:
        attr.ints = lists[_INT]
    if lists[_FLOAT]:
        attr.floats = lists[_FLOAT]
    if lists[_STRING]:
        attr.strings = lists[_STRING]
    return attr


def _literal(text: str, expected: int) -> tuple[int, Any]:
    """A literal's attribute type and value, as the general path reads it.

    Raises:
        ValueError: the conversion fails (the general path raises there).
    """
    if text[0] == '"':
        return _STRING, text[1:-1].encode("utf-8")
    if expected == _FLOAT or not _IS_FLOAT.isdisjoint(text):
        return _FLOAT, to_float(text)
    return _INT, to_int64(text)
