"""Every ``bytes`` field reads as onnx reads it, whichever way the message was loaded.

onnx gives ``bytes`` for every ``bytes`` field of ``onnx-ml.proto``, and code written for
it calls ``bytes`` methods on them (onnx-graphsurgeon's LSTM importer: ``attr.s.decode()``).
Only ``TensorProto.raw_data`` is declared ``view=True``: a weight payload, left a
read-only view of the input by ``decode(copy=False)`` and by loading a mapped file.  Here:
the declarations against onnx's descriptors; a model and data files holding every
``bytes`` field (entries short and long, at every depth) loaded through every path, on the
fast and the general paths, each value's type against onnx's; and a declaration that
makes a repeated field a view, so that the codec's view code stays tested.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import onnx
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor

import onnxdata
from onnxdata import MapProto, ModelProto, SequenceProto, TensorProto, helper
from onnxdata._core import switches
from onnxdata._core.schema import field, spec_of
from tests.support.oracle import ALL_MESSAGE_TYPES, MODEL_MESSAGE_TYPES

LONG = b"L" * 300  # long enough for a view (128 bytes and more)
VIEWS = {("TensorProto", "raw_data")}


def _bytes_fields(desc: Descriptor, seen: set[str]) -> Iterator[tuple[str, str]]:
    if desc.full_name in seen:
        return
    seen.add(desc.full_name)
    for f in desc.fields:
        if f.type == FieldDescriptor.TYPE_BYTES:
            yield desc.name, f.name
        if f.message_type is not None:
            yield from _bytes_fields(f.message_type, seen)


def test_only_raw_data_is_declared_a_view() -> None:
    seen: set[str] = set()
    onnx_fields: set[tuple[str, str]] = set()
    for module in (onnx.onnx_ml_pb2, onnx.onnx_data_pb2):
        for desc in module.DESCRIPTOR.message_types_by_name.values():
            onnx_fields.update(_bytes_fields(desc, seen))
    ours = {
        (cls.__name__, f.name): f.view
        for cls in {*ALL_MESSAGE_TYPES, *MODEL_MESSAGE_TYPES}
        for f in spec_of(cls).fields
        if f.kind == "bytes"
    }
    assert set(ours) == onnx_fields  # a bytes field onnx adds must be decided here
    assert {name for name, view in ours.items() if view} == VIEWS


def test_view_is_refused_on_a_field_that_is_not_bytes() -> None:
    with pytest.raises(ValueError, match="only a bytes field"):
        field(1, "string", default=None, view=True)


def _model() -> ModelProto:
    """A model holding every ``bytes`` field of a model, short and long, at two depths."""
    strings = helper.make_tensor("s", TensorProto.STRING, [3], [b"ab", LONG, b""])
    raw = TensorProto(name="r", data_type=TensorProto.UINT8, dims=[300], raw_data=LONG)
    short_raw = TensorProto(name="q", data_type=TensorProto.UINT8, dims=[2], raw_data=b"ab")
    lstm = helper.make_node(
        "LSTM", ["x", "w", "r"], ["y"], direction="forward", activations=["Sigmoid", "Tanh"]
    )
    lstm.attribute.append(helper.make_attribute("long", LONG))
    lstm.attribute.append(helper.make_attribute("longs", [LONG, b"x"]))
    lstm.attribute.append(helper.make_attribute("t", strings))
    sub = helper.make_graph([helper.make_node("Identity", ["s"], ["o"], note=LONG)], "b", [], [])
    cond = helper.make_node("If", ["c"], ["o"], then_branch=sub, else_branch=sub)
    graph = helper.make_graph([lstm, cond], "g", [], [], initializer=[strings, raw, short_raw])
    return helper.make_model(graph)


def _values(m: Any) -> Iterator[tuple[str, Any]]:
    """Every ``bytes`` field's values in ``m``, at every depth, as ``(field, value)``."""
    for f in spec_of(type(m)).fields:
        held = getattr(m, f.slot)
        if held is None:
            continue
        if f.kind == "bytes":
            for v in held if f.repeated else [held]:
                yield f"{type(m).__name__}.{f.name}", v
        elif f.kind == "message":
            for sub in held if f.repeated else [held]:
                yield from _values(sub)


def _onnx_values(m: Any) -> Iterator[tuple[str, Any]]:
    """The same walk over an onnx message."""
    for f, held in m.ListFields():
        if f.type == FieldDescriptor.TYPE_BYTES:
            for v in held if f.is_repeated else [held]:
                yield f"{m.DESCRIPTOR.name}.{f.name}", v
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            for sub in held if f.is_repeated else [held]:
                yield from _onnx_values(sub)


def _expected(name: str, onnx_type: type, viewed: bool) -> type:
    return memoryview if viewed and tuple(name.split(".")) in VIEWS else onnx_type


