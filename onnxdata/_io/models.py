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

from functools import cache

from .._core.errors import DecodeError
from .._core.schema import spec_of
from .._core.wire import fields
from .._messages.declarations import StringStringEntryProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["is_model"]

# A message's shape: field number -> (wire type, singular, the payload's shape or
# None).  Field numbers not listed may appear with any wire type (protobuf keeps
# them as unknown fields), but must be well-formed.
_Shape = dict[int, tuple[int, bool, "_Shape | None"]]


def _shape(cls: type, inner: dict[FieldSpec, _Shape] | None = None) -> _Shape:
    """The shape of every field ``cls`` declares, from the schema; the payloads of
    the fields in ``inner`` are checked against their shapes too."""
    inner = inner or {}
    return {f.number: (f.wire_type, not f.repeated, inner.get(f)) for f in spec_of(cls).fields}


@cache
def _model() -> tuple[_Shape, int, frozenset[int]]:
    """ModelProto's shape, the number of ``ir_version`` and those of the parts a
    model has one of; made on the first call, so that reading data files never
    imports the model messages."""
    from .._messages.graphs import GraphProto, ModelProto, OperatorSetIdProto

    fields = spec_of(ModelProto).named
    shape = _shape(
        ModelProto,
        {
            fields.graph: _shape(GraphProto),
            fields.opset_import: _shape(OperatorSetIdProto),
            fields.metadata_props: _shape(StringStringEntryProto),
        },
    )
    parts = (fields.graph, fields.opset_import, fields.training_info, fields.functions)
    return shape, fields.ir_version.number, frozenset(f.number for f in parts)


def _fields(view: Any, pos: int, end: int, shape: _Shape) -> set[int] | None:
    """The numbers of the fields in ``view[pos:end]`` if they fit ``shape``, else None.

    Stops at the first field that does not fit, so bytes of another type cost
    a field or two.
    """
    seen: set[int] = set()
    try:
        for number, wire_type, body_at, after in fields(view, pos, end):
            known = shape.get(number)
            if known is not None:
                wire, singular, inner = known
                if wire_type != wire or (singular and number in seen):
                    return None
                if inner is not None and _fields(view, body_at, after, inner) is None:
                    return None
            seen.add(number)
    except DecodeError:
        return None  # not well-formed: not a model (decoding will say what is wrong)
    return seen


def is_model(view: Any) -> bool:
    """Whether the bytes in ``view`` have the shape of an ONNX model (see the module docstring)."""
    shape, ir_version, parts = _model()
    seen = _fields(view, 0, len(view), shape)
    return seen is not None and ir_version in seen and not seen.isdisjoint(parts)
