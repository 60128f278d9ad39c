"""Seed corpora and a dictionary for coverage-guided fuzzers (libFuzzer, AFL++, cargo-fuzz).

:func:`write_corpus` writes ``OUT/<Message>/`` for every ONNX data message
(the folder is the message's name in the schema: ``TensorProto``,
``TensorProto.Segment``, ``StringStringEntryProto``, ``SparseTensorProto``,
``SequenceProto``, ``MapProto``, ``OptionalProto``), for the model messages
a loader reads first (``ModelProto``, ``GraphProto``, ``NodeProto``,
``AttributeProto``, ``TypeProto``: models as exporters write them, with
subgraphs, external data, nesting at the depth limit, and each defect class
also deep inside a model, ``malformed-<defect>-in-<path>-<i>.pb``) and
``OUT/onnx.dict``.
Each file's name says what it is:

- ``valid-<what>-<i>.pb``: protobuf's own bytes for a message (the encoder's
  output, byte-identical to protobuf's).  Together the valid seeds of a folder
  set every field of its message, and the tensors hold each of the 28 data
  types in each storage form it allows (its typed field, ``raw_data``,
  external data, a segment).  All of them satisfy ONNX's rules
  (:func:`onnxdata.check`) except ``valid-field-*`` (one field set alone),
  ``valid-all-fields-*`` (every field at once), ``valid-random-*`` (random
  fields, to fill small folders) and ``valid-edge-*`` (values
  at protobuf's edges: strings that are not UTF-8, which proto2 allows,
  unknown data types, unknown fields, nesting at the limit of 100).
- ``noncanonical-<how>-<i>.pb``: bytes protobuf accepts but would not write
  (packed fields unpacked and the reverse, packed runs split, over-long
  varints, tags and lengths, fields out of order, a singular field repeated,
  a sub-message split in two, unknown fields first, a known field with
  another wire type, which parsers keep as an unknown field).
- ``malformed-<defect>-<i>.pb``: bytes every parser must reject, one defect
  each, named after the one catalog of defect classes (``_fuzz/defects.py``,
  which ``onnxdata.strategies`` draws from too): truncations, wire type 6 or
  7, field number 0 or 2**29 and above, over-long tags, varints or lengths,
  unmatched or unterminated groups, nesting deeper than 100, packed payloads
  that do not divide into values; ``-nested`` puts the defect inside a
  sub-message.  Between 10 and 50 % of each folder.

The bytes are built from the schema and the encoder, never read back by the
decoder, and are the same for the same ``seed`` and ``count``.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import random
import shutil
import stat
from collections.abc import Callable

from .._core.schema import STRING, spec_of
from .._core.wire import EGROUP, I32, I64, LEN, MAX_DEPTH, SGROUP, VARINT, tag_bytes
from .._io.external import ALLOWED_KEYS
from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import (
    MESSAGE_TYPES,
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from .._messages.graphs import AttributeProto, GraphProto, ModelProto, NodeProto
from .._messages.types import TypeProto
from . import model_samples as ms
from .defects import CATALOG, Defect, applies, boundaries, place, slug
from .dictionary import DICTIONARY_NAME, dictionary
from .folder import Folder
from .noncanonical import noncanonical_seeds
from .records import any_record, record, unknown_number
from .samples import (
    ELEMENT_KINDS,
    STRING_TYPE,
    Entry,
    annotate,
    deep_path,
    dims,
    filled,
    key_types,
    make_map,
    nested,
    optional,
    sample,
    sequence,
    sparse,
    tensor,
    text,
)
from .sites import place_deep

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["DICTIONARY_NAME", "corpus_files", "dictionary", "write_corpus"]


# -- valid ----------------------------------------------------------------------------


def _tensor_seeds(folder: Folder, count: int) -> None:
    """Each data type in each storage form it allows."""
    rng = folder.rng
    for dt, info in DATA_TYPES.items():
        forms = [info.storage, "raw_data", "external", "segment"]
        for i in range(count):
            for form in forms:
                if dt == STRING_TYPE and form in ("raw_data", "external"):
                    continue  # STRING values live in string_data only
                how = {info.storage: "typed", "raw_data": "raw"}.get(form, form)
                t = tensor(rng, dt, how, dims(rng, i))
                if (i + dt) % 2:
                    annotate(t, rng)
                folder.valid(f"{info.name.lower()}-{form}", t)


def _sparse_seeds(folder: Folder, count: int) -> None:
    for dt, info in DATA_TYPES.items():
        for i in range(count):
            s = sparse(folder.rng, dt, i)
            indices = s.indices
            assert indices is not None
            what = "coordinates" if len(indices.dims) == 2 else "linear"
            folder.valid(f"{info.name.lower()}-{what}", s)


def _container_seeds(folder: Folder, count: int) -> None:
    """Sequences or optionals of each element type, and an empty one of each."""
    cls, rng = folder.cls, folder.rng
    for kind in ELEMENT_KINDS:
        label = cls.DataType.Name(kind).lower()  # type: ignore[attr-defined]
        for i in range(count):
            if cls is SequenceProto:
                msg: Message = sequence(rng, kind, 0, rng.randint(1, 3))
            else:
                msg = optional(rng, kind, 0)
            if i % 2:
                annotate(msg, rng)
            folder.valid(label, msg)
        folder.valid(f"{label}-empty", cls(elem_type=kind))  # type: ignore[call-arg]


def _map_seeds(folder: Folder, count: int) -> None:
    for key_type in key_types():
        for i in range(count):
            kind = ELEMENT_KINDS[(key_type + i) % 4]
            m = make_map(folder.rng, key_type, kind, 0)
            if i % 2:
                annotate(m, folder.rng)
            value_name = SequenceProto.DataType.Name(kind).lower()
            folder.valid(f"keys-{DATA_TYPES[key_type].name.lower()}-{value_name}", m)


def _entry_seeds(folder: Folder, count: int) -> None:
    for key in sorted(ALLOWED_KEYS):
        folder.valid(f"external-{key}", Entry(key=key, value=text(folder.rng)))


def _model_seeds(folder: Folder, count: int) -> None:
    """Models as exporters write them, with subgraphs, external data and functions."""
    rng = folder.rng
    for i in range(count):
        folder.valid("model", ms.model(rng, 1 + i % 2))
        folder.valid("model-external-data", ms.model(rng, 1, external=True))
        folder.valid("model-annotated", ms.annotated_model(rng))
        folder.valid(f"model-subgraphs-{i + 1}", ms.subgraph_model(rng, i + 1))
        m = ms.model(rng, 0)
        m.functions = [ms.function(rng)]
        folder.valid("model-function", m)


def _graph_seeds(folder: Folder, count: int) -> None:
    for i in range(count):
        folder.valid("graph", ms.graph(folder.rng, i % 3, []))


def _node_seeds(folder: Folder, count: int) -> None:
    for _ in range(count):
        g = ms.graph(folder.rng, 1, [], nodes=3)
        for node in g.node:
            folder.valid(f"node-{node.op_type.lower()}", node)


def _attribute_seeds(folder: Folder, count: int) -> None:
    for kind in ms.ATTRIBUTE_FIELDS:
        for i in range(count):
            a = ms.attribute(folder.rng, f"a{i}", kind, 1)
            folder.valid(f"attribute-{AttributeProto.AttributeType.Name(kind).lower()}", a)


def _type_seeds(folder: Folder, count: int) -> None:
    for i in range(count * 6):
        folder.valid("type", ms.type_proto(folder.rng, i % 3))


# The seeds that follow ONNX's rules, per message type (the others have none).
_TYPED_SEEDS: dict[type[Message], Callable[[Folder, int], None]] = {
    TensorProto: _tensor_seeds,
    SparseTensorProto: _sparse_seeds,
    SequenceProto: _container_seeds,
    OptionalProto: _container_seeds,
    MapProto: _map_seeds,
    Entry: _entry_seeds,
    ModelProto: _model_seeds,
    GraphProto: _graph_seeds,
    NodeProto: _node_seeds,
    AttributeProto: _attribute_seeds,
    TypeProto: _type_seeds,
}

# The folders of the corpus: the data messages, and the model messages a loader
# reads first (every other message is reached inside a model).
CORPUS_TYPES: tuple[type[Message], ...] = (
    *MESSAGE_TYPES,
    ModelProto,
    GraphProto,
    NodeProto,
    AttributeProto,
    TypeProto,
)
# Where a model's defects go deep: its tensors first.
_GRAPH, _ATTRIBUTE = spec_of(GraphProto).named, spec_of(AttributeProto).named
_TENSOR_SITES = (
    _GRAPH.initializer.name,
    _ATTRIBUTE.t.name,
    _ATTRIBUTE.tensors.name,
    _GRAPH.sparse_initializer.name,
    spec_of(SparseTensorProto).named.values.name,
)


def _valid_seeds(folder: Folder, count: int) -> None:
    cls, rng, spec = folder.cls, folder.rng, folder.spec
    for _ in range(count):
        for f in spec.fields:
            folder.valid(f"field-{f.name}", filled(cls, rng, 1, [f]))
        folder.valid("all-fields", filled(cls, rng, 1))
    typed = _TYPED_SEEDS.get(cls)
    if typed is not None:
        typed(folder, count)
    _edge_seeds(folder)


def _with_unknown(cls: type[Message], unknown: bytes) -> Message:
    msg = cls()
    msg.unknown_fields = unknown  # type: ignore[attr-defined]
    return msg


def _edge_seeds(folder: Folder) -> None:
    cls, rng, spec = folder.cls, folder.rng, folder.spec
    for f in spec.fields:
        if f.kind == STRING and not f.repeated:  # proto2 strings need not be UTF-8
            bad = rng.choice((b"\xff", b"\xc3\x28", b"a\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"))
            folder.valid(
                f"edge-invalid-utf8-{f.name}",
                cls(**{f.name: bad.decode("utf-8", "surrogateescape")}),
                False,
            )
    unknown = b"".join(
        any_record(unknown_number(spec, rng), wt, rng) for wt in (VARINT, I64, LEN, SGROUP, I32)
    )
    folder.valid("edge-unknown-fields", _with_unknown(cls, unknown), False)
    groups = b""
    number = unknown_number(spec, rng)
    for _ in range(MAX_DEPTH):
        groups = tag_bytes(number, SGROUP) + groups + tag_bytes(number, EGROUP)
    folder.valid("edge-nesting-100-groups", _with_unknown(cls, groups), False)
    if deep_path(cls, MAX_DEPTH) is not None:
        folder.valid("edge-nesting-100", nested(cls, MAX_DEPTH), False)
    if cls is TensorProto:
        for dt in (0, max(DATA_TYPES) + 1, -1, (1 << 31) - 1):
            folder.valid("edge-data_type", TensorProto(dims=[], data_type=dt), False)


# -- malformed ------------------------------------------------------------------------


def _applicable(cls: type[Message]) -> list[Defect]:
    return [d for d in CATALOG if applies(d, cls)]


def _malformed_seeds(folder: Folder) -> None:
    """Each defect class that applies to the message, in turn, until the malformed seeds
    are 40 % of the valid ones; every other round puts the defect in a sub-message."""
    rng, spec = folder.rng, folder.spec
    defects = _applicable(folder.cls)
    total = max(len(defects), math.ceil(len(folder.files) * 0.4))
    bases = list(folder.bases) or [b""]
    for i in range(total):
        defect = defects[i % len(defects)]
        nested = False
        data = None
        for _ in range(len(bases)):  # a cut needs a base with a field of two bytes
            base = bases[rng.randrange(len(bases))]
            children = [f for f in spec.children() if applies(defect, f.message)]
            if (i // len(defects)) % 2 == 1 and children:
                f = rng.choice(children)
                inner = place(defect, f.message, sample(f.message, rng, 2).encode(), rng)
                if inner is not None:
                    fragment = record(f.number, LEN, inner)
                    cut = rng.choice(boundaries(base))
                    data, nested = base[:cut] + fragment + base[cut:], True
            if data is None:
                data = place(defect, folder.cls, base, rng)
            if data is not None:
                break
        if data is not None:
            folder.add("malformed", slug(defect.name) + ("-nested" if nested else ""), data)
    if folder.cls in (ModelProto, GraphProto):
        _deep_seeds(folder, defects)


def _deep_seeds(folder: Folder, defects: list[Defect]) -> None:
    """Each defect class once more, deep inside a model: in a node's attribute's tensor,
    a (sub)graph's initializer, a subgraph's node; the file names the path."""
    rng = folder.rng
    real = ("valid-model", "valid-graph")
    bases = [d for n, d in folder.files.items() if n.startswith(real)] or folder.bases
    for defect in defects:
        for _ in range(8):
            found = place_deep(defect, folder.cls, rng.choice(bases), rng, rng.randint(2, 7),
                               _TENSOR_SITES)  # fmt: skip
            if found is not None and found[1].count(".") >= 1:
                folder.add("malformed", f"{slug(defect.name)}-in-{found[1]}", found[0])
                break


def _build(cls: type[Message], seed: int, count: int) -> dict[str, bytes]:
    folder = Folder(cls, random.Random(f"{seed}/{spec_of(cls).name}"))
    _valid_seeds(folder, count)
    noncanonical_seeds(folder, count)
    defects = len(_applicable(cls)) * (2 if cls in (ModelProto, GraphProto) else 1)
    i = 0
    while defects > 0.6 * len(folder.files):  # small messages: more valid seeds
        folder.valid("random", sample(cls, folder.rng, 1) if i % 2 else filled(cls, folder.rng, 1))
        i += 1
    _malformed_seeds(folder)
    return folder.files


# -- the corpus --------------------------------------------------------------------------


def corpus_files(*, seed: int = 0, count: int = 2) -> dict[str, bytes]:
    """The whole corpus in memory: ``"<Message>/<file>.pb"`` (and ``onnx.dict``) -> bytes.

    ``count`` is the number of variants of each case (each data type in each
    storage form, each field, each non-canonical form); the malformed seeds
    follow, between 10 and 50 % of each folder.  The same ``seed`` and
    ``count`` give the same names and bytes.

    Raises:
        TypeError: ``seed`` or ``count`` is not an int.
        ValueError: ``count`` is below 1.
    """
    for what, value in (("seed", seed), ("count", count)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if count < 1:
        raise ValueError(f"count must be at least 1, not {count}")
    out: dict[str, bytes] = {}
    for cls in CORPUS_TYPES:
        folder = spec_of(cls).name
        for name, data in sorted(_build(cls, seed, count).items()):
            out[f"{folder}/{name}"] = data
    out[DICTIONARY_NAME] = dictionary().encode("ascii")
    return out


def write_corpus(
    out_dir: Any, *, seed: int = 0, count: int = 2, force: bool = False
) -> dict[str, dict[str, int]]:
    """Write the corpus of :func:`corpus_files` under ``out_dir`` (made if missing).

    Everything is written in a staging folder inside ``out_dir`` first, then
    each message's folder is renamed into place whole, and ``onnx.dict`` last:
    a failure leaves no file half-written and no folder half-filled.
    ``out_dir`` must be empty unless ``force``; then the message folders
    and ``onnx.dict`` are replaced (files of an earlier corpus are dropped),
    and nothing else in ``out_dir`` is touched.

    Returns, per folder, how many ``valid``, ``noncanonical`` and
    ``malformed`` files it holds.

    Raises:
        TypeError, ValueError: as :func:`corpus_files`.
        NotADirectoryError: ``out_dir`` exists and is not a folder.
        FileExistsError: ``out_dir`` is not empty and ``force`` is false; a
            name the corpus would replace is a device, a FIFO or a socket
            (nothing is written then).
        OSError: from creating, writing or renaming.
    """
    files = corpus_files(seed=seed, count=count)
    out = os.fspath(out_dir)
    if os.path.exists(out) and not os.path.isdir(out):
        raise NotADirectoryError(f"{out} exists and is not a folder")
    os.makedirs(out, exist_ok=True)
    if os.listdir(out) and not force:
        raise FileExistsError(f"{out} is not empty (force=True, or --force, replaces its corpus)")
    names = [spec_of(cls).name for cls in CORPUS_TYPES] + [DICTIONARY_NAME]
    for name in names:  # what a rename cannot rebuild is never moved aside and removed
        with contextlib.suppress(FileNotFoundError):
            mode = os.lstat(os.path.join(out, name)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                raise FileExistsError(
                    errno.EEXIST,
                    "is a device, FIFO or socket: only a corpus's files and folders are replaced",
                    os.path.join(out, name),
                )
    staging = os.path.join(out, f".onnxdata-corpus-{os.urandom(4).hex()}.tmp")
    os.mkdir(staging)
    try:
        for rel, data in files.items():
            path = os.path.join(staging, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        old = os.path.join(staging, ".old")
        os.mkdir(old)
        for name in names:
            target = os.path.join(out, name)
            if os.path.lexists(target):
                os.rename(target, os.path.join(old, name))
            os.rename(os.path.join(staging, name), target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary: dict[str, dict[str, int]] = {}
    for rel in files:
        if "/" in rel:
            folder, name = rel.split("/")
            kind = name.split("-", 1)[0]
            counts = summary.setdefault(folder, {"valid": 0, "noncanonical": 0, "malformed": 0})
            counts[kind] += 1
    return summary
