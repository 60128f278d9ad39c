"""ONNX test-case folders: ``model.onnx`` and ``test_data_set_*/{input,output}_*.pb``.

A bare ``.pb`` file does not say its type (an ``OptionalProto`` holding a
tensor is byte for byte a one-element ``SequenceProto``); in a test case the
model says it.  ``input_<i>.pb`` holds the value of the model graph's
``i``-th input and ``output_<i>.pb`` of its ``i``-th output, as onnx's
backend test runner reads them, so each file is decoded as the message its
``TypeProto`` names (tensor, sequence, map, optional, sparse tensor), then
checked against the data rules and against the declared type: element
types, ranks, fixed dimensions, and the nested types of sequences, maps
and optionals.  Files are mapped and decoded without copies.
"""

from __future__ import annotations

import os
import re

from .._core.errors import DecodeError
from .._core.schema import spec_of
from .._io.files import load
from .._messages.datatypes import element_fields
from .._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from .._messages.graphs import ModelProto, ValueInfoProto
from .._messages.types import TensorShapeProto, TypeProto
from .check import Violation, check
from .external_files import external_violations
from .typetext import DEPTH, dims_text, elem_name, type_text

# Fields named through the schema: a rename in the declarations fails here, at import.
_TYPE = spec_of(ValueInfoProto).named.type.name
_SHAPE = spec_of(TypeProto.Tensor).named.shape.name
_ELEMENT_TYPE = spec_of(TypeProto.Sequence).named.elem_type.name
_VALUE_TYPE = spec_of(TypeProto.Map).named.value_type.name
_VALUES = spec_of(MapProto).named.values.name

# The oneofs of TypeProto and of a dimension, named through the schema (both ``value``).
_TYPE_ONEOF = spec_of(TypeProto).named.tensor_type.oneof
_DIM_ONEOF = spec_of(TensorShapeProto.Dimension).named.dim_value.oneof

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "MODEL_FILE",
    "DataFile",
    "TestCase",
    "check_test_case",
    "is_test_case",
    "read_test_case",
    "value_text",
]

MODEL_FILE = "model.onnx"
_DATA_SET = re.compile(r"test_data_set_\d+")
_DATA_FILE = re.compile(r"(input|output)_(.*)\.pb", re.DOTALL)  # what onnx's runner counts
_INDEX = re.compile(r"0|[1-9][0-9]*")  # the numbers it reads: input_{i}.pb, ASCII, no zeros ahead
_TP = spec_of(TypeProto).named
# Per member of TypeProto's oneof: the message a value of that type is, and its
# element type code (onnx's SequenceProto/OptionalProto DataType).
_MEMBER_CLASS: dict[str, type[Message]] = {
    _TP.tensor_type.name: TensorProto,
    _TP.sparse_tensor_type.name: SparseTensorProto,
    _TP.sequence_type.name: SequenceProto,
    _TP.map_type.name: MapProto,
    _TP.optional_type.name: OptionalProto,
}
_ELEM_TYPE = {
    _TP.tensor_type.name: SequenceProto.TENSOR,
    _TP.sparse_tensor_type.name: SequenceProto.SPARSE_TENSOR,
    _TP.sequence_type.name: SequenceProto.SEQUENCE,
    _TP.map_type.name: SequenceProto.MAP,
    _TP.optional_type.name: SequenceProto.OPTIONAL,
}
_TENSORS = (_TP.tensor_type.name, _TP.sparse_tensor_type.name)
_MAP = _TP.map_type.name
_DIM_VALUE = spec_of(TensorShapeProto.Dimension).named.dim_value.name


class DataFile:
    """One ``input_<i>.pb`` or ``output_<i>.pb``: its declared value, and what it holds."""

    __slots__ = ("declared", "message", "name", "path", "problems")

    def __init__(self, path: str, name: str | None, declared: Any) -> None:
        self.path = path  # relative to the test case's folder
        self.name = name  # the graph input's or output's name; None: the model has none
        self.declared = declared  # its TypeProto, or None
        self.message: Message | None = None
        self.problems: list[Violation] = []


class TestCase:
    """A test case's model, and its data sets by folder name, each a list of files."""

    __test__ = False  # not a pytest test class, whatever its name says
    __slots__ = ("data_sets", "folder", "model")

    def __init__(self, folder: str, model: ModelProto) -> None:
        self.folder = folder
        self.model = model
        self.data_sets: dict[str, list[DataFile]] = {}

    def violations(self) -> list[Violation]:
        """Every problem of every data file, its path first (the model's own rules apart)."""
        return [v for files in self.data_sets.values() for f in files for v in f.problems]


