"""TensorProto <-> numpy array, bit for bit as ``onnx.numpy_helper`` 1.23.2.

Reading follows onnx's order: a set ``segment`` is refused, UNDEFINED is a
TypeError, STRING reads ``string_data``, EXTERNAL reads the file, a set
``raw_data`` (even empty) is used, else the data type's typed field.  Where
onnx returns a wrong array for a message that breaks a MUST rule of
``onnx.proto``, this module raises ``ValueError`` instead: a storage size that
does not match ``dims`` (onnx silently truncates packed 4-/2-/6-bit data),
negative ``dims`` (onnx lets ``reshape`` infer ``-1``), data in a second storage
field (onnx ignores it), FLOAT6 ``int32_data`` values above 63 (onnx masks them).

Speed: ``raw_data`` becomes a read-only view without copying (onnx's result
is read-only too): one ``numpy.ndarray`` call over ``bytes`` or a
``memoryview`` when nothing else is set (``tensor_to_array``'s fast path),
else ``numpy.frombuffer``.  So do float/double fields holding the
``memoryview`` of ``decode(copy=False)``; float/double fields holding
``array`` objects are copied by one ``memcpy``; integer lists go through one
``numpy.fromiter`` call; STRING elements that are ``bytes`` go through one
``numpy.fromiter(map(bytes.decode, ...))``.
"""

from __future__ import annotations

import sys
from array import array as _pyarray
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._core import schema as _schema
from .._core.access import CROWDED, counter, gather
from .._core.blanks import blank_maker
from .._core.mapped import check_view
from .._io.external import read_external_data, uses_external_data
from .._messages.datatypes import DATA_TYPES, STORAGE_FIELDS
from .._messages.declarations import TensorProto
from . import bits
from .dtypes import SPECS, DtypeSpec, np_dtype_to_tensor_dtype, spec_of
from .shape import shape_of

NDArray = npt.NDArray[Any]
_LITTLE = sys.byteorder == "little"
_STRING = TensorProto.STRING
_TENSOR = _schema.spec_of(TensorProto)
# The numpy dtype of each numeric storage field: its array typecode.
_FIELD_DTYPES: dict[str, np.dtype[Any]] = {
    name: np.dtype(_TENSOR.by_name[name].typecode)
    for name in STORAGE_FIELDS
    if _TENSOR.by_name[name].typecode
}
_FLOAT_FIELD_DTYPES = {name: d for name, d in _FIELD_DTYPES.items() if d.kind == "f"}
_INT_FIELD_DTYPES = {name: d for name, d in _FIELD_DTYPES.items() if d.kind != "f"}
_UINT_OF_SIZE: dict[int, np.dtype[Any]] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16)}
_EXTERNAL = TensorProto.EXTERNAL
# data_type -> dtype of the whole-byte types whose raw_data tensor_to_array's
# fast path reads as it is (none on big-endian hosts, which swap bytes): the
# types' own dtypes (a type whose ml_dtypes is missing is left to the general
# path, which raises), and their storage views.
_RAW_DTYPES: dict[int, np.dtype[Any]] = {
    code: spec.dtype
    for code, spec in SPECS.items()
    if _LITTLE and not spec.bits and code != _STRING and spec.exact
}
_RAW_STORAGE: dict[int, np.dtype[Any]] = {
    code: spec.storage
    for code, spec in SPECS.items()
    if _LITTLE and not spec.bits and code != _STRING
}


_T = _TENSOR.named  # the fields, by identifier: a renamed one fails here
_RAW_DATA, _STRING_DATA = _T.raw_data.name, _T.string_data.name
# Nonzero when a typed storage field holds values; makes no container (the
# fast path runs on freshly decoded tensors, whose empty fields have none).
_STORAGE = tuple(_TENSOR.by_name[name] for name in STORAGE_FIELDS)
_typed_values = counter(*_STORAGE)
# What a tensor holds in these fields, None while unset (a repeated field:
# while its container was never made).  Presence is what onnx reads through
# HasField ("raw_data", "segment"); the properties give a default instead,
# and each is a Python call where these are C calls.
_held_raw = _T.raw_data.held
_held_segment = _T.segment.held
# What tensor_to_array's fast path reads, in one call (a property is a Python
# call per field, and makes an empty dims container); CROWDED when a typed
# storage field holds values or segment is set, which the fast path leaves to
# the general one.
_raw_alone = gather(
    (_T.raw_data, _T.data_location, _T.data_type, _T.dims),
    (*_STORAGE, _T.segment),
)


