"""``onnx.helper`` (1.23.2) on onnxdata's messages, but what needs onnx's C++.

Models, graphs, nodes, functions and attributes (:func:`make_node`,
:func:`make_graph`, :func:`make_model`, :func:`make_attribute`, the type-proto
and value-info makers, the printers, :func:`strip_doc_string`, the version
tables) come from ``_tools`` (makers, typemakers, attributes, printable): the
same names, signatures, bytes and exception classes as onnx's; messages given
are copied, and may be onnx's.

The data half: :func:`make_tensor`, :func:`make_sparse_tensor`,
:func:`make_sequence`, :func:`make_map`, :func:`make_optional`,
:func:`printable_tensor_proto` and the data-type mappings
(``tensor_dtype_to_*``, :func:`np_dtype_to_tensor_dtype`,
:func:`get_all_tensor_dtypes`).  Same names, signatures and results:
``make_tensor(...).encode()`` equals onnx's ``SerializeToString()`` for every
data type, from lists, arrays or bytes.

numpy is needed (the mappings are about numpy dtypes), and ml_dtypes for the
dtypes of the types numpy lacks: both come with the ``numpy`` extra, as with
onnx.  onnx casts to FLOAT8*, BFLOAT16, FLOAT4E2M1, FLOAT6* and the 4- and
2-bit integers with ml_dtypes; onnxdata casts in numpy with ml_dtypes' results
bit for bit, so :func:`make_tensor` writes onnx's bytes even without
ml_dtypes.  :func:`tensor_dtype_to_np_dtype` returns onnx's dtype, and without
ml_dtypes raises :class:`MissingMLDtypesError` (an ImportError) for those
types, unless the caller asks for the storage view (``storage_view=True``).

Differences from onnx (each where onnx is wrong or fails badly):

* An unknown or UNDEFINED data type is a :class:`DataTypeError`, which is a
  TypeError and also the KeyError onnx raises.
* STRING values keep trailing NUL bytes (onnx drops them through numpy),
  ``str`` and non-ASCII ``bytes`` may be mixed (onnx: UnicodeDecodeError),
  and a value that is neither ``str`` nor ``bytes`` is a TypeError.
* ``to_float8e8m0`` (so FLOAT8E8M0 from a 0-d array) works on 0-d input,
  where onnx fails.
* :func:`make_map` refuses a ``key_type`` that cannot key a map and keys
  whose number differs from the values' (onnx drops the keys, or writes a
  map its checker refuses).
* :func:`make_tensor` refuses negative ``dims`` (onnx refuses one through
  the count, but writes ``[-1, -2]`` with two values, which its checker and
  ``to_array`` refuse).
* :func:`make_optional` with a type but no value is a TypeError (onnx: an
  AssertionError); a value of the wrong message type is a TypeError in
  both.
* Messages may be onnxdata's or onnx's (converted through their bytes).
"""

from __future__ import annotations

from ._numpy.missing import ML_DTYPES_REQUIREMENT, NUMPY_REQUIREMENT, install_hint

try:
    import numpy as np
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        f"{__name__} needs numpy (its functions are about numpy dtypes), which "
        "onnxdata's core does not install: "
        + install_hint(NUMPY_REQUIREMENT, ML_DTYPES_REQUIREMENT),
        name="numpy",
    ) from exc

import math
import operator
from collections.abc import Iterable, KeysView, Sequence
from typing import Any

import numpy.typing as npt

from ._messages.convert import as_message
from ._messages.datatypes import DATA_TYPES, element_fields, storage_type
from ._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TrainingInfoProto,
    ValueInfoProto,
)
from ._messages.types import TensorShapeProto, TypeProto
from ._numpy import floats as _numpy_floats
from ._numpy.dtypes import SPECS
from ._numpy.missing import MissingMLDtypesError
from ._numpy.shape import refuse_negative
from ._tools.attributes import (
    attr_type_name,
    get_attribute_value,
    get_node_attr_value,
    make_attribute,
    make_attribute_ref,
)
from ._tools.makers import (
    OP_SET_ID_VERSION_MAP,
    VERSION_TABLE,
    AssignmentBindingType,
    VersionMapType,
    VersionRowType,
    VersionTableType,
    create_op_set_id_version_map,
    find_min_ir_version_for,
    make_function,
    make_graph,
    make_model,
    make_model_gen_version,
    make_node,
    make_operatorsetid,
    make_opsetid,
    make_training_info,
    set_metadata_props,
    set_model_props,
)
from ._tools.printable import (
    printable_attribute,
    printable_dim,
    printable_graph,
    printable_node,
    printable_tensor_proto,
    printable_type,
    printable_value_info,
    strip_doc_string,
)
from ._tools.protovalues import copied
from ._tools.typemakers import (
    make_empty_tensor_value_info,
    make_map_type_proto,
    make_optional_type_proto,
    make_sequence_type_proto,
    make_sparse_tensor_type_proto,
    make_sparse_tensor_value_info,
    make_tensor_sequence_value_info,
    make_tensor_type_proto,
    make_tensor_value_info,
    make_value_info,
)
from .numpy_helper import (
    np_dtype_to_tensor_dtype,
    pack_2bitx4,
    pack_4bitx2,
    pack_6bit,
    tobytes_little_endian,
)

