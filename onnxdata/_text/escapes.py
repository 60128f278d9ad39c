r"""C escapes for quoted strings and bytes: writing them (``"\n"``, ``"\303"``) and reading them.

protobuf's text format and upb's ``str()`` quote a string or bytes value
between double quotes, printable ASCII kept, ``\n \r \t \" \' \\`` as such,
and every other byte as three octal digits; valid UTF-8 may be kept whole.
"""

from __future__ import annotations

import re
import warnings

__all__ = ["BYTE_ESCAPES", "escape", "escape_bytes", "unescape"]


def _is_print(byte: int) -> bool:
    return 32 <= byte < 127


def _escape_tables() -> tuple[dict[int, str], list[str]]:
    """C escapes: the one for each ASCII character (str.translate), and for each byte."""
    ascii_escapes = {i: f"\\{i:03o}" for i in range(128) if not _is_print(i)}
    ascii_escapes.update(
        {ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"},
    )
    ascii_escapes.update({ord('"'): '\\"', ord("'"): "\\'", ord("\\"): "\\\\"})
    per_byte = [ascii_escapes.get(i, chr(i)) if i < 128 else f"\\{i:03o}" for i in range(256)]
    return ascii_escapes, per_byte


_ASCII_ESCAPES, BYTE_ESCAPES = _escape_tables()


def escape_bytes(data: bytes) -> str:
    """``data`` with every byte that is not printable ASCII escaped."""
    return "".join([BYTE_ESCAPES[b] for b in data])


def escape(data: bytes, as_utf8: bool) -> str:
    """``data`` between quotes: every byte escaped, or (``as_utf8``) valid UTF-8 kept.

    Where the bytes are not valid UTF-8, the offending byte is escaped and the
    rest is tried again, as upb and protobuf's printer do.
    """
    if not as_utf8:
        return escape_bytes(data)
    out = []
    while data:
        try:
            out.append(data.decode("utf-8").translate(_ASCII_ESCAPES))
            break
        except UnicodeDecodeError as err:
            out.append(data[: err.start].decode("utf-8").translate(_ASCII_ESCAPES))
            out.append(BYTE_ESCAPES[data[err.start]])
            data = data[err.start + 1 :]
    return "".join(out)


_HEX_ONE_DIGIT = re.compile(r"(\\+)x([0-9a-fA-F])(?![0-9a-fA-F])")


def unescape(text: str) -> bytes:
    r"""The bytes a quoted text-format literal stands for (protobuf's ``CUnescape``).

    Python's escape codecs do the work, so the escapes are Python's:
    ``\n \t \\ \' \" \a \b \f \v``, octal ``\0``-``\377``, ``\xH`` and
    ``\xHH``, ``\uXXXX``, ``\UXXXXXXXX`` and ``\N{name}`` (as UTF-8).

    Raises:
        ValueError: an escape is malformed, or stands for no byte (``\777``).
    """

    def pad(match: re.Match[str]) -> str:
        if len(match.group(1)) % 2:  # an unescaped backslash: \xF -> \x0F
            return f"{match.group(1)}x0{match.group(2)}"
        return match.group(0)

    if "\\" not in text:
        return text.encode("utf-8")
    text = _HEX_ONE_DIGIT.sub(pad, text)
    text = text.encode("raw_unicode_escape").decode("raw_unicode_escape")
    with warnings.catch_warnings():  # "\q" and "\777": Python warns, protobuf reads on
        warnings.simplefilter("ignore", DeprecationWarning)
        return text.encode("utf-8").decode("unicode_escape").encode("latin-1")
