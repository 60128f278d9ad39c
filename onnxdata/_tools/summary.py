"""``onnxdata show model.onnx``: what a model is, in a screenful.

The summary reads metadata only: versions, opsets, the types of inputs and
outputs, node counts, and each initializer's data type, shape and size,
which come from ``dims`` and ``data_type`` (or the length of ``raw_data``,
a view of the mapped file), never from its values.  So a model with
gigabytes of weights shows as fast as a small one.  Every list is cut at
:data:`LIMIT` lines with a count of the rest, so a graph of 100,000 nodes
or initializers still prints a bounded summary.  Strings from the file are
returned as they are; the command escapes every line it prints.
"""

from __future__ import annotations

import os
import re
from collections import Counter

from .._core.schema import spec_of
from .._io.external import external_file_problem, parse_count, split_location
from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import TensorProto
from .._messages.graphs import ModelProto, ValueInfoProto
from .model_rules import PROPS
from .modelwalk import graphs, node_lists, tensors
from .rules import element_count
from .typetext import dims_text, elem_name, type_text

# Fields named through the schema: a rename in the declarations fails here, at import.
_RAW_DATA = spec_of(TensorProto).named.raw_data.name
_GRAPH = spec_of(ModelProto).named.graph.name
_TYPE = spec_of(ValueInfoProto).named.type.name
_MODEL = spec_of(ModelProto).named
_PRODUCER = (_MODEL.producer_name.name, _MODEL.producer_version.name, _MODEL.domain.name)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["LIMIT", "declared_size", "size_text", "summary"]

LIMIT = 20  # entries of a list shown before "... N more"
_RANK = 8  # dims of an initializer shown before its rank
_PLAIN = re.compile(r"[\w.:/@+-]+")


def name_text(name: str) -> str:
    """A name as shown: as it is when it is one plain word, else quoted as ``repr``
    does, so that spaces, commas or an empty name cannot be misread."""
    return name if _PLAIN.fullmatch(name) else repr(name)


def declared_size(t: Any) -> int | None:
    """The bytes of a tensor's values as its metadata declares them: ``raw_data``'s
    length when set, else the element count times the element size (the external
    ``length`` when stored externally); None when unknown (a STRING tensor stored
    externally, an unknown data type, more elements than an int64 counts, a
    ``length`` entry that is not a non-negative integer); 0 for a negative dim."""
    if t.data_location == TensorProto.EXTERNAL:
        # The last entry of a key counts, as the reader takes it (and onnx).
        length = next((e.value for e in reversed(t.external_data) if e.key == "length"), None)
        if length is not None:
            try:
                return parse_count(length)
            except ValueError:
                return None
    elif t.HasField(_RAW_DATA):
        return len(t.raw_data)
    info = DATA_TYPES.get(t.data_type)
    if info is None:
        return None
    if info.name == "STRING":
        return None if t.data_location == TensorProto.EXTERNAL else sum(map(len, t.string_data))
    if any(d < 0 for d in t.dims):
        return 0
    count = element_count(t.dims)
    return None if count is None else info.raw_size(count)


_UNITS = ("KiB", "MiB", "GiB", "TiB")
_EXACT_BITS = 1000  # a size of more bits is shown by its power of two


def size_text(n: int | None) -> str:
    """A size in bytes, as people read it: ``512 bytes``, ``1.5 KiB``, ...,
    ``20480.0 TiB``; ``? bytes`` when unknown.  Whole-number arithmetic, so a
    size of any magnitude prints (a float overflows past 2**1024), and one too
    long to read is ``at least 2**N bytes``."""
    if n is None:
        return "? bytes"
    if n < 1024:
        return f"{n} bytes"
    if n.bit_length() > _EXACT_BITS:
        return f"at least 2**{n.bit_length() - 1} bytes"
    for power, unit in enumerate(_UNITS):
        if n < 1024 ** (power + 2) or unit == _UNITS[-1]:
            # As the former float code: whole units of the step below, then
            # tenths of this unit rounded half to even.
            whole = n // 1024**power
            tenths, rest = divmod(whole * 10, 1024)
            if rest * 2 > 1024 or (rest * 2 == 1024 and tenths % 2):
                tenths += 1
            return f"{tenths // 10}.{tenths % 10} {unit}"
    raise AssertionError  # pragma: no cover