LOADERS: dict[str, tuple[Callable[[Path, bytes], Any], bool]] = {
    # name: (load the model from its file or its bytes, whether raw_data is a view)
    "load_model(path)": (lambda p, d: onnxdata.load_model(p), True),
    "load_model(str path)": (lambda p, d: onnxdata.load_model(str(p)), True),
    "load(path)": (lambda p, d: onnxdata.load(p), True),
    "load_model(path, copy=True)": (lambda p, d: onnxdata.load_model(p, copy=True), False),
    "load_model(path, mmap=False)": (lambda p, d: onnxdata.load_model(p, mmap=False), True),
    "load_model(file object)": (lambda p, d: onnxdata.load_model(io.BytesIO(d)), True),
    "load_model_from_string": (lambda p, d: onnxdata.load_model_from_string(d), False),
    "decode(bytes)": (lambda p, d: ModelProto.decode(d), False),
    "decode(memoryview, copy=False)": (
        lambda p, d: ModelProto.decode(memoryview(d), copy=False),
        True,
    ),
    "decode(bytearray, copy=False)": (
        lambda p, d: ModelProto.decode(bytearray(d), copy=False),
        True,
    ),
    "decode(memoryview)": (lambda p, d: ModelProto.decode(memoryview(d)), False),
    "FromString": (lambda p, d: ModelProto.FromString(d), False),
    "ParseFromString(memoryview)": (lambda p, d: _parse(memoryview(d)), False),
}


def _parse(data: Any) -> ModelProto:
    m = ModelProto()
    m.ParseFromString(data)
    return m


@pytest.fixture(params=[False, True], ids=["fast paths", "general paths"])
def paths(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(switches, "GENERAL_PATHS", request.param)
    return bool(request.param)


@pytest.mark.usefixtures("paths")
@pytest.mark.parametrize("how", list(LOADERS))
def test_every_bytes_field_of_a_model_reads_as_onnx_reads_it(how: str, tmp_path: Path) -> None:
    data = _model().encode()
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    load, viewed = LOADERS[how]
    got = list(_values(load(path, data)))
    theirs = list(_onnx_values(onnx.load(str(path))))
    # the same values, in the same order, of the type onnx gives (raw_data: a view when viewed)
    assert [(n, bytes(v)) for n, v in got] == [(n, bytes(v)) for n, v in theirs]
    assert [(n, type(v)) for n, v in got] == [(n, _expected(n, type(v), viewed)) for n, v in theirs]
    assert {type(v) for _, v in theirs} == {bytes}
    # what onnx-graphsurgeon's LSTM importer does
    lstm = load(path, data).graph.node[0]
    assert [a.s.decode() for a in lstm.attribute if a.name == "direction"] == ["forward"]
    assert [s.decode() for a in lstm.attribute if a.name == "activations" for s in a.strings] == [
        "Sigmoid",
        "Tanh",
    ]


@pytest.mark.usefixtures("paths")
@pytest.mark.parametrize("copy", [True, False])
def test_data_files_bytes_fields_are_bytes(copy: bool, tmp_path: Path) -> None:
    strings = helper.make_tensor("s", TensorProto.STRING, [2], [b"ab", LONG])
    keys = MapProto(key_type=TensorProto.STRING, string_keys=[b"k", LONG])
    keys.values.CopyFrom(SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[strings]))
    seq = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[strings, strings])
    for message in (strings, keys, seq):
        data = message.encode()
        path = tmp_path / "d.pb"
        path.write_bytes(data)
        oracle = getattr(onnx, type(message).__name__).FromString(data)
        theirs = [(n, type(v)) for n, v in _onnx_values(oracle)]
        for got in (
            type(message).decode(memoryview(data), copy=copy),
            onnxdata.load(path, type=type(message), copy=copy),
        ):
            assert [(n, type(v)) for n, v in _values(got)] == theirs
    elements = list(onnxdata.iter_sequence(tmp_path / "d.pb", copy=copy))
    assert {type(v) for e in elements for _, v in _values(e)} == {bytes}
    assert [type(v) for v in onnxdata.load_tensor(io.BytesIO(strings.encode())).string_data] == [
        bytes,
        bytes,
    ]


# -- a repeated field declared a view --------------------------------------------

SOURCE = Path(onnxdata.__file__).parent / "_messages" / "declarations.py"
STRING_DATA = 'string_data: MutableSequence[bytes] = field(6, "bytes", default_factory=REPEATED)'


@pytest.fixture(scope="module")
def viewed() -> Iterator[ModuleType]:
    """A copy of the declarations whose ``string_data`` is declared ``view=True``."""
    text = SOURCE.read_text(encoding="utf-8")
    assert text.count(STRING_DATA) == 1
    text = text.replace(STRING_DATA, STRING_DATA[:-1] + ", view=True)")
    name = "onnxdata._messages._declarations_viewed"
    module = ModuleType(name)
    module.__package__ = "onnxdata._messages"
    sys.modules[name] = module
    try:
        exec(compile(text, f"<copy of {SOURCE.name}>", "exec"), module.__dict__)
        yield module
    finally:
        del sys.modules[name]


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_a_repeated_field_declared_a_view_keeps_long_entries_as_views(
    viewed: ModuleType, general: bool, kind: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(switches, "GENERAL_PATHS", general)
    cls = viewed.TensorProto
    # a run long enough for the bytes-run reader, with short and long entries
    entries = [bytes([i % 251]) * (i % 19) for i in range(3000)] + [LONG, b"", b"yz"]
    t = cls(data_type=TensorProto.STRING, dims=[len(entries)], string_data=entries)
    data = t.encode()
    assert data == TensorProto(string_data=entries, dims=[len(entries)], data_type=8).encode()
    v = cls.decode(kind(data), copy=False)
    # 128 bytes and more are views; shorter entries are copies (a view would cost more)
    assert [type(s) for s in v.string_data] == [
        memoryview if len(s) >= 128 else bytes for s in entries
    ]
    assert [bytes(s) for s in v.string_data] == entries and v == t
    assert all(type(s) is bytes for s in cls.decode(kind(data)).string_data)
