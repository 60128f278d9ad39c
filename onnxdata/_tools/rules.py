"""The ONNX rules of each data message, as tables of small rules.

:func:`onnxdata.check` walks a message generically (``check.py``); this module
holds what is truly about one ONNX message: "raw_data and the typed fields are
exclusive", "sparse indices ascend", "a map has as many values as keys".  Each
message's fields are read in one place, by a view class that names them once
(:class:`TensorView`, :class:`MapView`), and each rule is a small function of
the view, listed in the message's table in the order its violations are
reported.  The data types' facts (which field stores which type, how many
bytes an element takes) come from ``_messages.datatypes``; the element fields
of a sequence, optional or map from the schema (``element_fields``).

A rule runs only on a message whose values all have the right types (the walk
reports the others), and never raises: every break is one ``bad(field,
message)`` call.
"""

from __future__ import annotations

import sys
from array import array

from .._core.mapped import LIVE, check_value
from .._core.schema import spec_of
from .._io.external import parse_count, split_location
from .._messages.datatypes import (
    ALLOWED,
    DATA_TYPES,
    ELEMENT_MESSAGES,
    STORAGE_FIELDS,
    element_fields,
)
from .._messages.declarations import SequenceProto, SparseTensorProto, TensorProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    Bad = Callable[[str, str], None]
    Values = Callable[[Any], "dict[str, Any] | None"]
    Rule = Callable[[Values, Any, dict[str, Any], Bad], None]

__all__ = ["MAX_ELEMENTS", "RULES", "MapView", "TensorView", "element_count"]

DT = TensorProto.DataType
_MAX_DATA_TYPE = max(DATA_TYPES)
_MAX_ELEMENT_TYPE = max(ELEMENT_MESSAGES)
_ELEMENT_OF = {name: k for k, name in ELEMENT_MESSAGES.items()}
_TENSOR_ELEMENT, _OPTIONAL_ELEMENT = _ELEMENT_OF["TensorProto"], _ELEMENT_OF["OptionalProto"]
_SPARSE_PARTS = (spec_of(SparseTensorProto).named.values.name,
                 spec_of(SparseTensorProto).named.indices.name)  # fmt: skip
# The untyped storage field, exclusive with the typed ones.
_RAW = spec_of(TensorProto).named.raw_data.name
_RANGE_KEYS = ("offset", "length")  # external_data entries that hold a number


MAX_ELEMENTS = (1 << 63) - 1
"""The most elements a tensor may have: the product of its dims is an int64 in onnx."""


def element_count(dims: Any) -> int | None:
    """The product of ``dims`` (none negative), or None once a partial product, in
    order, passes :data:`MAX_ELEMENTS`, where onnx's checker stops ("Tensor
    dimension product overflow").  Stopping there keeps the work linear in the
    number of dims: the exact product of a million dims would be a number of
    millions of digits, too long to compute and to print."""
    n = 1
    for d in dims:
        n *= int(d)
        if n > MAX_ELEMENTS:
            return None
    return n


def type_name(data_type: int) -> str:
    """A data type's enumerator name; "UNDEFINED" for 0, the number for an unknown one."""
    found = DATA_TYPES.get(data_type)
    if found is not None:
        return found.name
    return "UNDEFINED" if data_type == 0 else str(data_type)


def _negative_dims(dims: Any, field: str, bad: Bad) -> bool:
    """Report each negative dimension; whether there was one."""
    negative = False
    for i, d in enumerate(dims):
        if d < 0:
            bad(f"{field}[{i}]", f"{d} is negative")
            negative = True
    return negative


# -- TensorProto --------------------------------------------------------------------


