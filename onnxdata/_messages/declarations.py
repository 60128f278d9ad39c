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

from .._core.schema import (
    REPEATED,
    UNKNOWN_FIELDS,
    FieldSpec,
    MessageSpec,
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
    from .._codec.decode import decode_message

    _decode_message = decode_message
    return decode_message(cls, data, copy, max_size)


def _load_encoder(message: Any, max_size: int | None) -> bytes:
    global _encode_message
    from .._codec.encode import encode_message

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
        of ``string_data`` and ``string_keys`` of 128 bytes or more (shorter
        ones are ``bytes``: a view would cost more than the copy),
        ``float_data`` and ``double_data`` become read-only ``memoryview``
        slices of ``data`` (float/double cast to ``'f'``/``'d'``; copies on
        big-endian hosts).
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
        from .._io.stream import encode_to

        return encode_to(self, file, max_size)

    # -- protobuf's message API, for code written against onnx's classes ----------

    @classmethod
    def FromString(cls, data: Any) -> Self:  # noqa: N802 - protobuf's name
        """Alias of :meth:`decode`, as in protobuf's generated classes."""
        return cls.decode(data)

    def SerializeToString(self, *, deterministic: bool | None = None) -> bytes:  # noqa: N802
        """Alias of :meth:`encode`, as in protobuf.

        ``deterministic`` is accepted and has no effect: it only orders map
        fields, and these messages have none, so the bytes are always the same.
        """
        return self.encode()

    SerializePartialToString = SerializeToString  # no required fields: the same bytes

    def ParseFromString(self, data: Any) -> int:  # noqa: N802 - protobuf's name
        """Replace this message's contents with ``data`` decoded; return ``len(data)``.

        Raises:
            DecodeError: as :meth:`decode`; the message is then unchanged.
        """
        self._become(type(self).decode(data))
        return len(memoryview(data).cast("B"))

    def MergeFromString(self, data: Any) -> int:  # noqa: N802 - protobuf's name
        """Merge ``data`` into this message, as protobuf does; return ``len(data)``.

        protobuf's merge is defined by the wire: parsing ``data`` into a
        message is parsing its current encoding followed by ``data``
        (singular fields replaced, sub-messages merged, repeated fields and
        unknown fields appended), and that is how it is done here.

        Raises:
            DecodeError: ``data`` is not a valid encoding; the message is unchanged.
            EncodeError: this message holds a value that cannot be encoded.
        """
        size = len(memoryview(data).cast("B"))
        self._become(type(self).decode(self.encode() + bytes(data)))
        return size

    def MergeFrom(self, other: Any) -> None:  # noqa: N802 - protobuf's name
        """Merge ``other`` (the same message, onnxdata's or onnx's) into this one.

        Raises:
            TypeError: ``other`` is not the same message type.
            EncodeError: either message holds a value that cannot be encoded.
        """
        self.MergeFromString(self._same(other).encode())

    def CopyFrom(self, other: Any) -> None:  # noqa: N802 - protobuf's name
        """Make this message a deep copy of ``other`` (the same message, onnxdata's or onnx's).

        Raises:
            TypeError: ``other`` is not the same message type.
            EncodeError: ``other`` holds a value that cannot be encoded.
        """
        if other is not self:
            self._become(type(self).decode(self._same(other).encode()))

    def Clear(self) -> None:  # noqa: N802 - protobuf's name
        """Unset every field and drop the unknown fields."""
        for f in self._SPEC.fields:
            setattr(self, f.slot, None)
        setattr(self, UNKNOWN_FIELDS, b"")

    def HasField(self, field_name: str) -> bool:  # noqa: N802 - protobuf's name
        """Whether the singular field ``field_name`` is set (not ``None``).

        Raises:
            ValueError: no such field, or it is repeated (protobuf's rule: a
                repeated field has no presence).
        """
        f = self._field(field_name)
        if f.repeated:
            raise ValueError(f"Field onnx.{self._SPEC.name}.{field_name} does not have presence.")
        return getattr(self, f.slot) is not None

    def ClearField(self, field_name: str) -> None:  # noqa: N802 - protobuf's name
        """Unset ``field_name`` (a repeated field becomes empty).

        Raises:
            ValueError: no such field.
        """
        setattr(self, self._field(field_name).slot, None)

    def ListFields(self) -> list[tuple[FieldSpec, Any]]:  # noqa: N802 - protobuf's name
        """The set fields, in field-number order, as ``(field, value)`` pairs.

        As protobuf's: a singular field that is not ``None``, a repeated field
        that is not empty.  The first item is the field's :class:`FieldSpec`
        (``.name``, ``.number``, ``.kind``), where protobuf gives its descriptor.
        """
        listed = []
        for f in self._SPEC.numbered:
            value = getattr(self, f.slot)
            if value is not None and (not f.repeated or len(value)):
                listed.append((f, getattr(self, f.name)))
        return listed

    def ByteSize(self) -> int:  # noqa: N802 - protobuf's name
        """The length of :meth:`encode`'s result.

        Raises:
            EncodeError: a field holds a value that cannot be encoded.
        """
        return len(self.encode())

    def IsInitialized(self) -> bool:  # noqa: N802 - protobuf's name
        """Always true: these messages have no required fields."""
        return True

    def FindInitializationErrors(self) -> list[str]:  # noqa: N802 - protobuf's name
        """Always empty: these messages have no required fields."""
        return []

    def DiscardUnknownFields(self) -> None:  # noqa: N802 - protobuf's name
        """Drop the unknown fields of this message and of every message in it."""
        pending: list[Message] = [self]
        seen: set[int] = set()
        while pending:
            m = pending.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            setattr(m, UNKNOWN_FIELDS, b"")
            for f in m._SPEC.fields:
                if f.kind != "message":
                    continue
                value = getattr(m, f.slot)
                if value is None:
                    continue
                for sub in value if f.repeated else (value,):
                    if isinstance(sub, Message):
                        pending.append(sub)

    def WhichOneof(self, oneof_group: str) -> str | None:  # noqa: N802 - protobuf's name
        """protobuf's oneof query; these messages declare no oneof.

        Raises:
            ValueError: always, as protobuf does for a name that is not a oneof.
        """
        raise ValueError(f'Protocol message {self._SPEC.name} has no "{oneof_group}" field.')

    def __str__(self) -> str:
        """protobuf's text format, as ``str()`` of a protobuf message prints it.

        A message holding a value protobuf could not hold (which ``encode()``
        would refuse) has no text format: ``str()`` then falls back to the
        ``repr``, so printing it in a traceback or a debugger never fails.
        """
        from ..text_format import message_str

        try:
            text: str = message_str(self)
        except (TypeError, ValueError, OverflowError):
            return repr(self)
        return text

    def _field(self, name: str) -> FieldSpec:
        f = self._SPEC.by_name.get(name) if isinstance(name, str) else None
        if f is None:
            raise ValueError(f'Protocol message {self._SPEC.name} has no "{name}" field.')
        return f

    def _same(self, other: Any) -> Message:
        """``other`` as this message's type: onnx's protobuf message is converted."""
        if isinstance(other, self._SPEC.cls):
            mine: Message = other  # type: ignore[assignment, unused-ignore]
            return mine
        from .convert import as_message

        same: Message = as_message(other, self._SPEC.cls)
        return same

    def _become(self, other: Message) -> None:
        """Take every slot of ``other``, a message of the same type, just made."""
        for f in self._SPEC.fields:
            setattr(self, f.slot, getattr(other, f.slot))
        setattr(self, UNKNOWN_FIELDS, getattr(other, UNKNOWN_FIELDS))

    def __eq__(self, other: object) -> bool:
        # Floats compare by their bits, as protobuf's own equality does:
        # a NaN equals the same NaN, 0.0 differs from -0.0.
        if type(other) is not type(self):
            return NotImplemented
        for name, code, repeated in _compared(type(self)):
            a = getattr(self, name)
            b = getattr(other, name)
            if a is b:
                continue
            if repeated and (a is None or b is None):  # a slot never used: empty
                if len(b if a is None else a):
                    return False
                continue
            if code:
                if _bits(a, code) != _bits(b, code):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable, like protobuf messages


_COMPARED: dict[type, tuple[tuple[str, str, bool], ...]] = {}


def _compared(cls: type[Message]) -> tuple[tuple[str, str, bool], ...]:
    """Every slot of ``cls``, with the typecode of a packed field (else ``""``)
    and whether it is a repeated field's: what ``__eq__`` compares, and how
    (packed fields by their bits, a repeated field's unused slot as empty)."""
    found = _COMPARED.get(cls)
    if found is None:
        spec = cls._SPEC
        found = _COMPARED[cls] = (
            *((f.slot, f.typecode or "", f.repeated) for f in spec.fields),
            (UNKNOWN_FIELDS, "", False),
        )
    return found


def _bits(values: Any, code: str) -> bytes | memoryview:
    """The bytes of a float field's values, to compare bit for bit.

    An ``array`` or a ``copy=False`` view of the field's own type is compared
    in place, through a byte view: no copy, however large.
    """
    if isinstance(values, array) and values.typecode == code:
        return values.tobytes() if len(values) < 1024 else memoryview(values).cast("B")
    if type(values) is memoryview and values.format == code and values.c_contiguous:
        return values.cast("B")
    try:
        values = array(code, values)
    except (TypeError, OverflowError):
        return repr(values).encode()  # not floats at all: compare as objects
    bits: bytes = values.tobytes()
    return bits


class ProtoEnum(IntEnum):
    """An enum of the .proto, with protobuf's enum helpers as class methods:
    ``TensorProto.DataType.Name(1) == "FLOAT"``, ``.Value("FLOAT") == 1``,
    ``.keys()``, ``.values()``, ``.items()`` (lists, in declaration order)."""

    @classmethod
    def Name(cls, number: int) -> str:  # noqa: N802 - protobuf's name
        """The name of the value ``number``.

        Raises:
            ValueError: no value has that number (protobuf's error).
        """
        try:
            return cls(number).name
        except (ValueError, TypeError):
            raise ValueError(
                f"Enum {cls.__name__} has no name defined for value {number!r}"
            ) from None

    @classmethod
    def Value(cls, name: str) -> int:  # noqa: N802 - protobuf's name
        """The number of the value called ``name``.

        Raises:
            ValueError: no value has that name (protobuf's error).
        """
        member = cls.__members__.get(name) if isinstance(name, str) else None
        if member is None:
            raise ValueError(f"Enum {cls.__name__} has no value defined for name {name!r}")
        return int(member)

    @classmethod
    def keys(cls) -> list[str]:
        """The names, in declaration order."""
        return list(cls.__members__)

    @classmethod
    def values(cls) -> list[int]:
        """The numbers, in declaration order."""
        return [int(m) for m in cls.__members__.values()]

    @classmethod
    def items(cls) -> list[tuple[str, int]]:
        """``(name, number)`` pairs, in declaration order."""
        return [(name, int(m)) for name, m in cls.__members__.items()]


@message
class StringStringEntryProto(Message):
    """A key/value pair of strings (``external_data``, ``metadata_props``)."""

    key: str | None = field(1, "string", default=None)
    value: str | None = field(2, "string", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class TensorProto(Message):
    """A tensor: ``dims``, ``data_type`` and its values in one storage field."""

    class DataType(ProtoEnum):
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

    class DataLocation(ProtoEnum):
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
    raw_data: bytes | None = field(9, "bytes", default=None, first=True)
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

    class DataType(ProtoEnum):
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

    name: str | None = field(1, "string", default=None, last=True)
    elem_type: int | None = field(2, "int32", default=None)
    tensor_values: MutableSequence[TensorProto] = field(
        3,
        "message",
        message="TensorProto",
        default_factory=REPEATED,
        runs=("dims", "data_type", "raw_data"),  # as from_list writes them
    )
    sparse_tensor_values: MutableSequence[SparseTensorProto] = field(
        4, "message", message="SparseTensorProto", default_factory=REPEATED
    )
    sequence_values: MutableSequence[SequenceProto] = field(
        5, "message", message="SequenceProto", default_factory=REPEATED, runs="tail"
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

    name: str | None = field(1, "string", default=None, last=True)
    key_type: int | None = field(2, "int32", default=None)
    keys: MutableSequence[int] = field(3, "int64", default_factory=REPEATED, runs="varints")
    string_keys: MutableSequence[bytes] = field(4, "bytes", default_factory=REPEATED)
    values: SequenceProto | None = field(5, "message", message="SequenceProto", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class OptionalProto(Message):
    """A value that may be absent."""

    class DataType(ProtoEnum):
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

    name: str | None = field(1, "string", default=None, last=True)
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
        7, "message", message="OptionalProto", default=None, runs="tail"
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
