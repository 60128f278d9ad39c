"""Fast path: a node in the common form read by one regular expression.

``[name] a, b = domain.Op <k = 1, f: float = 0.5, s = "x", v = [1, 2]> (x, y)``,
with names bare or quoted without escapes (none empty but ``""``), no comments,
no overload,
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

import math
import re
from array import array

from .._core import switches
from .._core.schema import spec_of
from .._messages.graphs import AttributeProto, NodeProto
from .lexicon import ATTRIBUTE_TYPES
from .parse_numbers import to_float, to_int64

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .parse_lexer import Lexer

__all__ = ["INTEGERS", "fast_nodes", "fast_values"]

_W = r"[ \t\n\v\f\r]*"
_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_NUM = r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?"
_STR = r'"[^"\\]*"'
_ITEM = rf"(?:{_NUM}|{_STR})"
_VALUE = rf"(?:{_ITEM}|\[{_W}{_ITEM}(?:{_W},{_W}{_ITEM})*{_W}\])"
_ATTR = rf"{_ID}(?:{_W}:{_W}{_ID})?{_W}={_W}{_VALUE}"
_NAME = rf"(?:{_ID}|{_STR})"  # a name, bare or quoted (without escapes)
_IDS = rf"{_NAME}(?:{_W},{_W}{_NAME})*"
_NODE = re.compile(
    rf"{_W}(?:(\[){_W}({_NAME})?{_W}\]{_W})?"  # [name]
    rf"({_IDS})?{_W}={_W}"  # outputs =
    rf"((?:{_ID}\.)*)({_ID}){_W}"  # domain.op
    rf"(?:<{_W}({_ATTR}(?:{_W},{_W}{_ATTR})*){_W}>{_W})?"  # <attributes>
    rf"\({_W}({_IDS})?{_W}\)"  # (inputs)
    # with no attributes before the inputs: none after them either, nor a comment
    # that may hide them (the general path reads those)
    rf"(?(6)|(?!{_W}[<#]))"
)
_ONE_ATTR = re.compile(
    rf"({_ID})(?:{_W}:{_W}({_ID}))?{_W}={_W}(?:({_ITEM})|\[{_W}({_ITEM}(?:{_W},{_W}{_ITEM})*){_W}\])"
)
_ITEMS = re.compile(_ITEM)
_SPLIT = re.compile(rf"{_W},{_W}")
_NAMES = re.compile(rf"{_ID}|{_STR}")

_A = AttributeProto.AttributeType
_FLOAT, _INT, _STRING = int(_A.FLOAT), int(_A.INT), int(_A.STRING)
_FLOATS, _INTS, _STRINGS = int(_A.FLOATS), int(_A.INTS), int(_A.STRINGS)
_SINGLE = {_FLOATS: _FLOAT, _INTS: _INT, _STRINGS: _STRING}
_KNOWN = frozenset({_FLOAT, _INT, _STRING, _FLOATS, _INTS, _STRINGS})
_ATTRIBUTE = spec_of(AttributeProto).named
_FIELD = {_FLOAT: _ATTRIBUTE.f.name, _INT: _ATTRIBUTE.i.name, _STRING: _ATTRIBUTE.s.name}
_MEMO = 4096
"""How many distinct attribute lists one parse remembers (printed models repeat
them: every ``Gemm <alpha: float = 1, ...>``); each node still gets its own
messages, made from the remembered fields."""


def fast_nodes(lx: Lexer, nodes: list[NodeProto]) -> None:
    """Append to ``nodes`` the nodes from ``lx``'s position on that have the
    common form, and move past them; stop at the first that has not (or at the
    end of the list), the position before it."""
    if switches.GENERAL_PATHS:
        return
    text = lx.text
    memo = lx.memo
    match = _NODE.match
    append = nodes.append
    pos = lx.pos
    while (found := match(text, pos)) is not None:
        bracket, name, outputs, domain, op_type, attrs, inputs = found.groups()
        if bracket:
            node = NodeProto(
                input=_names(inputs),
                output=_names(outputs),
                name=(name[1:-1] if name[0] == '"' else name) if name else "",
                op_type=op_type,
                domain=domain[:-1],
            )
        else:
            node = NodeProto(
                input=_names(inputs), output=_names(outputs), op_type=op_type, domain=domain[:-1]
            )
        if attrs is not None:
            fields = memo.get(attrs)
            if fields is None:
                fields = _attributes(attrs)
                if fields is None:
                    break
                if len(memo) < _MEMO:
                    memo[attrs] = fields
            node.attribute = [AttributeProto(**each) for each in fields]
        append(node)
        pos = found.end()
    lx.pos = pos


def _names(text: str | None) -> list[str]:
    """The names of a list the expression took (bare or quoted), unquoted."""
    if not text:
        return []
    if '"' not in text:
        return _SPLIT.split(text)
    return [name[1:-1] if name[0] == '"' else name for name in _NAMES.findall(text)]


def _attributes(text: str) -> list[dict[str, Any]] | None:
    """The fields of each attribute in ``text`` (an attribute list's inside), or
    None if one is not read here."""
    found = []
    for one in _ONE_ATTR.finditer(text):
        fields = _attribute(*one.groups())
        if fields is None:
            return None
        found.append(fields)
    return found


def _attribute(
    name: str, annotation: str | None, item: str | None, items: str | None
) -> dict[str, Any] | None:
    """One attribute's fields as the general path sets them, or None where it
    would fail (a conversion error, a value of another type than annotated)."""
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
            return {"name": name, "type": kind, _FIELD[kind]: value}
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
    fields: dict[str, Any] = {_ATTRIBUTE.name.name: name, _ATTRIBUTE.type.name: kind}
    for field, values in ((_ATTRIBUTE.ints, lists[_INT]), (_ATTRIBUTE.floats, lists[_FLOAT])):
        if values:
            fields[field.name] = values
    if lists[_STRING]:
        fields[_ATTRIBUTE.strings.name] = lists[_STRING]
    return fields


def _literal(text: str, expected: int) -> tuple[int, Any]:
    """A literal's attribute type and value, as the general path reads it.

    Raises:
        ValueError: the conversion fails (the general path raises there).
    """
    if text[0] == '"':
        return _STRING, text[1:-1].encode("utf-8")
    if expected == _FLOAT or "." in text or "e" in text or "E" in text:
        return _FLOAT, to_float(text)
    if len(text) < 19:  # the expression took it as an integer: it fits int64
        return _INT, int(text)
    return _INT, to_int64(text)


# -- tensor values --------------------------------------------------------------

INTEGERS, INT32, FLOATS, DOUBLES = range(4)
"""How :func:`fast_values` reads the values: int64, int64 within int32's
range, float32, double."""

_INT_TEXT = re.compile(r"-?[0-9]{1,18}").fullmatch  # fits int64, whatever the digits
_NUM_TEXT = re.compile(_NUM).fullmatch
_SPACES = " \t\n\v\f\r"
_FLT_MAX = 3.4028234663852886e38
_FLT_MIN = 2.0**-126  # below it float32 is subnormal: rounding there is left to to_float
_LOW_BITS, _MIDPOINT = 0x1FFFFFFF, 0x10000000  # a double on a float32 midpoint


def fast_values(lx: Lexer, target: Any, how: int) -> bool:
    """Append the values of a tensor literal (after its ``{``, up to its ``}``,
    which is left to read) to ``target`` if they are all plain numbers read the
    same way as the general path reads them one by one, and True; else False
    and nothing read.  A float32 value is rounded from its double, which is the
    single rounding from the decimal text except on a midpoint between two
    float32s (or near the subnormals or the overflow): such a list is left to
    the general path."""
    if switches.GENERAL_PATHS:
        return False
    text = lx.text
    end = text.find("}", lx.pos)
    if end < 0:
        return False
    chunk = text[lx.pos : end]
    if "#" in chunk or '"' in chunk:
        return False
    parts = [part.strip(_SPACES) for part in chunk.split(",")]
    if how in (INTEGERS, INT32):
        if not all(map(_INT_TEXT, parts)):
            return False
        values: Any = list(map(int, parts))
        if how == INT32 and not -(2**31) <= min(values) <= max(values) <= 2**31 - 1:
            return False
    else:
        if not all(map(_NUM_TEXT, parts)):
            return False
        values = list(map(float, parts))
        if how == DOUBLES:
            if any(map(math.isinf, values)):
                return False
        elif not _rounds_once(values):
            return False
        else:
            values = array("f", values)
    target.extend(values)
    lx.pos = end
    return True


def _rounds_once(values: list[float]) -> bool:
    """Whether rounding each double to float32 gives the float32 of its text."""
    if max(map(abs, values)) > _FLT_MAX or any(0 < abs(v) < _FLT_MIN for v in values):
        return False
    bits = array("Q")
    bits.frombytes(array("d", values).tobytes())
    return not any(b & _LOW_BITS == _MIDPOINT for b in bits)
