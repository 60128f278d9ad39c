"""The serialization formats of messages, by name: ``onnx.serialization`` for onnxdata.

``registry.get("protobuf")`` (the wire format), ``"textproto"`` (protobuf's
text format) and ``"json"`` (protobuf's JSON mapping, with the ``.proto``
field names) each give a serializer with ``serialize_proto(message) ->
bytes`` and ``deserialize_proto(data, message) -> message``;
``registry.get_format_from_file_extension(".pb")`` maps a file extension to
its format.  ``load_model``/``save_model`` and ``load_tensor``/``save_tensor``
choose their format here.

Every message of ``onnx-ml.proto`` is serialized (models, graphs, nodes,
types, the data messages and their nested messages); a message of the
``onnx`` package is taken through its bytes, and ``deserialize_proto``
fills one in place as onnx does.  What differs from onnx:

* ``"onnxtxt"`` (onnx's textual syntax, ``.onnxtxt``/``.onnxtext``) reads
  models, graphs, functions and nodes with ``onnxdata.parser``, warning as
  onnx warns that the format is experimental; it returns the message parsed
  and leaves ``proto`` as it was, as onnx does.  Writing it needs the
  printer (``onnxdata.printer``), not part of this build yet.
* ``deserialize_proto`` of the protobuf format also takes a ``bytearray`` or
  a ``memoryview``, not only ``bytes``.
"""

from __future__ import annotations

import warnings
from typing import Any, Protocol

from .._core.errors import EncodeValueError
from .._core.foreign import foreign_name
from .._core.schema import UNKNOWN_FIELDS, spec_of
from .._messages.declarations import Message
from .message_args import any_message, by_full_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Collection

__all__ = ["MAX_PROTOBUF", "TOO_LARGE", "ProtoSerializer", "raise_if_too_large", "registry"]

_ENCODING = "utf-8"
MAX_PROTOBUF = 2**31 - 1
"""The largest encoding protobuf parses (a signed 32-bit size); onnx refuses
to write a larger model."""
TOO_LARGE = (
    "The proto size is larger than the 2 GB limit. "
    "Please use save_as_external_data to save tensors separately from the model file."
)
"""onnx's error for a model too large for one protobuf file."""


class ProtoSerializer(Protocol):
    """A format: turns a message into bytes and bytes back into a message."""

    supported_format: str
    """The format's name, e.g. ``"protobuf"``."""
    file_extensions: Collection[str]
    """The file extensions of the format, with their dot: ``{".onnx", ".pb"}``."""

    def serialize_proto(self, proto: Any) -> Any:
        """The serialized form of ``proto``."""

    def deserialize_proto(self, serialized: Any, proto: Any) -> Any:
        """Fill ``proto`` from ``serialized`` and return it."""


class _Registry:
    def __init__(self) -> None:
        self._serializers: dict[str, ProtoSerializer] = {}
        self._extension_to_format: dict[str, str] = {}

    def register(self, serializer: ProtoSerializer) -> None:
        """Add a format (replacing one of the same name) and its file extensions."""
        self._serializers[serializer.supported_format] = serializer
        self._extension_to_format.update(
            dict.fromkeys(serializer.file_extensions, serializer.supported_format)
        )

    def get(self, fmt: str) -> ProtoSerializer:
        """The serializer of format ``fmt``.

        Raises:
            ValueError: no format of that name is registered.
        """
        try:
            return self._serializers[fmt]
        except (KeyError, TypeError):
            raise ValueError(
                f"Unsupported format: '{fmt}'. Supported formats are: {self._serializers.keys()}"
            ) from None

    def get_format_from_file_extension(self, file_extension: str) -> str | None:
        """The format of files ending in ``file_extension`` (with its dot), or None."""
        return self._extension_to_format.get(file_extension)


def _message(proto: Any) -> Message:
    """``proto`` as an onnxdata message (a protobuf one is converted).

    Raises:
        TypeError: ``proto`` is not an ONNX message.
    """
    return any_message(proto)