def is_test_case(path: str) -> bool:
    """Whether ``path`` is a folder holding ``model.onnx``."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, MODEL_FILE))


def read_test_case(folder: str, model: ModelProto | None = None) -> TestCase:
    """Read the test case in ``folder``: the model (or ``model``, already read) and
    every data file, each decoded as its declared type and checked.  A data file
    that cannot be read or decoded, or breaks a rule, or does not fit its declared
    type, is a problem of that file, not an error.

    Raises:
        DecodeError: ``model.onnx`` is not a model.
        OSError, ValueError: ``model.onnx`` cannot be read, or the folder listed.
    """
    if model is None:
        model = load(os.path.join(folder, MODEL_FILE), ModelProto, mmap=True)
    case = TestCase(folder, model)
    graph = model.graph
    declared = {"input": list(graph.input), "output": list(graph.output)}
    for entry in sorted(os.listdir(folder)):
        if _DATA_SET.fullmatch(entry) and os.path.isdir(os.path.join(folder, entry)):
            case.data_sets[entry] = _data_set(folder, entry, declared)
    return case


def check_test_case(folder: str, model: ModelProto | None = None) -> list[Violation]:
    """Every violation of the test case in ``folder``: its model's, its external data
    files' included (paths starting ``model.onnx: ``), then its data files' (paths
    starting with the file).

    Raises:
        ValueError: ``folder`` holds no ``model.onnx``.
        DecodeError: ``model.onnx`` is not a model.
        OSError: ``model.onnx`` cannot be read, or the folder listed.
    """
    if model is None:
        if not is_test_case(folder):
            raise ValueError(f"{folder!r} is not a test case: it holds no {MODEL_FILE}")
        model = load(os.path.join(folder, MODEL_FILE), ModelProto, mmap=True)
    own = check(model) + external_violations(model, folder)
    found = [Violation(f"{MODEL_FILE}: {v.path}", v.message) for v in own]
    return found + read_test_case(folder, model).violations()


def _data_set(folder: str, name: str, declared: dict[str, list[Any]]) -> list[DataFile]:
    """The files of one data set, in order of their numbers, each read and checked.

    Time and memory go by the files present, never by the numbers in their
    names: ``input_1000000000.pb`` alone is one file and two violations (no
    such input; ``input_0.pb`` is missing).
    """
    found: dict[str, dict[int, str]] = {"input": {}, "output": {}}
    files = []
    for entry in sorted(os.listdir(os.path.join(folder, name))):
        match = _DATA_FILE.fullmatch(entry)
        if match is None:
            continue
        kind, number = match[1], match[2]
        if _INDEX.fullmatch(number):
            found[kind][int(number)] = entry
            continue
        rel = f"{name}/{entry}"
        files.append(DataFile(rel, None, None))
        files[-1].problems.append(Violation(rel, f"is not named {kind}_<n>.pb with n in decimal "
                                                 f"digits (no leading zero): onnx's test runner "
                                                 f"counts it among the {kind}s but never reads "
                                                 "it"))  # fmt: skip
    for kind in ("input", "output"):
        values = declared[kind]
        numbers = sorted(found[kind])
        for i in numbers:
            value = values[i] if i < len(values) else None
            rel = f"{name}/{found[kind][i]}"
            if value is None:
                f = DataFile(rel, None, None)
                files.append(f)
                f.problems.append(Violation(rel, f"the model's graph has {len(values)} {kind}s: "
                                                 f"no {kind} {i}"))  # fmt: skip
                continue
            f = DataFile(rel, value.name, value.type if value.HasField(_TYPE) else None)
            files.append(f)
            _read(f, os.path.join(folder, rel))
        gap = _first_gap(numbers)
        if gap is not None:
            where = f"{name}/{kind}_{gap}.pb"
            files.append(DataFile(where, None, None))
            files[-1].problems.append(Violation(where, f"is missing, though {kind}s with higher "
                                                       "numbers are there"))  # fmt: skip
    return files


def _first_gap(numbers: list[int]) -> int | None:
    """The smallest number missing below the largest of ``numbers`` (sorted, distinct),
    or None when they run 0, 1, 2... without a gap."""
    for expected, number in enumerate(numbers):
        if number != expected:
            return expected
    return None


def _read(f: DataFile, path: str) -> None:
    """Decode the file as its declared type; record what is wrong with it."""
    member = None if f.declared is None else f.declared.WhichOneof(_TYPE_ONEOF)
    cls = _MEMBER_CLASS.get(member or "")
    if cls is None:
        what = "no type" if member is None else "an opaque type"
        f.problems.append(Violation(f.path, f"{_label(f)} has {what}: the file cannot be read"))
        return
    try:
        f.message = load(path, cls, mmap=True)  # read only here, never handed out
    except DecodeError as err:
        f.problems.append(Violation(f.path, f"offset {err.offset}: {err}"))
        return
    except (OSError, ValueError) as err:
        text = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        f.problems.append(Violation(f.path, text))
        return
    f.problems += [Violation(f"{f.path}: {v.path}", v.message) for v in check(f.message)]
    mismatches: list[tuple[str, str]] = []
    _fit(f.message, f.declared, cls.__qualname__, mismatches, DEPTH)
    declared = type_text(f.declared)
    f.problems += [Violation(f"{f.path}: {where}", f"{what} ({_label(f)} is {declared})")
                   for where, what in mismatches]  # fmt: skip


def _label(f: DataFile) -> str:
    kind = "input" if "/input_" in f.path else "output"
    return f"the {kind} {f.name!r}"


def _fit(msg: Any, tp: Any, path: str, out: list[tuple[str, str]], depth: int) -> None:
    """Add to ``out`` each way ``msg`` does not fit the TypeProto ``tp``."""
    if depth <= 0:
        return
    member = tp.WhichOneof(_TYPE_ONEOF)
    if member is None:
        return  # no type declared: anything fits
    inner = getattr(tp, member)
    if member in _TENSORS:
        _fit_tensor(msg, inner, path, out)
    elif member == _MAP:
        _fit_map(msg, inner, path, out, depth)
    else:
        _fit_elements(msg, inner, path, out, depth)


def _fit_tensor(msg: Any, t: Any, path: str, out: list[tuple[str, str]]) -> None:
    """A tensor's or sparse tensor's data type and dims against the declared ones."""
    if isinstance(msg, SparseTensorProto):
        data_type, dims = msg.values.data_type, list(msg.dims)
        where = f"{path}.values.data_type"
    else:
        data_type, dims = msg.data_type, list(msg.dims)
        where = f"{path}.data_type"
    if t.elem_type and data_type != t.elem_type:
        out.append((where, f"is {elem_name(data_type)}, not {elem_name(t.elem_type)}"))
    if not t.HasField(_SHAPE):
        return
    shape = t.shape.dim
    if len(shape) != len(dims):
        out.append((f"{path}.dims", f"{dims_text(dims)} has rank {len(dims)}, not {len(shape)}"))
        return
    for i, (d, dim) in enumerate(zip(dims, shape, strict=True)):
        if dim.WhichOneof(_DIM_ONEOF) == _DIM_VALUE and dim.dim_value != d:
            out.append((f"{path}.dims[{i}]", f"is {d}, not {dim.dim_value}"))


def _fit_elements(msg: Any, t: Any, path: str, out: list[tuple[str, str]], depth: int) -> None:
    """A sequence's or optional's element type, and each element, against the declared type."""
    if not t.HasField(_ELEMENT_TYPE):
        return
    elem = t.elem_type
    member = elem.WhichOneof(_TYPE_ONEOF)
    if member is None:
        return
    wanted = _ELEM_TYPE.get(member)
    if wanted is None:
        out.append((path, f"cannot hold {type_text(elem)}"))
        return
    cls = type(msg)
    names = type(msg).DataType
    field = element_fields(cls)[wanted]
    value = field.held(msg)
    if not msg.elem_type and not value:
        return  # empty, of no type: onnx writes an empty optional so (from_optional(None))
    if msg.elem_type != wanted:
        have = names.Name(msg.elem_type) if msg.elem_type in names.values() else msg.elem_type
        out.append((f"{path}.elem_type", f"is {have}, not {names.Name(wanted)}"))
        return
    items = [] if value is None else list(value) if field.repeated else [value]
    for i, item in enumerate(items):
        where = f"{path}.{field.name}[{i}]" if field.repeated else f"{path}.{field.name}"
        _fit(item, elem, where, out, depth - 1)


def _fit_map(msg: Any, m: Any, path: str, out: list[tuple[str, str]], depth: int) -> None:
    if m.key_type and msg.key_type != m.key_type:
        out.append((f"{path}.key_type", f"is {elem_name(msg.key_type)}, "
                                        f"not {elem_name(m.key_type)}"))  # fmt: skip
    if m.HasField(_VALUE_TYPE) and msg.HasField(_VALUES):
        values_type = type(m.value_type)()
        values_type.sequence_type.elem_type.CopyFrom(m.value_type)
        _fit(msg.values, values_type, f"{path}.values", out, depth - 1)


def value_text(msg: Any, depth: int = DEPTH) -> str:
    """What a data message holds, in the notation of :func:`typetext.type_text`:
    ``tensor(FLOAT)[2,3]``, ``seq(tensor(INT64)) of 3``, ``optional(empty)``..."""
    if depth <= 0:
        return "..."
    if isinstance(msg, TensorProto):
        return f"tensor({elem_name(msg.data_type)}){dims_text(msg.dims)}"
    if isinstance(msg, SparseTensorProto):
        return f"sparse_tensor({elem_name(msg.values.data_type)}){dims_text(msg.dims)}"
    if isinstance(msg, MapProto):
        count = len(msg.keys) + len(msg.string_keys)
        return f"map({elem_name(msg.key_type)},...) of {count}"
    head = "seq" if isinstance(msg, SequenceProto) else "optional"
    field = element_fields(type(msg)).get(msg.elem_type)
    value = None if field is None else field.held(msg)
    items = (
        [] if value is None else list(value) if field is not None and field.repeated else [value]
    )
    inner = value_text(items[0], depth - 1) if items else "empty"
    return f"{head}({inner}) of {len(items)}" if head == "seq" else f"{head}({inner})"
