"""``onnxdata show --text``: a model in ONNX's textual syntax, safe for a terminal.

The text is onnx's printer's (``onnx.printer.to_text``), with one change: onnx writes
a string as it is, so a name or an attribute holding a line break, an ESC or a bidi
override would drive the terminal or forge a line.  Every string of the model is
escaped first (:func:`~onnxdata._tools.terminal.printable`: ``\\n``, ``\\x1b``,
``\\udcff`` for a byte that is not UTF-8), so each line printed is one of the syntax's
own lines.  ``raw_data`` is numbers, not text, and is left as it is.  Tensors are
printed whole, as onnx prints them; external data is named, not read.
"""

from __future__ import annotations

from .._core.schema import BYTES, STRING, spec_of
from .._core.walk import message_children, walk
from .._messages.declarations import TensorProto
from .._messages.graphs import ModelProto
from .._syntax.print_models import model_text
from .terminal import printable

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["model_syntax"]

# The one bytes field that holds numbers, not text.
_BINARY = spec_of(TensorProto).named.raw_data


def _escaped(value: Any) -> Any:
    if isinstance(value, str):
        return value if value.isprintable() else printable(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        text = bytes(value).decode("utf-8", "surrogateescape")
        return bytes(value) if text.isprintable() else printable(text).encode("utf-8")
    return value


def _escape_strings(msg: Any) -> None:
    """Every string and text bytes field of ``msg`` (not its sub-messages) escaped, in place."""
    for f in spec_of(type(msg)).fields:
        if f.kind not in (STRING, BYTES) or f is _BINARY:
            continue
        value = f.held(msg)
        if value is None:
            continue
        if f.repeated:
            value[:] = [_escaped(v) for v in value]
        else:
            setattr(msg, f.name, _escaped(value))


def model_syntax(model: ModelProto) -> str:
    """``model`` in ONNX's syntax, its strings escaped for a terminal; ``model`` is
    changed (its strings escaped): the caller gives one it owns.

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims (a ``ValueError``).
        EncodeValueError: a message that holds itself.
    """
    for step in walk([("ModelProto", model, None)], message_children):
        _escape_strings(step.obj)
    return model_text(model)
