"""The validator: every MUST of the reference protos, as a list of violations.

The decoder accepts whatever protobuf accepts, so a well-formed ``.pb`` may
still break the ONNX rules (a FLOAT tensor with ``int64_data``, a map with
more keys than values).  :func:`check` reports each such break with the field
path, and never raises for a bad value: a report is more useful than the first
exception.  Only the standard library is used.
"""

from __future__ import annotations

import math
import sys
from array import array
from typing import Any

from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)

__all__ = ["Violation", "check"]

DT = TensorProto.DataType

# Which data_types each typed storage field may hold (onnx-tensor.proto).
_ALLOWED: dict[str, frozenset[int]] = {
    "float_data": frozenset({DT.FLOAT, DT.COMPLEX64}),
    "int32_data": frozenset(
        {
            DT.INT32,
            DT.INT16,
            DT.INT8,
            DT.INT4,
            DT.INT2,
            DT.UINT16,
            DT.UINT8,
            DT.UINT4,
            DT.UINT2,
            DT.BOOL,
            DT.FLOAT16,
            DT.BFLOAT16,
            DT.FLOAT8E4M3FN,
            DT.FLOAT8E4M3FNUZ,
            DT.FLOAT8E5M2,
            DT.FLOAT8E5M2FNUZ,
            DT.FLOAT8E8M0,
            DT.FLOAT4E2M1,
            DT.FLOAT6E2M3,
            DT.FLOAT6E3M2,
        }
    ),
    "string_data": frozenset({DT.STRING}),
    "int64_data": frozenset({DT.INT64}),
    "double_data": frozenset({DT.DOUBLE, DT.COMPLEX128}),
    "uint64_data": frozenset({DT.UINT32, DT.UINT64}),
}
_STORAGE = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")

# Bits per element in raw_data (complex counted whole).
_BITS: dict[int, int] = {
    DT.FLOAT: 32, DT.UINT8: 8, DT.INT8: 8, DT.UINT16: 16, DT.INT16: 16, DT.INT32: 32,
    DT.INT64: 64, DT.BOOL: 8, DT.FLOAT16: 16, DT.DOUBLE: 64, DT.UINT32: 32, DT.UINT64: 64,
    DT.COMPLEX64: 64, DT.COMPLEX128: 128, DT.BFLOAT16: 16, DT.FLOAT8E4M3FN: 8,
    DT.FLOAT8E4M3FNUZ: 8, DT.FLOAT8E5M2: 8, DT.FLOAT8E5M2FNUZ: 8, DT.UINT4: 4, DT.INT4: 4,
    DT.FLOAT4E2M1: 4, DT.FLOAT8E8M0: 8, DT.UINT2: 2, DT.INT2: 2, DT.FLOAT6E2M3: 6,
    DT.FLOAT6E3M2: 6,
}  # fmt: skip

# Map key types and the range of their values.
_KEY_RANGES: dict[int, tuple[int, int]] = {
    DT.INT8: (-(2**7), 2**7 - 1),
    DT.INT16: (-(2**15), 2**15 - 1),
    DT.INT32: (-(2**31), 2**31 - 1),
    DT.INT64: (-(2**63), 2**63 - 1),
    DT.UINT8: (0, 2**8 - 1),
    DT.UINT16: (0, 2**16 - 1),
    DT.UINT32: (0, 2**32 - 1),
    # keys is an int64 field: a UINT64 key above 2**63 can only be stored wrapped.
    DT.UINT64: (-(2**63), 2**63 - 1),
}
_KINDS = ("tensor", "sparse_tensor", "sequence", "map", "optional")


class Violation:
    """One broken rule: where (``path``) and what (``message``).

    ``str(v)`` is ``"path: message"``, e.g.
    ``"SequenceProto.tensor_values[1].data_type: ..."``.
    """

    __slots__ = ("message", "path")

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def __repr__(self) -> str:
        return f"Violation({self.path!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Violation):
            return NotImplemented
        return (self.path, self.message) == (other.path, other.message)

    __hash__ = None  # type: ignore[assignment]


