"""Hypothesis strategies for ONNX data messages, to test any ONNX parser.

Valid messages (``tensors``, ``sparse_tensors``, ``sequences``, ``maps``,
``optionals``, ``entries``, ``segments``, ``messages``) pass
:func:`onnxdata.check`, and together set every field of every data message.
Models are drawn as exporters write them (``models``, ``graphs``, ``nodes``,
``attributes``, ``type_protos``), and any class of onnx-ml.proto from its
schema (``of(cls)``; ``messages(types=[...])`` takes every class).
Wire-level strategies go below the message: ``noncanonical_encodings`` gives
``(message, bytes)`` pairs whose bytes are valid but never what protobuf
writes, and ``malformed_encodings`` gives ``(type, bytes, defect)`` triples
that every parser must reject; :data:`DEFECTS` names the defect classes (the
one catalog the seed corpus uses too).

Arguments follow ``hypothesis.extra.numpy``: ``dtype``, ``shape`` and the
element types take a value or a strategy, sizes are ``min_size``/``max_size``,
and ``elements=`` draws the stored values.  A bad argument raises
:class:`hypothesis.errors.InvalidArgument`, when the strategy is built for a
value and when it is drawn for a strategy.

Needs hypothesis: ``pip install 'onnxdata[fuzz]'``.
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401  (its absence is reported here, once, naming the extra)
except ImportError as exc:  # pragma: no cover - tested in a subprocess
    raise ImportError("onnxdata.strategies needs hypothesis: pip install 'onnxdata[fuzz]'") from exc

from ._fuzz.model_strategies import attributes, graphs, messages, models, nodes, of, type_protos
from ._fuzz.valid_strategies import (
    entries,
    maps,
    optionals,
    segments,
    sequences,
    sparse_tensors,
    tensors,
)
from ._fuzz.wire_strategies import DEFECTS, malformed_encodings, noncanonical_encodings

__all__ = [
    "DEFECTS",
    "attributes",
    "entries",
    "graphs",
    "malformed_encodings",
    "maps",
    "messages",
    "models",
    "nodes",
    "noncanonical_encodings",
    "of",
    "optionals",
    "segments",
    "sequences",
    "sparse_tensors",
    "tensors",
    "type_protos",
]
