"""``onnx.helper``'s attribute functions: make_attribute, make_attribute_ref, get_attribute_value.

The kind of an attribute is inferred from its value as onnx 1.23.2 infers
it, through the ``numbers`` ABCs (so numpy's scalars are numbers, and a numpy
array is an iterable of them, without importing numpy): an Integral is INT,
another Real FLOAT, str/bytes STRING, a message its kind, an iterable the
list kind its elements share.  Messages may be onnx's.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

from .._core.foreign import foreign_class_name, foreign_name
from .._core.schema import spec_of
from .._messages.declarations import SparseTensorProto, TensorProto
from .._messages.graphs import AttributeProto, GraphProto, NodeProto
from .._messages.message import Message
from .._messages.types import TypeProto
from .protovalues import blob, copied, messages, scalar, scalars

__all__ = [
    "attr_type_name",
    "get_attribute_value",
    "get_node_attr_value",
    "make_attribute",
    "make_attribute_ref",
]

A = AttributeProto.AttributeType

# (message class, singular field and kind, repeated field and kind)
_MESSAGE_KINDS: tuple[tuple[type[Message], str, int, str, int], ...] = (
    (TensorProto, "t", A.TENSOR, "tensors", A.TENSORS),
    (SparseTensorProto, "sparse_tensor", A.SPARSE_TENSOR, "sparse_tensors", A.SPARSE_TENSORS),
    (GraphProto, "g", A.GRAPH, "graphs", A.GRAPHS),
    (TypeProto, "tp", A.TYPE_PROTO, "type_protos", A.TYPE_PROTOS),
)
_LIST_FIELDS = {kind: (name, cls) for cls, _, _, name, kind in _MESSAGE_KINDS}


def attr_type_name(attr_type: int) -> str:
    """The name of an AttributeType value; ``UNDEFINED`` for a value that is none (as onnx)."""
    return A.Name(attr_type) if attr_type in A.values() else A.keys()[0]


def _is_a(cls: type, wanted: type[Message]) -> bool:
    """Whether instances of ``cls`` are ``wanted`` messages, onnxdata's or onnx's."""
    if issubclass(cls, wanted):
        return True
    return foreign_class_name(cls) == spec_of(wanted).full_name


def _message_kind(value: Any) -> tuple[type[Message], str, int] | None:
    if not isinstance(value, Message) and foreign_name(value) is None:
        return None
    for cls, name, kind, _, _ in _MESSAGE_KINDS:
        if _is_a(type(value), cls):
            return cls, name, kind
    return None


def _infer(values: list[Any]) -> int:
    """The list kind of ``values``' elements, as onnx infers it (in its order of tries)."""
    types = {type(v) for v in values}
    tries: list[tuple[Any, int]] = [
        (lambda t: issubclass(t, numbers.Integral), A.INTS),
        (lambda t: issubclass(t, numbers.Real), A.FLOATS),
        (lambda t: issubclass(t, (str, bytes)), A.STRINGS),
    ]
    tries += [(lambda t, c=cls: _is_a(t, c), kind) for cls, _, _, _, kind in _MESSAGE_KINDS]
    for test, kind in tries:
        if all(test(t) for t in types):
            return kind
    raise ValueError(
        "Could not infer the attribute type from the elements of the passed Iterable value."
    )


def _utf8(value: Any) -> Any:
    return value.encode("utf-8") if isinstance(value, str) else value


def _set_list(attr: AttributeProto, attr_type: int, values: list[Any]) -> None:
    if attr_type == A.INTS:
        attr.ints = scalars(AttributeProto, "ints", values)
    elif attr_type == A.FLOATS:
        attr.floats = scalars(AttributeProto, "floats", values)
    elif attr_type == A.STRINGS:
        attr.strings = [blob(_utf8(v)) for v in values]
    elif attr_type in _LIST_FIELDS:
        name, cls = _LIST_FIELDS[attr_type]
        setattr(attr, name, messages(values, cls))
    else:  # onnx: a scalar kind asked for a list value
        raise AssertionError
    attr.type = attr_type


def _set_single(attr: AttributeProto, value: Any) -> bool:
    """Set the value of a singular kind; False if ``value`` is of none."""
    if isinstance(value, numbers.Integral):
        attr.i, attr.type = scalar(AttributeProto, "i", int(value)), A.INT
    elif isinstance(value, numbers.Real):
        attr.f, attr.type = scalar(AttributeProto, "f", float(value)), A.FLOAT
    elif isinstance(value, (str, bytes)):
        attr.s, attr.type = _utf8(value), A.STRING
    else:
        found = _message_kind(value)
        if found is None:
            return False
        cls, name, kind = found
        setattr(attr, name, copied(value, cls))
        attr.type = kind
    return True