def _label(tensor: TensorProto) -> str:
    return f"TensorProto {tensor.name!r}" if tensor.name else "TensorProto"


def _refuse_other_fields(tensor: TensorProto, used: str) -> None:
    """MUST rule: exactly one storage field holds the values."""
    t = tensor
    if used != _RAW_DATA:
        if _held_raw(t) is not None:
            raise ValueError(f"{_label(t)} keeps its values in {used}, but raw_data is set too")
    elif not _typed_values(t):
        return  # the common case, checked without a loop
    for field in STORAGE_FIELDS:
        if field != used and len(getattr(tensor, field)):
            raise ValueError(
                f"{_label(tensor)} keeps its values in {used}, but {field} holds "
                f"{len(getattr(tensor, field))} values too"
            )


def _size_error(
    tensor: TensorProto, where: str, got: int, need: int, dims: tuple[int, ...]
) -> ValueError:
    return ValueError(
        f"{_label(tensor)}: {where} holds {got}, dims {list(dims)} need {need} "
        f"(data_type {spec_of(tensor.data_type).name})"
    )


def tensor_to_array(tensor: TensorProto, base_dir: str = "", storage_view: bool = False) -> NDArray:
    """The array of ``tensor``; see ``numpy_helper.to_array``."""
    # Fast path for the common case, raw_data and nothing else: one ndarray
    # over the message's bytes (or its memoryview with decode(copy=False)),
    # read-only and without a copy as below, in a few calls.  A -1 among the
    # dims goes to the general path (numpy would infer it: "whatever fits");
    # ndarray refuses every other negative dim, every other bad shape and a
    # buffer too small, the nbytes test one too large.  Anything unusual, and
    # every error, takes the general path, whose shape_of raises the right
    # exception.
    try:
        held_fields = _raw_alone(tensor)
    except TypeError:  # a storage field holds what is not a container: the general path says
        held_fields = CROWDED
    if held_fields is CROWDED:  # typed values, or a segment: the general path
        buf: Any = _held_raw(tensor)
        if type(buf) is memoryview:
            check_view(buf)  # a view of a mapped file that shrank: an error, not SIGBUS
        return _general(tensor, base_dir, storage_view)
    buf, location, data_type, dims = held_fields
    kind = type(buf)
    if kind is memoryview:
        check_view(buf)
    if location != _EXTERNAL and (kind is bytes or kind is memoryview):
        try:
            dtype = (_RAW_STORAGE if storage_view else _RAW_DTYPES).get(data_type)
            if dims is None:
                dims = ()  # a scalar: the container was never made
            if dtype is not None and -1 not in dims:
                out: NDArray = np.ndarray(dims, dtype, buf)
                if kind is bytes:
                    if out.nbytes == len(buf):
                        return out  # read-only: bytes are
                elif out.nbytes == buf.nbytes:
                    if not out.flags.aligned:
                        out = _aligned(out)
                    elif not buf.readonly:  # decode(copy=False) of a bytearray
                        out.flags.writeable = False
                    return out
        except (TypeError, ValueError, OverflowError, BufferError):
            pass
    return _general(tensor, base_dir, storage_view)


def _aligned(view: NDArray) -> NDArray:
    """A read-only aligned copy of a misaligned view (a mapped model's ``raw_data``
    starts wherever the encoding put it): numpy computes on misaligned data,
    but slowly, and many consumers (BLAS, DLPack, torch) refuse or copy it
    anyway."""
    out: NDArray = view.copy()
    out.flags.writeable = False
    return out