__all__ = [
    "OP_SET_ID_VERSION_MAP",
    "VERSION_TABLE",
    "AssignmentBindingType",
    "AttributeProto",
    "DataTypeError",
    "FunctionProto",
    "GraphProto",
    "MapProto",
    "MissingMLDtypesError",
    "ModelProto",
    "NodeProto",
    "OperatorSetIdProto",
    "OptionalProto",
    "SequenceProto",
    "SparseTensorProto",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    "VersionMapType",
    "VersionRowType",
    "VersionTableType",
    "find_min_ir_version_for",
    "get_all_tensor_dtypes",
    "get_attribute_value",
    "get_node_attr_value",
    "make_attribute",
    "make_attribute_ref",
    "make_empty_tensor_value_info",
    "make_function",
    "make_graph",
    "make_map",
    "make_map_type_proto",
    "make_model",
    "make_model_gen_version",
    "make_node",
    "make_operatorsetid",
    "make_opsetid",
    "make_optional",
    "make_optional_type_proto",
    "make_sequence",
    "make_sequence_type_proto",
    "make_sparse_tensor",
    "make_sparse_tensor_type_proto",
    "make_sparse_tensor_value_info",
    "make_tensor",
    "make_tensor_sequence_value_info",
    "make_tensor_type_proto",
    "make_tensor_value_info",
    "make_training_info",
    "make_value_info",
    "np_dtype_to_tensor_dtype",
    "printable_attribute",
    "printable_dim",
    "printable_graph",
    "printable_node",
    "printable_tensor_proto",
    "printable_type",
    "printable_value_info",
    "set_metadata_props",
    "set_model_props",
    "strip_doc_string",
    "tensor_dtype_to_field",
    "tensor_dtype_to_np_dtype",
    "tensor_dtype_to_storage_tensor_dtype",
    "tensor_dtype_to_string",
]

DT = TensorProto.DataType


class DataTypeError(TypeError, KeyError):
    """A data type that is UNDEFINED or not a ``TensorProto.DataType``.

    A TypeError, as onnxdata's numpy bridge raises for it; also the KeyError
    ``onnx.helper`` raises (from its table), so code catching either keeps
    working.
    """

    def __str__(self) -> str:  # KeyError would show the message's repr
        return str(self.args[0]) if self.args else ""


def _info(data_type: Any) -> Any:
    found = DATA_TYPES.get(data_type) if isinstance(data_type, int) else None
    if found is None:
        raise DataTypeError(
            f"{data_type!r} is not a TensorProto.DataType (UNDEFINED has no numpy type)"
        )
    return found


def tensor_dtype_to_np_dtype(tensor_dtype: int, *, storage_view: bool = False) -> np.dtype[Any]:
    """The numpy dtype of ``tensor_dtype``, as onnx gives it and ``to_array`` returns it.

    The ml_dtypes dtype for the types numpy lacks, as onnx.  With
    ``storage_view=True`` those types give the unsigned integer dtype of the
    same width instead (``uint16`` for BFLOAT16, ``uint8`` for the others),
    with or without ml_dtypes; the other types are unchanged.

    Raises:
        DataTypeError: ``tensor_dtype`` is UNDEFINED or unknown.
        MissingMLDtypesError: an ImportError: the type needs ml_dtypes, which
            is missing (or too old to have it), and ``storage_view`` is false.
    """
    return SPECS[_info(tensor_dtype).value].result(storage_view)


def tensor_dtype_to_storage_tensor_dtype(tensor_dtype: int) -> int:
    """The data type named by the field that stores ``tensor_dtype`` (BFLOAT16: INT32).

    Raises:
        DataTypeError: ``tensor_dtype`` is UNDEFINED or unknown.
    """
    return int(storage_type(_info(tensor_dtype).value))


