"""``onnx.printer``: models, graphs, functions and nodes in ONNX's textual syntax.

``to_text(model)`` gives onnx 1.23.2's text exactly, character for character (its C++
printer, ``onnx/defs/printer.cc``, redone in Python): the same layout, the same quoting
of names that are not identifiers, the same numbers (C++ ``std::to_chars``: the shortest
digits that read back, ``1e-07``, ``-0``, ``nan``), the same ``...`` where onnx has no
syntax for a tensor's values.  It takes onnxdata's messages and onnx's own (through their
bytes), and refuses an attribute or a value info as onnx's does (``TypeError``, which
onnx's tests check); :func:`attribute_to_text` and :func:`value_info_to_text` print
those, as onnx's C++ ``operator<<`` does, which onnx's Python does not expose.

    >>> from onnxdata import helper, printer
    >>> print(printer.to_text(helper.make_node("Relu", ["x"], ["y"])), end="")
       y = Relu (x)
"""

from ._syntax.print_tensors import PrinterError
from ._syntax.print_text import attribute_to_text, to_text, value_info_to_text

__all__ = ["PrinterError", "attribute_to_text", "to_text", "value_info_to_text"]