def _cut(lines: list[str], total: int, indent: str, what: str) -> list[str]:
    """``lines`` (at most LIMIT of ``total``), and a line counting the rest."""
    if total > len(lines):
        lines.append(f"{indent}... {total - len(lines)} more {what}")
    return lines


def summary(model: Any, base_dir: str | None = None) -> list[str]:
    """The summary of ``model`` (a ``ModelProto``), one line each, first line the
    model's versions.  ``base_dir`` is the model's folder: the external data
    files its tensors name are looked for there (opened as the reader opens
    them, never read); None does not look.  Raises nothing for any decoded
    model."""
    lines = [_head(model)]
    lines += _opsets(model)
    if model.HasField(_GRAPH):
        graph = model.graph
        if graph.name:
            lines.append(f"  graph {name_text(graph.name)}")
        lines += _values(graph)
    else:
        lines.append("  graph: none")
    lines += _nodes(model)
    lines += _initializers(model)
    lines += _functions(model)
    lines += _external(model, base_dir)
    lines += _metadata(model)
    return lines


def _head(model: Any) -> str:
    words = [f"ModelProto ir_version={model.ir_version}"]
    for field in _PRODUCER:
        if getattr(model, field):
            words.append(f"{field}={name_text(getattr(model, field))}")
    if model.model_version:
        words.append(f"model_version={model.model_version}")
    if model.training_info:
        words.append(f"training_info={len(model.training_info)}")
    return " ".join(words)


def _opsets(model: Any) -> list[str]:
    opsets = [f"{name_text(o.domain or 'ai.onnx')}:{o.version}" for o in model.opset_import]
    return [f"  opset_import: {', '.join(opsets[:LIMIT]) or 'none'}"
            + (f", ... {len(opsets) - LIMIT} more" if len(opsets) > LIMIT else "")]  # fmt: skip


def _values(graph: Any) -> list[str]:
    """The inputs (apart from those an initializer feeds) and outputs, with their types."""
    initialized = {t.name for t in graph.initializer}
    initialized.update(s.values.name for s in graph.sparse_initializer)
    inputs = [v for v in graph.input if v.name not in initialized]
    lines = []
    for label, values in (("inputs", inputs), ("outputs", graph.output)):
        head = f"  {label}: {len(values)}"
        if label == "inputs" and len(inputs) < len(graph.input):
            head += f" (and {len(graph.input) - len(inputs)} fed by initializers)"
        lines.append(head)
        shown = [f"    {name_text(v.name)}: {_value_type(v)}" for v in values[:LIMIT]]
        lines += _cut(shown, len(values), "    ", label)
    return lines


def _value_type(v: Any) -> str:
    return type_text(v.type) if v.HasField(_TYPE) else "no type"