def tensor_dtype_to_string(tensor_dtype: int) -> str:
    """``"TensorProto.<NAME>"``, as onnx names data types.

    Raises:
        DataTypeError: ``tensor_dtype`` is UNDEFINED or unknown.
    """
    return f"TensorProto.{_info(tensor_dtype).name}"


def tensor_dtype_to_field(tensor_dtype: int) -> str:
    """The TensorProto field that stores values of ``tensor_dtype`` when raw_data is unset.

    Raises:
        DataTypeError: ``tensor_dtype`` is UNDEFINED or unknown.
    """
    field: str = _info(tensor_dtype).storage
    return field


def get_all_tensor_dtypes() -> KeysView[int]:
    """Every defined data type (UNDEFINED excluded)."""
    return DATA_TYPES.keys()


# --------------------------------------------------------------------------
# make_tensor

_STRING = int(DT.STRING)
# onnx casts the 8-bit floats with saturation, the other small floats without.
_FLOAT8 = frozenset(c for c in _numpy_floats.FORMATS if DATA_TYPES[c].bits == 8)
_PACKERS = {4: pack_4bitx2, 2: pack_2bitx4, 6: pack_6bit}


def _name(name: Any) -> str:
    """``name`` as protobuf takes a string field: str, or UTF-8 bytes."""
    if isinstance(name, str):
        return name
    if isinstance(name, bytes):
        try:
            return name.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"name is not valid UTF-8: {name!r}") from exc
    raise TypeError(f"name must be a str, not {type(name).__name__}")


_INT64_BOUNDS = (-(2**63), 2**63 - 1)


def _int64s(values: Iterable[Any], what: str) -> list[int]:
    """``values`` as protobuf takes an int64 field: integers (not bools) in range."""
    items = list(values)
    if any(isinstance(d, (bool, np.bool_)) for d in items):
        raise TypeError(f"{what} must be integers, not booleans: {items!r}")
    try:
        out = [operator.index(d) for d in items]
    except TypeError as exc:
        raise TypeError(f"{what} must be integers: {exc}") from None
    for d in out:
        if not _INT64_BOUNDS[0] <= d <= _INT64_BOUNDS[1]:
            raise ValueError(f"Value out of range: {d} ({what} are int64)")
    return out


def _dims(dims: Iterable[Any]) -> list[int]:
    return _int64s(dims, "dims")


def _string_values(vals: Any) -> list[bytes]:
    items: list[Any] = np.array(vals, dtype=object).ravel().tolist()
    out: list[bytes] = []
    for item in items:
        if isinstance(item, str):
            out.append(item.encode("utf-8"))
        elif isinstance(item, (bytes, bytearray)):
            out.append(bytes(item))
        else:
            raise TypeError(
                f"STRING values must be str or bytes, got {type(item).__name__}: {item!r}"
            )
    return out


def _codes(vals: Any, data_type: int) -> npt.NDArray[Any]:
    """The elements of ``vals`` as ``data_type``, flattened, as onnx converts them.

    The types numpy lacks come back as their codes (uint8, uint16 for
    BFLOAT16): FLOAT8* with a saturating cast, FLOAT8E8M0 rounded up (as
    ``to_float8e8m0``), the other floats with ml_dtypes' cast.
    """
    spec = SPECS[data_type]
    if not spec.exact or spec.dtype.type.__module__ != "numpy":  # a type numpy lacks
        given = np.asarray(vals)
        if data_type == DT.FLOAT8E8M0:  # (an E8M0 array too goes through float32, as onnx)
            return _numpy_floats.float8e8m0_codes(given, saturate=True, round_mode="up").ravel()
        if spec.exact and given.dtype == spec.dtype:  # already of the type: its bits
            codes = given.ravel().view(np.uint16 if spec.dtype.itemsize == 2 else np.uint8)
            if data_type in _FLOAT8:  # NaN bits kept, inf saturated (onnx's clip)
                codes = _numpy_floats.saturate_infinities(codes, data_type)
            return codes
        if data_type in _FLOAT8:
            return _numpy_floats.float_codes(given, data_type, saturate=True).ravel()
        if data_type in _numpy_floats.FORMATS:
            return _numpy_floats.float_codes(given, data_type, saturate=False).ravel()
        return _numpy_floats.int_codes(given, data_type).ravel()
    return np.asarray(vals, dtype=spec.dtype).ravel()