def _general(tensor: TensorProto, base_dir: str, storage_view: bool = False) -> NDArray:
    """tensor_to_array without the fast path: every case, every check, every error."""
    if _held_segment(tensor) is not None:  # onnx: tensor.HasField("segment")
        raise ValueError("Currently not supporting loading segments.")
    spec = spec_of(tensor.data_type)
    dtype = spec.result(storage_view)
    itemsize = 1 if spec.bits else dtype.itemsize
    dims, count = shape_of(tensor.dims, itemsize, lambda: _label(tensor))
    if spec.data_type == _STRING:
        _refuse_other_fields(tensor, _STRING_DATA)
        return _strings(tensor, dims, count)
    if uses_external_data(tensor):
        _refuse_other_fields(tensor, "external data")
        raw: Any = read_external_data(tensor, base_dir)
        return _from_raw(tensor, spec, dtype, raw, dims, count, "external data")
    raw_data = _held_raw(tensor)
    if raw_data is not None:  # onnx: tensor.HasField("raw_data"), so set and empty counts
        _refuse_other_fields(tensor, _RAW_DATA)
        return _from_raw(tensor, spec, dtype, raw_data, dims, count, _RAW_DATA)
    _refuse_other_fields(tensor, spec.field)
    return _from_field(tensor, spec, dtype, dims, count)


def _strings(tensor: TensorProto, dims: tuple[int, ...], count: int) -> NDArray:
    values = tensor.string_data
    if len(values) != count:
        raise _size_error(tensor, _STRING_DATA, len(values), count, dims)
    # Invalid UTF-8 raises UnicodeDecodeError as in onnx.  Unlike onnx (which
    # goes through a numpy "U" array) trailing NUL characters are kept.
    try:
        # bytes elements (decode's copy=True): bytes.decode is the cheapest call
        # and fromiter fills the array as it goes.
        out = np.fromiter(map(bytes.decode, values), dtype=object, count=count)
    except TypeError:
        # str(b, "utf-8") also takes bytearray and memoryview (copy=False), and
        # raises the TypeError of anything else.
        out = np.empty(count, dtype=object)
        out[:] = [str(s, "utf-8") for s in values]
    return out.reshape(dims)


def _from_raw(
    tensor: TensorProto,
    spec: DtypeSpec,
    dtype: np.dtype[Any],
    raw: Any,
    dims: tuple[int, ...],
    count: int,
    where: str,
) -> NDArray:
    nbytes = len(raw) if isinstance(raw, (bytes, bytearray)) else memoryview(raw).nbytes
    if spec.bits:
        need = bits.packed_size(count, spec.bits)
        if nbytes != need:
            raise _size_error(tensor, where, nbytes, need, dims)
        codes = bits.unpack(np.frombuffer(raw, dtype=np.uint8), count, spec.bits)
        return codes.view(dtype).reshape(dims)
    need = count * dtype.itemsize
    if nbytes != need:
        raise _size_error(tensor, where, nbytes, need, dims)
    out = np.frombuffer(raw, dtype=dtype)
    if not _LITTLE and dtype.itemsize > 1:  # pragma: no cover - big-endian hosts
        out = out.byteswap()
    elif not out.flags.aligned:
        out = _aligned(out)
    if where == _RAW_DATA:
        out.flags.writeable = False  # a view of the message's bytes, as onnx returns
    return out.reshape(dims)


def _from_field(
    tensor: TensorProto, spec: DtypeSpec, dtype: np.dtype[Any], dims: tuple[int, ...], count: int
) -> NDArray:
    field = spec.field
    values = getattr(tensor, field)
    need = DATA_TYPES[spec.data_type].stored_count(count)
    if len(values) != need:
        raise _size_error(tensor, field, len(values), need, dims)
    float_dtype = _FLOAT_FIELD_DTYPES.get(field)
    if float_dtype is not None:
        if type(values) is memoryview and _LITTLE:
            # decode(copy=False): a read-only view of the message's buffer, as for raw_data.
            check_view(values)
            floats = np.frombuffer(values, dtype=float_dtype)
        else:
            # array('f'/'d') -> one memcpy, every bit kept (signalling NaNs too).
            floats = np.array(values, dtype=float_dtype)
        return floats.view(dtype).reshape(dims)
    ints = _ints(tensor, field, values, _INT_FIELD_DTYPES[field])
    if ints.dtype == dtype:  # INT32, INT64, UINT64: the field's own type
        return ints.reshape(dims)
    if ints.dtype.itemsize == 8:
        return ints.astype(dtype).reshape(dims)  # UINT32 keeps the low 32 bits, as onnx
    if spec.bits == 6:
        if ints.size and (ints.min() < 0 or ints.max() > 0x3F):
            bad = int(np.flatnonzero((ints < 0) | (ints > 0x3F))[0])
            raise ValueError(
                f"{_label(tensor)}: int32_data[{bad}] = {int(ints[bad])} is not a 6-bit "
                f"{spec.name} code (bits 6-31 MUST be zero)"
            )
        return ints.astype(np.uint8).view(dtype).reshape(dims)
    # Narrow types keep the low bits of each value, as onnx and onnxruntime do.
    low = ints.view(np.uint32).astype(_UINT_OF_SIZE[dtype.itemsize])
    if spec.bits:
        return bits.unpack(low, count, spec.bits).view(dtype).reshape(dims)
    return low.view(dtype).reshape(dims)


