"""Types in ONNX's textual syntax: ``float[N, 3]``, ``seq(...)``, ``map(k, v)``,
``optional(...)``, ``sparse_tensor(...)``, ``opaque(...)``, and value infos.

As onnx's parser: ``float`` alone is a scalar (an empty shape, present),
``float[]`` a tensor of unknown rank (no shape), a dimension is ``?``
(neither value nor name), a name, a quoted name, or an integer; each message
is filled in place, in onnx's order, so a text that fails half-way leaves what
onnx's parser leaves (which shows where onnx ignores a failure: a function's
attribute defaults).
"""

from __future__ import annotations

from .._messages.graphs import ValueInfoProto
from .._messages.types import TensorShapeProto, TypeProto
from .lexicon import ELEMENT_TYPES, TYPE_KEYWORDS
from .parse_lexer import Lexer

__all__ = ["next_is_type", "parse_type", "parse_value_info"]


def next_is_type(lx: Lexer) -> bool:
    """A type comes next (``NextIsType``): an element type's name or a type keyword."""
    name = lx.peek_identifier()
    return name in ELEMENT_TYPES or name in TYPE_KEYWORDS


def _shape(lx: Lexer, shape: TensorShapeProto) -> None:
    """Dimensions separated by commas, into ``shape`` (``Parse(TensorShapeProto&)``)."""
    dims = shape.dim
    while True:
        if lx.matches("?"):
            dims.append(TensorShapeProto.Dimension())
        elif lx.next_char() == '"':
            dims.append(TensorShapeProto.Dimension(dim_param=lx.string()))
        else:
            name = lx.optional_identifier()
            if name:
                dims.append(TensorShapeProto.Dimension(dim_param=name))
            else:
                dims.append(TensorShapeProto.Dimension(dim_value=lx.int64()))
        if not lx.matches(","):
            return


def _tensor_shape(lx: Lexer, holder: TypeProto.Tensor | TypeProto.SparseTensor) -> None:
    """The optional ``[dims]`` after an element type: none is a scalar's empty
    shape, ``[]`` no shape at all."""
    if lx.matches("["):
        if not lx.matches("]"):
            shape = holder.shape = TensorShapeProto()
            _shape(lx, shape)
            lx.match("]")
    else:
        holder.shape = TensorShapeProto()


def parse_type(lx: Lexer, proto: TypeProto) -> None:
    """A type, into ``proto`` (``Parse(TypeProto&)``).

    Raises:
        StatusError: not a type; a malformed one.
        FatalError: nested deeper than the lexer allows; a dimension out of range.
    """
    name = lx.identifier()
    dtype = ELEMENT_TYPES.get(name)
    if dtype is not None:
        tensor = proto.tensor_type = TypeProto.Tensor(elem_type=dtype)
        _tensor_shape(lx, tensor)
        return
    if name not in TYPE_KEYWORDS:
        raise lx.fault("Unexpected type.")
    lx.enter(2)
    lx.match("(")
    if name == "seq":
        inner = proto.sequence_type = TypeProto.Sequence()
        inner.elem_type = TypeProto()
        parse_type(lx, inner.elem_type)
    elif name == "map":
        _map(lx, proto)
    elif name == "optional":
        maybe = proto.optional_type = TypeProto.Optional()
        maybe.elem_type = TypeProto()
        parse_type(lx, maybe.elem_type)
    elif name == "sparse_tensor":
        key = ELEMENT_TYPES.get(lx.identifier(), 0)
        if not key:
            raise lx.fault("Unexpected type in sparse-tensor element type.")
        sparse = proto.sparse_tensor_type = TypeProto.SparseTensor(elem_type=key)
        _tensor_shape(lx, sparse)
    else:
        _opaque(lx, proto)
        lx.depth -= 2
        return
    lx.match(")")
    lx.depth -= 2


def _map(lx: Lexer, proto: TypeProto) -> None:
    """``map(key, value`` (the ``)`` is the caller's)."""
    mapping = proto.map_type = TypeProto.Map()
    key = ELEMENT_TYPES.get(lx.identifier(), 0)
    if not key:
        raise lx.fault("Expecting primitive type as map key type.")
    mapping.key_type = key
    lx.match(",")
    mapping.value_type = TypeProto()
    parse_type(lx, mapping.value_type)


def _opaque(lx: Lexer, proto: TypeProto) -> None:
    """``opaque()``, ``opaque(name)``, ``opaque(domain, name)`` after the ``(``,
    with the ``)``; a dotted name alone is the name."""
    opaque = proto.opaque_type = TypeProto.Opaque()
    if lx.matches(")"):
        return
    first = lx.identifier()
    while lx.matches("."):
        first += "." + lx.identifier()
    if lx.matches(","):
        opaque.domain = first
        opaque.name = lx.identifier()
    else:
        opaque.name = first
    lx.match(")")


def parse_value_info(lx: Lexer, info: ValueInfoProto) -> None:
    """An optional type and a (quotable) name, into ``info`` (``Parse(ValueInfoProto&)``).

    Raises:
        StatusError, FatalError: as :func:`parse_type`; no name.
    """
    if next_is_type(lx):
        info.type = TypeProto()
        lx.enter(2)  # the value info, its type
        parse_type(lx, info.type)
        lx.depth -= 2
    info.name = lx.quotable_identifier()
