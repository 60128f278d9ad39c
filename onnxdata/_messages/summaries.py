"""onnx's ``repr`` of ``ModelProto``, ``GraphProto`` and ``FunctionProto``: a summary.

``import onnx`` replaces these three classes' ``__repr__`` (``onnx/__init__.py``
of onnx 1.23.2) with a line that counts the large fields instead of printing
them: a model's repr is read in tracebacks, logs and notebooks, where a
dataclass repr of every node and weight would run to megabytes.  Code and
doctests written against onnx print it, so the declarations of these three
classes name the functions here as their ``_REPR`` (``_core/classes.py``
wraps them in the guard against a message that holds itself); every other
message keeps the dataclass repr.

Each function is onnx's, character for character, quirks included: a name is
put between quotes as it is (no escaping: ``GraphProto('a'b')``), the
operator sets print as a dict (a domain imported twice shows its last
version), an empty field is left out, except a model's ``ir_version`` and
``graph``, printed even when unset (a protobuf message is always true); a
string that is not UTF-8 prints as the ``bytes`` protobuf reads it as
(``GraphProto('b'\\xff'')``, see ``_as_read``).
Fields are read through the Python API, as onnx reads them: an unset field
gives its default and nothing is set by reading it.  A field holding a value
protobuf could not hold (assigned, for ``encode()`` to refuse) may make a
function raise ``TypeError``; the class's repr then falls back to the
dataclass repr, so that a repr never fails.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["function_summary", "graph_summary", "model_summary"]


def _as_read(text: Any) -> Any:
    """A string field as protobuf reads it: ``bytes`` when it is not UTF-8.

    onnxdata reads such a field as the bytes escaped (``surrogateescape``:
    ``'a\\udcff'``), protobuf's binding as the raw ``bytes`` (``b'a\\xff'``), which
    onnx's summary then prints; a string that not even the escape makes bytes
    of (a lone surrogate given by a caller, which ``encode()`` refuses) is left
    as it is.
    """
    if type(text) is str and not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            try:
                return text.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                return text
    return text


def _opsets(protos: Any) -> str:
    """onnx's ``_operator_set_protos_repr``: ``{'': 19, 'ai.onnx.ml': 3}``."""
    return repr({_as_read(proto.domain): proto.version for proto in protos})


def _count(values: Any, noun: str) -> str:
    """``<3 nodes>``; ``TypeError`` for a value that is no container (a string
    assigned would otherwise count its characters)."""
    if not isinstance(values, list):
        raise TypeError(f"not a repeated field: {type(values).__name__}")
    return f"<{len(values)} {noun}>"


def _names(values: Any) -> str:
    """``['alpha', 'gamma']``: protobuf's container of strings formatted, which is the
    list's repr; ``TypeError`` for a value that is no container."""
    if not isinstance(values, list):
        raise TypeError(f"not a repeated field: {type(values).__name__}")
    return repr([_as_read(value) for value in values])


def model_summary(model: Any) -> str:
    """``ModelProto(ir_version=10, opset_import={'': 19}, graph=GraphProto('g'))``.

    Raises:
        TypeError: a field holds a value protobuf could not hold (see the module).
    """
    parts = [f"ir_version={model.ir_version}"]
    if model.opset_import:
        parts.append(f"opset_import={_opsets(model.opset_import)}")
    if model.domain:
        parts.append(f"domain='{_as_read(model.domain)}'")
    if model.producer_name:
        parts.append(f"producer_name='{_as_read(model.producer_name)}'")
    if model.producer_version:
        parts.append(f"producer_version='{_as_read(model.producer_version)}'")
    parts.append(f"graph={model.graph!r}")
    if model.functions:
        parts.append(f"functions={_count(model.functions, 'functions')}")
    return f"ModelProto({', '.join(parts)})"


def graph_summary(graph: Any) -> str:
    """``GraphProto('g', input=<1 inputs>, output=<1 outputs>, node=<1 nodes>)``.

    Raises:
        TypeError: a field holds a value protobuf could not hold (see the module).
    """
    parts = [f"'{_as_read(graph.name)}'"]
    if graph.input:
        parts.append(f"input={_count(graph.input, 'inputs')}")
    if graph.output:
        parts.append(f"output={_count(graph.output, 'outputs')}")
    if graph.initializer:
        parts.append(f"initializer={_count(graph.initializer, 'initializers')}")
    if graph.node:
        parts.append(f"node={_count(graph.node, 'nodes')}")
    if graph.value_info:
        parts.append(f"value_info={_count(graph.value_info, 'value_info')}")
    return f"GraphProto({', '.join(parts)})"


def function_summary(function: Any) -> str:
    """``FunctionProto('Selu', domain='d', opset_import={'': 15}, input=<1 inputs>, ...)``.

    ``attribute`` (the names of the attributes) prints as onnx formats
    protobuf's container of strings: the list's repr.

    Raises:
        TypeError: a field holds a value protobuf could not hold (see the module).
    """
    parts = [f"'{_as_read(function.name)}'"]
    if function.domain:
        parts.append(f"domain='{_as_read(function.domain)}'")
    if function.overload:
        parts.append(f"overload='{_as_read(function.overload)}'")
    if function.opset_import:
        parts.append(f"opset_import={_opsets(function.opset_import)}")
    if function.input:
        parts.append(f"input={_count(function.input, 'inputs')}")
    if function.output:
        parts.append(f"output={_count(function.output, 'outputs')}")
    if function.attribute:
        parts.append(f"attribute={_names(function.attribute)}")
    if function.node:
        parts.append(f"node={_count(function.node, 'nodes')}")
    return f"FunctionProto({', '.join(parts)})"