def _nodes(model: Any) -> list[str]:
    """Node counts by operator, most used first; subgraph and function nodes apart."""
    main: Counter[str] = Counter()
    nested = 0
    in_functions = 0
    for path, is_main, nodes in node_lists(model):
        if is_main:
            main.update(_op(n) for n in nodes)
        elif path.startswith("functions["):
            in_functions += len(nodes)
        else:
            nested += len(nodes)
    head = f"  nodes: {sum(main.values())}"
    if nested:
        head += f" (and {nested} in subgraphs)"
    if in_functions:
        head += f" (and {in_functions} in functions)"
    ranked = sorted(main.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = [f"    {count:>7} {name_text(op)}" for op, count in ranked[:LIMIT]]
    return [head, *_cut(shown, len(ranked), "    ", "operators")]


def _op(node: Any) -> str:
    domain = node.domain
    return f"{domain}:{node.op_type}" if domain and domain != "ai.onnx" else node.op_type


def _initializers(model: Any) -> list[str]:
    """The main graph's initializers, largest first, and the total of every graph's."""
    if not model.HasField(_GRAPH):
        return []
    graph = model.graph
    sized = [(declared_size(t), i, t) for i, t in enumerate(graph.initializer)]
    total = sum(s for s, _, _ in sized if s is not None)
    unknown = sum(1 for s, _, _ in sized if s is None)
    head = f"  initializers: {len(sized)}, {size_text(total)}"
    if unknown:
        head += f" (and {unknown} of unknown size)"
    sized.sort(key=lambda e: (-(e[0] if e[0] is not None else -1), e[1]))
    shown = [f"    {size_text(s):>12} {name_text(t.name)}: {elem_name(t.data_type)}"
             f"{dims_text(t.dims, _RANK)}{' external' if t.data_location else ''}"
             for s, _, t in sized[:LIMIT]]  # fmt: skip
    lines = [head, *_cut(shown, len(sized), "    ", "initializers")]
    sparse = graph.sparse_initializer
    if sparse:
        lines.append(f"  sparse initializers: {len(sparse)}")
        shown = [f"    {name_text(s.values.name)}: {elem_name(s.values.data_type)}"
                 f"{dims_text(s.dims, _RANK)}, {_nnz(s)} non-zero"
                 for s in sparse[:LIMIT]]  # fmt: skip
        lines += _cut(shown, len(sparse), "    ", "sparse initializers")
    nested = sum(len(g.initializer) for path, g in graphs(model) if path != "graph")
    if nested:
        lines.append(f"  initializers in subgraphs: {nested}")
    return lines


def _nnz(sparse: Any) -> int | str:
    dims = sparse.values.dims
    return dims[0] if len(dims) == 1 else "?"


def _functions(model: Any) -> list[str]:
    functions = model.functions
    if not functions:
        return []
    shown = [f"    {name_text(f.domain)}:{name_text(f.name)}"
             + (f":{name_text(f.overload)}" if f.overload else "")
             + f"({', '.join(map(name_text, f.input))}) -> ({', '.join(map(name_text, f.output))})"
             + f", {len(f.node)} nodes" for f in functions[:LIMIT]]  # fmt: skip
    return [f"  functions: {len(functions)}", *_cut(shown, len(functions), "    ", "functions")]


def _external(model: Any, base_dir: str | None) -> list[str]:
    """The files external tensors name, the bytes they take from each, and whether
    each is there and readable.  A location that leaves the model's folder is not
    looked for."""
    files: dict[str, tuple[list[int], Any]] = {}
    for _, t in tensors(model):
        if t.data_location != TensorProto.EXTERNAL:
            continue
        location = next((e.value for e in t.external_data if e.key == "location"), "")
        entry = files.setdefault(location, ([0, 0], t))[0]
        entry[0] += 1
        entry[1] += declared_size(t) or 0
    if not files:
        return []
    shown = [f"    {name_text(loc)}: {count} tensors, {size_text(size)}, "
             f"{_where(loc, base_dir, first)}"
             for loc, ([count, size], first) in list(files.items())[:LIMIT]]  # fmt: skip
    return [f"  external data files: {len(files)}", *_cut(shown, len(files), "    ", "files")]


def _where(location: str, base_dir: str | None, tensor: Any) -> str:
    """Whether the file is there, opened as the reader opens it (following no link,
    without blocking), for the first tensor that names it; nothing is read."""
    try:
        parts = split_location(location)
    except ValueError:
        return "refused (not a relative path to a file inside the model's folder)"
    if base_dir is None:
        return "not looked for"
    problem = external_file_problem(tensor, base_dir)
    if problem is None:
        return "found"
    if not os.path.lexists(os.path.join(base_dir, *parts)):
        return "missing"
    return f"unreadable ({problem})"


def _metadata(model: Any) -> list[str]:
    props = getattr(model, PROPS)
    if not props:
        return []
    shown = [f"    {name_text(p.key)} = {p.value!r}" for p in props[:LIMIT]]
    return [f"  {PROPS}: {len(props)}", *_cut(shown, len(props), "    ", "entries")]
