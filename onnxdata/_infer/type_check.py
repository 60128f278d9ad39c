"""``check_type=True``: onnx's ``OpSchema::CheckInputOutputType``, run after a node's rule.

Each input's type must be one its formal parameter allows and the same as the other
parameters of its type variable; an output left untyped by the rule gets the one type its
parameter allows, or the type its variable is bound to.  A failure is onnx's checker error,
which the walk raises at once (:class:`ImmediateError`); a data type with no name is onnx's
``ValueError`` (``Invalid tensor data type 0.``), raised as it is.
"""

from __future__ import annotations

from typing import Any

from .._messages.declarations import TensorProto
from .._messages.types import TypeProto
from . import fields
from .context import InferenceContext
from .failures import ImmediateError, unavailable
from .merging import case_of


def _element(elem_type: int) -> str:
    """onnx's ``ToDataTypeString``: the data type's name in lower case, or ValueError."""
    try:
        name: str = TensorProto.DataType.Name(elem_type)
    except ValueError:
        name = "UNDEFINED"
    if name == "UNDEFINED":
        raise ValueError(f"Invalid tensor data type {elem_type}.")
    return name.lower()


def type_string(type_proto: Any) -> str:
    """onnx's ``DataTypeUtils::ToString``: ``tensor(float)``, ``seq(tensor(int64))``..."""
    left, right = "", ""
    while True:
        case = case_of(type_proto)
        if case in (fields.TENSOR_TYPE, fields.SPARSE_TENSOR_TYPE):
            head = case[: -len("_type")]
            return f"{left}{head}({_element(getattr(type_proto, case).elem_type)}){right}"
        if case in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
            left += "seq(" if case == fields.SEQUENCE_TYPE else "optional("
            right = ")" + right
            type_proto = getattr(type_proto, case).elem_type
        elif case == fields.MAP_TYPE:
            left += f"map({_element(type_proto.map_type.key_type)},"
            right = ")" + right
            type_proto = type_proto.map_type.value_type
        else:  # opaque types and unset ones: not met by the covered operators yet
            raise unavailable(f"check_type on a value of type {case or 'NOT_SET'}")


def _type_proto(text: str) -> TypeProto:
    """The ``TypeProto`` of a canonical type string (onnx's ``ToTypeProto``)."""
    found = TypeProto()
    holder = found
    while True:
        head, _, inner = text[:-1].partition("(")
        if head in ("tensor", "sparse_tensor"):
            getattr(holder, f"{head}_type").elem_type = TensorProto.DataType.Value(inner.upper())
            return found
        if head in ("seq", "optional"):
            holder = getattr(
                holder, fields.SEQUENCE_TYPE if head == "seq" else fields.OPTIONAL_TYPE
            ).elem_type
            text = inner
        elif head == "map":
            key, _, value = inner.partition(",")
            holder.map_type.key_type = TensorProto.DataType.Value(key.upper())
            holder = holder.map_type.value_type
            text = value
        else:
            raise unavailable(f"check_type with the type {text}")


def _fail(*parts: object) -> ImmediateError:
    return ImmediateError("".join(str(p) for p in parts))


def _verify_count(schema: Any, what: str, count: int, low: int, high: int) -> None:
    if count < low or count > high:
        prefix = f"Node with schema({schema.domain}::{schema.name}:{schema.since_version})"
        raise _fail(prefix, " has ", what, " size ", count, " not in range [min=", low,
                    ", max=", high, "].")  # fmt: skip


def check_input_output_type(schema: Any, ctx: InferenceContext) -> None:
    """onnx's ``CheckInputOutputType`` on the node's inputs, then its outputs."""
    _verify_count(schema, "input", ctx.num_inputs, schema.min_input, schema.max_input)
    _verify_count(schema, "output", ctx.num_outputs, schema.min_output, schema.max_output)
    bound: dict[str, str] = {}
    params = schema.inputs
    for index in range(ctx.num_inputs):
        param = params[index] if index < len(params) else params[-1]
        found = ctx.input_type(index)
        if found is None or case_of(found) is None:
            continue
        text = type_string(found)
        if param.types and text not in param.types:
            raise _fail(param.name, " typestr: ", param.type_str, ", has unsupported type: ", text)
        if param.is_homogeneous and bound.setdefault(param.type_str, text) != text:
            raise _fail(param.name, " has inconsistent type ", text)
    params = schema.outputs
    for index in range(ctx.num_outputs):
        param = params[index] if index < len(params) else params[-1]
        target = ctx.output_type(index)
        if case_of(target) is None:
            if len(param.types) == 1:
                target.CopyFrom(_type_proto(next(iter(param.types))))
            elif param.type_str in bound:
                target.CopyFrom(_type_proto(bound[param.type_str]))
            else:
                continue
        text = type_string(target)
        if param.types and text not in param.types:
            raise _fail(param.name, " has unsupported type ", text)
        if param.is_homogeneous and bound.setdefault(param.type_str, text) != text:
            raise _fail(param.name, " has inconsistent type ", text)
