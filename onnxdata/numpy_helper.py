"""numpy bridge: ``onnx.numpy_helper``'s functions on onnxdata's messages.

Same names, signatures and results as onnx 1.23.2 (equal dtype, shape and
bytes for all 28 data types; ``from_array(a).encode()`` equals onnx's
``SerializeToString()``), and a ``ValueError`` or the right answer where onnx
is wrong; docs/numpy.md lists every difference.  numpy and ml_dtypes are the
optional extra ``onnxdata[numpy]``, as onnx requires both.  Importing this
module without numpy raises ImportError; without ml_dtypes it imports, and
asking for a type numpy lacks (BFLOAT16, FLOAT8*, INT4...) raises
:class:`MissingMLDtypesError` (an ImportError) unless the caller asks for the
storage view (``storage_view=True``: the unsigned integers holding the bits).
"""

from __future__ import annotations

from ._numpy.missing import ML_DTYPES_REQUIREMENT, NUMPY_REQUIREMENT, install_hint

try:
    import numpy as np
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        f"{__name__} needs numpy, which onnxdata's core does not install: "
        + install_hint(NUMPY_REQUIREMENT, ML_DTYPES_REQUIREMENT),
        name="numpy",
    ) from exc

import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy.typing as npt

from ._core.access import CROWDED, alone, gather
from ._core.foreign import foreign_name
from ._core.schema import spec_of
from ._messages.convert import as_message
from ._messages.datatypes import DATA_TYPES, element_fields
from ._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._numpy.casts import (
    create_random_int,
    pack_2bitx4,
    pack_4bitx2,
    pack_6bit,
    saturate_cast,
    to_float8e8m0,
    tobytes_little_endian,
)
from ._numpy.dtypes import (
    HAVE_ML_DTYPES,
    np_dtype_to_tensor_dtype,
    tensor_dtype_to_np_dtype,
)
from ._numpy.missing import MissingMLDtypesError
from ._numpy.sparse import dense_to_sparse, sparse_to_array
from ._numpy.tensor import array_to_tensor, tensor_to_array

__all__ = [
    "HAVE_ML_DTYPES",
    "MapLengthError",
    "MissingMLDtypesError",
    "create_random_int",
    "from_array",
    "from_dense",
    "from_dict",
    "from_list",
    "from_optional",
    "np_dtype_to_tensor_dtype",
    "pack_2bitx4",
    "pack_4bitx2",
    "pack_6bit",
    "saturate_cast",
    "tensor_dtype_to_np_dtype",
    "to_array",
    "to_dict",
    "to_float8e8m0",
    "to_list",
    "to_optional",
    "tobytes_little_endian",
]

# elem_type -> the field that holds elements of that type (the schema's tables).
_SEQUENCE_FIELDS = {k: f.name for k, f in element_fields(SequenceProto).items()}
_OPTIONAL_FIELDS = {k: f.name for k, f in element_fields(OptionalProto).items()}
# elem_type codes as plain ints, the same in SequenceProto and OptionalProto.
_TENSOR, _SPARSE_TENSOR, _SEQUENCE, _MAP, _OPTIONAL = (
    int(SequenceProto.TENSOR),
    int(SequenceProto.SPARSE_TENSOR),
    int(SequenceProto.SEQUENCE),
    int(SequenceProto.MAP),
    int(SequenceProto.OPTIONAL),
)
# What to_optional reads of an optional, in one call, None while unset (a
# sub-message read by its name is never None: an unset one gives an empty
# stand-in, and each property is a Python call): its elem_type and TENSOR
# value when no other value field is set (CROWDED otherwise), and every field.
_O = spec_of(OptionalProto).named
_optional_tensor = gather(
    (_O.elem_type, _O.tensor_value),
    (_O.sparse_tensor_value, _O.sequence_value, _O.map_value, _O.optional_value),
)
_optional_fields = gather(
    (_O.elem_type, _O.tensor_value, _O.sparse_tensor_value, _O.sequence_value, _O.map_value,
     _O.optional_value),
)  # fmt: skip
_held_elem_type = spec_of(SequenceProto).named.elem_type.held
_OPTIONAL_TYPES = frozenset(OptionalProto.DataType.values())
_INT_KEY_TYPES = frozenset(d.value for d in DATA_TYPES.values() if d.key is not None)