def make_tensor(
    name: str,
    data_type: int,
    dims: Sequence[int],
    vals: Any,
    raw: bool = False,
) -> TensorProto:
    """A TensorProto of ``data_type`` and shape ``dims`` holding ``vals``.

    ``raw=False``: ``vals`` (a sequence, nested or flat, or an array) is cast
    to ``data_type`` as onnx casts it and stored in the type's typed field
    (:func:`tensor_dtype_to_field`): FLOAT8* with a saturating cast, FLOAT8E8M0
    rounded up (:func:`onnxdata.numpy_helper.to_float8e8m0`), 16-bit floats
    and 8-bit floats as their bit patterns, 4- and 2-bit types packed, BOOL
    as 0/1, complex numbers as (real, imaginary) pairs, STRING as UTF-8.
    ``raw=True``: ``vals`` is the raw_data bytes, or an array written
    little-endian (packed for the 4-, 2- and 6-bit types).

    ``name`` and ``data_type`` are always set (an empty name is written, as
    protobuf does).

    Raises:
        DataTypeError: ``data_type`` is UNDEFINED or unknown (a TypeError,
            and the KeyError onnx raises).
        TypeError: STRING with ``raw=True``; raw ``vals`` that are neither
            bytes nor a numpy array; ``dims`` that are not integers; a
            ``name`` that is not str (or UTF-8 bytes, as protobuf takes);
            STRING values that are not str/bytes (as onnx, through protobuf).
        ValueError: the number of values, or of raw bytes, does not match
            ``dims`` (onnx's messages); a negative dim (onnx writes
            ``[-1, -2]`` with two values); a dim outside int64 (as protobuf); a
            NaN or inf cast to a 4-/2-bit integer type.
        OverflowError: a value out of range of a numpy integer type (as numpy).
    """
    info = _info(data_type)
    code = int(info.value)
    tensor = TensorProto()
    tensor.data_type = code
    tensor.name = _name(name)
    tensor.dims = _dims(dims)
    # onnx writes dims=[-1, -2] with two values, a tensor its checker and
    # to_array refuse; a single negative dim it refuses through the count.
    refuse_negative(tensor.dims, lambda: f"make_tensor {tensor.name!r}")
    if code == _STRING and raw:
        raise TypeError("Can not use raw_data to store string type.")
    count = math.prod(tensor.dims)
    if raw:
        expected_size = info.raw_size(count)
        if isinstance(vals, np.ndarray):
            if info.packed:
                vals = _PACKERS[info.packed](vals)
            raw_data = tobytes_little_endian(vals)
        elif isinstance(vals, bytes):
            raw_data = vals
        else:
            raise TypeError(f"Raw data must be bytes or numpy.ndarray, but got {type(vals)}.")
        if len(raw_data) != expected_size:
            raise ValueError(
                "Raw data size does not match tensor's size. Expected "
                f"{expected_size} bytes, but got {len(raw_data)} bytes."
            )
        tensor.raw_data = raw_data
        return tensor
    values: Any = _string_values(vals) if code == _STRING else _codes(vals, code)
    if len(values) != count:
        raise ValueError(
            f"Number of values ({len(values)}) does not match tensor "
            f"dimensions requiring {count} elements."
        )
    if code != _STRING:
        if info.per_value == 2:  # complex: (real, imaginary) pairs
            values = values.view(values.real.dtype)
        elif info.packed in (4, 2):
            values = _PACKERS[info.packed](values)
        elif values.dtype == np.bool_:
            values = values.astype(np.uint8)
        elif values.dtype == np.float16:
            values = values.view(np.uint16)
        values = values.tolist()
    setattr(tensor, info.storage, values)
    return tensor


# --------------------------------------------------------------------------
# containers


def _copy(message: Message) -> Any:
    """A copy, as protobuf's CopyFrom and repeated-field extend make (a view of
    raw_data over a mapped file copied out, where ``copy.deepcopy`` fails)."""
    return copied(message, type(message))


def make_sparse_tensor(
    values: TensorProto, indices: TensorProto, dims: Sequence[int]
) -> SparseTensorProto:
    """A SparseTensorProto of copies of ``values`` and ``indices``, of shape ``dims``.

    Raises:
        TypeError: ``values`` or ``indices`` is not a TensorProto (onnxdata's
            or onnx's), or ``dims`` are not integers.
        ValueError: a dim is outside int64 (as protobuf).
    """
    sparse = SparseTensorProto()
    sparse.values = _copy(as_message(values, TensorProto))
    sparse.indices = _copy(as_message(indices, TensorProto))
    sparse.dims = _dims(dims)
    return sparse


