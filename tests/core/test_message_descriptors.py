"""Every message class's ``DESCRIPTOR`` against onnx's, attribute by attribute.

Code written for onnx walks messages through protobuf's descriptors
(onnxslim: ``for fd in tensor.DESCRIPTOR.fields: getattr(tensor, fd.name)``),
so onnxdata's, made from the schema, must hold protobuf's names, numbers,
types and constants.  And since onnxdata's messages now have a
``DESCRIPTOR``, they must never be taken for onnx's (foreign) messages.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import onnx
import pytest
from google.protobuf.descriptor import FieldDescriptor as ProtobufField

import onnxdata
from onnxdata._core.foreign import foreign_class_name, foreign_name
from onnxdata._messages.catalog import all_message_types
from onnxdata._messages.convert import as_message
from tests.support.oracle import ORACLE

CLASSES = all_message_types()
_ids = {"ids": lambda c: c.__qualname__}


def _name(d: Any) -> Any:
    return None if d is None else d.full_name


def _field(fd: Any) -> dict[str, Any]:
    """What protobuf 7's upb FieldDescriptor shows of a field, made comparable."""
    scalar = fd.type not in (fd.TYPE_MESSAGE,) and not fd.is_repeated
    return {
        "name": fd.name,
        "full_name": fd.full_name,
        "index": fd.index,
        "number": fd.number,
        "type": fd.type,
        "cpp_type": fd.cpp_type,
        "is_repeated": fd.is_repeated,
        "is_required": fd.is_required,
        "is_packed": fd.is_packed,
        "is_extension": fd.is_extension,
        "extension_scope": fd.extension_scope,
        "has_presence": fd.has_presence,
        "has_default_value": fd.has_default_value,
        "default": (type(fd.default_value), fd.default_value) if scalar else fd.default_value,
        "json_name": fd.json_name,
        "camelcase_name": fd.camelcase_name,
        "message_type": _name(fd.message_type),
        "enum_type": _name(fd.enum_type),
        "containing_type": _name(fd.containing_type),
        "containing_oneof": _name(fd.containing_oneof),
        "file": fd.file.name,
    }


def _message(d: Any) -> dict[str, Any]:
    return {
        "name": d.name,
        "full_name": d.full_name,
        "containing_type": _name(d.containing_type),
        "file": (d.file.name, d.file.package),
        "fields": [f.name for f in d.fields],
        "fields_by_name": {k: v.full_name for k, v in d.fields_by_name.items()},
        "fields_by_number": {k: v.full_name for k, v in d.fields_by_number.items()},
        "fields_by_camelcase_name": {k: v.full_name for k, v in d.fields_by_camelcase_name.items()},
        "oneofs": [
            (o.name, o.full_name, o.index, [f.name for f in o.fields], o.containing_type.full_name)
            for o in d.oneofs
        ],
        "oneofs_by_name": {k: v.full_name for k, v in d.oneofs_by_name.items()},
        "nested_types": [n.full_name for n in d.nested_types],
        "nested_types_by_name": {k: v.full_name for k, v in d.nested_types_by_name.items()},
        "enum_types": [e.full_name for e in d.enum_types],
        "enum_types_by_name": {k: v.full_name for k, v in d.enum_types_by_name.items()},
        "enum_values_by_name": {
            k: (v.number, v.type.full_name) for k, v in d.enum_values_by_name.items()
        },
        "extensions": list(d.extensions),
        "extension_ranges": list(d.extension_ranges),
        "is_extendable": d.is_extendable,
        "has_options": d.has_options,
    }


@pytest.mark.parametrize("cls", CLASSES, **_ids)
def test_descriptor_is_onnxs(cls: Any) -> None:
    ours, theirs = cls.DESCRIPTOR, ORACLE[cls].DESCRIPTOR
    assert _message(ours) == _message(theirs)
    assert [_field(f) for f in ours.fields] == [_field(f) for f in theirs.fields]
    for a, b in zip(ours.fields, theirs.fields, strict=True):
        assert a.containing_type is ours
        assert (a.message_type is None) == (b.message_type is None)
        if a.message_type is not None:  # the same object as the field's class's descriptor
            assert a.message_type is cls._SPEC.by_name[a.name].message.DESCRIPTOR
    for enum in theirs.enum_types:
        for value in enum.values:
            assert ours.EnumValueName(enum.name, value.number) == theirs.EnumValueName(
                enum.name, value.number
            )


