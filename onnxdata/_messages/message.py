"""What every message shares: the ``Message`` base class and ``ProtoEnum``.

The declarations (``declarations.py``) subclass :class:`Message`; this module
knows none of them, so whatever it needs of a message it reads from the
schema (``cls._SPEC``).  The codec is imported on first use, and ``onnx``'s
messages are converted by ``convert.as_message``, which knows no declaration
either: nothing here imports back up to the declarations.
"""

from __future__ import annotations

import functools
from array import array

from .._core.access import state
from .._core.classes import MessageType
from .._core.descriptors import message_descriptor
from .._core.enums import ProtoEnum
from .._core.mapped import LIVE, check_value
from .._core.repeated import RepeatedScalars
from .._core.schema import UNKNOWN_FIELDS
from .._core.unset import forget_readers
from .._core.walk import message_children, walk

__all__ = ["Message", "ProtoEnum"]

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, ClassVar

    from typing_extensions import Self

    from .._core.schema import FieldSpec, MessageSpec

# The codec is imported on first use, so that ``import onnxdata`` stays small;
# then these names are rebound to it, and a call costs no import statement
# (a large part of a small message's decode).


def _load_decoder(cls: Any, data: Any, copy: bool, max_size: int | None) -> Any:
    """Import the decoder, put it in this function's place, and decode.

    What it saves (CPython 3.11, best of 12 fresh processes, CPU time): importing
    the codec with this module would add 2.8 ms to the 4.0 ms ``import
    onnxdata`` (2.2 ms with the code cache cold); an import statement in every
    call instead would add 0.7 microseconds to each decode (a small
    TensorProto decodes in 1.25).  :func:`_load_encoder` does the same for the encoder.
    """
    global _decode_message
    from .._codec.decode import decode_message

    _decode_message = decode_message
    return decode_message(cls, data, copy, max_size)


def _load_encoder(message: Any, max_size: int | None) -> bytes:
    """Import the encoder, put it in this function's place, and encode."""
    global _encode_message
    from .._codec.encode import encode_message

    _encode_message = encode_message
    return encode_message(message, max_size)


_decode_message: Callable[[Any, Any, bool, int | None], Any] = _load_decoder
_encode_message: Callable[[Any, int | None], bytes] = _load_encoder


class _DescriptorAttribute:
    """``Message.DESCRIPTOR``: the class's protobuf-style descriptor, read from the
    class or an instance; read-only, as protobuf's.  Each descriptor is built on
    the first read (``_core/descriptors.py``); the module itself is imported
    with this one (importing it on the first read instead saved 0.2 ms of
    ``import onnxdata``, and its import statement made every read 8 times
    slower: 2.0 microseconds instead of 0.26).

    Raises:
        AttributeError: on assignment or deletion; on ``Message`` itself.
    """

    __slots__ = ()

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        return message_descriptor(type(instance) if owner is None else owner)

    def __set__(self, instance: object, value: object) -> None:
        raise AttributeError("'DESCRIPTOR' of a message is read-only")

    def __delete__(self, instance: object) -> None:
        raise AttributeError("'DESCRIPTOR' of a message is read-only")


def _print_repr(message: Message, printer: Any, cycle: bool) -> None:
    printer.text(repr(message))


class _PrettyRepr:
    """``_repr_pretty_``: IPython's and hypothesis' pretty printers print the ``repr``.

    Their own walk of a dataclass reads every field by name, and an unset
    sub-message reads as a stand-in: for a message that holds its own type
    (``GraphProto`` through ``AttributeProto.g``) the walk would never end.

    Read on a class it is ``None``: hypothesis' printer looks the method up on
    the object it prints, so a message *class* (drawn by ``sampled_from``, an
    argument of a stateful rule) would have its function called unbound and
    raise ``TypeError``, losing the falsifying example it was printing.
    """

    def __get__(self, message: Message | None, owner: type | None = None) -> Any:
        if message is None:
            return None
        return functools.partial(_print_repr, message)


