"""The facts about each ``TensorProto.DataType``, in one table.

How a data type is stored (which typed field, how many values per element,
how many bits per element in ``raw_data``), what range a stored value has,
which numpy dtype stands for it, and whether it may key a map.  The
validator, the numpy bridge, ``show`` and the strategies read this table; a
new data type is one row here and one enumerator in ``declarations.py``.
"""

from __future__ import annotations

from .._core.schema import spec_of
from .declarations import SequenceProto, TensorProto

__all__ = [
    "ALLOWED",
    "DATA_TYPES",
    "ELEMENT_MESSAGES",
    "STORAGE_FIELDS",
    "DataTypeInfo",
    "element_fields",
    "info",
    "storage_type",
]

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec


class DataTypeInfo:
    """One data type.

    Attributes:
        value, name: the enumerator.
        storage: the typed field that holds the values when ``raw_data`` is unset.
        per_value: values of ``storage`` per element: 2 for complex numbers, else 1.
        bits: bits per element in ``raw_data`` (a complex number counted whole).
        packed: the bit width of a sub-byte type packed in ``raw_data`` (4, 2
            or 6), else 0.
        numpy: the numpy dtype name, or ``("ml_dtypes name", "storage dtype name")``
            for a type numpy lacks: the storage dtype is the unsigned integer of
            its width, given only when the caller asks for the storage view.
        struct: the ``struct`` code of one little-endian element of
            ``raw_data``, for the types the standard library can read.
        stored: the range of one value in ``storage`` for an integer-stored
            type (``int32_data`` holds bit patterns of the small float types).
        key: the range of a map key of this type; None if it cannot key a map
            (STRING keys a map through ``string_keys``).
        values: the range of a value of a sub-byte integer type (INT4: -8..7).
        float: ``(exponent bits, mantissa bits, bias, kind)`` of the small float
            types numpy lacks; kind is "ieee" (inf and NaN), "fn" (NaN, no
            inf), "fnuz" (one NaN, 0x80, and no -0) or "finite" (neither).
    """

    __slots__ = ("bits", "float", "key", "name", "numpy", "packed", "per_value", "storage",
                 "stored", "struct", "value", "values")  # fmt: skip

    def __init__(
        self,
        value: int,
        storage: str,
        bits: int,
        numpy: str | tuple[str, str],
        *,
        struct: str = "",
        stored: tuple[int, int] | None = None,
        key: tuple[int, int] | None = None,
        packed: int = 0,
        per_value: int = 1,
        values: tuple[int, int] | None = None,
        float: tuple[int, int, int, str] | None = None,
    ) -> None:
        self.value = value
        self.name = TensorProto.DataType.Name(value)
        self.storage = storage
        self.bits = bits
        self.numpy = numpy
        self.struct = struct
        self.stored = stored
        self.key = key
        self.packed = packed
        self.per_value = per_value
        self.values = values
        self.float = float

    def __repr__(self) -> str:
        return f"<data type {self.name} = {self.value}>"

    def raw_size(self, count: int) -> int:
        """The bytes that ``count`` elements take in ``raw_data`` (sub-byte types packed)."""
        return (count * self.bits + 7) // 8

    def stored_count(self, count: int) -> int:
        """The values of ``storage`` that hold ``count`` elements.

        Two per element for complex numbers; the 4- and 2-bit types pack
        several elements into each ``int32_data`` value, one byte's worth;
        the 6-bit types keep one element per value.
        """
        if self.packed in (2, 4):
            return (count * self.packed + 7) // 8
        return count * self.per_value


def _signed(bits: int) -> tuple[int, int]:
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _unsigned(bits: int) -> tuple[int, int]:
    return (0, (1 << bits) - 1)


_F, _I32, _I64, _S, _D, _U64 = (
    "float_data", "int32_data", "int64_data", "string_data", "double_data", "uint64_data",
)  # fmt: skip
_BYTE = _unsigned(8)  # a bit pattern of one byte
DT = TensorProto.DataType