class TensorView:
    """A TensorProto's checked field values, named once, and what follows from them."""

    __slots__ = ("data_type", "dims", "external", "external_data", "info", "location", "name",
                 "raw", "segment", "stored", "used")  # fmt: skip

    def __init__(self, t: dict[str, Any]) -> None:
        self.data_type: int = t["data_type"] if t["data_type"] is not None else 0
        self.info = DATA_TYPES.get(self.data_type)
        self.dims: Any = t["dims"]
        self.location: int | None = t["data_location"]
        self.external = self.location == TensorProto.EXTERNAL
        self.external_data: Any = t["external_data"]
        self.name: str = t["name"] or ""
        self.segment: Any = t["segment"]
        self.raw: Any = t[_RAW]
        self.stored = {name: t[name] for name in STORAGE_FIELDS}
        if LIVE:  # values read from a mapped file that shrank: an error, not SIGBUS
            check_value(self.raw)
            for values in self.stored.values():
                check_value(values)
        # The storage fields that hold values, in declaration order, raw_data last.
        self.used = [name for name, values in self.stored.items() if len(values)]
        if self.raw is not None and len(self.raw):  # an empty raw_data holds no values
            self.used.append(_RAW)

    @property
    def valid_type(self) -> bool:
        return self.info is not None or self.data_type == DT.UNDEFINED

    def values_of(self, name: str) -> Any:
        """The values of a storage field (``raw_data`` included)."""
        return self.raw if name == _RAW else self.stored[name]


def _tensor_data_type(values: Values, v: TensorView, bad: Bad) -> None:
    if not v.valid_type:
        bad("data_type", f"{v.data_type} is not a TensorProto.DataType (0..{_MAX_DATA_TYPE})")


def _tensor_dims(values: Values, v: TensorView, bad: Bad) -> None:
    _negative_dims(v.dims, "dims", bad)


def _tensor_location(values: Values, v: TensorView, bad: Bad) -> None:
    if v.location is not None and v.location not in (TensorProto.DEFAULT, TensorProto.EXTERNAL):
        bad("data_location", f"{v.location} is neither DEFAULT (0) nor EXTERNAL (1)")


def _tensor_external(values: Values, v: TensorView, bad: Bad) -> None:
    """An EXTERNAL tensor names a safe relative location, and holds no values itself."""
    if not v.external:
        return
    locations = [
        (i, e["value"])
        for i, e in enumerate(map(values, v.external_data))
        if e is not None and e["key"] == "location"
    ]
    if not any(value for _, value in locations):
        bad("external_data", "data_location is EXTERNAL but no non-empty 'location' entry")
    for i, value in locations:
        if value:
            try:
                split_location(value, v.name)
            except ValueError as err:
                bad(f"external_data[{i}].value", str(err))
    for i, e in enumerate(map(values, v.external_data)):
        if e is not None and e["key"] in _RANGE_KEYS and e["value"] is not None:
            try:
                parse_count(e["value"], e["key"], v.name)
            except ValueError as err:
                bad(f"external_data[{i}].value", str(err))
    if v.used:
        bad(v.used[0], f"data_location is EXTERNAL, so the values must not be in the message "
                       f"too: {', '.join(v.used)}")  # fmt: skip


def _tensor_storage_allowed(values: Values, v: TensorView, bad: Bad) -> None:
    """Each field that holds values may hold the tensor's data type."""
    for name in v.used:
        if name == _RAW:
            if v.data_type in (DT.STRING, DT.UNDEFINED):
                bad(_RAW, f"raw_data is not allowed for data_type {type_name(v.data_type)}")
        elif not v.valid_type or v.data_type not in ALLOWED[name]:
            bad(name, f"{name} is not allowed for data_type {type_name(v.data_type)}")


def _tensor_one_storage(values: Values, v: TensorView, bad: Bad) -> None:
    if len(v.used) > 1:
        bad(v.used[1], f"more than one storage field holds values: {', '.join(v.used)}")


def _tensor_bool_bytes(values: Values, v: TensorView, bad: Bad) -> None:
    if v.data_type == DT.BOOL and v.raw is not None and bytes(v.raw).translate(None, b"\0\1"):
        bad(_RAW, "BOOL raw_data bytes must be 0 or 1")


def _tensor_six_bits(values: Values, v: TensorView, bad: Bad) -> None:
    """A 6-bit type keeps one element per typed value: bits 6-31 stay clear."""
    if v.info is None or v.info.packed != 6:
        return
    storage = v.info.storage
    for i, x in enumerate(v.stored[storage]):
        if x & ~0x3F:
            # onnx's checker words it so, and code matches on them
            bad(f"{storage}[{i}]", f"{v.info.name} {storage} values must use only bits 0-5 ({x})")
            return