def make_attribute(
    key: str,
    value: Any,
    doc_string: str | None = None,
    attr_type: int | None = None,
) -> AttributeProto:
    """An AttributeProto named ``key`` holding ``value``, its kind inferred (see the module).

    ``attr_type`` names the kind of an empty list, and is checked against the
    inferred kind otherwise.  An integer is stored as int64, a real number as
    float32, a str as UTF-8 bytes; messages are copied.

    Raises:
        ValueError: an empty iterable without ``attr_type``, elements of no
            common kind, or an integer outside int64.
        TypeError: a value of no attribute kind, an inferred kind that is
            not ``attr_type``, or list elements ``attr_type``'s field refuses.
        AssertionError: ``attr_type`` is a singular kind and ``value`` is a
            list (as onnx).
    """
    attr = AttributeProto()
    attr.name = scalar(AttributeProto, "name", key)
    if doc_string:
        attr.doc_string = scalar(AttributeProto, "doc_string", doc_string)
    if not _set_single(attr, value):
        if not isinstance(value, Iterable):
            raise TypeError(f"'{value}' is not an accepted attribute value.")
        values = list(value)
        if not values and attr_type is None:
            raise ValueError(f"Could not infer attribute `{key}` type from empty iterator")
        if attr_type is None:
            attr_type = _infer(values)
        _set_list(attr, attr_type, values)
    if attr_type is not None and attr.type != attr_type:
        raise TypeError(
            f"Inferred attribute type '{attr_type_name(attr.type)}'({attr.type}) mismatched "
            f"with specified type '{attr_type_name(attr_type)}'({attr_type})"
        )
    return attr


def make_attribute_ref(
    name: str,
    attr_type: int,
    doc_string: str | None = None,
    *,
    ref_attr_name: str | None = None,
) -> AttributeProto:
    """An attribute of a function body that takes the value of the calling node's
    attribute ``ref_attr_name`` (default: ``name``).

    Raises:
        ValueError: ``ref_attr_name`` is empty, or ``attr_type`` is no AttributeType.
        TypeError: a name that is not str, or an ``attr_type`` that is not an integer.
    """
    if ref_attr_name is None:
        ref_attr_name = name
    if not ref_attr_name:
        raise ValueError("ref_attr_name must be non-empty")
    attr = AttributeProto()
    attr.name = scalar(AttributeProto, "name", name)
    attr.type = scalar(AttributeProto, "type", attr_type)
    attr.ref_attr_name = scalar(AttributeProto, "ref_attr_name", ref_attr_name)
    if doc_string:
        attr.doc_string = scalar(AttributeProto, "doc_string", doc_string)
    return attr


_SINGLE_FIELDS = {A.FLOAT: "f", A.INT: "i", A.STRING: "s"}
_SINGLE_FIELDS.update({kind: name for _, name, kind, _, _ in _MESSAGE_KINDS})
_REPEATED_FIELDS = {A.FLOATS: "floats", A.INTS: "ints", A.STRINGS: "strings"}
_REPEATED_FIELDS.update({kind: name for _, _, _, name, kind in _MESSAGE_KINDS})


def get_attribute_value(attr: AttributeProto) -> Any:
    """The value of ``attr`` for its ``type``: a number, bytes, a message, or a list
    (a new list of the repeated field's values); None for UNDEFINED.

    Raises:
        ValueError: a reference attribute (``ref_attr_name`` set), which has
            no value of its own, or a ``type`` that is no AttributeType (onnx's
            messages, with the attribute in text format).
    """
    if attr.ref_attr_name:
        raise ValueError(f"Cannot get value of reference attribute: {attr}")
    kind = attr.type
    if kind in _SINGLE_FIELDS:
        return getattr(attr, _SINGLE_FIELDS[kind])
    if kind in _REPEATED_FIELDS:
        return list(getattr(attr, _REPEATED_FIELDS[kind]))
    if kind == A.UNDEFINED:
        return None
    raise ValueError(f"Unsupported ONNX attribute: {attr}")


def get_node_attr_value(node: NodeProto, attr_name: str) -> Any:
    """:func:`get_attribute_value` of the node's one attribute named ``attr_name``.

    Raises:
        ValueError: no attribute, or several, of that name; or see
            :func:`get_attribute_value`.
    """
    matching = [a for a in node.attribute if a.name == attr_name]
    if len(matching) > 1:
        raise ValueError(f"Node has multiple attributes with name {attr_name}")
    if len(matching) < 1:
        raise ValueError(f"Node has no attribute with name {attr_name}")
    return get_attribute_value(matching[0])