def raise_if_too_large(message: Message) -> None:
    """Raise onnx's error if ``message`` encodes to more than protobuf reads.

    The size is measured by streaming the encoding into nothing: large
    payloads are handed over as they are, never read or copied.

    Raises:
        ValueError: the encoding is over :data:`MAX_PROTOBUF` bytes.
    """
    if message.encode_to(_Nowhere()) > MAX_PROTOBUF:
        raise ValueError(TOO_LARGE)


class _Nowhere:
    """A file that drops what is written: :func:`_encodable` needs no bytes."""

    def write(self, data: Any) -> int:
        return len(data)


def _encodable(message: Message) -> Message:
    """``message``, after checking that protobuf could hold it: a text format of a
    value the wire format refuses (a ``str`` in ``dims``) would not read back.

    Raises:
        TypeError, ValueError, OverflowError: as ``encode()``.
    """
    message.encode_to(_Nowhere())
    return message


def _fill(target: Any, source: Message) -> Any:
    """Make ``target`` (an empty-or-not message of ``source``'s type, onnxdata's or
    protobuf's) hold exactly what ``source`` holds, in place, and return it."""
    if foreign_name(target) is not None:
        target.ParseFromString(source.encode())
        return target
    for f in spec_of(type(source)).fields:
        # The slots, not the properties: an unset field stays unset (reading it
        # by name would give its default, and writing that would set it).
        f.put(target, f.held(source))
    setattr(target, UNKNOWN_FIELDS, getattr(source, UNKNOWN_FIELDS))
    return target


def _class_of(proto: Any) -> type[Message]:
    """The onnxdata class for the message ``proto`` (onnxdata's or protobuf's).

    Raises:
        TypeError: ``proto`` is not an ONNX message.
    """
    if isinstance(proto, Message):
        return type(proto)
    found = by_full_name().get(foreign_name(proto) or "")
    if found is None:
        _message(proto)  # raises the TypeError that names what was expected
    assert found is not None
    return found


def _text(serialized: Any) -> str:
    if isinstance(serialized, str):
        return serialized
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        return bytes(serialized).decode(_ENCODING)
    raise TypeError(
        f"Parameter 'serialized' must be bytes or str, but got type: {type(serialized)}"
    )


class _ProtobufSerializer:
    """The protobuf wire format."""

    supported_format = "protobuf"
    file_extensions: Collection[str] = frozenset({".onnx", ".pb"})

    def serialize_proto(self, proto: Any) -> bytes:
        """The wire encoding of ``proto``, as ``SerializeToString`` gives it.

        Raises:
            TypeError: ``proto`` is not an ONNX message, or holds a value of
                the wrong type.
            ValueError: a value is out of range; the encoding is over 2 GiB,
                which protobuf cannot read (onnx's message, which points to
                ``save_as_external_data``).
        """
        message = _message(proto)
        try:
            return message.encode(max_size=MAX_PROTOBUF)
        except EncodeValueError:
            raise_if_too_large(message)
            raise

    def deserialize_proto(self, serialized: Any, proto: Any) -> Any:
        """Replace the contents of ``proto`` by the message encoded in ``serialized``.

        Raises:
            TypeError: ``serialized`` is not bytes-like, or ``proto`` is not
                an ONNX message.
            DecodeError: (a ``ValueError``) the bytes are not a valid encoding.
        """
        if not isinstance(serialized, (bytes, bytearray, memoryview)):
            raise TypeError(
                f"Parameter 'serialized' must be bytes, but got type: {type(serialized)}"
            )
        return _fill(proto, _class_of(proto).decode(serialized))


class _TextProtoSerializer:
    """Protobuf's text format (``str()`` of a protobuf message)."""

    supported_format = "textproto"
    file_extensions: Collection[str] = frozenset({".txtpb", ".textproto", ".prototxt", ".pbtxt"})

    def serialize_proto(self, proto: Any) -> bytes:
        """The text format of ``proto``, in UTF-8.

        Raises:
            TypeError: ``proto`` is not an ONNX message, or holds a value of
                the wrong type.
            ValueError: a value is out of range.
        """
        message = _encodable(_message(proto))
        from .._text.text_printer import to_text

        return to_text(message).encode(_ENCODING)

    def deserialize_proto(self, serialized: Any, proto: Any) -> Any:
        """Replace the contents of ``proto`` by the message in ``serialized`` (text format).

        Raises:
            TypeError: ``serialized`` is neither bytes nor str, or ``proto``
                is not an ONNX message.
            UnicodeDecodeError: the bytes are not UTF-8.
            text_format.ParseError: the text is not a valid message.
        """
        text = _text(serialized)
        cls = _class_of(proto)
        from .._text.text_parser import parse

        return _fill(proto, parse(text, cls()))


