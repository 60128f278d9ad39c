"""The errors of the JSON mapping, as ``json_format`` names them."""

from __future__ import annotations

__all__ = ["EnumStringValueParseError", "Error", "ParseError", "SerializeToJsonError"]


class Error(Exception):
    """Every error of this module, as ``json_format.Error``."""


class SerializeToJsonError(Error, ValueError):
    """The message holds a value JSON cannot express (an enum number the enum lacks)."""


class ParseError(Error, ValueError):
    """The JSON is not a valid mapping of the message; the message says where."""


class EnumStringValueParseError(ParseError):
    """An enum name the enum lacks (skipped with ``ignore_unknown_fields``)."""


# Tracebacks and pickles name the module users import them from.
for _cls in (Error, SerializeToJsonError, ParseError, EnumStringValueParseError):
    _cls.__module__ = "onnxdata.json_format"
del _cls
