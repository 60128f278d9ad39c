"""One schema: a field added to the declarations reaches every layer with no other edit.

A copy of ``onnxdata/_messages/declarations.py`` gets two new fields (a string at number
17 in TensorProto, a repeated int64 in SequenceProto) and is loaded as a
module of its own.  Encoding, decoding (both modes), streaming, JSON, the
validator and ``show`` then handle the new fields, and the bytes are what
protobuf writes for such fields: the real classes, which do not know them,
keep them as unknown fields byte for byte.
"""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import onnxdata
from onnxdata import json_format, text_format
from onnxdata._core.schema import FieldSpec, spec_of
from onnxdata._tools import show as _show

SOURCE = Path(onnxdata.__file__).parent / "_messages" / "declarations.py"


def _load_copy(name: str, edits: list[tuple[str, str]]) -> ModuleType:
    text = SOURCE.read_text(encoding="utf-8")
    for anchor, added in edits:
        assert text.count(anchor) == 1, anchor
        text = text.replace(anchor, anchor + added)
    spec = importlib.util.spec_from_loader(f"onnxdata._messages.{name}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "onnxdata._messages"
    sys.modules[spec.name] = module
    exec(compile(text, f"<copy of {SOURCE.name}>", "exec"), module.__dict__)
    return module


TENSOR_ANCHOR = """        16, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
"""
SEQUENCE_ANCHOR = """        7, "message", message="OptionalProto", default_factory=REPEATED
    )
"""


@pytest.fixture(scope="module")
def extended() -> Any:
    module = _load_copy(
        "_messages_extended",
        [
            (TENSOR_ANCHOR, '    extra_note: str | None = field(17, "string", default=None)\n'),
            (
                SEQUENCE_ANCHOR,
                '    extra_ids: MutableSequence[int] = field(8, "int64", '
                "default_factory=REPEATED)\n",
            ),
        ],
    )
    yield module
    del sys.modules[module.__name__]


def test_the_copy_declares_the_new_fields(extended: Any) -> None:
    note = spec_of(extended.TensorProto).by_number[17]
    assert isinstance(note, FieldSpec)
    assert (note.name, note.kind, note.json_name, note.tag) == (
        "extra_note", "string", "extraNote", b"\x8a\x01",
    )  # fmt: skip
    assert spec_of(extended.SequenceProto).by_name["extra_ids"].repeated
    blank = extended.TensorProto()
    assert blank.extra_note == "" and not blank.HasField("extra_note")
    blank.extra_note = ""  # set to its default: present, and written
    assert blank.HasField("extra_note") and blank.encode() == b"\x8a\x01\x00"
    assert list(extended.SequenceProto().extra_ids) == []


def _sample(m: Any) -> Any:
    t = m.TensorProto(dims=[2], data_type=m.TensorProto.FLOAT, float_data=[1.0, 2.0])
    t.extra_note = "nöte"
    return m.SequenceProto(elem_type=1, tensor_values=[t], extra_ids=[5, -1, 300])


def test_encode_writes_the_new_fields_as_protobuf_does(extended: Any) -> None:
    data = _sample(extended).encode()
    # The real classes do not know the fields: they keep them, byte for byte.
    plain = onnxdata.SequenceProto.decode(data)
    note = "nöte".encode()
    assert plain.tensor_values[0].unknown_fields == b"\x8a\x01" + bytes([len(note)]) + note
    minus_one = b"\xff" * 9 + b"\x01"
    assert plain.unknown_fields == b"\x40\x05\x40" + minus_one + b"\x40\xac\x02"
    assert plain.encode() == data


@pytest.mark.parametrize("copy", [True, False])
def test_decode_reads_the_new_fields(extended: Any, copy: bool) -> None:
    msg = _sample(extended)
    back = extended.SequenceProto.decode(msg.encode(), copy=copy)
    assert back == msg
    assert back.tensor_values[0].extra_note == "nöte"
    assert list(back.extra_ids) == [5, -1, 300]
    # Packed on the wire, as a parser may also meet it.
    packed = extended.SequenceProto.decode(b"\x42\x03\x05\xac\x02", copy=copy)
    assert list(packed.extra_ids) == [5, 300]


def test_streaming_writes_the_same_bytes(extended: Any) -> None:
    msg = _sample(extended)
    out = io.BytesIO()
    assert msg.encode_to(out) == len(msg.encode())
    assert out.getvalue() == msg.encode()


def test_json_names_and_reads_the_new_fields(extended: Any) -> None:
    msg = _sample(extended)
    obj = json_format.MessageToDict(msg)
    assert obj["extraIds"] == ["5", "-1", "300"]
    assert obj["tensorValues"][0]["extraNote"] == "nöte"
    assert json_format.ParseDict(obj, extended.SequenceProto()) == msg
    text = text_format.MessageToString(msg)
    assert "extra_ids: 300" in text
    assert text_format.Parse(text, extended.SequenceProto()) == msg


def test_check_and_show_walk_the_new_fields(extended: Any) -> None:
    msg = _sample(extended)
    assert onnxdata.check(msg) == []
    bad = _sample(extended)
    bad.tensor_values[0].dims = [3]  # 2 values for 3 elements: the tensor rules still apply
    assert [v.path for v in onnxdata.check(bad)]
    shown = "\n".join(_show.outline(msg))
    assert "extra_note" in shown or "nöte" in shown
    assert "extra_ids" in shown or "300" in shown


def test_a_wrong_declaration_is_refused() -> None:
    from onnxdata._core.schema import REPEATED, field

    with pytest.raises(ValueError, match="unknown field kind"):
        field(1, "int8", default=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not allowed"):
        field(19_000, "string", default=None)
    with pytest.raises(ValueError, match="packed"):
        field(1, "string", packed=True, default_factory=REPEATED)
    with pytest.raises(ValueError, match="names its message"):
        field(1, "message", default=None)


def test_a_subclass_of_a_message_decodes_to_itself_and_encodes_as_its_message() -> None:
    class Named(onnxdata.TensorProto):
        __slots__ = ()

    t = Named(dims=[2], name="x")
    data = t.encode()
    assert data == onnxdata.TensorProto(dims=[2], name="x").encode()
    back = Named.decode(data)
    assert type(back) is Named and back == t
    assert type(Named.decode(data, copy=False)) is Named
