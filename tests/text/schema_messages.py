"""Random messages of every class of onnx-ml.proto, for the text and JSON tests.

The classes are found from protobuf's descriptors (``onnx_ml_pb2`` and
``onnx_data_pb2``, nested messages included), never from onnxdata's schema,
so a class the schema forgot fails ``test_every_message_is_covered``.  Values
are drawn from the schema's kinds (``FieldSpec.kind``), at most one member of
each oneof, with a bounded depth and few fields per message, so a model
(``GraphProto`` -> ``NodeProto`` -> ``AttributeProto`` -> ``GraphProto``)
stays small.  :func:`decoded_pair` adds unknown fields (an enum value its
closed enum lacks among them) and gives onnxdata's and protobuf's message of
the same bytes.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import onnx
from hypothesis import strategies as st

import onnxdata
from tests.support import message_strategies as ms
from tests.support import wirekit as wk


def _descriptors() -> list[Any]:
    """Every message descriptor of onnx-ml.proto and onnx-data.proto, nested ones included."""
    found: list[Any] = []
    todo = [
        *onnx.onnx_ml_pb2.DESCRIPTOR.message_types_by_name.values(),
        *onnx.onnx_data_pb2.DESCRIPTOR.message_types_by_name.values(),
    ]
    while todo:
        desc = todo.pop(0)
        found.append(desc)
        todo.extend(desc.nested_types)
    return found


def _resolve(module: Any, full_name: str) -> Any:
    value = module
    for part in full_name.split(".")[1:]:  # past the package, "onnx."
        value = getattr(value, part)
    return value


DESCRIPTORS = _descriptors()
ORACLE: dict[type, type] = {
    _resolve(onnxdata, d.full_name): _resolve(onnx, d.full_name) for d in DESCRIPTORS
}
CLASSES: list[type] = list(ORACLE)
IDS = [c._SPEC.name for c in CLASSES]  # type: ignore[attr-defined]

# Text upb's setters take: no lone surrogate (upb refuses to encode one).
_TEXT = st.one_of(
    st.sampled_from(["", "a", "é", "日本語", "\U0001f600", "\x00", '"\\\n\t', "\x7f\x01"]),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=6),
)
# Doubles for float32 fields too: protobuf rounds them when it stores them.
_FLOAT = st.one_of(
    st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 0.1, 1e-45, 3.4028235e38, 1e39]),
    st.floats(width=32),
    st.floats(),
)
_DOUBLE = st.one_of(st.sampled_from([0.0, -0.0, math.nan, math.inf, 1 / 3, 1e16]), st.floats())
_SCALARS: dict[str, st.SearchStrategy[Any]] = {
    "int32": ms.int32s(),
    "int64": ms.int64s(),
    "uint64": ms.uint64s(),
    "float": _FLOAT,
    "double": _DOUBLE,
    "string": _TEXT,
    "bytes": st.one_of(st.binary(max_size=8), st.sampled_from([b"\x00\xff", b'"\\\n\x80'])),
}


def scalars(f: Any) -> st.SearchStrategy[Any]:
    """Values of the scalar or enum field ``f`` (a ``FieldSpec``) that protobuf can hold."""
    if f.kind == "enum":
        return st.sampled_from(f.enum.values())
    return _SCALARS[f.kind]


def _one_per_oneof(fields: list[Any]) -> list[Any]:
    kept: list[Any] = []
    oneofs: set[str] = set()
    for f in fields:
        if f.oneof is not None:
            if f.oneof in oneofs:
                continue
            oneofs.add(f.oneof)
        kept.append(f)
    return kept


@st.composite
def messages(draw: Any, cls: type, depth: int = 3, width: int = 4) -> Any:
    """A message of ``cls``: up to ``width`` fields, sub-messages ``depth`` levels down."""
    spec = cls._SPEC  # type: ignore[attr-defined]
    fields = [f for f in spec.fields if depth > 0 or f.kind != "message"]
    if not fields:
        return cls()
    chosen = _one_per_oneof(
        draw(st.lists(st.sampled_from(fields), max_size=width, unique_by=lambda f: f.name))
    )
    values: dict[str, Any] = {}
    for f in chosen:
        if f.kind == "message":
            one = messages(f.message, depth - 1, max(1, width - 1))
            values[f.name] = draw(st.lists(one, max_size=2)) if f.repeated else draw(one)
        elif f.repeated:
            values[f.name] = draw(st.lists(scalars(f), max_size=3))
        else:
            values[f.name] = draw(scalars(f))
    return cls(**values)


@functools.cache
def _known_wire_types(cls: type) -> dict[int, set[int]]:
    return {fd.number: wk.accepted_wire_types(fd) for fd in ORACLE[cls].DESCRIPTOR.fields}


@st.composite
def _closed_enum_value(draw: Any, cls: type) -> bytes:
    """An enum field holding a number its (closed) enum lacks: protobuf keeps it as unknown."""
    enums = [f for f in cls._SPEC.fields if f.kind == "enum"]  # type: ignore[attr-defined]
    if not enums:
        return b""
    f = draw(st.sampled_from(enums))
    number = draw(st.integers(-5, 300).filter(lambda n: n not in set(f.enum.values())))
    return wk.f_varint(f.number, number)


def unknown_fields(cls: type) -> st.SearchStrategy[bytes]:
    """Raw fields ``cls`` does not know (nothing, most of the time)."""
    one = st.one_of(ms.raw_unknown(_known_wire_types(cls)), _closed_enum_value(cls))
    return st.one_of(st.just(b""), st.lists(one, max_size=2).map(b"".join))


@st.composite
def decoded_pair(draw: Any, cls: type, depth: int = 3, unknown: bool = True) -> tuple[Any, Any]:
    """onnxdata's and protobuf's message decoded from the same bytes (unknown fields too)."""
    data = draw(messages(cls, depth)).encode()
    if unknown:
        data += draw(unknown_fields(cls))
    return cls.decode(data), ORACLE[cls].FromString(data)  # type: ignore[attr-defined]


def oracle_of(m: Any) -> Any:
    """protobuf's message of ``m``'s bytes."""
    return ORACLE[type(m)].FromString(m.encode())
