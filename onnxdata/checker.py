"""``onnx.checker`` for data messages: ``check_tensor`` and ``check_sparse_tensor``.

Each function raises :class:`ValidationError` when the message breaks a rule,
and returns None otherwise, as onnx's do.  The rules are those of
:func:`onnxdata.check` (every violation is listed in the error, one per line,
and kept in ``err.violations``), plus the ones onnx's checker adds for a
value that is about to be used: a tensor's ``data_type`` is set and not
UNDEFINED, a sparse tensor has a dense rank above 0 and positive dims, a
sequence's, optional's or map's element or key type is set.
``check_sequence``, ``check_map`` and ``check_optional`` check those
messages the same way (onnx has them in C++ only).  ``check_test_case``
(onnxdata's own) checks an onnx test-case folder: its model against the
rules that need no operator schema, and each ``test_data_set_*`` file
against the type the model declares for it.  ``check_model`` is not here:
most of what it checks needs onnx's operator schemas (C++).

What differs from onnx (see docs/compat.md):

* Counts are exact: a tensor with more values than its dims need is refused
  (onnx accepts any surplus), and the 4- and 2-bit types need one
  ``int32_data`` value per byte of packed data, as ``make_tensor`` writes
  them (onnx asks for one per 4 bytes, so it accepts a tensor that holds too
  few values).  BOOL ``raw_data`` bytes must be 0 or 1.
* A tensor with a ``segment`` holds part of the data: its counts are not
  checked (onnx checks them against the whole dims and so refuses it).
* An external tensor's location is judged as a path (relative, inside the
  base directory) without touching the file system; onnx looks for the file
  in the current directory.
* ``ctx`` is accepted for onnx's signature and not used: no rule for data
  messages depends on the IR version or the opsets.
* :class:`ValidationError` is also a ``ValueError``.
"""

from __future__ import annotations

import os

from ._core.errors import ValidationError
from ._core.schema import spec_of
from ._core.walk import Step, message_children, walk
from ._messages.convert import as_message
from ._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._tools.check import Violation, check
from ._tools.testcase import check_test_case as _test_case_violations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any

__all__ = [
    "MAXIMUM_PROTOBUF",
    "ValidationError",
    "check_map",
    "check_optional",
    "check_sequence",
    "check_sparse_tensor",
    "check_tensor",
    "check_test_case",
]

MAXIMUM_PROTOBUF = 2147483647
"""The largest message protobuf parses (2 GiB - 1 byte), as in onnx."""

_DT = TensorProto.DataType


def check_tensor(tensor: TensorProto, ctx: Any = None) -> None:
    """Check a TensorProto (onnxdata's or onnx's) against the ONNX rules.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken; the message
            lists every broken rule.
        TypeError: ``tensor`` is not a TensorProto.
    """
    _validate(as_message(tensor, TensorProto))


def check_sparse_tensor(sparse: SparseTensorProto, ctx: Any = None) -> None:
    """Check a SparseTensorProto: its values and indices as tensors, the indices in
    range, ascending and unique (linear ``[NNZ]`` or COO ``[NNZ, rank]``).

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``sparse`` is not a SparseTensorProto.
    """
    _validate(as_message(sparse, SparseTensorProto))


def check_sequence(sequence: SequenceProto, ctx: Any = None) -> None:
    """Check a SequenceProto and every element in it.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``sequence`` is not a SequenceProto.
    """
    _validate(as_message(sequence, SequenceProto))


def check_map(map: MapProto, ctx: Any = None) -> None:
    """Check a MapProto: key type, unique keys, as many values as keys, and the values.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``map`` is not a MapProto.
    """
    _validate(as_message(map, MapProto))


def check_optional(optional: OptionalProto, ctx: Any = None) -> None:
    """Check an OptionalProto and the value it holds, if any.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``optional`` is not an OptionalProto.
    """
    _validate(as_message(optional, OptionalProto))


def check_test_case(folder: str | os.PathLike[str]) -> None:
    """Check an onnx test-case folder: ``model.onnx`` (every tensor's rules and the
    model rules that need no operator schema) and each ``test_data_set_*/input_<i>.pb``
    and ``output_<i>.pb``, decoded as the type the graph's ``i``-th input or output
    declares, against the data rules and that type.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken, a data file does not
            fit its type or cannot be decoded; every violation is listed, paths
            starting with the file (``model.onnx: ModelProto.graph.name``).
        ValueError: the folder holds no ``model.onnx``.
        DecodeError: ``model.onnx`` is not a model.
        OSError: ``model.onnx`` cannot be read, or the folder listed.
    """
    found = _test_case_violations(os.fspath(folder))
    if found:
        raise ValidationError("\n".join(map(str, found)), found)


