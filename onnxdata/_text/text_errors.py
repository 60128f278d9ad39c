"""The errors of the text format: ``text_format.Error`` and ``text_format.ParseError``."""

from __future__ import annotations

__all__ = ["Error", "ParseError"]


class Error(Exception):
    """Every error of this module, as ``text_format.Error``."""


class ParseError(Error, ValueError):
    """The text is not a valid text format of the message.

    ``str()`` is protobuf's: ``"line:column : message"``; :meth:`GetLine`
    and :meth:`GetColumn` give the place (1-based), or ``None``.
    """

    def __init__(
        self, message: str | None = None, line: int | None = None, column: int | None = None
    ) -> None:
        if message is not None and line is not None:
            where = str(line) if column is None else f"{line}:{column}"
            message = f"{where} : {message}"
        if message is None:
            super().__init__()
        else:
            super().__init__(message)
        self._line = line
        self._column = column

    def GetLine(self) -> int | None:  # noqa: N802 - protobuf's name
        """The line (1-based) of the error, if known."""
        return self._line

    def GetColumn(self) -> int | None:  # noqa: N802 - protobuf's name
        """The column (1-based) of the error, if known."""
        return self._column


# Tracebacks and pickles name the module users import them from.
Error.__module__ = ParseError.__module__ = "onnxdata.text_format"