def _ints(tensor: TensorProto, field: str, values: Sequence[int], dtype: np.dtype[Any]) -> NDArray:
    """``values`` as a ``dtype`` array; a value out of its range is a ValueError."""
    try:
        if not isinstance(values, (np.ndarray, _pyarray)):
            return np.fromiter(values, dtype=dtype, count=len(values))
        given: NDArray = np.array(values)  # a copy: never share the message's buffer
        if given.dtype == dtype:
            return given
        info = np.iinfo(dtype)
        if given.dtype.kind not in "biu" or (
            given.size and (given.min() < info.min or given.max() > info.max)
        ):
            raise OverflowError(f"{given.dtype} values outside [{info.min}, {info.max}]")
        return given.astype(dtype)
    except (OverflowError, TypeError, ValueError) as exc:
        raise ValueError(
            f"{_label(tensor)}: {field} holds a value that is not a {dtype.name}: {exc}"
        ) from exc


# dtype -> data type, for the dtypes whose values go to raw_data as they are in
# memory (native byte order on a little-endian host, whole bytes per value);
# filled as array_to_tensor meets them.
_RAW_AS_IS: dict[np.dtype[Any], int] = {}


# A tensor holding these three fields, made in one call: __init__ with
# keywords and the properties would be several Python calls more, and dims a
# second list (their conversion copies what is already a new list of ints).
_new_raw_tensor = blank_maker(
    _TENSOR, tuple(f.name for f in (_T.dims, _T.data_type, _T.raw_data))
)


def array_to_tensor(array: Any, name: str | None = None) -> TensorProto:
    """The TensorProto of ``array``; see ``numpy_helper.from_array``."""
    if type(array) is np.ndarray:
        # The usual case in a few steps: a dtype met before goes to raw_data as it is.
        code = _RAW_AS_IS.get(array.dtype)
        if code is not None:
            tensor: TensorProto = _new_raw_tensor(list(array.shape), code, array.tobytes())
            if name:
                tensor.name = name
            return tensor
    elif isinstance(array, np.generic):
        array = np.asarray(array)
    elif not isinstance(array, np.ndarray):
        raise TypeError(
            f"from_array expects a numpy array or scalar, not {type(array).__name__}; "
            "convert it with numpy.asarray first"
        )
    tensor = TensorProto()
    tensor.dims = list(array.shape)
    if name:
        tensor.name = name
    dtype = array.dtype
    if dtype.kind in "OUS":
        tensor.data_type = _STRING
        tensor.string_data = _encode_strings(array)
        return tensor
    code = np_dtype_to_tensor_dtype(dtype)
    spec = spec_of(code)
    if not dtype.isnative:
        array = array.astype(dtype.newbyteorder("="))
    if spec.bits:
        tensor.raw_data = bits.pack(array, spec.bits)
    elif _LITTLE or dtype.itemsize == 1:
        tensor.raw_data = array.tobytes()
        if array.dtype is dtype and len(_RAW_AS_IS) < 64:  # native: no copy was made above
            _RAW_AS_IS[dtype] = code
    else:  # pragma: no cover - big-endian hosts
        tensor.raw_data = array.byteswap().tobytes()
    tensor.data_type = code
    return tensor


def _encode_strings(array: NDArray) -> list[bytes]:
    items: list[Any] = array.ravel().tolist()
    kind = array.dtype.kind
    if kind == "U":
        return [s.encode("utf-8") for s in items]
    if kind == "S":
        return items
    out: list[bytes] = []
    append = out.append
    for e in items:
        if isinstance(e, str):
            append(e.encode("utf-8"))
        elif isinstance(e, bytes):
            append(e if type(e) is bytes else bytes(e))
        else:
            raise NotImplementedError(
                "Unrecognized object in the object array, expect a string, or array of "
                f"bytes: {type(e)}"
            )
    return out