def to_array(
    tensor: TensorProto | SparseTensorProto, base_dir: str = "", *, storage_view: bool = False
) -> npt.NDArray[Any]:
    """The numpy array a tensor holds, as ``onnx.numpy_helper.to_array`` returns it.

    Types numpy lacks come back as ``ml_dtypes`` dtypes, as onnx's; with
    ``storage_view=True`` (with or without ml_dtypes) as the unsigned integer
    of the same width holding the same bytes (one code a byte for the 4-, 2-
    and 6-bit types), which ``.view(ml_dtypes.<type>)`` turns back.  An array
    made from ``raw_data`` is a read-only view of the message's bytes (no copy,
    read-only like onnx's); copy it to write.  A ``SparseTensorProto`` gives its
    dense array (onnx fails on it).  External data is read from below
    ``base_dir`` with the checks of docs/numpy.md.

    Raises:
        TypeError: ``data_type`` is UNDEFINED or unknown, or ``tensor`` is not a
            TensorProto/SparseTensorProto (onnxdata's, or onnx's protobuf
            message, taken through its bytes).
        ValueError: ``segment`` is set; the storage does not match ``dims``
            (size, a negative dim, data in two storage fields); a sparse tensor
            breaks the checker's rules; external data is refused.
        UnicodeDecodeError: a STRING element is not UTF-8 (as onnx).
        OSError: the external data file cannot be opened.  ``MappedFileError``
            (an ``OSError``): the tensor was loaded with ``mmap=True`` and its
            file has shrunk since (reading it would kill the process).
        MissingMLDtypesError: an ImportError: the type needs ml_dtypes, which
            is missing (or too old to have it), and ``storage_view`` is false.
    """
    if type(tensor) is TensorProto:
        return tensor_to_array(tensor, base_dir, storage_view)
    message: Any = as_message(tensor, TensorProto, SparseTensorProto)
    if isinstance(message, TensorProto):
        return tensor_to_array(message, base_dir, storage_view)
    return sparse_to_array(message, base_dir, storage_view)


def from_array(array: npt.NDArray[Any] | np.generic, /, name: str | None = None) -> TensorProto:
    """A TensorProto holding ``array``, byte-identical to onnx's once encoded.

    Values go to ``raw_data`` little-endian (any input byte order: onnx refuses
    big-endian arrays), packed for the 4-, 2- and 6-bit types; ``str``,
    ``bytes`` and object arrays go to ``string_data`` as UTF-8.  ``name`` is
    set when non-empty.

    Raises:
        TypeError: ``array`` is not a numpy array or scalar.
        ValueError: the dtype has no TensorProto data type (onnx's message).
        NotImplementedError: an object array holds something other than
            ``str``/``bytes`` (as onnx).
        UnicodeEncodeError: a string cannot be encoded as UTF-8.
    """
    return array_to_tensor(array, name)


def from_dense(
    array: npt.NDArray[Any] | np.generic, name: str | None = None, *, coordinates: bool = False
) -> SparseTensorProto:
    """A SparseTensorProto holding the non-zero elements of ``array``.

    An element is zero when all its bits are (so ``-0.0`` is kept); for strings
    the empty string.  ``values`` (named ``name``) is the 1-D array of the
    others in row-major order; ``indices`` is INT64, linear ``[NNZ]`` by
    default, ``[NNZ, rank]`` coordinates with ``coordinates=True``.
    ``to_array`` of the result gives back ``array`` bit for bit.

    Raises:
        TypeError: ``array`` is not a numpy array.
        ValueError: ``array`` is 0-d or has a zero dimension (the checker
            demands rank > 0 and positive dims), or its dtype has no data type.
    """
    return dense_to_sparse(array, name, coordinates=coordinates)


# No parsed message is deeper (protobuf's recursion limit): to_list's loop
# checks Python's recursion limit only beyond it.
_PARSED_DEPTH = 100