class Message(metaclass=MessageType):
    """What every message shares: decoding, encoding and bitwise equality.

    Fields read and write as in protobuf's generated classes: an unset field
    reads as its default, presence is ``HasField``'s (see ``_core/classes.py``).
    """

    __slots__ = ()
    _SPEC: ClassVar[MessageSpec]  # the schema of the message (see _core/schema.py)
    # protobuf's descriptor of the class, made from the schema on first read
    # (``_core/descriptors.py``); read-only, on the class and its instances.
    DESCRIPTOR: ClassVar[Any] = _DescriptorAttribute()
    # The methods that write into a message: on a stand-in for an unset
    # sub-message (``_core/unset.py``) each first sets it in its parent.
    _MUTATORS: ClassVar[tuple[str, ...]] = (
        "Clear",
        "ClearField",
        "CopyFrom",
        "DiscardUnknownFields",
        "MergeFrom",
        "MergeFromString",
        "ParseFromString",
        "SetInParent",
    )

    @classmethod
    def decode(cls, data: Any, *, copy: bool = True, max_size: int | None = None) -> Self:
        """Decode ``data`` (bytes, bytearray, memoryview, mmap, any buffer) into a new message.

        With ``copy=False`` the bulk is not copied: ``raw_data``,
        ``float_data`` and ``double_data`` become read-only ``memoryview``
        slices of ``data`` (float/double cast to ``'f'``/``'d'``; copies on
        big-endian hosts).  Every other ``bytes`` field (``AttributeProto.s``,
        ``string_data``...) is ``bytes`` in both modes, as onnx's is.
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
            MappedFileError: (an ``OSError``) a value is a view of a file
                loaded with ``mmap=True`` that has shrunk since.
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

        A short write is followed by another for the rest.  Nothing is
        reported written that ``file`` did not take: a non-blocking file that
        is full (``write`` returns ``None``) raises ``BlockingIOError``.

        Raises:
            TypeError, ValueError, OverflowError: as :meth:`encode`, before
                anything is written.
            BlockingIOError: ``file`` is non-blocking and full;
                ``characters_written`` is the number of bytes it took.
            OSError: from ``file.write``, or ``write`` returned 0, a negative
                count or more than it was given.
            TypeError: ``write`` returned something other than ``None`` or an integer.
            RuntimeError: the message changed while it was written.
            MappedFileError: (an ``OSError``) as :meth:`encode`.
        """
        from .._codec.stream import encode_to

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
        forget_readers(self)  # as protobuf: it clears the message first
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
        """Unset every field and drop the unknown fields.

        A sub-message read from an unset field before, and written after,
        no longer sets it (protobuf's rule).
        """
        for f in self._SPEC.fields:
            f.put(self, None)
        setattr(self, UNKNOWN_FIELDS, b"")
        forget_readers(self)

    def SetInParent(self) -> None:  # noqa: N802 - protobuf's name
        """Set this (empty) sub-message in its parent, as protobuf does.

        Only a stand-in for an unset sub-message (``t.segment`` while
        ``segment`` is unset) has a parent to be set in; on any other message
        this does nothing.
        """

    def HasField(self, field_name: str) -> bool:  # noqa: N802 - protobuf's name
        """Whether the singular field ``field_name`` is set (or a member of the oneof of that name).

        Raises:
            ValueError: no such field, or it is repeated (protobuf's rule: a
                repeated field has no presence).
        """
        if field_name in self._SPEC.oneofs:  # a oneof: whether any member is set
            return self.WhichOneof(field_name) is not None
        f = self._field(field_name)
        if f.repeated:
            raise ValueError(f"Field onnx.{self._SPEC.name}.{field_name} does not have presence.")
        return f.held(self) is not None

    def ClearField(self, field_name: str) -> None:  # noqa: N802 - protobuf's name
        """Unset ``field_name`` (a repeated field becomes empty; a oneof, its member).

        A sub-message read from it while unset, and written after, no
        longer sets it (protobuf's rule).

        Raises:
            ValueError: no such field.
        """
        members = self._SPEC.oneofs.get(field_name) if isinstance(field_name, str) else None
        for f in members or (self._field(field_name),):  # a oneof: every member
            f.put(self, None)
            forget_readers(self, f)

    def ListFields(self) -> list[tuple[FieldSpec, Any]]:  # noqa: N802 - protobuf's name
        """The set fields, in field-number order, as ``(field, value)`` pairs.

        As protobuf's: a singular field that is set (to any value, its default
        included), a repeated field that is not empty.  The first item is the
        field's :class:`FieldSpec` (``.name``, ``.number``, ``.kind``), where
        protobuf gives its descriptor.
        """
        listed = []
        spec = self._SPEC
        for f, value in zip(spec.numbered, spec.held_numbered(self)):  # noqa: B905 - see held_numbered
            if value is not None and (not f.repeated or len(value)):
                listed.append((f, getattr(self, f.name)))
        return listed

    def ByteSize(self) -> int:  # noqa: N802 - protobuf's name
        """The length of :meth:`encode`'s result, measured without encoding
        (a payload of gigabytes is not copied to be counted).

        Raises:
            EncodeError: a field holds a value that cannot be encoded.
            MappedFileError: (an ``OSError``) as :meth:`encode`.
        """
        from .._codec.stream import measure

        return measure(self)

    def IsInitialized(self) -> bool:  # noqa: N802 - protobuf's name
        """Always true: these messages have no required fields."""
        return True

    def FindInitializationErrors(self) -> list[str]:  # noqa: N802 - protobuf's name
        """Always empty: these messages have no required fields."""
        return []

    def DiscardUnknownFields(self) -> None:  # noqa: N802 - protobuf's name
        """Drop the unknown fields of this message and of every message in it
        (each once, by the package's one walk: a message that holds itself
        is dropped from once, and the walk ends)."""
        for step in walk([("", self, None)], message_children, _shared):
            setattr(step.obj, UNKNOWN_FIELDS, b"")

    def WhichOneof(self, oneof_group: str) -> str | None:  # noqa: N802 - protobuf's name
        """The name of the member of the oneof ``oneof_group`` that is set, or ``None``.

        Raises:
            ValueError: ``oneof_group`` is not a oneof of this message (a
                field's name included), in protobuf's words.
        """
        members = self._SPEC.oneofs.get(oneof_group) if isinstance(oneof_group, str) else None
        if members is None:
            if oneof_group in self._SPEC.by_name:
                raise ValueError(f"Expected a oneof name, but got field name {oneof_group}.")
            raise ValueError(f'Protocol message {self._SPEC.name} has no "{oneof_group}" field.')
        for f in members:
            if f.held(self) is not None:
                return f.name
        return None

    def __str__(self) -> str:
        """protobuf's text format, as ``str()`` of a protobuf message prints it.

        A message holding a value protobuf could not hold (which ``encode()``
        would refuse) has no text format: ``str()`` then falls back to the
        ``repr``, so printing it in a traceback or a debugger never fails.
        """
        from .._text.upb_printer import upb_text

        try:
            text: str = upb_text(self)
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
            f.put(self, f.held(other))
        setattr(self, UNKNOWN_FIELDS, getattr(other, UNKNOWN_FIELDS))

    _repr_pretty_ = _PrettyRepr()

    def __getstate__(self) -> dict[str, Any]:
        """Every slot's value, views of a buffer (``decode(copy=False)``, a
        mapped model) made values of their own: a copy or a pickle must not
        depend on, or fail for, the buffer it was read from.

        ``copy.deepcopy`` and ``pickle`` go through it (and ``__setstate__``).
        """
        return state(self, _owned)

    def __setstate__(self, state: dict[str, Any]) -> None:
        for slot, value in state.items():
            setattr(self, slot, value)

    def __eq__(self, other: object) -> bool:
        """Field by field, floats by their bits (as protobuf's own equality: a NaN
        equals the same NaN, 0.0 differs from -0.0), sub-messages without
        recursion: a pair of messages is compared once, however many places
        share it, and a pair met again inside itself (two messages that hold
        themselves) is taken as equal so far, so the comparison ends, in time
        linear in the pairs compared."""
        if type(other) is not type(self) and getattr(other, "_SPEC", None) is not self._SPEC:
            return NotImplemented  # a stand-in and a message of its class compare as messages
        pending: list[tuple[Any, Any]] = []
        if not _fields_equal(self, other, pending):
            return False
        compared = {(id(self), id(other))}  # the pairs' messages stay in the trees meanwhile
        while pending:
            a, b = pending.pop()
            if a is b:
                continue
            cls = type(a)
            if cls is not type(b) or cls not in _COMPARED:
                spec = getattr(a, "_SPEC", None)
                if spec is None or getattr(b, "_SPEC", None) is not spec:
                    if a != b:  # not two messages of one type: compared as they are
                        return False
                    continue
            key = (id(a), id(b))
            if key not in compared:
                compared.add(key)
                if not _fields_equal(a, b, pending):
                    return False
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable, like protobuf messages


