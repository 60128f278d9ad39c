"""The package's errors, each saying where it happened: one class per kind of failure.

- :class:`DecodeError`: the one error decoding raises.  Every malformed input ends in
  it; the decoder never lets an ``IndexError``, ``struct.error`` or ``RecursionError``
  escape.  It knows the byte offset and the field path, so a user looking at a damaged
  file learns *where* it broke, not just that it did.
- :class:`EncodeError` and its three concrete kinds (:class:`EncodeTypeError`,
  :class:`EncodeValueError`, :class:`EncodeOverflowError`, each also the builtin
  protobuf raises): a value ``encode()`` refuses, with the field path.
- :class:`ValidationError`: a broken ONNX rule, or a refused external-data location.
- :class:`MappedFileError`: a mapped file that shrank, found before it is read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable


class DecodeError(ValueError):
    """The bytes are not a valid encoding of the message asked for.

    Attributes:
        reason: what was wrong, with the counts that show it.
        offset: the byte offset in the input where decoding failed.
        path: the field path, e.g. ``SequenceProto.tensor_values[3].dims``.
    """

    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset
        # Filled innermost-first while the error climbs out of nested messages.
        self.parts: list[str] = []

    @property
    def path(self) -> str:
        return ".".join(reversed(self.parts))

    def within(self, part: str) -> None:
        """Record that the error happened inside ``part`` (a field or a type name)."""
        self.parts.append(part)

    def __str__(self) -> str:
        path = self.path
        return f"{path}: {self.reason}" if path else self.reason

    def __reduce__(self) -> tuple[object, ...]:
        # Keep the path across pickling (multiprocessing, pytest-xdist).
        return (_rebuild, (self.reason, self.offset, list(self.parts)))


def _rebuild(reason: str, offset: int, parts: list[str]) -> DecodeError:
    err = DecodeError(reason, offset)
    err.parts = parts
    return err


class EncodeError(Exception):
    """Base of what ``encode()`` raises for a bad value; ``path`` names the field.

    Each concrete error is also the builtin protobuf raises for the same value
    (``TypeError``, ``ValueError`` or ``OverflowError``), so code written
    against protobuf catches it unchanged.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.parts: list[str] = []

    def within(self, part: str) -> None:
        self.parts.append(part)

    @property
    def path(self) -> str:
        return ".".join(reversed(self.parts))

    def __str__(self) -> str:
        path = self.path
        return f"{path}: {self.reason}" if path else self.reason


class EncodeTypeError(EncodeError, TypeError):
    """A field holds a value of the wrong type."""


class EncodeValueError(EncodeError, ValueError):
    """A field's value is out of range or not allowed."""


class EncodeOverflowError(EncodeError, OverflowError):
    """A number too large for the field's type (an int too large for a float)."""


class ValidationError(ValueError):
    """A message breaks an ONNX rule the checker enforces, or an external-data
    location is refused (absolute, outside the base directory, a symbolic link).

    onnx's ``onnx.checker.ValidationError`` is raised in the same places; this
    one is also a ``ValueError``, so code that catches either keeps working.

    Attributes:
        violations: the broken rules, when the error comes from a check
            (empty otherwise).
        path: the field path of the message that broke the rule, when the
            error comes from ``checker.check_model`` and its kin
            (``"ModelProto.graph.node[3]"``); ``""`` otherwise.  The message
            text stays onnx's.
    """

    def __init__(self, message: str, violations: Iterable[object] = (), path: str = "") -> None:
        super().__init__(message)
        self.violations = list(violations)
        self.path = path


class MappedFileError(OSError):
    """A file loaded with ``mmap=True`` shrank under its mapping, or would be
    written in place.

    Raised by the package's own readers of a mapped model (encoding, saving,
    ``to_array``, ``==``, the text format, JSON, copies) before they touch the
    mapping: reading past the file's new end would kill the process with
    ``SIGBUS``.  Raised too by a stream into a file object (``encode_to``,
    ``save_model(m, f)``, ``SequenceWriter``) that is a mapped file not opened
    to append, before a byte is written: the mapped bytes would be overwritten
    while they are read.  ``filename`` is the file.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "a mapped file shrank"