@pytest.mark.parametrize("cls", CLASSES, **_ids)
def test_descriptor_is_made_once_and_read_only(cls: Any) -> None:
    d = cls.DESCRIPTOR
    assert cls().DESCRIPTOR is d and cls.DESCRIPTOR is d
    assert d._concrete_class is cls
    m = cls()
    with pytest.raises(AttributeError):
        m.DESCRIPTOR = None
    with pytest.raises(AttributeError):
        del m.DESCRIPTOR
    with pytest.raises(TypeError):
        d.fields_by_name["x"] = d.fields[0] if d.fields else None  # type: ignore[index]
    assert isinstance(d.fields, tuple)


def test_the_field_constants_are_protobufs() -> None:
    ours = type(onnxdata.TensorProto.DESCRIPTOR.fields[0])
    names = [n for n in dir(ProtobufField) if n.isupper() or n.startswith("MAX_")]
    names = [n for n in names if not n.startswith("_") and type(getattr(ProtobufField, n)) is int]
    assert len(names) == 37  # 18 types, 10 C++ types, 3 labels, their maxima, 3 limits
    for name in names:
        assert getattr(ours, name) == getattr(ProtobufField, name), name
    # protobuf 7's upb FieldDescriptor has no ``label``: neither has ours.
    theirs = onnx.TensorProto.DESCRIPTOR.fields[0]
    assert hasattr(theirs, "label") == hasattr(onnxdata.TensorProto.DESCRIPTOR.fields[0], "label")


_FRESH = """
import sys, onnxdata
d = onnxdata.TypeProto.Tensor.DESCRIPTOR
print(d.containing_type.full_name, d.containing_type is onnxdata.TypeProto.DESCRIPTOR)
print(sorted(n.full_name for n in onnxdata.TypeProto.DESCRIPTOR.nested_types)[0])
from onnxdata._messages.catalog import all_message_types
wrong = []
for cls in reversed(all_message_types()):  # nested ones before their parents
    d = cls.DESCRIPTOR
    parent = d.containing_type
    if parent is not None and not any(n is d for n in parent.nested_types):
        wrong.append(d.full_name)
    for f in d.fields:
        m = f.message_type
        if m is not None and m._concrete_class.DESCRIPTOR is not m:
            wrong.append(f.full_name)
print(len(all_message_types()), wrong)
"""


def test_a_nested_descriptor_asked_first_knows_its_parent() -> None:
    # A fresh interpreter, so that the nested descriptor is the first one built
    # (``import onnxdata`` builds none: each is built on its first read).
    out = subprocess.run(
        [sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:3] == ["onnx.TypeProto True", "onnx.TypeProto.Map", "31 []"]
    assert onnxdata.Message.__dict__["DESCRIPTOR"] is not None
    assert not hasattr(onnxdata.Message, "DESCRIPTOR")  # the base is no message


def _plain(value: Any) -> Any:
    return value if isinstance(value, (str, bytes, int, float)) else list(value)


def test_onnxslim_compares_tensors_through_the_descriptor() -> None:
    # onnxslim's LazyValues.__eq__: every field of the descriptor, read by name.
    t = onnxdata.TensorProto(name="w", dims=[2], data_type=1, float_data=[1.0, 2.0])
    u = onnx.TensorProto.FromString(t.encode())

    def fields(m: Any) -> list[tuple[str, Any]]:
        return [
            (fd.name, _plain(getattr(m, fd.name)))
            for fd in m.DESCRIPTOR.fields
            if fd.type != fd.TYPE_MESSAGE
        ]

    assert fields(t) == fields(u)
    assert ("float_data", [1.0, 2.0]) in fields(t)


@pytest.mark.parametrize("cls", CLASSES, **_ids)
def test_onnxdatas_messages_are_never_foreign_and_onnxs_are(cls: Any) -> None:
    ours = cls()
    assert foreign_class_name(cls) is None and foreign_name(ours) is None
    theirs = ORACLE[cls]()
    assert foreign_class_name(ORACLE[cls]) == cls.DESCRIPTOR.full_name
    assert foreign_name(theirs) == cls.DESCRIPTOR.full_name
    assert as_message(ours, cls) is ours
    assert type(as_message(theirs, cls)) is cls
    others = [c for c in CLASSES if c is not cls and c.DESCRIPTOR.name == cls.DESCRIPTOR.name]
    for other in others:  # same short name elsewhere (TypeProto.Tensor, SparseTensor...)
        with pytest.raises(TypeError):
            as_message(ours, other)