def _tensor_counts(values: Values, v: TensorView, bad: Bad) -> None:
    """The values stored are exactly what the dims need (the data is here, whole)."""
    info = v.info
    if v.external or v.segment is not None or info is None or any(d < 0 for d in v.dims):
        return
    n = element_count(v.dims)
    if n is None:
        bad("dims", f"the product of its {len(v.dims)} dims passes 2**63 - 1 elements "
                    "(onnx: Tensor dimension product overflow)")  # fmt: skip
        return
    if not v.used:
        if n:
            bad("dims", f"dims {list(v.dims)} hold {n} elements but no values are stored")
        return
    if len(v.used) > 1:
        return  # reported by _tensor_one_storage
    name = v.used[0]
    have = len(v.values_of(name))
    want = info.raw_size(n) if name == _RAW else info.stored_count(n)
    if have != want:
        unit = "bytes" if name == _RAW else "values"
        bad(name, f"{have} {unit}, but dims {list(v.dims)} of {info.name} need {want}")
    elif name == _RAW and info.packed == 6 and n * 6 % 8 and v.raw[-1] >> (n * 6 % 8):
        bad(_RAW, f"non-zero padding bits in its packed {info.name} raw_data")


_TENSOR_RULES: tuple[Callable[[Values, TensorView, Bad], None], ...] = (
    _tensor_data_type,
    _tensor_dims,
    _tensor_location,
    _tensor_external,
    _tensor_storage_allowed,
    _tensor_one_storage,
    _tensor_bool_bytes,
    _tensor_six_bits,
    _tensor_counts,
)


def _tensor(values: Values, msg: Any, t: dict[str, Any], bad: Bad) -> None:
    view = TensorView(t)
    for rule in _TENSOR_RULES:
        rule(values, view, bad)


# -- SparseTensorProto --------------------------------------------------------------


def _index_values(t: TensorView) -> list[int] | None:
    """The INT64 indices as ints, or None when they are not readable here."""
    typed = t.stored[DATA_TYPES[DT.INT64].storage]
    if len(typed):
        return [int(x) for x in typed]
    if t.raw is not None:
        raw = bytes(t.raw)
        if len(raw) % 8:
            return None
        found = array("q")
        found.frombytes(raw)
        if sys.byteorder == "big":  # pragma: no cover - little-endian hosts here
            found.byteswap()
        return found.tolist()
    return []


class _Sparse:
    """A SparseTensorProto's dense dims and its two tensors, as views."""

    __slots__ = ("dims", "indices", "values")

    def __init__(self, dims: Any, values: TensorView | None, indices: TensorView | None) -> None:
        self.dims = dims
        self.values = values
        self.indices = indices

    def nnz(self) -> int | None:
        """The entries ``values`` declares (its one dim), or None."""
        v = self.values
        return v.dims[0] if v is not None and len(v.dims) == 1 else None


def _sparse_values(s: _Sparse, bad: Bad) -> bool:
    """``values`` is a named 1-D tensor, and ``indices`` is there when it has entries.
    Whether the indices can be checked further."""
    v = s.values
    if v is None:
        bad("values", "values is missing")
    else:
        if not v.name:
            bad("values.name", "values must have a non-empty name")
        if len(v.dims) != 1:
            bad("values.dims", f"values must be 1-D, found dims {list(v.dims)}")
    if s.indices is None:
        nnz = s.nnz()
        if nnz is not None and nnz > 0:
            bad("indices", "indices is missing")
        return False
    return True


