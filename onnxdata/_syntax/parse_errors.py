"""The parser's errors, and where in the text they are, as onnx's C++ parser says it.

onnx's parser reports ``[ParseError at position (line: L column: C)]``, the line
of text before the error, and what it expected; the line and the column count
UTF-8 bytes, because the C++ parser reads the text's bytes.  Its error text is
``bytes`` (the first argument of onnx's ``ParseError``), and so is ours.
"""

from __future__ import annotations

__all__ = ["FatalError", "ParseError", "StatusError", "located"]

_SPACES = b" \t\n\v\f\r"
_SPACE = frozenset(_SPACES)


class ParseError(Exception):
    """The text is not in ONNX's textual syntax (``onnx.parser.ParseError``).

    ``args[0]`` is onnx's message, as ``bytes`` (as onnx gives it): the line and
    column, the line of text before the error, and what was expected.  The
    position is also in ``line``, ``column`` (both from 1, in UTF-8 bytes, as
    onnx counts them) and ``offset`` (the byte offset in the UTF-8 text).
    """

    def __init__(self, message: bytes, line: int = 0, column: int = 0, offset: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.offset = offset


class StatusError(Exception):
    """A parse failure as onnx's parser returns it (a ``Status``): one call site
    of onnx's ignores it (a function's attribute defaults), so it is told apart
    from :class:`FatalError`.  ``pos`` is the index in the text where it happened."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message


class FatalError(StatusError):
    """A failure that onnx's parser throws as a C++ exception (an integer out of
    range, a float that overflows): nothing in the parser ignores it.  onnx lets
    it escape as ``IndexError``, ``ValueError`` or ``RuntimeError``; onnxdata
    raises :class:`ParseError` for it too."""


def located(text: str, pos: int, message: str) -> ParseError:
    """The :class:`ParseError` of ``message`` at index ``pos`` of ``text``, with
    onnx's position and context (computed from the UTF-8 bytes, as onnx does)."""
    data = text.encode("utf-8")
    offset = len(text[:pos].encode("utf-8")) if pos < len(text) else len(data)
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    head = b"[ParseError at position (line: %d column: %d)]\nError context: " % (line, column)
    return ParseError(
        head + _context(data, offset) + b"\n" + message.encode("utf-8"), line, column, offset
    )


def _context(data: bytes, offset: int) -> bytes:
    """The line holding the last non-space character before ``offset`` (onnx's
    ``GetErrorContext``)."""
    if not data:
        return b""
    p = offset if offset < len(data) else len(data) - 1
    # Back over whitespace, then back to the line's start: C++'s two loops, run by
    # the bytes methods (a loop in Python would take seconds on a long line).
    p = len(data[: p + 1].rstrip(_SPACES)) - 1 if data[p] in _SPACE else p
    p = max(p, 0)
    if data[p] != 0x0A:
        p = max(data.rfind(b"\n", 0, p), 0)
    start = p + 1 if p > 0 else 0
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else len(data)]