def check(message: Message) -> list[Violation]:
    """Every violation of the ONNX rules in ``message`` and the messages inside it.

    An empty list means the message is valid.  Paths start with the type name,
    as :class:`DecodeError` paths do.  Element counts are not checked for
    tensors stored externally or in segments, whose data is elsewhere.

    Raises:
        TypeError: ``message`` is not an onnxdata message.
    """
    if not isinstance(message, Message):
        raise TypeError(f"check() takes an onnxdata message, not {type(message).__name__}")
    out: list[Violation] = []
    _check_any(message, type(message).__qualname__, out, 0)
    return out


def _check_any(msg: Any, path: str, out: list[Violation], depth: int) -> None:
    if depth > 200:  # a cycle built by hand; the encoder refuses it too
        out.append(Violation(path, "messages nested more than 200 deep (a cycle?)"))
        return
    if isinstance(msg, TensorProto):
        _check_tensor(msg, path, out)
    elif isinstance(msg, SparseTensorProto):
        _check_sparse(msg, path, out, depth)
    elif isinstance(msg, SequenceProto):
        _check_sequence(msg, path, out, depth)
    elif isinstance(msg, MapProto):
        _check_map(msg, path, out, depth)
    elif isinstance(msg, OptionalProto):
        _check_optional(msg, path, out, depth)
    elif isinstance(msg, (StringStringEntryProto, TensorProto.Segment)):
        pass  # no MUST applies
    else:
        out.append(Violation(path, f"expected a message, found {type(msg).__name__}"))


def _count(dims: Any) -> int:
    return math.prod(int(d) for d in dims)


def _type_name(data_type: int) -> str:
    try:
        return DT(data_type).name
    except ValueError:
        return str(data_type)