def _sparse_layout(s: _Sparse, indices: TensorView, bad: Bad) -> bool | None:
    """Whether the indices are linear (``[NNZ]``) or COO (``[NNZ, rank]``); None
    when their type or shape is wrong (reported)."""
    if indices.data_type != DT.INT64:
        bad("indices.data_type", f"indices must be INT64, found {type_name(indices.data_type)}")
        return None
    rank = len(s.dims)
    idims = list(indices.dims)
    if len(idims) == 1:
        linear = True
    elif len(idims) == 2 and idims[1] == rank:
        linear = False
    else:
        bad("indices.dims", f"indices must be [NNZ] or [NNZ, {rank}], found {idims}")
        return None
    nnz = s.nnz()
    if nnz is not None and idims[0] != nnz:
        bad("indices.dims", f"indices hold {idims[0]} entries but values hold {nnz}")
        return None
    return linear


def _sparse_keys(s: _Sparse, indices: TensorView, linear: bool, bad: Bad) -> list[Any] | None:
    """The indices as sort keys (ints, or tuples for COO), each inside the dense
    dims; None when they cannot be read here or one is outside (reported)."""
    dense = s.dims
    if any(d < 0 for d in dense) or indices.external or any(d < 0 for d in indices.dims):
        return None  # negative dims are reported where they are
    flat = _index_values(indices)
    if flat is None or len(flat) != element_count(indices.dims):
        return None  # reported on indices itself
    if linear:
        size = element_count(dense)
        for i, k in enumerate(flat):
            if not 0 <= k < (MAX_ELEMENTS if size is None else size):
                bad(f"indices[{i}]", f"index {k} is outside the {size} elements of dims "
                                     f"{list(dense)}")  # fmt: skip
                return None
        return flat
    rank = len(dense)
    keys = [tuple(flat[i * rank : (i + 1) * rank]) for i in range(indices.dims[0])]
    for i, key in enumerate(keys):
        if not all(0 <= k < d for k, d in zip(key, dense, strict=True)):
            bad(f"indices[{i}]", f"index {list(key)} is outside dims {list(dense)}")
            return None
    return keys


def _ascending(keys: list[Any], bad: Bad) -> None:
    for i in range(1, len(keys)):
        if keys[i] <= keys[i - 1]:
            what = "repeats" if keys[i] == keys[i - 1] else "is not after"
            order = "indices must be ascending and unique"
            bad(f"indices[{i}]", f"index {keys[i]} {what} index {keys[i - 1]}: {order}")
            return


def _sparse(values: Values, msg: Any, s: dict[str, Any], bad: Bad) -> None:
    _negative_dims(s["dims"], "dims", bad)
    parts = []
    for field in _SPARSE_PARTS:
        sub = s[field]
        found = values(sub)
        if sub is not None and found is None:
            return  # a sub-tensor with values of the wrong types: reported there
        parts.append(None if found is None else TensorView(found))
    sparse = _Sparse(s["dims"], *parts)
    if not _sparse_values(sparse, bad):
        return
    assert sparse.indices is not None
    linear = _sparse_layout(sparse, sparse.indices, bad)
    if linear is None:
        return
    keys = _sparse_keys(sparse, sparse.indices, linear, bad)
    if keys is not None:
        _ascending(keys, bad)


# -- SequenceProto, OptionalProto: the element type ----------------------------------


def _element_type(msg: Any, v: dict[str, Any], bad: Bad) -> None:
    """elem_type is a DataType, and only its field holds values."""
    cls = type(msg)
    what = spec_of(cls).name
    et = v["elem_type"] if v["elem_type"] is not None else 0
    if not 0 <= et <= _MAX_ELEMENT_TYPE:
        bad("elem_type", f"{et} is not a {what}.DataType (0..{_MAX_ELEMENT_TYPE})")
        return
    populated = [
        (k, f.name)
        for k, f in element_fields(cls).items()
        if (len(v[f.name]) if f.repeated else v[f.name] is not None)
    ]
    if len(populated) > 1:
        names = ", ".join(name for _, name in populated)
        bad("", f"more than one element type is populated: {names}")
    for k, name in populated:
        if k != et:
            expected = SequenceProto.DataType.Name(et)  # OptionalProto's are the same
            bad(name, f"{name} is populated but elem_type is {expected}")