_COMPARED: dict[type, tuple[tuple[str, bool, bool], ...]] = {}
_FLOAT_CODES = {"float": "f", "double": "d"}


def _shared(where: Any, first: Any) -> None:
    """A message met inside itself: already walked, nothing more to do."""


def _owned(value: Any) -> Any:
    """``value``, with a view of a buffer copied out: into ``bytes``, or an
    array of its item type (a float field's view); a list's views too.

    Raises:
        MappedFileError: a view of a mapped file that shrank (``mmap=True``).
    """
    if LIVE:
        check_value(value)
    if type(value) is memoryview:
        if value.format == "B":
            return value.tobytes()
        return RepeatedScalars(value.format, value.tobytes())
    if type(value) is list and any(type(v) is memoryview for v in value):
        return [v.tobytes() if type(v) is memoryview else v for v in value]
    return value


def _compared(cls: type[Message]) -> tuple[tuple[str, bool, bool], ...]:
    """For every value ``MessageSpec.held_numbered`` gives of a ``cls``
    message (each field as held, in number order, then the unknown fields):
    the typecode of a float field (else ``""``), whether it is a repeated
    field's and whether a message field's: what ``__eq__`` compares, and how
    (float fields by their bits, singular ones too, a repeated field's
    unused slot as empty, messages pair by pair)."""
    found = _COMPARED.get(cls)
    if found is None:
        spec = cls._SPEC
        found = _COMPARED[cls] = (
            *(
                (
                    f.typecode or _FLOAT_CODES.get(f.kind, ""),
                    f.repeated,
                    f.kind == "message",
                )
                for f in spec.numbered
            ),
            ("", False, False),
        )
    return found