DATA_TYPES: dict[int, DataTypeInfo] = {
    d.value: d
    for d in (
        DataTypeInfo(DT.FLOAT, _F, 32, "float32", struct="f"),
        DataTypeInfo(DT.UINT8, _I32, 8, "uint8", struct="B", stored=_unsigned(8), key=_unsigned(8)),
        DataTypeInfo(DT.INT8, _I32, 8, "int8", struct="b", stored=_signed(8), key=_signed(8)),
        DataTypeInfo(DT.UINT16, _I32, 16, "uint16", struct="H", stored=_unsigned(16),
                     key=_unsigned(16)),
        DataTypeInfo(DT.INT16, _I32, 16, "int16", struct="h", stored=_signed(16), key=_signed(16)),
        DataTypeInfo(DT.INT32, _I32, 32, "int32", struct="i", stored=_signed(32), key=_signed(32)),
        DataTypeInfo(DT.INT64, _I64, 64, "int64", struct="q", stored=_signed(64), key=_signed(64)),
        DataTypeInfo(DT.STRING, _S, 0, "object"),
        DataTypeInfo(DT.BOOL, _I32, 8, "bool", struct="?", stored=(0, 1)),
        DataTypeInfo(DT.FLOAT16, _I32, 16, "float16", struct="e", stored=_unsigned(16)),
        DataTypeInfo(DT.DOUBLE, _D, 64, "float64", struct="d"),
        DataTypeInfo(DT.UINT32, _U64, 32, "uint32", struct="I", stored=_unsigned(32),
                     key=_unsigned(32)),
        # keys is an int64 field: a UINT64 key above 2**63 can only be stored wrapped.
        DataTypeInfo(DT.UINT64, _U64, 64, "uint64", struct="Q", stored=_unsigned(64),
                     key=_signed(64)),
        DataTypeInfo(DT.COMPLEX64, _F, 64, "complex64", per_value=2),
        DataTypeInfo(DT.COMPLEX128, _D, 128, "complex128", per_value=2),
        DataTypeInfo(DT.BFLOAT16, _I32, 16, ("bfloat16", "uint16"), stored=_unsigned(16),
                     float=(8, 7, 127, "ieee")),
        DataTypeInfo(DT.FLOAT8E4M3FN, _I32, 8, ("float8_e4m3fn", "uint8"), stored=_BYTE,
                     float=(4, 3, 7, "fn")),
        DataTypeInfo(DT.FLOAT8E4M3FNUZ, _I32, 8, ("float8_e4m3fnuz", "uint8"), stored=_BYTE,
                     float=(4, 3, 8, "fnuz")),
        DataTypeInfo(DT.FLOAT8E5M2, _I32, 8, ("float8_e5m2", "uint8"), stored=_BYTE,
                     float=(5, 2, 15, "ieee")),
        DataTypeInfo(DT.FLOAT8E5M2FNUZ, _I32, 8, ("float8_e5m2fnuz", "uint8"), stored=_BYTE,
                     float=(5, 2, 16, "fnuz")),
        # Sub-byte types: two (4-bit) or four (2-bit) elements per int32_data entry.
        DataTypeInfo(DT.UINT4, _I32, 4, ("uint4", "uint8"), stored=_BYTE, packed=4,
                     values=_unsigned(4)),
        DataTypeInfo(DT.INT4, _I32, 4, ("int4", "uint8"), stored=_BYTE, packed=4,
                     values=_signed(4)),
        DataTypeInfo(DT.FLOAT4E2M1, _I32, 4, ("float4_e2m1fn", "uint8"), stored=_BYTE, packed=4,
                     float=(2, 1, 1, "finite")),
        DataTypeInfo(DT.FLOAT8E8M0, _I32, 8, ("float8_e8m0fnu", "uint8"), stored=_BYTE),
        DataTypeInfo(DT.UINT2, _I32, 2, ("uint2", "uint8"), stored=_BYTE, packed=2,
                     values=_unsigned(2)),
        DataTypeInfo(DT.INT2, _I32, 2, ("int2", "uint8"), stored=_BYTE, packed=2,
                     values=_signed(2)),
        DataTypeInfo(DT.FLOAT6E2M3, _I32, 6, ("float6_e2m3fn", "uint8"), stored=_unsigned(6),
                     packed=6, float=(2, 3, 1, "finite")),
        DataTypeInfo(DT.FLOAT6E3M2, _I32, 6, ("float6_e3m2fn", "uint8"), stored=_unsigned(6),
                     packed=6, float=(3, 2, 3, "finite")),
    )
}  # fmt: skip
"""data_type -> its facts, for every defined type (UNDEFINED excluded)."""

STORAGE_FIELDS: tuple[str, ...] = tuple(dict.fromkeys((_F, _I32, _S, _I64, _D, _U64)))
"""The typed value fields of a TensorProto, in declaration order."""

ALLOWED: dict[str, frozenset[int]] = {
    name: frozenset(d.value for d in DATA_TYPES.values() if d.storage == name)
    for name in STORAGE_FIELDS
}
"""Which data types each typed storage field may hold."""


_KIND_OF_FIELD = {f.name: f.kind for f in spec_of(TensorProto).fields if f.name in STORAGE_FIELDS}

STORAGE_TYPES: dict[str, int] = {
    d.storage: d.value
    for d in DATA_TYPES.values()
    if d.per_value == 1 and d.name.lower() == _KIND_OF_FIELD[d.storage].replace("bytes", "string")
}
"""storage field -> the data type it is named after (float_data: FLOAT,
uint64_data: UINT64, string_data: STRING...): onnx's "storage data type"."""


def storage_type(data_type: int) -> int:
    """The data type named by the storage field of ``data_type`` (BFLOAT16: INT32).

    Raises:
        KeyError: ``data_type`` is UNDEFINED or unknown.
    """
    return STORAGE_TYPES[DATA_TYPES[data_type].storage]


def info(data_type: Any) -> DataTypeInfo | None:
    """The facts of ``data_type``, or None for UNDEFINED, unknown values and non-ints."""
    try:
        return DATA_TYPES.get(data_type)
    except TypeError:  # unhashable
        return None


# -- the element types of SequenceProto and OptionalProto ---------------------


def _message_name(element: str) -> str:
    """The message of an element type: SPARSE_TENSOR holds SparseTensorProto."""
    return "".join(part.capitalize() for part in element.split("_")) + "Proto"


ELEMENT_MESSAGES: dict[int, str] = {
    number: _message_name(name) for name, number in SequenceProto.DataType.items() if number
}
"""elem_type -> the schema name of the message it stands for (UNDEFINED excluded);
OptionalProto.DataType has the same values."""

_ELEMENT_FIELDS: dict[Any, dict[int, Any]] = {}


def element_fields(cls: type) -> dict[int, FieldSpec]:
    """elem_type -> the field of ``cls`` that holds elements of that type.

    The field is found by the schema name of its message, so any message
    (SequenceProto's repeated fields, OptionalProto's singular ones, a copy
    of the schema) has its table without naming a field.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    found = _ELEMENT_FIELDS.get(cls)
    if found is None:
        found = {}
        for f in spec_of(cls).children():
            name = spec_of(f.message).name
            for value, message in ELEMENT_MESSAGES.items():
                if message == name and value not in found:
                    found[value] = f
        _ELEMENT_FIELDS[cls] = found
    return found