def _sequence(values: Values, msg: Any, s: dict[str, Any], bad: Bad) -> None:
    _element_type(msg, s, bad)
    tensors = element_fields(type(msg)).get(_TENSOR_ELEMENT)
    if tensors is None:
        return
    typed = [(i, values(t)) for i, t in enumerate(s[tensors.name])]
    types = [(i, v["data_type"]) for i, v in typed if v is not None]
    for i, data_type in types[1:]:
        if data_type != types[0][1]:
            bad(
                f"{tensors.name}[{i}].data_type",
                f"tensors in a sequence must share one data_type: "
                f"{type_name(data_type or 0)} after {type_name(types[0][1] or 0)}",
            )
            return


def _optional(values: Values, msg: Any, o: dict[str, Any], bad: Bad) -> None:
    _element_type(msg, o, bad)


# -- MapProto -----------------------------------------------------------------------


class MapView:
    """A MapProto's checked field values, named once."""

    __slots__ = ("int_keys", "key_type", "string_keys", "values")

    def __init__(self, m: dict[str, Any]) -> None:
        self.key_type: int = m["key_type"] if m["key_type"] is not None else 0
        self.int_keys: Any = m["keys"]
        self.string_keys: Any = m["string_keys"]
        self.values: Any = m["values"]

    @property
    def key_field(self) -> str:
        """The field that holds the keys of this key type."""
        return "string_keys" if self.key_type == DT.STRING else "keys"


def _map_keys(m: MapView, bad: Bad) -> list[Any]:
    """The keys, in the field the key type names (reported when they are elsewhere,
    out of range, or the key type cannot key a map)."""
    info = DATA_TYPES.get(m.key_type)
    if m.key_type == DT.STRING:
        if len(m.int_keys):
            bad("keys", "key_type is STRING, so keys must be in string_keys, not keys")
        return [bytes(k) for k in m.string_keys]
    if info is None or info.key is None:
        bad("key_type", f"{type_name(m.key_type)} is not an allowed key type (an integer type "
                        "or STRING)")  # fmt: skip
        return list(m.int_keys) or [bytes(k) for k in m.string_keys]
    if len(m.string_keys):
        bad("string_keys", f"key_type is {info.name}, so keys must be in keys")
    lo, hi = info.key
    keys = list(m.int_keys)
    for i, k in enumerate(keys):
        if not lo <= k <= hi:
            bad(f"keys[{i}]", f"{k} is out of range for {info.name}")
            break
    return keys


def _map_unique(m: MapView, keys: list[Any], bad: Bad) -> None:
    seen: set[Any] = set()
    for i, k in enumerate(keys):
        if k in seen:
            bad(f"{m.key_field}[{i}]", f"key {k!r} repeats an earlier key")
            return
        seen.add(k)


def _map_values(values: Values, m: MapView, keys: list[Any], bad: Bad) -> None:
    """The values are not optionals, and there are as many as keys."""
    n_values = 0
    if m.values is not None:
        found = values(m.values)
        if found is None:
            return  # values of the wrong types: reported there
        fields = element_fields(type(m.values))
        optional = fields.get(_OPTIONAL_ELEMENT)
        if found["elem_type"] == _OPTIONAL_ELEMENT or (
            optional is not None and len(found[optional.name])
        ):
            bad("values.elem_type", "map values must be tensors, sparse tensors, maps or sequences")
        n_values = sum(len(found[f.name]) for f in fields.values())
    if n_values != len(keys):
        bad("values", f"{len(keys)} keys but {n_values} values")


def _map(values: Values, msg: Any, m: dict[str, Any], bad: Bad) -> None:
    view = MapView(m)
    keys = _map_keys(view, bad)
    _map_unique(view, keys, bad)
    _map_values(values, view, keys, bad)


RULES: dict[str, Rule] = {
    "TensorProto": _tensor,
    "SparseTensorProto": _sparse,
    "SequenceProto": _sequence,
    "MapProto": _map,
    "OptionalProto": _optional,
}
"""The ONNX rules of each message, by schema name (the entries and segments have none):
``rule(values, msg, fields, bad)``, where ``values(sub)`` gives a sub-message's
checked fields (None when missing or mistyped)."""
