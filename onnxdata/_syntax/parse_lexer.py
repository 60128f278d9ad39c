"""The parser's reader of text: whitespace and comments, identifiers, literals.

It follows onnx's ``ParserBase`` (onnx/defs/parser.h and parser.cc) step by
step, so that every text reads as onnx reads it and fails where onnx fails:
whitespace is ASCII's six characters, ``#`` starts a comment to the end of the
line, identifiers are ASCII ``[A-Za-z_][A-Za-z0-9_]*``, a string literal ends
at the first unescaped ``"`` and a backslash keeps the character after it
(``\\n`` is ``n``), numbers have no sign but ``-``, no hexadecimal, and the
floats ``inf``, ``infinity`` and ``nan`` are spelled in any case.

The text is a ``str`` read by index; onnx reads UTF-8 bytes, which gives the
same tokens because every character the syntax names is ASCII.  Positions in
errors are converted to onnx's byte counts only when an error is made.
"""

from __future__ import annotations

import re
from typing import Any

from .parse_errors import FatalError, StatusError
from .parse_numbers import to_double, to_float, to_int64, to_uint64

__all__ = ["FLOAT", "INT", "MAX_DEPTH", "STRING", "UNDEFINED", "Lexer"]

UNDEFINED, INT, FLOAT, STRING = 0, 1, 2, 3
"""The kinds of literal (onnx's ``LiteralType``)."""

MAX_DEPTH = 100
"""How deep messages may nest in what is parsed: protobuf's limit (upb's, and
onnxdata's decoder's), 101 levels counted from 0.  onnx's C++ parser has no
bound (a deep enough text overflows its stack), and its Python side then fails
to read the result past this depth; here the parser refuses on the way down, so
its own stack stays shallow."""

_SPACE = r"[ \t\n\v\f\r]*(?:#[^\n]*[ \t\n\v\f\r]*)*"
_WS = re.compile(_SPACE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_NUMBER = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]*)?")
_ALPHAS = re.compile(r"[A-Za-z]*")
_FLOAT_WORDS = frozenset({"inf", "infinity", "nan"})
_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT = frozenset("0123456789")