def _check_tensor(t: TensorProto, path: str, out: list[Violation]) -> None:
    def bad(field: str, message: str) -> None:
        out.append(Violation(f"{path}.{field}", message))

    dt = t.data_type if t.data_type is not None else 0
    valid_type = dt in DT._value2member_map_
    if not valid_type:
        bad("data_type", f"{dt} is not a TensorProto.DataType (0..{max(DT)})")
    negative = [i for i, d in enumerate(t.dims) if d < 0]
    for i in negative:
        bad(f"dims[{i}]", f"{t.dims[i]} is negative")
    if t.data_location is not None and t.data_location not in (0, 1):
        bad("data_location", f"{t.data_location} is neither DEFAULT (0) nor EXTERNAL (1)")
    external = t.data_location == TensorProto.EXTERNAL
    if external and not any(e.key == "location" and e.value for e in t.external_data):
        bad("external_data", "data_location is EXTERNAL but no non-empty 'location' entry")

    used = [name for name in _STORAGE if len(getattr(t, name))]
    if t.raw_data is not None:
        used.append("raw_data")
    for name in used:
        if name == "raw_data":
            if dt in (DT.STRING, DT.UNDEFINED):
                bad("raw_data", f"raw_data is not allowed for data_type {_type_name(dt)}")
        elif not valid_type or dt not in _ALLOWED[name]:
            bad(name, f"{name} is not allowed for data_type {_type_name(dt)}")
    if len(used) > 1:
        bad(used[1], f"more than one storage field holds values: {', '.join(used)}")

    if dt == DT.BOOL and t.raw_data is not None and bytes(t.raw_data).translate(None, b"\0\1"):
        bad("raw_data", "BOOL raw_data bytes must be 0 or 1")
    if dt in (DT.FLOAT6E2M3, DT.FLOAT6E3M2):
        for i, v in enumerate(t.int32_data):
            if v & ~0x3F:
                bad(f"int32_data[{i}]", f"6-bit value {v} has bits 6-31 set")
                break

    if external or t.segment is not None or negative or not valid_type or dt == DT.UNDEFINED:
        return
    n = _count(t.dims)
    if not used:
        if n:
            bad("dims", f"dims {list(t.dims)} hold {n} elements but no values are stored")
        return
    if len(used) > 1:
        return
    name = used[0]
    bits = _BITS.get(dt, 0)
    if name == "raw_data":
        assert t.raw_data is not None
        want = (n * bits + 7) // 8
        have = len(t.raw_data)
        if have != want:
            bad(
                "raw_data", f"{have} bytes, but dims {list(t.dims)} of {_type_name(dt)} need {want}"
            )
        return
    if dt in (DT.COMPLEX64, DT.COMPLEX128):
        want = 2 * n
    elif name == "int32_data" and bits in (2, 4):
        want = -(-n * bits // 8)  # elements packed several to an entry
    else:
        want = n
    have = len(getattr(t, name))
    if have != want:
        bad(name, f"{have} values, but dims {list(t.dims)} of {_type_name(dt)} need {want}")


def _index_values(t: TensorProto) -> list[int] | None:
    """The INT64 indices as ints, or None when they are not readable here."""
    if len(t.int64_data):
        return [int(v) for v in t.int64_data]
    if t.raw_data is not None:
        raw = bytes(t.raw_data)
        if len(raw) % 8:
            return None
        values = array("q")
        values.frombytes(raw)
        if sys.byteorder == "big":  # pragma: no cover - little-endian hosts here
            values.byteswap()
        return values.tolist()
    return []


def _check_sparse(s: SparseTensorProto, path: str, out: list[Violation], depth: int) -> None:
    def bad(field: str, message: str) -> None:
        out.append(Violation(f"{path}.{field}", message))

    for i, d in enumerate(s.dims):
        if d < 0:
            bad(f"dims[{i}]", f"{d} is negative")
    values, indices = s.values, s.indices
    for name, sub in (("values", values), ("indices", indices)):
        if sub is not None and not isinstance(sub, TensorProto):
            bad(name, f"expected a TensorProto, found {type(sub).__name__}")
            return
    if values is None:
        bad("values", "values is missing")
    else:
        _check_any(values, f"{path}.values", out, depth + 1)
        if not values.name:
            bad("values.name", "values must have a non-empty name")
        if len(values.dims) != 1:
            bad("values.dims", f"values must be 1-D, found dims {list(values.dims)}")
    if indices is None:
        if values is not None and len(values.dims) == 1 and values.dims[0] > 0:
            bad("indices", "indices is missing")
        return
    _check_any(indices, f"{path}.indices", out, depth + 1)
    if indices.data_type != DT.INT64:
        bad(
            "indices.data_type",
            f"indices must be INT64, found {_type_name(indices.data_type or 0)}",
        )
        return
    rank = len(s.dims)
    nnz = values.dims[0] if values is not None and len(values.dims) == 1 else None
    idims = list(indices.dims)
    if len(idims) == 1:
        linear = True
    elif len(idims) == 2 and idims[1] == rank:
        linear = False
    else:
        bad("indices.dims", f"indices must be [NNZ] or [NNZ, {rank}], found {idims}")
        return
    if nnz is not None and idims[0] != nnz:
        bad("indices.dims", f"indices hold {idims[0]} entries but values hold {nnz}")
        return
    if any(d < 0 for d in s.dims) or indices.data_location == TensorProto.EXTERNAL:
        return
    flat = _index_values(indices)
    if flat is None or len(flat) != _count(idims):
        return  # already reported on indices itself
    if linear:
        keys: list[Any] = flat
        size = _count(s.dims)
        for i, k in enumerate(flat):
            if not 0 <= k < size:
                bad(
                    f"indices[{i}]",
                    f"index {k} is outside the {size} elements of dims {list(s.dims)}",
                )
                return
    else:
        keys = [tuple(flat[i * rank : (i + 1) * rank]) for i in range(idims[0])]
        for i, key in enumerate(keys):
            for j, k in enumerate(key):
                if not 0 <= k < s.dims[j]:
                    bad(f"indices[{i}]", f"index {list(key)} is outside dims {list(s.dims)}")
                    return
    for i in range(1, len(keys)):
        if keys[i] <= keys[i - 1]:
            what = "repeats" if keys[i] == keys[i - 1] else "is not after"
            bad(
                f"indices[{i}]",
                f"index {keys[i]} {what} index {keys[i - 1]}: indices must be ascending and unique",
            )
            return


def _check_elem_type(
    elem_type: int | None, populated: list[int], path: str, what: str, out: list[Violation]
) -> None:
    et = elem_type if elem_type is not None else 0
    if not 0 <= et <= 5:
        out.append(Violation(f"{path}.elem_type", f"{et} is not a {what}.DataType (0..5)"))
        return
    names = [f"{_KINDS[k - 1]}_value{'s' if what == 'SequenceProto' else ''}" for k in populated]
    if len(populated) > 1:
        out.append(Violation(path, f"more than one element type is populated: {', '.join(names)}"))
    for k, name in zip(populated, names, strict=True):
        if k != et:
            out.append(
                Violation(
                    f"{path}.{name}",
                    f"{name} is populated but elem_type is {SequenceProto.DataType(et).name}",
                )
            )


def _check_sequence(s: SequenceProto, path: str, out: list[Violation], depth: int) -> None:
    lists = [getattr(s, f"{k}_values") for k in _KINDS]
    _check_elem_type(
        s.elem_type, [k for k, v in enumerate(lists, 1) if v], path, "SequenceProto", out
    )
    for kind, values in zip(_KINDS, lists, strict=True):
        for i, m in enumerate(values):
            _check_any(m, f"{path}.{kind}_values[{i}]", out, depth + 1)
    tensors = [t for t in s.tensor_values if isinstance(t, TensorProto)]
    if len({t.data_type for t in tensors}) > 1:
        first = tensors[0].data_type
        for i, t in enumerate(s.tensor_values):
            if isinstance(t, TensorProto) and t.data_type != first:
                out.append(Violation(
                    f"{path}.tensor_values[{i}].data_type",
                    f"tensors in a sequence must share one data_type: "
                    f"{_type_name(t.data_type or 0)} after {_type_name(first or 0)}",
                ))  # fmt: skip
                break


def _check_map(m: MapProto, path: str, out: list[Violation], depth: int) -> None:
    def bad(field: str, message: str) -> None:
        out.append(Violation(f"{path}.{field}" if field else path, message))

    kt = m.key_type if m.key_type is not None else 0
    keys: list[Any]
    if kt == DT.STRING:
        keys = list(m.string_keys)
        if m.keys:
            bad("keys", "key_type is STRING, so keys must be in string_keys, not keys")
    elif kt in _KEY_RANGES:
        keys = list(m.keys)
        if m.string_keys:
            bad("string_keys", f"key_type is {_type_name(kt)}, so keys must be in keys")
        lo, hi = _KEY_RANGES[kt]
        for i, k in enumerate(keys):
            if not lo <= k <= hi:
                bad(f"keys[{i}]", f"{k} is out of range for {_type_name(kt)}")
                break
    else:
        bad("key_type", f"{_type_name(kt)} is not an allowed key type (an integer type or STRING)")
        keys = list(m.keys) or list(m.string_keys)
    seen: set[Any] = set()
    field = "string_keys" if kt == DT.STRING else "keys"
    for i, k in enumerate(keys):
        if k in seen:
            bad(f"{field}[{i}]", f"key {k!r} repeats an earlier key")
            break
        seen.add(k)
    values = m.values
    n_values = 0
    if values is not None and not isinstance(values, SequenceProto):
        bad("values", f"expected a SequenceProto, found {type(values).__name__}")
        return
    if values is not None:
        _check_any(values, f"{path}.values", out, depth + 1)
        if values.elem_type == SequenceProto.OPTIONAL or values.optional_values:
            bad("values.elem_type", "map values must be tensors, sparse tensors, maps or sequences")
        n_values = sum(len(getattr(values, f"{k}_values")) for k in _KINDS)
    if n_values != len(keys):
        bad("values", f"{len(keys)} keys but {n_values} values")


def _check_optional(o: OptionalProto, path: str, out: list[Violation], depth: int) -> None:
    subs = [getattr(o, f"{k}_value") for k in _KINDS]
    _check_elem_type(
        o.elem_type, [k for k, v in enumerate(subs, 1) if v is not None], path, "OptionalProto", out
    )
    for kind, sub in zip(_KINDS, subs, strict=True):
        if sub is not None:
            _check_any(sub, f"{path}.{kind}_value", out, depth + 1)
