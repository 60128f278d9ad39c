"""onnx's checks of the data messages, as ``check_model`` runs them: the first
rule broken raises, with onnx's text.

These are onnx 1.23.2's ``check_tensor``, ``check_sparse_tensor``,
``check_sequence``, ``check_map`` and ``check_optional`` (``checker.cc``), in
their order, so a model's verdict and first message are onnx's.  They are
more lenient than onnxdata's own validator (:func:`onnxdata.check`, which
counts exactly and lists every break): onnx accepts a surplus of values, for
one.  The public ``checker.check_tensor`` keeps onnxdata's stricter rules
(docs/compat.md); ``check_model`` uses these.

An external tensor's location is resolved against ``ctx.model_dir`` as onnx
resolves it, file system included (:mod:`.checker_paths`).
"""

from __future__ import annotations

import sys
from array import array

from .._core.mapped import check_view
from .._core.schema import spec_of
from .._messages.declarations import (
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from .checker_context import fail
from .checker_paths import resolve_external_data_location

# Fields named through the schema: a rename in the declarations fails here, at import.
_KEY = spec_of(StringStringEntryProto).named.key.name
_VALUE = spec_of(StringStringEntryProto).named.value.name
_RAW_DATA = spec_of(TensorProto).named.raw_data.name
_SPARSE = spec_of(SparseTensorProto).named
_ELEM_TYPE = spec_of(SequenceProto).named.elem_type.name
_MAP_VALUE = spec_of(OptionalProto).named.map_value.name
_MAP = spec_of(MapProto).named

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec
    from .checker_context import CheckerContext

__all__ = ["check_map", "check_optional", "check_sequence", "check_sparse_tensor", "check_tensor"]

_DT = TensorProto.DataType
_INT64_MAX = (1 << 63) - 1
_EXTERNAL = TensorProto.EXTERNAL

# The value fields, in the order onnx counts them (the last one holding values
# is the one its messages name).
_T = spec_of(TensorProto).named
_VALUE_FIELDS = (
    _T.float_data, _T.int32_data, _T.string_data, _T.int64_data, _T.raw_data, _T.double_data,
    _T.uint64_data,
)  # fmt: skip
_HELD = tuple((f.name, f.held) for f in _VALUE_FIELDS)
_DATA_TYPE, _LOCATION, _NAME = _T.data_type.held, _T.data_location.held, _T.name.held

# raw_data: bytes per element, or (numerator, denominator) for packed types.
_RAW_PER_ELEMENT = {
    **dict.fromkeys((_DT.UINT8, _DT.INT8, _DT.BOOL, _DT.FLOAT8E4M3FN, _DT.FLOAT8E4M3FNUZ,
                     _DT.FLOAT8E5M2, _DT.FLOAT8E5M2FNUZ, _DT.FLOAT8E8M0), 1),
    **dict.fromkeys((_DT.UINT16, _DT.INT16, _DT.FLOAT16, _DT.BFLOAT16), 2),
    **dict.fromkeys((_DT.FLOAT, _DT.INT32, _DT.UINT32), 4),
    **dict.fromkeys((_DT.DOUBLE, _DT.INT64, _DT.UINT64, _DT.COMPLEX64), 8),
    _DT.COMPLEX128: 16,
}  # fmt: skip
_RAW_PACKED = {
    **dict.fromkeys((_DT.UINT4, _DT.INT4, _DT.FLOAT4E2M1), 2),
    **dict.fromkeys((_DT.UINT2, _DT.INT2), 4),
}
_FLOAT6 = (_DT.FLOAT6E2M3, _DT.FLOAT6E3M2)

# The typed field of each data type, what one element takes in it, onnx's word
# for its values, and whether its message says "and packed type".
_TYPED: dict[int, tuple[FieldSpec, int, str, bool]] = {
    **dict.fromkeys((_DT.FLOAT,), (_T.float_data, 1, "float", False)),
    _DT.COMPLEX64: (_T.float_data, 2, "float", False),
    _DT.DOUBLE: (_T.double_data, 1, "double", False),
    _DT.COMPLEX128: (_T.double_data, 2, "double", False),
    **dict.fromkeys((_DT.INT32, _DT.UINT8, _DT.INT8, _DT.UINT16, _DT.INT16, _DT.BOOL,
                     _DT.FLOAT16, _DT.BFLOAT16, _DT.FLOAT8E4M3FN, _DT.FLOAT8E4M3FNUZ,
                     _DT.FLOAT8E5M2, _DT.FLOAT8E5M2FNUZ, _DT.FLOAT8E8M0, _DT.FLOAT6E2M3,
                     _DT.FLOAT6E3M2), (_T.int32_data, 1, "int32", False)),
    **dict.fromkeys((_DT.UINT4, _DT.INT4, _DT.FLOAT4E2M1), (_T.int32_data, -8, "int32", True)),
    **dict.fromkeys((_DT.UINT2, _DT.INT2), (_T.int32_data, -16, "int32", True)),
    _DT.INT64: (_T.int64_data, 1, "int64", False),
    **dict.fromkeys((_DT.UINT32, _DT.UINT64), (_T.uint64_data, 1, "uint64", False)),
    _DT.STRING: (_T.string_data, 1, "string", False),
}  # fmt: skip


def _size(value: Any) -> int:
    return 0 if value is None else len(value)


def dim_product(dims: Any, name: str) -> int:
    """onnx's ``safe_dim_product``: the element count, refusing a negative dim or
    a product past int64."""
    result = 1
    for d in dims:
        if d < 0:
            fail("Negative dimension value (tensor name: ", name, ")")
        result *= d
        if result > _INT64_MAX:
            fail("Tensor dimension product overflow (tensor name: ", name, ")")
    return result


def check_tensor(tensor: Any, ctx: CheckerContext) -> None:
    """onnx's ``check_tensor``. Raises ValidationError."""
    data_type = _DATA_TYPE(tensor)
    if data_type is None:
        fail("Field 'data_type' of 'tensor' is required but missing.")
    name = _NAME(tensor) or ""
    if data_type == _DT.UNDEFINED:
        fail("setting data_type field (tensor name: ", name, ") to UNDEFINED is not allowed")
    used = [field for field, read in _HELD if _size(read(tensor))]
    if _LOCATION(tensor) == _EXTERNAL:
        _external(tensor, name, used, ctx)
        return
    nelem = dim_product(tensor.dims, name)
    if nelem == 0 and used:
        fail("TensorProto (tensor name: ", name, ") is 0-element but contains data!")
    if nelem != 0 and len(used) != 1:
        fail("TensorProto (tensor name: ", name, ") should contain one and only one value field.")
    if _T.raw_data.name in used:
        _raw(tensor, name, data_type, nelem)
    else:
        _typed(tensor, name, data_type, nelem, used[-1] if used else "")


def _external(tensor: Any, name: str, used: list[str], ctx: CheckerContext) -> None:
    if used:
        fail("Data of TensorProto ( tensor name: ", name, ") is stored externally and should "
             "not have data field.", used[-1])  # fmt: skip
    has_location = False
    for entry in tensor.external_data:
        key, value = entry.key, entry.value
        if entry.HasField(_KEY) and entry.HasField(_VALUE) and key == "location":
            has_location = True
            resolve_external_data_location(ctx.model_dir, value, name)
    if not has_location:
        fail("TensorProto ( tensor name: ", name, ") is stored externally but doesn't have a "
             "location.")  # fmt: skip


def _too_large(name: str) -> None:
    fail("TensorProto (tensor name: ", name, ") has a shape too large to validate against its "
         "data type.")  # fmt: skip


def _raw(tensor: Any, name: str, data_type: int, nelem: int) -> None:
    if data_type == _DT.STRING:
        fail("STRING data (tensor name: ", name, ") should not be stored in raw_data field")
    raw = tensor.raw_data
    expected = 0
    if data_type in _RAW_PACKED:
        per = _RAW_PACKED[data_type]
        expected = (nelem + per - 1) // per
    elif data_type in _FLOAT6:
        bits = nelem * 6
        if bits > _INT64_MAX:
            _too_large(name)
        expected = bits // 8 + (bits % 8 != 0)
        used_bits = bits % 8
        if expected > 0 and len(raw) >= expected and used_bits and raw[expected - 1] >> used_bits:
            fail("TensorProto (tensor name: ", name, ") has non-zero padding bits in its packed "
                 "FLOAT6 raw_data.")  # fmt: skip
    elif data_type in _RAW_PER_ELEMENT:
        expected = nelem * _RAW_PER_ELEMENT[data_type]
        if expected > _INT64_MAX:
            _too_large(name)
    if expected > 0 and len(raw) < expected:
        fail("TensorProto (tensor name: ", name, ") raw_data size (", len(raw), " bytes) is too "
             "small for the declared shape and type (", expected, " bytes required).")  # fmt: skip


def _typed(tensor: Any, name: str, data_type: int, nelem: int, value_field: str) -> None:
    typed = _TYPED.get(data_type)
    if typed is None:
        fail("Unrecognized data_type (tensor name: ", name, "): ", data_type)
    field, per, word, packed = typed
    have = _size(field.held(tensor))
    if nelem != 0 and value_field != field.name:
        fail("values of data_type '", data_type, "' should be stored in field '", field.name,
             "' instead of '", value_field, "'")  # fmt: skip
    if nelem <= 0:
        return
    want = nelem * per if per > 0 else (nelem - per - 1) // -per
    if want > _INT64_MAX:
        _too_large(name)
    if have < want:
        shape = "shape and packed type" if packed else "shape"
        fail("TensorProto (tensor name: ", name, ") ", field.name, " size (", have, ") is too "
             "small for the declared ", shape, " (", want, " ", word,
             " values required).")  # fmt: skip
    if data_type in _FLOAT6:
        for value in tensor.int32_data:
            if value < 0 or value > 0x3F:
                fail("TensorProto (tensor name: ", name, ") FLOAT6 int32_data values must use "
                     "only bits 0-5.")  # fmt: skip


# -- sparse tensors ---------------------------------------------------------------


def _index_data(indices: Any, nelem: int) -> list[int]:
    """onnx's ``ParseData<int64_t>`` of the indices (its errors are shape
    inference's, raised here as the checker's with the same text)."""
    name = indices.name
    if indices.data_location == _EXTERNAL:
        fail("[ShapeInferenceError] Cannot parse data from external tensors. Please load "
             "external data into raw data for tensor: ", name)  # fmt: skip
    if not indices.HasField(_RAW_DATA):
        data = indices.int64_data
        if len(data) != nelem:
            fail("[ShapeInferenceError] Data size mismatch. Tensor: ", name, " expected num "
                 "elements ", nelem, " does not match the actual num elements ",
                 len(data))  # fmt: skip
        return list(data)
    check_view(indices.raw_data)  # of a mapped file that shrank: an error, not SIGBUS
    raw = bytes(indices.raw_data)
    if len(raw) // 8 < nelem:
        fail("[ShapeInferenceError] Data size mismatch. Tensor: ", name, " has ", len(raw),
             " bytes of raw_data for ", nelem, " elements of size 8")  # fmt: skip
    found = array("q")
    found.frombytes(raw[: nelem * 8])
    if sys.byteorder == "big":  # pragma: no cover - little-endian hosts here
        found.byteswap()
    return found.tolist()


def _indices_1(indices: Any, dims: Any, nnz: int) -> None:
    dense_size = 1
    for d in dims:
        dense_size *= d
    name = indices.name
    if indices.dims[0] != nnz:
        fail(
            "Sparse tensor indices (", name, ") has ", indices.dims[0], " values, but NNZ is ", nnz
        )
    data = _index_data(indices, dim_product(indices.dims, name))
    prev = -1
    for i in range(nnz):
        index = data[i]
        if index < 0 or index >= dense_size:
            fail("Sparse tensor (", name, ") index value at position [", i, "] out of range [0, ",
                 dense_size - 1, "]")  # fmt: skip
        if index <= prev:
            fail(
                "Sparse tensor (", name, ") index value at position [", i, "] not in sorted order."
            )
        prev = index


def _indices_2(indices: Any, dims: Any, nnz: int) -> None:
    name = indices.name
    rank = len(dims)
    if indices.dims[0] != nnz:
        fail("Sparse tensor indices (", name, ") first dimension size does not equal NNZ.")
    if indices.dims[1] != rank:
        fail("Sparse tensor indices (", name, ") second dimension size does not match rank of "
             "tensor.")  # fmt: skip
    data = _index_data(indices, dim_product(indices.dims, name))
    prev = -1
    for i in range(nnz):
        index = 0
        for j in range(rank):
            value = data[i * rank + j]
            if value < 0 or value >= dims[j]:
                fail("Sparse tensor (", name, ") index value at position [", i, ",", j, "] out of "
                     "range.")  # fmt: skip
            index = index * dims[j] + value
        if index <= prev:
            fail("Sparse tensor (", name, ") index value at position [", i, "] not in "
                 "lexicographic sorted order.")  # fmt: skip
        prev = index


def check_sparse_tensor(sparse: Any, ctx: CheckerContext) -> None:
    """onnx's ``check_sparse_tensor``. Raises ValidationError."""
    if not sparse.HasField(_SPARSE.values.name):
        fail("Field 'values' of 'sparse_tensor_proto' is required but missing.")
    values = sparse.values
    check_tensor(values, ctx)
    if len(values.dims) != 1:
        fail("Sparse tensor values (", values.name, ") must have rank 1.")
    nnz = values.dims[0]
    dims = sparse.dims
    if not dims:
        fail("Sparse tensor (", values.name, ") must have a dense-rank > 0")
    if any(d <= 0 for d in dims):
        fail("Sparse tensor (", values.name, ") dimensions are not positive.")
    if sparse.HasField(_SPARSE.indices.name):
        indices = sparse.indices
        check_tensor(indices, ctx)
        if indices.data_type != _DT.INT64:
            fail("Sparse tensor indices (", indices.name, ") must have INT64 type.")
        rank = len(indices.dims)
        if rank == 1:
            _indices_1(indices, dims, nnz)
        elif rank == 2:
            _indices_2(indices, dims, nnz)
        else:
            fail("Sparse tensor indices (", indices.name, ") must have rank 1 or 2.")
    elif nnz != 0:
        fail("Sparse tensor (", values.name, ") has no index values.")


# -- sequences, maps, optionals -----------------------------------------------------

_SQ = SequenceProto.DataType


def check_sequence(sequence: Any, ctx: CheckerContext) -> None:
    """onnx's ``check_sequence``. Raises ValidationError."""
    if not sequence.HasField(_ELEM_TYPE):
        fail("Field 'elem_type' of 'sequence' is required but missing.")
    et = sequence.elem_type
    if et == _SQ.TENSOR:
        for t in sequence.tensor_values:
            check_tensor(t, ctx)
    elif et == _SQ.SPARSE_TENSOR:
        for s in sequence.sparse_tensor_values:
            check_sparse_tensor(s, ctx)
    elif et == _SQ.SEQUENCE:
        for q in sequence.sequence_values:
            check_sequence(q, ctx)
    elif et == _SQ.MAP:
        for m in sequence.map_values:
            check_map(m, ctx)
    else:
        fail("Sequence ( Structure name: ", sequence.name, ", elem_type: ", et, ") is not have a "
             "valid element type.")  # fmt: skip


_O = spec_of(OptionalProto).named
_OPTIONAL_CHECKS = {
    OptionalProto.TENSOR: (_O.tensor_value.name, check_tensor),
    OptionalProto.SPARSE_TENSOR: (_O.sparse_tensor_value.name, check_sparse_tensor),
    OptionalProto.SEQUENCE: (_O.sequence_value.name, check_sequence),
}


def check_optional(optional: Any, ctx: CheckerContext) -> None:
    """onnx's ``check_optional``. Raises ValidationError."""
    if not optional.HasField(_ELEM_TYPE):
        fail("Field 'elem_type' of 'optional' is required but missing.")
    et = optional.elem_type
    if et == OptionalProto.UNDEFINED:
        return
    if et == OptionalProto.MAP:
        if optional.HasField(_MAP_VALUE):
            check_map(optional.map_value, ctx)
        return
    found = _OPTIONAL_CHECKS.get(et)
    if found is None:
        fail("Optional ( Structure name: ", optional.name, ", elem_type: ", et, ") is not have a "
             "valid element type.")  # fmt: skip
    field, check = found
    if optional.HasField(field):
        check(getattr(optional, field), ctx)


_BAD_KEYS = (_DT.FLOAT, _DT.BOOL, _DT.FLOAT16, _DT.COMPLEX64, _DT.COMPLEX128)
_S = spec_of(SequenceProto).named
_MAP_VALUES = {
    _SQ.TENSOR: _S.tensor_values.name, _SQ.SPARSE_TENSOR: _S.sparse_tensor_values.name,
    _SQ.SEQUENCE: _S.sequence_values.name, _SQ.MAP: _S.map_values.name,
}  # fmt: skip


def check_map(map_: Any, ctx: CheckerContext) -> None:
    """onnx's ``check_map``. Raises ValidationError."""
    if not map_.HasField(_MAP.key_type.name):
        fail("Field 'key_type' of 'map' is required but missing.")
    key_type = map_.key_type
    if key_type == _DT.UNDEFINED:
        fail("setting key_type field (map name: ", map_.name, ") to UNDEFINED is not allowed")
    if key_type in _BAD_KEYS:
        fail("setting key_type field (map name: ", map_.name, ") to invalid TensorProto key_type ",
             key_type, " is not allowed")  # fmt: skip
    if len(map_.keys) and len(map_.string_keys):
        fail("Map (name: ", map_.name, ") should not contain more than one keys field.")
    num_keys = len(map_.keys) + len(map_.string_keys)
    if not map_.HasField(_MAP.values.name):
        fail("Field 'values' of 'map' is required but missing.")
    check_sequence(map_.values, ctx)
    field = _MAP_VALUES.get(map_.values.elem_type)
    num_values = 0 if field is None else len(getattr(map_.values, field))
    if num_keys != num_values:
        fail("Length of map keys and map values are not the same (map name: ", map_.name, ")")


CHECKS = {
    TensorProto: check_tensor,
    SparseTensorProto: check_sparse_tensor,
    SequenceProto: check_sequence,
    MapProto: check_map,
    OptionalProto: check_optional,
}
"""onnx's check of each data message, by class."""