class Lexer:
    """A position in a text, and the reading steps of onnx's ``ParserBase``.

    Every method that fails raises :class:`StatusError` (or :class:`FatalError`) with the
    position onnx would report; nothing else escapes.
    """

    __slots__ = ("deepest", "depth", "memo", "pos", "text")

    def __init__(self, text: str, depth: int = 0) -> None:
        self.text = text
        self.pos = 0
        self.depth = depth
        """How deep the message being read is (0: the message parsed)."""
        self.deepest = depth
        """The deepest message reached through nesting (what is below it, tensor
        types and attributes' values, is a few levels more)."""
        self.memo: dict[str, Any] = {}
        """What the fast path remembers of the text it read (``parse_fast.py``)."""

    # -- errors ---------------------------------------------------------------

    def fault(self, message: str) -> StatusError:
        """onnx's ``ParseError(message)`` at the current position."""
        return StatusError(self.pos, message)

    def fatal(self, message: str) -> FatalError:
        """An error onnx throws (a failed number conversion), at the current position."""
        return FatalError(self.pos, message)

    def enter(self, levels: int) -> None:
        """``levels`` messages deeper (a graph in an attribute: node, attribute,
        graph; a type in a type: the kind's message and the inner type).

        Raises:
            FatalError: deeper than :data:`MAX_DEPTH`.
        """
        depth = self.depth = self.depth + levels
        if depth > self.deepest:
            self.deepest = depth
            if depth > MAX_DEPTH:
                raise self.fatal(
                    f"Nested deeper than {MAX_DEPTH} messages, which protobuf cannot read."
                )

    # -- characters -------------------------------------------------------------

    def skip(self) -> int:
        """Skip whitespace and comments (``SkipWhiteSpace``); the new position."""
        pos = self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]
        return pos

    def next_char(self) -> str:
        """The next character after whitespace, or ``""`` at the end (``NextChar``)."""
        pos = self.skip()
        return self.text[pos : pos + 1]

    def matches(self, ch: str) -> bool:
        """Consume ``ch`` if it comes next after whitespace (``Matches``)."""
        pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]
        if self.text.startswith(ch, pos):
            self.pos = pos + 1
            return True
        self.pos = pos
        return False

    def match(self, ch: str, skip: bool = True) -> None:
        """Consume ``ch`` (``Match``).

        Raises:
            StatusError: ``ch`` does not come next.
        """
        if skip:
            self.skip()
        if not self.text.startswith(ch, self.pos):
            raise self.fault(f"Expected character {ch} not found.")
        self.pos += 1

    def at_end(self) -> bool:
        """Only whitespace and comments are left (``EndOfInput``)."""
        return self.skip() >= len(self.text)

    # -- identifiers ----------------------------------------------------------

    def optional_identifier(self) -> str:
        """An identifier, or ``""`` if none comes next (``ParseOptionalIdentifier``)."""
        found = _IDENT.match(self.text, self.skip())
        if found is None:
            return ""
        self.pos = found.end()
        return found.group()

    def peek_identifier(self) -> str:
        """The identifier that comes next, not consumed (``PeekIdentifier``)."""
        found = _IDENT.match(self.text, self.skip())
        return "" if found is None else found.group()

    def identifier(self) -> str:
        """An identifier (``ParseIdentifier``).

        Raises:
            StatusError: none comes next.
        """
        name = self.optional_identifier()
        if not name:
            raise self.fault("Identifier expected but not found.")
        return name

    def quotable_identifier(self) -> str:
        """An identifier or a string literal (``ParseQuotableIdentifier``).

        Raises:
            StatusError: neither comes next.
        """
        if self.next_char() == '"':
            return self.string()
        return self.identifier()

    def optional_quotable_identifier(self) -> str:
        """An identifier, a string literal, or ``""``."""
        if self.next_char() == '"':
            return self.string()
        return self.optional_identifier()

    # -- literals -------------------------------------------------------------

    def literal(self) -> tuple[int, str]:
        """The next literal's kind and text (``Parse(Literal&)``): a string's text
        is its value, unescaped; a number's text is as written, its ``-`` and
        what followed that included.  No literal: ``(UNDEFINED, "")``.

        Raises:
            StatusError: an unterminated string; a word that is no float.
        """
        ch = self.next_char()
        start = self.pos
        if ch == '"':
            return STRING, self._string_body(start)
        if ch == "-":
            self.pos += 1
            ch = self.next_char()
        if ch in _ALPHA:
            if not self.next_is_float_word():
                raise self.fault("Encountered invalid float literal!")
            self.pos = _ALPHAS.match(self.text, self.pos).end()  # type: ignore[union-attr]
            text = self.text[start : self.pos]
            try:
                to_float(text)
            except ValueError:
                raise self.fault("Encountered invalid float literal!") from None
            return FLOAT, text
        if ch in _DIGIT:
            found = _NUMBER.match(self.text, self.pos)
            assert found is not None
            self.pos = found.end()
            is_float = found.group(1) is not None or found.group(2) is not None
            return (FLOAT if is_float else INT), self.text[start : self.pos]
        return UNDEFINED, ""

    def _string_body(self, start: int) -> str:
        """The value of the string literal whose quote is at ``start``, unescaped;
        the position moves past its closing quote.  Found with ``str.find``, one
        call per escaped quote: a regular expression would backtrack, and take
        memory by the escape, on an unterminated string.

        Raises:
            StatusError: the string is not terminated.
        """
        text = self.text
        pos = start + 1
        while True:
            end = text.find('"', pos)
            if end < 0:
                self.pos = len(text)
                raise self.fault("Incomplete string literal.")
            run = end - pos - len(text[pos:end].rstrip("\\"))
            if run % 2 == 0:
                break
            pos = end + 1
        self.pos = end + 1
        value = text[start + 1 : end]
        return _ESCAPE.sub(r"\1", value) if "\\" in value else value

    def next_is_float_word(self) -> bool:
        """``inf``, ``infinity`` or ``nan`` (any case), no digit after, comes next
        (``NextIsValidFloatString``: it looks at 9 letters at most)."""
        pos = self.skip()
        run = _ALPHAS.match(self.text, pos).end()  # type: ignore[union-attr]
        if run == pos:
            return False
        end = min(run, pos + 9)
        if self.text[end : end + 1] in _DIGIT and end < len(self.text):
            return False
        return self.text[pos:end].lower() in _FLOAT_WORDS

    def int64(self) -> int:
        """An integer literal's value (``Parse(int64_t&)``).

        Raises:
            StatusError: no integer literal comes next.
            FatalError: it is out of range, or a ``-`` is followed by a space or comment.
        """
        kind, text = self.literal()
        if kind != INT:
            raise self.fault("Integer value expected, but not found.")
        return self.convert_int(text)

    def convert_int(self, text: str) -> int:
        """``std::stoll`` of an integer literal's text.

        Raises:
            FatalError: it is out of range, or a ``-`` is followed by a space or comment.
        """
        try:
            return to_int64(text)
        except ValueError as exc:
            raise self.fatal(f"Integer literal out of range or malformed: {exc}") from None

    def uint64(self) -> int:
        """An integer literal's value as ``stoull`` reads it (``Parse(uint64_t&)``).

        Raises:
            StatusError: no integer literal comes next.
            FatalError: it is out of range, or malformed.
        """
        kind, text = self.literal()
        if kind != INT:
            raise self.fault("Integer value expected, but not found.")
        try:
            return to_uint64(text)
        except ValueError as exc:
            raise self.fatal(f"Integer literal out of range or malformed: {exc}") from None

    def number(self, double: bool) -> float:
        """A number literal as a float32 (or a double) (``Parse(float&)``).

        Raises:
            StatusError: no number comes next.
            FatalError: it overflows, or is malformed.
        """
        kind, text = self.literal()
        if kind not in (INT, FLOAT):
            raise self.fault("Unexpected literal type.")
        return self.convert_float(text, double)

    def convert_float(self, text: str, double: bool = False) -> float:
        """``LocaleIndependentStof`` (or ``Stod``) of a literal's text.

        Raises:
            FatalError: it overflows, or is malformed.
        """
        try:
            return to_double(text) if double else to_float(text)
        except ValueError as exc:
            raise self.fatal(str(exc)) from None

    def string(self) -> str:
        """A string literal's value (``Parse(std::string&)``).

        Raises:
            StatusError: no string literal comes next.
        """
        kind, text = self.literal()
        if kind != STRING:
            raise self.fault("String value expected, but not found.")
        return text