def _fields_equal(x: Any, y: Any, pending: list[tuple[Any, Any]]) -> bool:
    """Whether the fields of ``x`` and ``y`` (messages of one class) are equal,
    sub-messages left out: their pairs are added to ``pending``.

    Raises:
        MappedFileError: a view of a mapped file that shrank (``mmap=True``),
            checked before it is read: an error, not SIGBUS.
    """
    mapped = bool(LIVE)  # a file is mapped: views are checked before they are read
    held = x._SPEC.held_numbered
    for (code, repeated, message), a, b in zip(_compared(type(x)), held(x), held(y)):  # noqa: B905
        if a is b:
            continue
        if mapped:
            check_value(a)
            check_value(b)
        if repeated and (a is None or b is None):  # a slot never used: empty
            if len(b if a is None else a):
                return False
            continue
        if message:
            if not _messages_equal(a, b, repeated, pending):
                return False
        elif code:
            if not repeated:  # a singular float: unset (None) is no value at all
                a = () if a is None else (a,)
                b = () if b is None else (b,)
            if _bits(a, code) != _bits(b, code):
                return False
        elif a != b:
            return False
    return True


def _messages_equal(a: Any, b: Any, repeated: bool, pending: list[tuple[Any, Any]]) -> bool:
    """A message field's values: equal so far (their pairs added to ``pending``),
    or not; a repeated value that is no list compares as it would."""
    if not repeated:
        pending.append((a, b))
        return True
    if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
        return bool(a == b)
    if len(a) != len(b):
        return False
    pending.extend(zip(a, b, strict=True))
    return True


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