def _too_deep() -> ValueError:
    """The error of a hand-built chain of messages deeper than Python's recursion
    limit (protobuf cannot parse more than 100 levels)."""
    return ValueError(
        "messages nested too deep to convert (deeper than Python's recursion limit; "
        "protobuf allows 100 levels)"
    )


def _check_elem_type(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return int(value)


def _only_field(message: Any, fields: dict[Any, str], used: str | None, kind: str) -> None:
    """MUST rule: only the field of ``elem_type`` may hold values."""
    for field in fields.values():
        # None while unset (the name gives a stand-in, or makes a container).
        value = spec_of(type(message)).by_name[field].held(message)
        if field == used or value is None:
            continue
        if isinstance(value, Message) or len(value):
            raise ValueError(
                f"{kind} {message.name or ''!r} has elem_type {message.elem_type} "
                f"but {field} is set"
            )


# Per elem_type: the elements a sequence holds in that type's field (as held,
# no container made for an empty field), or CROWDED when another field holds
# some; and the conversion of an element.
def _sequence_reader(code: int, convert: Any) -> tuple[Callable[[Any], Any], Any]:
    name = _SEQUENCE_FIELDS[code]
    others = tuple(f for f in _SEQUENCE_FIELDS.values() if f != name)
    fields = spec_of(SequenceProto).by_name
    return alone(fields[name], tuple(fields[f] for f in others)), convert


def to_list(sequence: SequenceProto) -> list[Any]:
    """The Python list a SequenceProto holds, as ``onnx.numpy_helper.to_list``.

    Elements become arrays (dense arrays for SPARSE_TENSOR, where onnx fails),
    lists, dicts, or for OPTIONAL (where onnx fails) a value or ``None``.

    Raises:
        TypeError: ``elem_type`` is unset, UNDEFINED or unknown (as onnx), or
            ``sequence`` is not a SequenceProto (onnxdata's or onnx's).
        ValueError: a value field other than ``elem_type``'s holds elements,
            an element is invalid (see :func:`to_array`, :func:`to_dict`), or
            messages are nested deeper than Python's recursion limit.
        MissingMLDtypesError: an element's type needs ml_dtypes, which is
            missing (the containers have no storage view).
    """
    # A chain of one-element lists of lists (nested lists, what from_list
    # writes for [[...[x]...]]) is walked in this loop, a level an iteration
    # rather than a call: ``levels`` lists are then put around the last one's.
    s = sequence
    levels = 0
    while True:
        if type(s) is not SequenceProto:
            s = as_message(s, SequenceProto)
        elem_type: Any = _held_elem_type(s)  # as assigned (anything a user stored), or None
        try:
            read, convert = _SEQUENCE_READERS[elem_type]
        except (KeyError, TypeError):  # not a plain code: compared as onnx compares it
            read, convert = _sequence_reader_of(elem_type)
        values = read(s)
        if values is CROWDED:
            used = next(c for c, (r, _) in _SEQUENCE_READERS.items() if r is read)
            _only_field(s, _SEQUENCE_FIELDS, _SEQUENCE_FIELDS[used], "SequenceProto")
        if values is None or len(values) != 1 or convert is not to_list:
            break
        levels += 1
        # Deeper than calls could go (a chain that holds itself, say): as they would fail.
        if levels > _PARSED_DEPTH and levels >= sys.getrecursionlimit():
            raise _too_deep()
        s = values[0]
    try:
        if values is None:
            out = []
        elif len(values) == 1:
            # One element: a comprehension costs more than the call it makes.
            out = [convert(values[0])]
        else:
            out = [convert(v) for v in values]
    except RecursionError:
        raise _too_deep() from None
    if levels:
        for _ in range(levels):
            out = [out]
    return out


def from_list(lst: list[Any], name: str | None = None, dtype: int | None = None) -> SequenceProto:
    """A SequenceProto holding ``lst``, byte-identical to onnx's once encoded.

    Without ``dtype`` the element type follows the first element (dict: MAP,
    list: SEQUENCE, else TENSOR; TENSOR for an empty list).  Beyond onnx,
    TensorProto elements are stored as they are (onnx's protobuf ones
    converted), ``dtype=SequenceProto.SPARSE_TENSOR`` stores arrays (or SparseTensorProto
    objects) via :func:`from_dense`, and ``dtype=SequenceProto.OPTIONAL``
    stores each element (``None`` allowed) via :func:`from_optional`.

    Raises:
        TypeError: elements of different Python types, or an unsupported
            ``dtype`` (as onnx).
        ValueError, NotImplementedError: an element cannot be converted
            (see :func:`from_array`, :func:`from_dict`).
    """
    sequence = SequenceProto()
    if name:
        sequence.name = name
    elem_type = _check_elem_type(dtype, "dtype") if dtype is not None else _elem_type_of(lst)
    sequence.elem_type = elem_type
    _refuse_mixed_types(lst, elem_type)
    writer = _ELEMENT_WRITERS.get(elem_type)
    if writer is None:
        raise TypeError(
            "The element type in the input list is not a tensor, "
            "sequence, or map and is not supported."
        )
    field, convert = writer
    setattr(sequence, field, convert(lst))
    return sequence


def _elem_type_of(lst: list[Any]) -> int:
    """from_list's element type without ``dtype``: the first element's (TENSOR if none).

    An enum member, as onnx assigns it (the field then reads as the member).
    """
    if len(lst) > 0:
        first = lst[0]
        if isinstance(first, dict):
            return SequenceProto.MAP
        if isinstance(first, list):
            return SequenceProto.SEQUENCE
    return SequenceProto.TENSOR


def _refuse_mixed_types(lst: list[Any], elem_type: int) -> None:
    """Elements of one Python type, as onnx demands; an OPTIONAL element may be None."""
    present = [e for e in lst if e is not None] if elem_type == _OPTIONAL else lst
    if len(present) > 0:
        kind = type(present[0])
        # (countOf: all of exactly the first's type, in one C call; subclasses then checked)
        if operator.countOf(map(type, present), kind) != len(present) and not all(
            isinstance(e, kind) for e in present
        ):
            raise TypeError(
                "The element type in the input list is not the same "
                "for all elements and therefore is not supported as a sequence."
            )


def _tensor_elements(lst: list[Any]) -> list[TensorProto]:
    # (an ndarray, the usual element, skips isinstance and asarray)
    return [
        array_to_tensor(e)
        if type(e) is np.ndarray
        else e
        if isinstance(e, TensorProto)
        else _tensor_of(e)
        for e in lst
    ]


def _sparse_elements(lst: list[Any]) -> list[SparseTensorProto]:
    return [e if isinstance(e, SparseTensorProto) else _sparse_of(e) for e in lst]


class MapLengthError(ValueError, IndexError):
    """A MapProto's keys and values differ in number.

    A ValueError, as onnxdata raises for every invalid message; also an
    IndexError, which is what ``onnx.numpy_helper.to_dict`` raises for it, so
    code catching either keeps working.
    """


def _tensor_of(value: Any) -> TensorProto:
    """A TENSOR element: onnx's TensorProto converted, anything else through numpy."""
    if foreign_name(value) == "onnx.TensorProto":
        return as_message(value, TensorProto)
    return array_to_tensor(np.asarray(value))


def _sparse_of(value: Any) -> SparseTensorProto:
    """A SPARSE_TENSOR element: onnx's SparseTensorProto converted, else an array."""
    if foreign_name(value) == "onnx.SparseTensorProto":
        return as_message(value, SparseTensorProto)
    return dense_to_sparse(np.asarray(value))


# A map's two key fields as held (the one not used is usually never made), and
# its values, None while unset.
_held_keys, _held_string_keys = (
    spec_of(MapProto).named.keys.held,
    spec_of(MapProto).named.string_keys.held,
)
_held_values = spec_of(MapProto).named.values.held


def _map_label(map_proto: MapProto) -> str:
    return f"MapProto {map_proto.name or ''!r}"  # built only for an error


def to_dict(map_proto: MapProto) -> dict[Any, Any]:
    """The Python dict a MapProto holds, as ``onnx.numpy_helper.to_dict``.

    Keys are ``int`` (integer key types) or ``bytes`` (STRING), values as
    :func:`to_list` gives them.

    Raises:
        TypeError: ``map_proto`` is not a MapProto (onnxdata's or onnx's).
        MapLengthError: keys and values differ in number (a ValueError, and an
            IndexError as onnx 1.23 raises).
        ValueError: a key
            repeats (onnx keeps the last), ``key_type`` is not an integer type
            or STRING, the other key field holds keys too, or messages are
            nested deeper than Python's recursion limit.
        TypeError: ``values`` has an unsupported element type (as onnx).
        MissingMLDtypesError: a value's type needs ml_dtypes, which is missing.
    """
    m = map_proto if type(map_proto) is MapProto else as_message(map_proto, MapProto)
    key_type = m.key_type
    keys: list[Any]
    if key_type == TensorProto.STRING:
        int_keys = _held_keys(m)
        if int_keys is not None and len(int_keys):
            raise ValueError(f"{_map_label(m)} has STRING keys but its integer keys field is set")
        keys = [k if type(k) is bytes else bytes(k) for k in m.string_keys]
    elif key_type in _INT_KEY_TYPES:
        string_keys = _held_string_keys(m)
        if string_keys is not None and len(string_keys):
            raise ValueError(f"{_map_label(m)} has integer keys but its string_keys field is set")
        keys = list(m.keys)
    else:
        raise ValueError(
            f"{_map_label(m)}: key_type {key_type} is not INT8..UINT64 or STRING, "
            "as a map key must be"
        )
    held_values = _held_values(m)
    if held_values is None:  # unset (onnx's to_list of the empty stand-in fails)
        if keys:
            raise ValueError(f"{_map_label(m)} has {len(keys)} keys but no values")
        return {}
    values = to_list(held_values)
    if len(keys) != len(values):
        raise MapLengthError(
            f"Length of keys and values for MapProto (map name: {m.name}) are not the "
            f"same: {len(keys)} keys, {len(values)} values."
        )
    result = dict(zip(keys, values, strict=True))
    if len(result) != len(keys):
        raise ValueError(f"{_map_label(m)} repeats a key: {len(keys)} keys, {len(result)} distinct")
    return result


def from_dict(dict_: dict[Any, Any], name: str | None = None) -> MapProto:
    """A MapProto holding ``dict_``, byte-identical to onnx's once encoded.

    Integer keys follow onnx (``numpy.result_type`` of each key gives the key
    type; Python ints are INT64).  ``str`` and ``bytes`` keys (onnx fails on
    both) become STRING keys, UTF-8 encoded.  Values go through
    :func:`from_list`.

    Raises:
        ValueError: ``dict_`` is empty, or a key type has no data type.
        TypeError: keys (or values) of different types, or an unsupported key
            type such as float or bool (as onnx).
    """
    map_proto = MapProto()
    if name:
        map_proto.name = name
    if not dict_:
        raise ValueError("Cannot convert an empty dictionary to MapProto.")
    keys = list(dict_)
    first = keys[0]
    if isinstance(first, (str, bytes)):
        kind = str if isinstance(first, str) else bytes
        if not all(isinstance(k, kind) for k in keys):
            raise TypeError(
                "The key type in the input dictionary is not the same "
                "for all keys and therefore is not valid as a map."
            )
        key_type = int(TensorProto.STRING)
    else:
        raw_key_type = np.result_type(first)
        if raw_key_type.kind in "OUSV":  # e.g. an int beyond 64 bits: object
            raise TypeError(f"Unsupported map key type: {raw_key_type!r}")
        key_type = np_dtype_to_tensor_dtype(raw_key_type)
        if not _same_result_type(keys, raw_key_type):
            raise TypeError(
                "The key type in the input dictionary is not the same "
                "for all keys and therefore is not valid as a map."
            )
    values = list(dict_.values())
    if not isinstance(values[0], (dict, list, str, bytes)):
        raw_value_type = np.result_type(values[0])
        if any(isinstance(v, (dict, list, str, bytes)) for v in values) or not _same_result_type(
            values, raw_value_type
        ):
            raise TypeError(
                "The value type in the input dictionary is not the same "
                "for all values and therefore is not valid as a map."
            )
    value_seq = from_list(values)
    map_proto.key_type = key_type
    if key_type == TensorProto.STRING:
        map_proto.string_keys = [
            k.encode("utf-8") if isinstance(k, str) else bytes(k) for k in keys
        ]
    elif key_type in _INT_KEY_TYPES:
        map_proto.keys = [int(k) for k in keys]
    else:
        raise TypeError(f"Unsupported map key type: {key_type}")
    map_proto.values = value_seq
    return map_proto


def _same_result_type(items: list[Any], expected: np.dtype[Any]) -> bool:
    """``all(numpy.result_type(x) == expected for x in items)``, onnx's test, faster.

    Arrays have their own dtype as result type, and Python ints are int64 when
    they fit (NumPy 2): those common cases skip the per-item numpy call.
    """
    kinds = {type(x) for x in items}
    if kinds == {np.ndarray}:  # (a big-endian array's result type is native)
        return all(x.dtype == expected or np.result_type(x) == expected for x in items)
    if kinds == {int} and expected == np.int64:
        return bool(min(items) >= -(2**63) and max(items) < 2**63)
    return all(np.result_type(x) == expected for x in items)


def _optional_value(o: Any) -> tuple[Any, Any]:
    """The value an optional holds (None: none) and its conversion, for every
    ``elem_type``; onnx's ``==`` chooses the type.

    Raises:
        TypeError: ``elem_type`` is unknown (as onnx).
        ValueError: a value field other than ``elem_type``'s is set.
    """
    elem_type, tensor, sparse, sequence, map_, inner = _optional_fields(o)
    value: Any
    convert: Any
    if elem_type == _TENSOR:
        value, convert = tensor, tensor_to_array
    elif elem_type == _SEQUENCE:
        value, convert = sequence, to_list
    elif elem_type == _MAP:
        value, convert = map_, to_dict
    elif elem_type == _OPTIONAL:
        value, convert = inner, to_optional
    elif elem_type == _SPARSE_TENSOR:
        value, convert = sparse, sparse_to_array
    elif not elem_type:  # UNDEFINED or unset: no field may be set
        _only_field(o, _OPTIONAL_FIELDS, None, "OptionalProto")
        return None, None
    else:
        raise TypeError("The element type in the input optional is not supported.")
    # At most the field of elem_type is set (tested here without _only_field's loop).
    if (
        (tensor is not None) + (sparse is not None) + (sequence is not None)
        + (map_ is not None) + (inner is not None) != (value is not None)
    ):  # fmt: skip
        _only_field(o, _OPTIONAL_FIELDS, _OPTIONAL_FIELDS[elem_type], "OptionalProto")
    return value, convert


def to_optional(optional: OptionalProto) -> Any | None:
    """The value an OptionalProto holds, or ``None``, as ``onnx.numpy_helper.to_optional``.

    ``None`` also when ``elem_type`` is set but the value is absent (what
    ``from_optional(None, dtype=...)`` writes; onnx fails on it).  SPARSE_TENSOR
    gives the dense array (onnx fails).

    Raises:
        TypeError: ``elem_type`` is unknown (as onnx), or ``optional`` is not an
            OptionalProto (onnxdata's or onnx's).
        ValueError: a value field other than ``elem_type``'s is set, the
            value is invalid (see :func:`to_array`, :func:`to_list`, :func:`to_dict`),
            or messages are nested deeper than Python's recursion limit.
        MissingMLDtypesError: the value's type needs ml_dtypes, which is missing.
    """
    o: Any = optional if type(optional) is OptionalProto else as_message(optional, OptionalProto)
    # The usual case in one call: a TENSOR value (or none) and no other value field set.
    held_fields = _optional_tensor(o)
    if held_fields is not CROWDED and held_fields[0] == _TENSOR:
        value, convert = held_fields[1], tensor_to_array
    else:
        value, convert = _optional_value(o)
    try:
        return None if value is None else convert(value)
    except RecursionError:
        raise _too_deep() from None


_SEQUENCE_READERS = {
    _TENSOR: _sequence_reader(_TENSOR, tensor_to_array),
    _SPARSE_TENSOR: _sequence_reader(_SPARSE_TENSOR, sparse_to_array),
    _SEQUENCE: _sequence_reader(_SEQUENCE, to_list),
    _MAP: _sequence_reader(_MAP, to_dict),
    _OPTIONAL: _sequence_reader(_OPTIONAL, to_optional),
}


def _sequence_reader_of(elem_type: Any) -> tuple[Callable[[Any], Any], Any]:
    """The reader of an ``elem_type`` that is not a key of the table (a value
    equal to a code without its hash, say): the codes compared with ``==``."""
    for code, reader in _SEQUENCE_READERS.items():
        if elem_type == code:
            return reader
    raise TypeError("The element type in the input sequence is not supported.")


def from_optional(
    opt: Any | None, name: str | None = None, dtype: int | None = None
) -> OptionalProto:
    """An OptionalProto holding ``opt``, byte-identical to onnx's once encoded.

    Without ``dtype`` the type follows ``opt`` (dict: MAP, list: SEQUENCE,
    None: UNDEFINED, else TENSOR).  Beyond onnx: a TensorProto is stored as it
    is (onnx's protobuf one converted), another TENSOR value that is not a numpy array goes through
    ``numpy.asarray`` (onnx raises AttributeError),
    ``dtype=SPARSE_TENSOR`` stores an array via :func:`from_dense`, and
    ``dtype=OPTIONAL`` nests :func:`from_optional`.

    Raises:
        TypeError: ``dtype`` is not an OptionalProto.DataType, or is UNDEFINED
            with a value (as onnx).
        ValueError, NotImplementedError: the value cannot be converted.
    """
    optional = OptionalProto()
    if name:
        optional.name = name
    if dtype is not None:
        if isinstance(dtype, bool) or dtype not in _OPTIONAL_TYPES:
            raise TypeError(f"{dtype} must be a valid OptionalProto.DataType.")
        elem_type = int(dtype)
    elif isinstance(opt, dict):
        elem_type = OptionalProto.MAP
    elif isinstance(opt, list):
        elem_type = OptionalProto.SEQUENCE
    elif opt is None:
        elem_type = OptionalProto.UNDEFINED
    else:
        elem_type = OptionalProto.TENSOR
    optional.elem_type = elem_type
    if opt is None:
        return optional
    if elem_type == OptionalProto.TENSOR:
        if isinstance(opt, TensorProto):
            optional.tensor_value = opt
        elif isinstance(opt, (np.ndarray, np.generic)):
            optional.tensor_value = array_to_tensor(opt)
        else:
            optional.tensor_value = _tensor_of(opt)
    elif elem_type == OptionalProto.SEQUENCE:
        optional.sequence_value = from_list(opt)
    elif elem_type == OptionalProto.MAP:
        optional.map_value = from_dict(opt)
    elif elem_type == OptionalProto.SPARSE_TENSOR:
        is_sparse = isinstance(opt, SparseTensorProto)
        optional.sparse_tensor_value = opt if is_sparse else _sparse_of(opt)
    elif elem_type == OptionalProto.OPTIONAL:
        optional.optional_value = from_optional(opt)
    else:
        raise TypeError(
            "The element type in the input is not a tensor, sequence, or map and is not supported."
        )
    return optional


# elem_type -> (the SequenceProto field from_list fills, the conversion of its elements).
_ELEMENT_WRITERS: dict[int, tuple[str, Callable[[list[Any]], list[Any]]]] = {
    _TENSOR: (_SEQUENCE_FIELDS[_TENSOR], _tensor_elements),
    _SEQUENCE: (_SEQUENCE_FIELDS[_SEQUENCE], lambda lst: [from_list(e) for e in lst]),
    _MAP: (_SEQUENCE_FIELDS[_MAP], lambda lst: [from_dict(e) for e in lst]),
    _SPARSE_TENSOR: (_SEQUENCE_FIELDS[_SPARSE_TENSOR], _sparse_elements),
    _OPTIONAL: (_SEQUENCE_FIELDS[_OPTIONAL], lambda lst: [from_optional(e) for e in lst]),
}


_pack_4bitx2 = pack_4bitx2
_pack_2bitx4 = pack_2bitx4
_pack_6bit = pack_6bit
