"""``onnx.inliner``: function calls replaced by the functions' bodies, in pure Python.

onnx 1.23.2's inliner (``inliner.cc``), with its results byte for byte: the same
call-sites inlined, the same new names (``temp`` of the first call inlined becomes
``temp__1``, made unique against every name the main graph uses), attribute
references bound to the call's attributes, the inlined functions removed from
``model.functions``::

    from onnxdata import helper, inliner

    square = helper.make_function("local", "square", ["x"], ["y"],
                                  [helper.make_node("Mul", ["x", "x"], ["y"])],
                                  [helper.make_opsetid("", 17)])
    graph = helper.make_graph([helper.make_node("square", ["X"], ["Y"], domain="local")],
                              "g", [], [])
    model = helper.make_model(graph, functions=[square], opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    flat = inliner.inline_local_functions(model)
    assert [n.op_type for n in flat.graph.node] == ["Mul"] and not flat.functions

The model given (onnxdata's or onnx's ``ModelProto``) is not changed; a new
onnxdata ``ModelProto`` is returned.  What onnxdata cannot do (docs/compat.md):
a call that onnx would convert to the model's ONNX opset version first
(``convert_version=True``) needs onnx's version converter, and an operator whose
function body depends on its inputs' types (``CastLike``...) needs onnx's shape
inference; both raise :class:`InliningUnavailableError` (a ``NotImplementedError``),
only when such a call is met.  ``C`` holds the bytes-taking functions of onnx's
``onnx_cpp2py_export.inliner``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._messages.convert import as_message
from ._messages.graphs import ModelProto
from ._tools import inlining as _inliner
from ._tools.inlining import InliningUnavailableError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "C",
    "InliningUnavailableError",
    "inline_local_functions",
    "inline_selected_functions",
]


def _flag(value: object, function: str) -> bool:
    """A C++ ``bool`` argument, as onnx's binding takes it: True or False only."""
    if type(value) is not bool:
        raise TypeError(f"{function}(): incompatible function arguments: expected a bool, "
                        f"not {type(value).__name__}")  # fmt: skip
    return value


def _sequence(value: object) -> bool:
    """Whether CPython's ``PySequence_Check`` holds: what onnx's binding reads as a list."""
    return hasattr(type(value), "__getitem__") and not isinstance(value, dict)


def _text(value: object) -> bool:
    """A str that C++ can take (UTF-8 encodable)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _ids(function_ids: object, function: str) -> list[tuple[str, str]]:
    """``function_ids`` as onnx's binding takes them: a sequence of (domain, name) pairs of
    str (any sequence of two, so even a two-letter str, as onnx takes it)."""
    bad = TypeError(
        f"{function}(): incompatible function arguments: function_ids must be a sequence "
        f"of (domain, name) pairs of str, not {type(function_ids).__name__}"
    )
    if not _sequence(function_ids):
        raise bad
    pairs = []
    try:
        items = list(function_ids)  # type: ignore[call-overload]
        for item in items:
            if not _sequence(item) or len(item) != 2:
                raise bad
            domain, name = item[0], item[1]
            if not (_text(domain) and _text(name)):
                raise bad
            pairs.append((str(domain), str(name)))
    except (TypeError, KeyError, IndexError) as exc:
        raise bad from exc
    return pairs


def inline_local_functions(model: Any, convert_version: bool = False) -> ModelProto:
    """The model with every call of a model-local function inlined (recursively),
    and those functions removed.  A function that imports an opset at another
    version than the model is kept and its calls too, unless ``convert_version``
    and only the ONNX opset differs: onnx converts its body then (see below).

    Raises:
        TypeError: ``model`` is not a ModelProto; ``convert_version`` is not a bool.
        ValidationError: a local function calls itself (directly or not), or two
            local functions have the same (domain, name, overload).
        RuntimeError: a call has more inputs or outputs than its function.
        InliningUnavailableError: a call needs onnx's version converter.
        EncodeError: ``model`` holds a value that cannot be encoded.
        DecodeError: the result nests messages deeper than protobuf parses (100).
    """
    model = as_message(model, ModelProto)
    convert = _flag(convert_version, "inline_local_functions")
    result: ModelProto = _inliner.inline_local_functions(model, convert)
    return result


def inline_selected_functions(
    model: Any,
    function_ids: Sequence[tuple[str, str]],
    exclude: bool = False,
    inline_schema_functions: bool = False,
) -> ModelProto:
    """The model with the calls of the local functions named in ``function_ids``
    ((domain, name) pairs, every overload), or of all others when ``exclude``,
    inlined in the main graph and in the bodies of the functions kept; the inlined
    functions removed.  With ``inline_schema_functions``, the selected calls of
    operators defined by a function in their schema (:mod:`onnxdata.defs`, at the
    model's opset version of the node's domain) are inlined too.

    Raises:
        TypeError: ``model`` is not a ModelProto; ``function_ids`` not (str, str)
            pairs; ``exclude`` not a bool.
        ValidationError: a local function calls itself, or two have the same id.
        RuntimeError: the model or its functions import an opset at different
            versions; a call has more inputs or outputs than its function.
        InliningUnavailableError: a schema body depends on the node's input types.
        EncodeError: ``model`` holds a value that cannot be encoded.
        DecodeError: the result nests messages deeper than protobuf parses (100).
    """
    model = as_message(model, ModelProto)
    name = "inline_selected_functions2" if inline_schema_functions else "inline_selected_functions"
    pairs = _ids(function_ids, name)
    flag = _flag(exclude, name)
    result: ModelProto = _inliner.inline_selected_functions(
        model, pairs, flag, bool(inline_schema_functions)
    )
    return result


class C:
    """onnx's ``onnx_cpp2py_export.inliner``: the same functions on a model's bytes."""

    @staticmethod
    def inline_local_functions(data: bytes, convert_version: bool) -> bytes:
        model = ModelProto.decode(data)
        return inline_local_functions(model, convert_version).encode()

    @staticmethod
    def inline_selected_functions(
        data: bytes, function_ids: Sequence[tuple[str, str]], exclude: bool
    ) -> bytes:
        model = ModelProto.decode(data)
        return inline_selected_functions(model, function_ids, exclude).encode()

    @staticmethod
    def inline_selected_functions2(
        data: bytes, function_ids: Sequence[tuple[str, str]], exclude: bool
    ) -> bytes:
        model = ModelProto.decode(data)
        return inline_selected_functions(model, function_ids, exclude, True).encode()
