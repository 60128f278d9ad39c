"""Model files: recognising an ONNX model (a ``ModelProto``) among data files.

The wire format carries no type name, and a model's bytes are well-formed
protobuf, so type detection (``load(path)``, ``onnxdata show``) would read a
model as some data type made of unknown fields.  :func:`is_model` tells a
model by its shape, read from the wire without decoding anything, and
detection then reads it as a ``ModelProto``:

* every top-level field that ModelProto declares has that field's wire type,
  and a singular one appears once (as protobuf writes it);
* ``ir_version`` (field 1, a varint) is there, and so is at least one of
  ``graph`` (7), ``opset_import`` (8), ``training_info`` (20) or
  ``functions`` (25);
* ``graph`` is a well-formed message whose GraphProto fields are all
  length-delimited, and each ``opset_import`` entry an OperatorSetIdProto
  (domain a string, version a varint), each metadata entry (field 14) a
  string pair.

No canonical encoding of a data message has that shape: TensorProto writes
``dims`` (field 1) packed, not as a varint, and SparseTensorProto,
SequenceProto and OptionalProto give field 1 to a string or a message;
MapProto has a varint field 1 (``key_type``) but no field above 4.  So every
data file is detected as before, and a file taken for a model is one that no
data type fits exactly.
"""

from __future__ import annotations

from .._core.errors import DecodeError
from .._core.wire import LEN, MAX_DEPTH, VARINT, read_length, read_tag, skip_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["is_model"]

# A message's shape: field number -> (wire type, singular, the payload's shape or
# None).  Field numbers not listed may appear with any wire type (protobuf keeps
# them as unknown fields), but must be well-formed.
_Shape = dict[int, tuple[int, bool, "_Shape | None"]]

_OPERATOR_SET_ID: _Shape = {1: (LEN, True, None), 2: (VARINT, True, None)}
_STRING_PAIR: _Shape = {1: (LEN, True, None), 2: (LEN, True, None)}
_GRAPH: _Shape = {
    number: (LEN, number in (2, 10), None)  # its name and its documentation are singular
    for number in (1, 2, 5, 10, 11, 12, 13, 14, 15, 16)
}
_MODEL: _Shape = {
    1: (VARINT, True, None),  # ir_version
    2: (LEN, True, None),  # producer_name
    3: (LEN, True, None),  # producer_version
    4: (LEN, True, None),  # domain
    5: (VARINT, True, None),  # model_version
    6: (LEN, True, None),  # the documentation string
    7: (LEN, True, _GRAPH),  # graph
    8: (LEN, False, _OPERATOR_SET_ID),  # opset_import
    14: (LEN, False, _STRING_PAIR),  # metadata: key-value string pairs
    20: (LEN, False, None),  # training_info
    25: (LEN, False, None),  # functions
    26: (LEN, False, None),  # configuration
}
_IR_VERSION = 1
_MODEL_PARTS = frozenset({7, 8, 20, 25})  # graph, opset_import, training_info, functions


def _fields(view: Any, pos: int, end: int, shape: _Shape) -> set[int] | None:
    """The numbers of the fields in ``view[pos:end]`` if they fit ``shape``, else None.

    Stops at the first field that does not fit, so bytes of another type cost
    a field or two.
    """
    seen: set[int] = set()
    try:
        while pos < end:
            start = pos
            tag, after = read_tag(view, pos, end)
            pos = skip_field(view, start, after, end, tag, MAX_DEPTH)
            number = tag >> 3
            known = shape.get(number)
            if known is not None:
                wire, singular, inner = known
                if tag & 7 != wire or (singular and number in seen):
                    return None
                if inner is not None:
                    payload = read_length(view, after, pos)[1]
                    if _fields(view, payload, pos, inner) is None:
                        return None
            seen.add(number)
    except DecodeError:
        return None  # not well-formed: not a model (decoding will say what is wrong)
    return seen


def is_model(view: Any) -> bool:
    """Whether the bytes in ``view`` have the shape of an ONNX model (see the module docstring)."""
    seen = _fields(view, 0, len(view), _MODEL)
    return seen is not None and _IR_VERSION in seen and not seen.isdisjoint(_MODEL_PARTS)