class _JsonSerializer:
    """Protobuf's JSON mapping, with the ``.proto`` field names."""

    supported_format = "json"
    file_extensions: Collection[str] = frozenset({".json", ".onnxjson"})

    def serialize_proto(self, proto: Any) -> bytes:
        """The JSON of ``proto``, in UTF-8, as onnx writes it.

        Raises:
            TypeError: ``proto`` is not an ONNX message, or holds a value of
                the wrong type.
            ValueError: a value is out of range.
        """
        message = _encodable(_message(proto))
        from .._text.json_writer import Printer, to_json

        obj = Printer(preserving_proto_field_name=True).message(message, 0)
        return to_json(obj, indent=2, sort_keys=False, ensure_ascii=True).encode(_ENCODING)

    def deserialize_proto(self, serialized: Any, proto: Any) -> Any:
        """Replace the contents of ``proto`` by the message in ``serialized`` (JSON).

        Raises:
            TypeError: ``serialized`` is neither bytes nor str, or ``proto``
                is not an ONNX message.
            UnicodeDecodeError: the bytes are not UTF-8.
            json_format.ParseError: the JSON is not a valid message.
        """
        text = _text(serialized)
        cls = _class_of(proto)
        from .._text.json_reader import load, parse_dict

        return _fill(proto, parse_dict(load(text), cls(), False, 100))


class _TextualSerializer:
    """onnx's textual syntax (``onnx.parser``/``onnx.printer``), for models,
    graphs, functions and nodes."""

    supported_format = "onnxtxt"
    file_extensions: Collection[str] = frozenset({".onnxtxt", ".onnxtext"})

    def serialize_proto(self, proto: Any) -> bytes:
        """``proto`` in the textual syntax, in UTF-8, as ``onnxdata.printer.to_text``
        writes it.

        Raises:
            TypeError: ``proto`` is not a model, graph, function or node (onnx's
                ``Unsupported argument type.``).
            PrinterError: (a ``ValueError``) a tensor that cannot be printed.
            UnicodeDecodeError: a string field that is not UTF-8.
            EncodeValueError: a message that holds itself.
        """
        from .._syntax.print_text import to_text as syntax_text

        return syntax_text(proto).encode(_ENCODING)

    def deserialize_proto(self, serialized: Any, proto: Any) -> Any:
        """The message of ``proto``'s type that the text ``serialized`` holds
        (``proto`` itself is left as it was, as onnx leaves it).

        Raises:
            TypeError: ``serialized`` is neither bytes nor str.
            UnicodeDecodeError: the bytes are not UTF-8.
            ValueError: ``proto`` is not a model, graph, function or node
                (onnx's ``Unsupported proto type``).
            onnxdata.parser.ParseError: the text is not in the syntax.
        """
        warnings.warn(
            "The onnxtxt format is experimental. "
            "Please report any errors to the ONNX GitHub repository.",
            stacklevel=2,
        )
        text = _text(serialized)
        from .._messages.graphs import FunctionProto, GraphProto, ModelProto, NodeProto
        from .._syntax.parse_models import parse_text

        cls = by_full_name().get(foreign_name(proto) or "") or type(proto)
        if cls not in (ModelProto, GraphProto, FunctionProto, NodeProto):
            raise ValueError(f"Unsupported proto type: {type(proto)}")
        return parse_text(text, cls)


registry = _Registry()
"""The formats: ``"protobuf"``, ``"textproto"``, ``"json"`` and ``"onnxtxt"``."""
registry.register(_ProtobufSerializer())
registry.register(_TextProtoSerializer())
registry.register(_JsonSerializer())
registry.register(_TextualSerializer())