_SEQUENCE_FIELDS = element_fields(SequenceProto)
_OPTIONAL_FIELDS = element_fields(OptionalProto)


def _elem_type(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return int(value)


def make_sequence(name: str, elem_type: int, values: Sequence[Any]) -> SequenceProto:
    """A SequenceProto named ``name`` holding copies of ``values``, of type ``elem_type``.

    ``elem_type`` UNDEFINED gives an empty sequence (``values`` ignored, as onnx).

    Raises:
        TypeError: ``elem_type`` is not a SequenceProto.DataType (onnx's
            message), or a value is not the message ``elem_type`` stands for.
    """
    sequence = SequenceProto()
    sequence.name = _name(name)
    code = _elem_type(elem_type, "elem_type")
    sequence.elem_type = code
    if code == SequenceProto.UNDEFINED:
        return sequence
    field = _SEQUENCE_FIELDS.get(code)
    if field is None:
        raise TypeError("The element type in the input sequence is not supported.")
    setattr(sequence, field.name, [_copy(as_message(v, field.message)) for v in values])
    return sequence


_KEY_TYPES = frozenset(d.value for d in DATA_TYPES.values() if d.key is not None)


def make_map(name: str, key_type: int, keys: list[Any], values: SequenceProto) -> MapProto:
    """A MapProto named ``name``: ``keys`` of ``key_type`` and a copy of ``values``.

    STRING keys go to ``string_keys`` (bytes; ``str`` is UTF-8 encoded, where
    protobuf refuses it), integer keys to ``keys``.

    Raises:
        TypeError: ``values`` is not a SequenceProto (onnxdata's or onnx's),
            or a key is not of the kind ``key_type`` needs.
        ValueError: ``key_type`` cannot key a map (onnx drops the keys), the
            number of keys differs from the number of values (onnx writes it),
            or an integer key is outside int64 (as protobuf).
    """
    map_proto = MapProto()
    map_proto.name = _name(name)
    code = _elem_type(key_type, "key_type")
    map_proto.key_type = code
    sequence = as_message(values, SequenceProto)
    keys = list(keys)
    if code == _STRING:
        if not all(isinstance(k, (str, bytes)) for k in keys):
            raise TypeError("STRING map keys must be str or bytes")
        map_proto.string_keys = [k.encode("utf-8") if isinstance(k, str) else bytes(k)
                                 for k in keys]  # fmt: skip
    elif code in _KEY_TYPES:
        map_proto.keys = _int64s(keys, "integer map keys")
    else:
        raise ValueError(
            f"key_type {key_type!r} cannot key a map: it must be an integer type or STRING"
        )
    field = _SEQUENCE_FIELDS.get(sequence.elem_type or 0)
    count = len(getattr(sequence, field.name)) if field is not None else 0
    if count != len(keys):
        raise ValueError(
            f"Keys and values must have the same number of elements: {len(keys)} keys, "
            f"{count} values"
        )
    map_proto.values = _copy(sequence)
    return map_proto


def make_optional(name: str, elem_type: int, value: Any | None) -> OptionalProto:
    """An OptionalProto named ``name`` holding a copy of ``value``, of type ``elem_type``.

    ``elem_type`` UNDEFINED gives an empty optional (``value`` ignored, as onnx).

    Raises:
        TypeError: ``elem_type`` is not an OptionalProto.DataType (onnx's
            message), ``value`` is None with another type (onnx: an
            AssertionError), or ``value`` is not the message ``elem_type``
            stands for.
    """
    optional = OptionalProto()
    optional.name = _name(name)
    code = _elem_type(elem_type, "elem_type")
    optional.elem_type = code
    if code == OptionalProto.UNDEFINED:
        return optional
    field = _OPTIONAL_FIELDS.get(code)
    if field is None:
        raise TypeError("The element type in the input optional is not supported.")
    if value is None:
        raise TypeError(f"make_optional: elem_type {code} needs a value, got None")
    setattr(optional, field.name, _copy(as_message(value, field.message)))
    return optional


# onnx's private names, which its own tests call.
_attr_type_to_str = attr_type_name
_create_op_set_id_version_map = create_op_set_id_version_map
