"""The errors of shape inference, with onnx's texts.

onnx's C++ raises two kinds of failure while it infers a node: an ``InferenceError``
(``fail_type_inference`` / ``fail_shape_inference``, whose texts start ``[TypeInferenceError]``
or ``[ShapeInferenceError]``), which the walk collects per node and raises only in strict mode,
and any other runtime error (an input index out of bounds), which it raises at once whatever the
mode.  :class:`NodeError` and :class:`ImmediateError` are those two, inside the walk; users
only ever see :class:`InferenceError`.
"""

from __future__ import annotations


class InferenceError(Exception):
    """``onnx.shape_inference.InferenceError``: a model's types cannot be inferred.

    Its text is onnx's, e.g. ``[ShapeInferenceError] Inference error(s): (op_type:Add, node
    name: n): [ShapeInferenceError] Incompatible dimensions``.
    """


class ShapeInferenceUnavailableError(InferenceError, NotImplementedError):
    """Raised where onnxdata's inference would not yet give onnx's result: an operator
    (at that version) whose rule is not written, a function body to infer through, or an
    option not yet supported.  An :class:`InferenceError`, so that code handling onnx's
    failure to infer handles it, and a ``NotImplementedError``, which it is."""


class NodeError(Exception):
    """onnx's ``InferenceError`` thrown inside a node's inference: collected, per node."""


class ImmediateError(Exception):
    """onnx's other runtime errors inside a node's inference: raised at once."""


def fail_type(*parts: object) -> NodeError:
    """onnx's ``fail_type_inference``: its arguments concatenated as ``MakeString`` does."""
    return NodeError("[TypeInferenceError] " + "".join(str(p) for p in parts))


def fail_shape(*parts: object) -> NodeError:
    """onnx's ``fail_shape_inference``."""
    return NodeError("[ShapeInferenceError] " + "".join(str(p) for p in parts))


def unavailable(what: str) -> ShapeInferenceUnavailableError:
    """The error for what onnxdata cannot yet infer as onnx does, naming it."""
    return ShapeInferenceUnavailableError(
        f"onnxdata has no shape inference yet for {what} (see docs/compat.md)"
    )
