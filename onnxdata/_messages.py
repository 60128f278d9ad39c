"""The ONNX data messages as plain dataclasses.

Field names, numbers and declaration order follow ``onnx-data.in.proto`` and
``onnx.proto`` (onnx 1.23.2) exactly, so code written against ``onnx.TensorProto``
reads the same.  proto2 presence is kept: an optional field never set is
``None`` and is not written; set to its default it is written.

The packed numeric fields (``float_data``, ``int32_data``, ``int64_data``,
``double_data``, ``uint64_data``) hold an ``array.array`` in the wire width: a
float32 keeps every bit (a signalling NaN included, which a Python ``float``
would quiet), an int64 costs 8 bytes instead of a 32-byte object, and numpy
reads the values in place.  Any sequence of numbers may be assigned.
``dims`` and ``keys``, unpacked on the wire, are lists.
"""

from __future__ import annotations

from array import array
from enum import IntEnum

from ._schema import (
    REPEATED,
    MessageSpec,
    all_slots,
    field,
    message,
    unknown,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, MutableSequence
    from typing import Any, ClassVar

    from typing_extensions import Self

# The codec is imported on first use, so that ``import onnxdata`` stays small;
# then these names are rebound to it, and a call costs no import statement
# (a large part of a small message's decode).


def _load_decoder(cls: Any, data: Any, copy: bool, max_size: int | None) -> Any:
    global _decode_message
    from ._decode import decode_message

    _decode_message = decode_message
    return decode_message(cls, data, copy, max_size)


def _load_encoder(message: Any, max_size: int | None) -> bytes:
    global _encode_message
    from ._encode import encode_message

    _encode_message = encode_message
    return encode_message(message, max_size)


_decode_message: Callable[[Any, Any, bool, int | None], Any] = _load_decoder
_encode_message: Callable[[Any, int | None], bytes] = _load_encoder


class Message:
    """What every message shares: decoding, encoding and bitwise equality."""

    __slots__ = ()
    _SPEC: ClassVar[MessageSpec]  # the schema of the message (see _schema.py)

    @classmethod
    def decode(cls, data: Any, *, copy: bool = True, max_size: int | None = None) -> Self:
        """Decode ``data`` (bytes, bytearray, memoryview, mmap, any buffer) into a new message.

        With ``copy=False`` nothing large is copied: ``raw_data``, the entries
        of ``string_data`` and ``string_keys``, ``float_data`` and
        ``double_data`` become read-only ``memoryview`` slices of ``data``
        (float/double cast to ``'f'``/``'d'``; copies on big-endian hosts).
        The message then keeps ``data`` alive, and sees any later change to
        it; see docs/bigdata.md for the lifetime rule.

        ``max_size`` refuses inputs longer than that many bytes, before
        decoding anything (protobuf cannot parse more than 2 GiB; onnxdata has
        no limit).

        Raises:
            DecodeError: the bytes are not a valid encoding of this message,
                exactly when protobuf's parser would reject them, or they are
                longer than ``max_size``.
            TypeError: ``data`` is not a bytes-like object.
        """
        message: Self = _decode_message(cls, data, copy, max_size)
        return message

    def encode(self, *, max_size: int | None = None) -> bytes:
        """The protobuf wire encoding, byte-identical to protobuf's own.

        Any size is allowed (protobuf cannot parse more than 2 GiB); ``max_size``
        sets a limit, checked before the bytes are joined.

        Raises:
            TypeError: a field holds a value of the wrong type.
            ValueError: a value is out of range, nesting is deeper than 100,
                or the encoding would be longer than ``max_size``
                (:class:`EncodeValueError`).
        """
        return _encode_message(self, max_size)

    def encode_to(self, file: Any, *, max_size: int | None = None) -> int:
        """Write the encoding to ``file`` (anything with ``write``) and return its length.

        The bytes are those of :meth:`encode`, but the whole encoding never
        exists in memory: a first pass checks every value and measures every
        sub-message, a second writes, with payloads (``raw_data``, float
        fields, ``string_data``) passed to ``file.write`` straight from their
        own buffers.  Nothing is written if a value is invalid or the size is
        over ``max_size``.  Extra memory: 8 bytes per sub-message, plus a
        buffer of at most 1 MiB.  Don't change the message meanwhile.

        Raises:
            TypeError, ValueError, OverflowError: as :meth:`encode`, before
                anything is written.
            OSError: from ``file.write``.
            RuntimeError: the message changed while it was written.
        """
        from ._stream import encode_to

        return encode_to(self, file, max_size)

    @classmethod
    def FromString(cls, data: Any) -> Self:  # noqa: N802 - protobuf's name
        """Alias of :meth:`decode`, as in protobuf's generated classes."""
        return cls.decode(data)

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf's name
        """Alias of :meth:`encode`, as in protobuf's generated classes."""
        return self.encode()

    def __eq__(self, other: object) -> bool:
        # Floats compare by their bits, as protobuf's own equality does:
        # a NaN equals the same NaN, 0.0 differs from -0.0.
        if type(other) is not type(self):
            return NotImplemented
        for name, code in _compared(type(self)):
            a = getattr(self, name)
            b = getattr(other, name)
            if a is b:
                continue
            if code:
                if _bits(a, code) != _bits(b, code):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable, like protobuf messages


_COMPARED: dict[type, tuple[tuple[str, str], ...]] = {}


def _compared(cls: type[Message]) -> tuple[tuple[str, str], ...]:
    """Every slot of ``cls`` with the typecode of a packed field, else ``""``:
    what ``__eq__`` compares, and how (packed fields by their bits)."""
    found = _COMPARED.get(cls)
    if found is None:
        spec = cls._SPEC
        codes = {f.name: f.typecode for f in spec.fields if f.typecode}
        found = _COMPARED[cls] = tuple((n, codes.get(n) or "") for n in all_slots(spec))
    return found


def _bits(values: Any, code: str) -> bytes | memoryview:
    """The bytes of a float field's values, to compare bit for bit.

    An ``array`` or a ``copy=False`` view of the field's own type is compared
    in place, through a byte view: no copy, however large.
    """
    if type(values) is array and values.typecode == code:
        return values.tobytes() if len(values) < 1024 else memoryview(values).cast("B")
    if type(values) is memoryview and values.format == code and values.c_contiguous:
        return values.cast("B")
    try:
        values = array(code, values)
    except (TypeError, OverflowError):
        return repr(values).encode()  # not floats at all: compare as objects
    bits: bytes = values.tobytes()
    return bits


@message
class StringStringEntryProto(Message):
    """A key/value pair of strings (``external_data``, ``metadata_props``)."""

    key: str | None = field(1, "string", default=None)
    value: str | None = field(2, "string", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class TensorProto(Message):
    """A tensor: ``dims``, ``data_type`` and its values in one storage field."""

    class DataType(IntEnum):
        UNDEFINED = 0
        FLOAT = 1
        UINT8 = 2
        INT8 = 3
        UINT16 = 4
        INT16 = 5
        INT32 = 6
        INT64 = 7
        STRING = 8
        BOOL = 9
        FLOAT16 = 10
        DOUBLE = 11
        UINT32 = 12
        UINT64 = 13
        COMPLEX64 = 14
        COMPLEX128 = 15
        BFLOAT16 = 16
        FLOAT8E4M3FN = 17
        FLOAT8E4M3FNUZ = 18
        FLOAT8E5M2 = 19
        FLOAT8E5M2FNUZ = 20
        UINT4 = 21
        INT4 = 22
        FLOAT4E2M1 = 23
        FLOAT8E8M0 = 24
        UINT2 = 25
        INT2 = 26
        FLOAT6E2M3 = 27
        FLOAT6E3M2 = 28

    class DataLocation(IntEnum):
        DEFAULT = 0
        EXTERNAL = 1

    @message
    class Segment(Message):
        """For very large tensors split into chunks: the slice ``[begin, end)``."""

        begin: int | None = field(1, "int64", default=None)
        end: int | None = field(2, "int64", default=None)
        unknown_fields: bytes = unknown(default=b"")

    UNDEFINED = DataType.UNDEFINED
    FLOAT = DataType.FLOAT
    UINT8 = DataType.UINT8
    INT8 = DataType.INT8
    UINT16 = DataType.UINT16
    INT16 = DataType.INT16
    INT32 = DataType.INT32
    INT64 = DataType.INT64
    STRING = DataType.STRING
    BOOL = DataType.BOOL
    FLOAT16 = DataType.FLOAT16
    DOUBLE = DataType.DOUBLE
    UINT32 = DataType.UINT32
    UINT64 = DataType.UINT64
    COMPLEX64 = DataType.COMPLEX64
    COMPLEX128 = DataType.COMPLEX128
    BFLOAT16 = DataType.BFLOAT16
    FLOAT8E4M3FN = DataType.FLOAT8E4M3FN
    FLOAT8E4M3FNUZ = DataType.FLOAT8E4M3FNUZ
    FLOAT8E5M2 = DataType.FLOAT8E5M2
    FLOAT8E5M2FNUZ = DataType.FLOAT8E5M2FNUZ
    UINT4 = DataType.UINT4
    INT4 = DataType.INT4
    FLOAT4E2M1 = DataType.FLOAT4E2M1
    FLOAT8E8M0 = DataType.FLOAT8E8M0
    UINT2 = DataType.UINT2
    INT2 = DataType.INT2
    FLOAT6E2M3 = DataType.FLOAT6E2M3
    FLOAT6E3M2 = DataType.FLOAT6E3M2
    DEFAULT = DataLocation.DEFAULT
    EXTERNAL = DataLocation.EXTERNAL

    dims: MutableSequence[int] = field(1, "int64", default_factory=REPEATED)
    data_type: int | None = field(2, "int32", default=None)
    segment: TensorProto.Segment | None = field(3, "message", message="Segment", default=None)
    float_data: MutableSequence[float] = field(4, "float", packed=True, default_factory=REPEATED)
    int32_data: MutableSequence[int] = field(5, "int32", packed=True, default_factory=REPEATED)
    string_data: MutableSequence[bytes] = field(6, "bytes", default_factory=REPEATED)
    int64_data: MutableSequence[int] = field(7, "int64", packed=True, default_factory=REPEATED)
    name: str | None = field(8, "string", default=None)
    doc_string: str | None = field(12, "string", default=None)
    raw_data: bytes | None = field(9, "bytes", default=None)
    external_data: MutableSequence[StringStringEntryProto] = field(
        13, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    data_location: int | None = field(14, "enum", enum="DataLocation", default=None)
    double_data: MutableSequence[float] = field(10, "double", packed=True, default_factory=REPEATED)
    uint64_data: MutableSequence[int] = field(11, "uint64", packed=True, default_factory=REPEATED)
    metadata_props: MutableSequence[StringStringEntryProto] = field(
        16, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class SparseTensorProto(Message):
    """A sparse tensor: non-zero ``values``, their ``indices``, the dense ``dims``."""

    values: TensorProto | None = field(1, "message", message="TensorProto", default=None)
    indices: TensorProto | None = field(2, "message", message="TensorProto", default=None)
    dims: MutableSequence[int] = field(3, "int64", default_factory=REPEATED)
    unknown_fields: bytes = unknown(default=b"")


@message
class SequenceProto(Message):
    """An ordered collection of elements of one type."""

    class DataType(IntEnum):
        UNDEFINED = 0
        TENSOR = 1
        SPARSE_TENSOR = 2
        SEQUENCE = 3
        MAP = 4
        OPTIONAL = 5

    UNDEFINED = DataType.UNDEFINED
    TENSOR = DataType.TENSOR
    SPARSE_TENSOR = DataType.SPARSE_TENSOR
    SEQUENCE = DataType.SEQUENCE
    MAP = DataType.MAP
    OPTIONAL = DataType.OPTIONAL

    name: str | None = field(1, "string", default=None)
    elem_type: int | None = field(2, "int32", default=None)
    tensor_values: MutableSequence[TensorProto] = field(
        3, "message", message="TensorProto", default_factory=REPEATED
    )
    sparse_tensor_values: MutableSequence[SparseTensorProto] = field(
        4, "message", message="SparseTensorProto", default_factory=REPEATED
    )
    sequence_values: MutableSequence[SequenceProto] = field(
        5, "message", message="SequenceProto", default_factory=REPEATED
    )
    map_values: MutableSequence[MapProto] = field(
        6, "message", message="MapProto", default_factory=REPEATED
    )
    optional_values: MutableSequence[OptionalProto] = field(
        7, "message", message="OptionalProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class MapProto(Message):
    """An associative table: integer ``keys`` or ``string_keys``, and ``values``."""

    name: str | None = field(1, "string", default=None)
    key_type: int | None = field(2, "int32", default=None)
    keys: MutableSequence[int] = field(3, "int64", default_factory=REPEATED)
    string_keys: MutableSequence[bytes] = field(4, "bytes", default_factory=REPEATED)
    values: SequenceProto | None = field(5, "message", message="SequenceProto", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class OptionalProto(Message):
    """A value that may be absent."""

    class DataType(IntEnum):
        UNDEFINED = 0
        TENSOR = 1
        SPARSE_TENSOR = 2
        SEQUENCE = 3
        MAP = 4
        OPTIONAL = 5

    UNDEFINED = DataType.UNDEFINED
    TENSOR = DataType.TENSOR
    SPARSE_TENSOR = DataType.SPARSE_TENSOR
    SEQUENCE = DataType.SEQUENCE
    MAP = DataType.MAP
    OPTIONAL = DataType.OPTIONAL

    name: str | None = field(1, "string", default=None)
    elem_type: int | None = field(2, "int32", default=None)
    tensor_value: TensorProto | None = field(3, "message", message="TensorProto", default=None)
    sparse_tensor_value: SparseTensorProto | None = field(
        4, "message", message="SparseTensorProto", default=None
    )
    sequence_value: SequenceProto | None = field(
        5, "message", message="SequenceProto", default=None
    )
    map_value: MapProto | None = field(6, "message", message="MapProto", default=None)
    optional_value: OptionalProto | None = field(
        7, "message", message="OptionalProto", default=None
    )
    unknown_fields: bytes = unknown(default=b"")


MESSAGE_TYPES: tuple[type[Message], ...] = (
    TensorProto,
    TensorProto.Segment,
    StringStringEntryProto,
    SparseTensorProto,
    SequenceProto,
    MapProto,
    OptionalProto,
)
