"""Models and functions as onnx's printer writes them: a ``<...>`` header, then the body.

A model's header lists ``ir_version`` and ``opset_import`` always, then each of its
other keyword fields that is set, in onnx's order (``lexicon.MODEL_KEYWORDS``); its
graph follows, then each local function after a blank line.  A function's header is
its domain, overload (when not empty) and operator sets; then its name, attribute
names, inputs, outputs and nodes.  onnx prints nothing else of either (no training
info, no function's value infos or attribute defaults), and neither does this.
"""

from __future__ import annotations

from .._core.schema import spec_of
from .._messages.graphs import FunctionProto, ModelProto, OperatorSetIdProto
from .lexicon import MODEL_KEYWORDS
from .print_graphs import graph_text, nodes_text
from .print_state import Printing
from .print_tensors import entries_text, name_text, quoted

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

__all__ = ["function_text", "model_text"]

_MODEL = spec_of(ModelProto).named
# The syntax's keywords are the fields' names: a field renamed fails here, at import.
_MODEL_FIELDS = {keyword: getattr(_MODEL, keyword).held for keyword in MODEL_KEYWORDS}
_MODEL_GRAPH = _MODEL.graph.held
_FUNCTIONS = _MODEL.functions.held
_FUNCTION_ATTRIBUTES = spec_of(FunctionProto).named.attribute.held


def _opsets(opsets: Iterable[OperatorSetIdProto], separator: str) -> str:
    return "[" + separator.join(f"{quoted(o.domain)} : {o.version}" for o in opsets) + "]"


def _header_value(keyword: str, value: object) -> str:
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, int):
        return str(value)
    if keyword == MODEL_KEYWORDS[1]:
        return _opsets(value, ", ")  # type: ignore[arg-type]
    return entries_text(value)  # type: ignore[arg-type]


def model_text(model: ModelProto) -> str:
    """One model as ``onnx.printer.to_text`` prints it.

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    lines = []
    for position, keyword in enumerate(MODEL_KEYWORDS):
        # ir_version and opset_import are always written; the others when set (non-empty).
        if position < 2:
            value = getattr(model, keyword)
        else:
            value = _MODEL_FIELDS[keyword](model)
            if value is None or (not isinstance(value, (str, int)) and not len(value)):
                continue
        lines.append(f"   {keyword}: {_header_value(keyword, value)}")
    printing = Printing()
    parts = ["<\n", ",\n".join(lines), "\n>\n"]
    graph = _MODEL_GRAPH(model)
    parts.append(graph_text(model.graph if graph is None else graph, printing))
    for function in _FUNCTIONS(model) or ():
        parts.append("\n")
        parts.append(function_text(function, printing))
    return "".join(parts)


def function_text(function: FunctionProto, printing: Printing | None = None) -> str:
    """One function as ``onnx.printer.to_text`` prints it.

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    parts = ["<\n  domain: ", quoted(function.domain), ",\n"]
    if function.overload:
        parts += ["  overload: ", quoted(function.overload), ",\n"]
    parts += ["  opset_import: ", _opsets(function.opset_import, ","), "\n>\n"]
    parts += [name_text(function.name), " "]
    attributes = _FUNCTION_ATTRIBUTES(function)
    if attributes:
        parts.append("<" + ",".join(attributes) + ">")
    inputs = ", ".join(map(name_text, function.input))
    outputs = ", ".join(map(name_text, function.output))
    parts.append(f"({inputs}) => ({outputs})\n")
    parts.append(nodes_text(function.node, printing or Printing(), 3))
    return "".join(parts)
