"""``onnx.shape_inference``: the types and shapes of a model's values, inferred as onnx does.

``infer_shapes`` returns a copy of the model whose ``value_info`` lists, in onnx's order, the
inferred type of every node output the graph did not declare, with onnx's merged dims and its
``unk__N`` names for unknown ones; declared types are checked and refined as onnx's are.  The
result is meant to be byte for byte onnx 1.23.2's (tests/infer compares them).

What is inferred so far (docs/api.md lists the operators and versions): a model's main graph,
node by node.  Where onnxdata cannot yet give onnx's answer -- an operator whose rule is not
written, a function body, a model-local function, a subgraph's operator, ``check_type``, data
propagation through an operator that has it -- :class:`ShapeInferenceUnavailableError` is
raised, naming it, rather than a result that would differ from onnx's.
"""

from __future__ import annotations

import os
from typing import Any

from ._infer.failures import InferenceError, ShapeInferenceUnavailableError, unavailable
from ._infer.graph_walk import Options, infer_model
from ._messages.convert import as_message
from ._messages.graphs import ModelProto

__all__ = [
    "InferenceError",
    "ShapeInferenceUnavailableError",
    "infer_function_output_types",
    "infer_node_outputs",
    "infer_shapes",
    "infer_shapes_path",
]


def _inferred_bytes(
    data: bytes, check_type: bool, strict_mode: bool, data_prop: bool
) -> ModelProto:
    model = ModelProto.FromString(data)
    try:
        infer_model(model, Options(check_type=check_type, strict=strict_mode, data_prop=data_prop))
    except ShapeInferenceUnavailableError:
        raise
    except InferenceError as exc:
        # onnx's message reaches Python as a C string: cut at its first NUL
        text = str(exc).partition("\0")[0]
        _raise_if_not_utf8(text)
        raise InferenceError(text) from None
    return model


def _raise_if_not_utf8(text: str) -> None:
    """onnx's message reaches Python through a UTF-8 decoding of its C++ bytes: a name that
    is not UTF-8 (kept as surrogates here) makes it onnx's ``UnicodeDecodeError`` instead."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape")
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise exc from None


def infer_shapes(
    model: Any, check_type: bool = False, strict_mode: bool = False, data_prop: bool = False
) -> ModelProto:
    """A copy of ``model`` (a ``ModelProto`` or its bytes) with the inferred types added.

    ``strict_mode`` raises the errors of every node that could not be inferred (otherwise
    they are passed over, as onnx passes them); ``data_prop`` propagates shape values through
    the operators that define it.  The given model is not changed.

    Raises:
        InferenceError: with onnx's text, in strict mode when a node's inference fails, or in
            any mode when onnx raises at once (a node of a domain the model does not import,
            an initializer whose type contradicts its declaration).
        ShapeInferenceUnavailableError: the model needs what onnxdata does not infer yet.
        TypeError: ``model`` is neither a model nor bytes (onnx's message).
        ValueError: ``check_type`` met a data type with no name (onnx's text); a
            ``UnicodeDecodeError`` where onnx's error names a value that is not UTF-8.
        DecodeError: (a ``ValueError``) the bytes are not a model, with the offset.
    """
    if isinstance(model, str | os.PathLike):
        raise TypeError(
            "infer_shapes only accepts ModelProto or bytes, For Model paths (str or "
            "os.PathLike), use infer_shapes_path()."
        )
    if isinstance(model, bytes | bytearray | memoryview):
        data = bytes(model)
    else:
        try:
            data = as_message(model, ModelProto).SerializeToString()
        except TypeError:
            raise TypeError(
                f"infer_shapes only accepts ModelProto or bytes, incorrect type: {type(model)}"
            ) from None
    return _inferred_bytes(data, check_type, strict_mode, data_prop)


def infer_shapes_path(
    model_path: Any,
    output_path: Any = "",
    check_type: bool = False,
    strict_mode: bool = False,
    data_prop: bool = False,
) -> None:
    """Not yet: raises :class:`ShapeInferenceUnavailableError` (models above 2 GiB and their
    external data come with a later change)."""
    raise unavailable("infer_shapes_path")


def infer_node_outputs(*args: Any, **kwargs: Any) -> Any:
    """Not yet: raises :class:`ShapeInferenceUnavailableError`."""
    raise unavailable("infer_node_outputs")


def infer_function_output_types(*args: Any, **kwargs: Any) -> Any:
    """Not yet: raises :class:`ShapeInferenceUnavailableError`."""
    raise unavailable("infer_function_output_types")


class C:
    """onnx's ``onnx_cpp2py_export.shape_inference``: the functions on a model's bytes."""

    InferenceError = InferenceError

    @staticmethod
    def infer_shapes(
        b: bytes, check_type: bool = False, strict_mode: bool = False, data_prop: bool = False
    ) -> bytes:
        return _inferred_bytes(bytes(b), check_type, strict_mode, data_prop).SerializeToString()

    infer_shapes_path = staticmethod(infer_shapes_path)
    infer_function_output_types = staticmethod(infer_function_output_types)