def _validate(message: Message) -> None:
    found = list(_required(message)) + check(message)
    if found:
        raise ValidationError("\n".join(map(str, found)), found)


def _walk(root: Message) -> Iterator[tuple[str, Any]]:
    """Every message in ``root`` with its path, depth first, each met once (the
    package's one walk); only the sub-messages that are set and of their
    field's class.  A cycle or a mistyped value is left to ``check()``, which
    reports it."""
    for step in walk([(spec_of(type(root)).name, root, None)], message_children, _reported):
        yield step.text(), step.obj


def _reported(where: Step, first: Step) -> None:
    """A message met inside itself: ``check()`` reports the cycle."""


def _required(root: Message) -> Iterator[Violation]:
    """The rules onnx's checker adds to :func:`onnxdata.check`, for every message inside."""
    for path, msg in _walk(root):
        for cls in type(msg).__mro__:  # a subclass of a message gets its rules
            rule = _REQUIRED.get(cls)
            if rule is not None:
                yield from rule(path, msg)
                break


def _missing(msg: Any, name: str) -> bool:
    """Whether the field ``name`` of ``msg`` is unset (as ``not HasField``), read from
    its slot: a slot that was deleted is missing too (``check()`` reports it)."""
    return getattr(msg, spec_of(type(msg)).by_name[name].slot, None) is None


def _tensor_required(path: str, msg: Any) -> Iterator[Violation]:
    if _missing(msg, "data_type"):
        yield Violation(f"{path}.data_type", "Field 'data_type' of 'tensor' is required "
                                             "but missing.")  # fmt: skip
    elif msg.data_type == _DT.UNDEFINED:
        yield Violation(
            f"{path}.data_type",
            f"setting data_type field (tensor name: {msg.name or ''}) to UNDEFINED is not allowed",
        )


def _sparse_required(path: str, msg: Any) -> Iterator[Violation]:
    dims = msg.dims
    if not (isinstance(dims, (list, tuple)) or hasattr(dims, "typecode")):
        return  # dims of the wrong type: check() reports it
    name = msg.values.name if isinstance(msg.values, TensorProto) else None
    if not dims:
        yield Violation(f"{path}.dims", f"Sparse tensor ({name or ''}) must have a "
                                        "dense-rank > 0")  # fmt: skip
    elif any(isinstance(d, int) and d == 0 for d in dims):
        yield Violation(f"{path}.dims", f"Sparse tensor ({name or ''}) dimensions "
                                        "are not positive.")  # fmt: skip


def _element_required(path: str, msg: Any) -> Iterator[Violation]:
    """A sequence's or optional's element type is set, and one it may hold."""
    what = "sequence" if isinstance(msg, SequenceProto) else "optional"
    if _missing(msg, "elem_type"):
        yield Violation(f"{path}.elem_type", f"Field 'elem_type' of '{what}' is "
                                             "required but missing.")  # fmt: skip
    elif msg.elem_type == SequenceProto.OPTIONAL or (
        isinstance(msg, SequenceProto) and msg.elem_type == SequenceProto.UNDEFINED
    ):
        yield Violation(
            f"{path}.elem_type",
            f"{what.capitalize()} ( Structure name: {msg.name or ''}, "
            f"elem_type: {msg.elem_type}) is not have a valid element type.",
        )


def _map_required(path: str, msg: Any) -> Iterator[Violation]:
    if _missing(msg, "key_type"):
        yield Violation(f"{path}.key_type", "Field 'key_type' of 'map' is required "
                                            "but missing.")  # fmt: skip
    if _missing(msg, "values"):
        yield Violation(f"{path}.values", "Field 'values' of 'map' is required "
                                          "but missing.")  # fmt: skip


_REQUIRED: dict[type, Callable[[str, Any], Iterator[Violation]]] = {
    TensorProto: _tensor_required,
    SparseTensorProto: _sparse_required,
    SequenceProto: _element_required,
    OptionalProto: _element_required,
    MapProto: _map_required,
}
"""What onnx's checker asks of each message before it is used, by class."""
