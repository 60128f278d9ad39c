"""Text from a file or an argument, made safe to print on a terminal.

A file name, a tensor name, an external data location or a JSON key may hold
any character.  Printed raw, ESC and the other C0 and C1 controls drive the
terminal (retitle it, clear it, move the cursor), CR and NL forge a second
line ("onnxdata: all files OK"), bidi overrides reorder what is shown, and a
lone surrogate cannot be encoded at all.  :func:`printable` escapes every
character that ``str.isprintable`` refuses, spelled as ``repr`` spells it
(``\\x1b``, ``\\u202e``, ``\\udcff``): the escaping ``show`` applies to the
strings in a message, for every line the command prints.
"""

from __future__ import annotations

__all__ = ["printable"]


class _Escapes(dict[int, str]):
    """``str.translate`` table: a code point to itself, or to its ``repr`` escape
    when it is not printable; filled in as characters are met."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        self[code] = found = char if char.isprintable() else repr(char)[1:-1]
        return found


_ESCAPES = _Escapes()


def printable(text: str) -> str:
    """``text`` with every character that is not printable escaped, as ``repr`` does.

    Printable characters, the space and the backslash are kept, so text that
    is already escaped (a ``repr``, JSON, protobuf's text format) is left as it
    is: escaping twice changes nothing.  The result holds no control
    character, no line break, no format character (bidi overrides) and no
    surrogate.  Raises nothing.
    """
    if text.isprintable():
        return text
    return text.translate(_ESCAPES)
