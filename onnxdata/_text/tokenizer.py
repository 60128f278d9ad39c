"""protobuf's text-format tokenizer (``text_format.Tokenizer``), over lines of text.

Its tokens are protobuf's: identifiers, numbers, quoted strings (to their
quote or the end of the line) and single characters; whitespace and ``#``
comments are skipped.  Its errors carry protobuf's ``line:column``.
"""

from __future__ import annotations

import re

from .escapes import unescape
from .numbers import ParseBool, ParseFloat, parse_any_integer
from .text_errors import ParseError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable, Iterator

__all__ = ["Tokenizer"]


_QUOTES = frozenset("'\"")


class Tokenizer:
    """protobuf's text-format tokenizer: identifiers, numbers, quoted strings,
    and single characters, over lines, skipping whitespace and ``#`` comments.
    """

    _WHITESPACE = re.compile(r"\s+")
    _WHITESPACE_OR_COMMENT = re.compile(r"(\s|(#.*$))+", re.MULTILINE)
    _TOKEN = re.compile(
        "|".join(
            [
                r"[a-zA-Z_][0-9a-zA-Z_+-]*",  # an identifier
                r"([0-9+-]|(\.[0-9]))[0-9a-zA-Z_.+-]*",  # a number
                *(  # a quoted string, to its quote or the end of the line
                    rf"{q}[^{q}\n\\]*((\\.)+[^{q}\n\\]*)*({q}|\\?$)" for q in ("'", '"')
                ),
            ]
        )
    )
    _IDENTIFIER = re.compile(r"[^\d\W]\w*")
    _IDENTIFIER_OR_NUMBER = re.compile(r"\w+")

    def __init__(self, lines: Iterable[str], skip_comments: bool = True) -> None:
        self._line = -1
        self._column = 0
        self.token = ""
        self._lines: Iterator[str] = iter(lines)
        self._current_line = ""
        self._previous_line = 0
        self._previous_column = 0
        self._more_lines = True
        self._whitespace = self._WHITESPACE_OR_COMMENT if skip_comments else self._WHITESPACE
        self._skip_whitespace()
        self.NextToken()

    def _pop_line(self) -> None:
        while len(self._current_line) <= self._column:
            try:
                self._current_line = next(self._lines)
            except StopIteration:
                self._current_line = ""
                self._more_lines = False
                return
            self._line += 1
            self._column = 0

    def _skip_whitespace(self) -> None:
        while True:
            self._pop_line()
            match = self._whitespace.match(self._current_line, self._column)
            if not match:
                break
            self._column += len(match.group(0))

    def LookingAt(self, token: str) -> bool:  # noqa: N802 - protobuf's name
        return self.token == token

    def AtEnd(self) -> bool:  # noqa: N802 - protobuf's name
        return not self.token

    def TryConsume(self, token: str) -> bool:  # noqa: N802 - protobuf's name
        if self.token == token:
            self.NextToken()
            return True
        return False

    def Consume(self, token: str) -> None:  # noqa: N802 - protobuf's name
        if not self.TryConsume(token):
            raise self.ParseError(f'Expected "{token}".')

    def ConsumeIdentifier(self) -> str:  # noqa: N802 - protobuf's name
        result = self.token
        if not self._IDENTIFIER.match(result):
            raise self.ParseError("Expected identifier.")
        self.NextToken()
        return result

    def TryConsumeIdentifier(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            self.ConsumeIdentifier()
        except ParseError:
            return False
        return True

    def ConsumeIdentifierOrNumber(self) -> str:  # noqa: N802 - protobuf's name
        result = self.token
        if not self._IDENTIFIER_OR_NUMBER.match(result):
            raise self.ParseError(f"Expected identifier or number, got {result}.")
        self.NextToken()
        return result

    def ConsumeInteger(self) -> int:  # noqa: N802 - protobuf's name
        try:
            result = parse_any_integer(self.token)
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def ConsumeFloat(self) -> float:  # noqa: N802 - protobuf's name
        try:
            result = ParseFloat(self.token)
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def TryConsumeFloat(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            self.ConsumeFloat()
        except ParseError:
            return False
        return True

    def ConsumeBool(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            result = ParseBool(self.token)
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def ConsumeString(self) -> str:  # noqa: N802 - protobuf's name
        data = self.ConsumeByteString()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise self.ParseError(f"Couldn't parse string: {err}") from None

    def ConsumeByteString(self) -> bytes:  # noqa: N802 - protobuf's name
        parts = [self._consume_one_string()]
        while self.token and self.token[0] in _QUOTES:
            parts.append(self._consume_one_string())
        return b"".join(parts)

    def TryConsumeByteString(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            self.ConsumeByteString()
        except ParseError:
            return False
        return True

    def _consume_one_string(self) -> bytes:
        text = self.token
        if len(text) < 1 or text[0] not in _QUOTES:
            raise self.ParseError(f"Expected string but found: {text!r}")
        if len(text) < 2 or text[-1] != text[0]:
            raise self.ParseError(f"String missing ending quote: {text!r}")
        try:
            result = unescape(text[1:-1])
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def ParseErrorPreviousToken(self, message: str) -> ParseError:  # noqa: N802
        """A :class:`ParseError` at the token just consumed (returned, not raised)."""
        return ParseError(message, self._previous_line + 1, self._previous_column + 1)

    def ParseError(self, message: str) -> ParseError:  # noqa: N802 - protobuf's name
        """A :class:`ParseError` at the current token (returned, not raised)."""
        return ParseError(f"'{self._current_line}': {message}", self._line + 1, self._column + 1)

    def NextToken(self) -> None:  # noqa: N802 - protobuf's name
        """Move to the next token."""
        self._previous_line = self._line
        self._previous_column = self._column
        self._column += len(self.token)
        self._skip_whitespace()
        if not self._more_lines:
            self.token = ""
            return
        match = self._TOKEN.match(self._current_line, self._column)
        self.token = match.group(0) if match else self._current_line[self._column]
