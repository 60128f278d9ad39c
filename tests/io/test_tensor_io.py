"""load_tensor / save_tensor / load_tensor_from_string and onnxdata.serialization,
against onnx's functions of the same names."""

from __future__ import annotations

import io
import json
import math
import os
import pathlib
import re
from typing import Any

import onnx
import pytest
from google.protobuf import descriptor_pb2, json_format
from hypothesis import example, given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import DecodeError, SequenceProto, TensorProto, serialization
from onnxdata import strategies as valid
from onnxdata.checker import ValidationError
from tests.support.message_strategies import scaled, tensors
from tests.support.oracle import assert_same, to_oracle

FORMATS = ["protobuf", "textproto", "json"]


def sample() -> TensorProto:
    return TensorProto(
        name="test-tensor",
        data_type=TensorProto.FLOAT,
        dims=[2, 3, 4],
        float_data=[x + 0.5 for x in range(24)],
    )


def onnx_bytes(t: TensorProto, fmt: str) -> bytes:
    out = io.BytesIO()
    onnx.save_tensor(to_oracle(t), out, format=fmt)
    return out.getvalue()


# -- the protobuf format: the same bytes as onnx, both ways -------------------------


@settings(max_examples=scaled(0.4))
@given(tensors(big=False))
def test_save_tensor_writes_onnx_bytes_to_paths_and_file_objects(
    tmp_path_factory: Any, t: TensorProto
) -> None:
    expected = onnx_bytes(t, "protobuf")
    out = io.BytesIO()
    onnxdata.save_tensor(t, out)
    assert out.getvalue() == expected
    path = tmp_path_factory.mktemp("io") / "t.pb"
    onnxdata.save_tensor(t, path)
    assert path.read_bytes() == expected
    onnxdata.save_tensor(t, str(path), format="protobuf")
    assert path.read_bytes() == expected


@settings(max_examples=scaled(0.4))
@given(tensors(big=False))
def test_load_tensor_reads_what_onnx_saved(tmp_path_factory: Any, t: TensorProto) -> None:
    oracle = to_oracle(t)
    path = tmp_path_factory.mktemp("io") / "t.onnx"
    onnx.save_tensor(oracle, str(path))
    data = path.read_bytes()
    for loaded in (
        onnxdata.load_tensor(path),
        onnxdata.load_tensor(str(path), format="protobuf"),
        onnxdata.load_tensor(io.BytesIO(data)),
        onnxdata.load_tensor_from_string(data),
    ):
        assert isinstance(loaded, TensorProto)
        assert_same(loaded, oracle)
        assert loaded.encode() == data


def test_load_tensor_from_a_path_does_not_keep_the_file_mapped(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.pb"
    onnxdata.save_tensor(TensorProto(data_type=1, dims=[1], raw_data=b"abcd"), path)
    t = onnxdata.load_tensor(path)
    assert type(t.raw_data) is bytes  # copied out: the file can be replaced or removed
    path.unlink()
    assert t.raw_data == b"abcd"


def test_save_tensor_takes_onnx_messages() -> None:
    t = sample()
    out = io.BytesIO()
    onnxdata.save_tensor(to_oracle(t), out)
    assert out.getvalue() == t.encode()


def test_check_and_save_take_onnx_messages(tmp_path: pathlib.Path) -> None:
    seq = SequenceProto(name="s", elem_type=1, tensor_values=[sample()])
    onnxdata.save(to_oracle(seq), tmp_path / "s.pb")
    assert (tmp_path / "s.pb").read_bytes() == seq.encode()
    broken = TensorProto(data_type=1, dims=[2], float_data=[1.0])
    assert onnxdata.check(to_oracle(broken)) == onnxdata.check(broken) != []
    with pytest.raises(TypeError, match="onnxdata message"):
        onnxdata.check(42)  # type: ignore[arg-type]


def test_save_tensor_refuses_other_messages_and_values(tmp_path: pathlib.Path) -> None:
    with pytest.raises(TypeError, match="TensorProto"):
        onnxdata.save_tensor(SequenceProto(), io.BytesIO())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="TensorProto"):
        onnxdata.save_tensor(b"\x08\x01", tmp_path / "t.pb")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="path or a file object"):
        onnxdata.save_tensor(sample(), 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="path or a file object"):
        onnxdata.load_tensor(42)  # type: ignore[arg-type]


# -- choosing the format --------------------------------------------------------------


@pytest.mark.parametrize(
    ("extension", "fmt"),
    [(".onnx", "protobuf"), (".pb", "protobuf"), (".bin", "protobuf"), ("", "protobuf"),
     (".txtpb", "textproto"), (".textproto", "textproto"), (".prototxt", "textproto"),
     (".pbtxt", "textproto"), (".json", "json"), (".onnxjson", "json")],
)  # fmt: skip
def test_the_extension_picks_the_format_as_in_onnx(extension: str, fmt: str) -> None:
    found = serialization.registry.get_format_from_file_extension(extension)
    assert found == onnx.serialization.registry.get_format_from_file_extension(extension)
    assert (found or "protobuf") == fmt


def test_an_unknown_format_is_a_value_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="Unsupported format: 'yaml'"):
        serialization.registry.get("yaml")
    with pytest.raises(ValueError, match="Unsupported format"):
        onnxdata.save_tensor(sample(), tmp_path / "t.pb", format="yaml")  # type: ignore[arg-type]
    # onnxtxt is a format of models, graphs, functions and nodes (as onnx's)
    with pytest.raises(ValueError, match="Unsupported proto type"), pytest.warns(UserWarning):
        onnx.load_tensor_from_string(b"", format="onnxtxt")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unsupported proto type"), pytest.warns(UserWarning):
        onnxdata.load_tensor_from_string(b"", format="onnxtxt")  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


def test_a_given_format_wins_over_the_extension(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.json"
    onnxdata.save_tensor(sample(), path, format="protobuf")
    assert path.read_bytes() == sample().encode()
    assert onnxdata.load_tensor(path, format="protobuf") == sample()


def test_a_file_objects_name_picks_the_format_as_in_onnx(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.pb"
    with open(path, "wb") as f:
        onnxdata.save_tensor(sample(), f)
    assert path.read_bytes() == sample().encode()
    with open(path, "rb") as f:
        assert onnxdata.load_tensor(f) == sample()


# -- every format, paths and file objects --------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_round_trips_through_paths_and_file_objects(
    fmt: str, tmp_path: pathlib.Path
) -> None:
    t = sample()
    for path in (tmp_path / "a.onnx", str(tmp_path / "b.onnx")):
        onnxdata.save_tensor(t, path, format=fmt)  # type: ignore[arg-type]
        assert onnxdata.load_tensor(path, format=fmt) == t  # type: ignore[arg-type]
    out = io.BytesIO()
    onnxdata.save_tensor(t, out, format=fmt)  # type: ignore[arg-type]
    assert onnxdata.load_tensor(io.BytesIO(out.getvalue()), format=fmt) == t  # type: ignore[arg-type]
    data = serialization.registry.get(fmt).serialize_proto(t)
    assert onnxdata.load_tensor_from_string(data, format=fmt) == t  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["textproto", "json"])
def test_text_formats_write_what_onnx_writes_and_read_it_back(fmt: str) -> None:
    t = sample()
    expected = onnx_bytes(t, fmt)
    assert serialization.registry.get(fmt).serialize_proto(t) == expected
    assert onnxdata.load_tensor_from_string(expected, format=fmt) == t  # type: ignore[arg-type]
    assert onnxdata.load_tensor_from_string(expected.decode(), format=fmt) == t  # type: ignore[arg-type]


FLOAT32_MAX = 3.4028234663852886e38


def flt_max_refusal(t: TensorProto) -> str | None:
    """What protobuf's JSON Parse says of this tensor's JSON, if it refuses it.

    docs/compat.md: protobuf's JSON writer spells the float32 ±FLT_MAX as
    ``±3.4028235e+38``, and its JSON parser refuses any float32 value beyond
    ±FLT_MAX as a double: that spelling, at both ends ("Float value too
    large" / "too small").  It stops at the first such value.  onnxdata
    reads both back; text format has no such refusal.
    """
    for i, v in enumerate(t.float_data):
        if abs(v) == FLOAT32_MAX:
            word = "large" if v > 0 else "small"
            return f"Float value too {word} at TensorProto.float_data[{i}]"
    return None


def exact_flt_max(js: Any) -> Any:
    """The JSON with each ±3.4028235e+38 of float_data spelt as the exact ±FLT_MAX,
    which protobuf's parser takes: what protobuf would read if it accepted it."""
    js["float_data"] = [
        math.copysign(FLOAT32_MAX, v) if isinstance(v, float) and abs(v) == 3.4028235e38 else v
        for v in js.get("float_data", [])
    ]
    return js


@settings(max_examples=scaled(0.3))
@given(st.sampled_from(["textproto", "json"]), valid.tensors())
@example("json", TensorProto(dims=[2], data_type=1, float_data=[1.0, FLOAT32_MAX]))
@example("json", TensorProto(dims=[2], data_type=1, float_data=[1.0, -FLOAT32_MAX]))
@example("json", TensorProto(dims=[2], data_type=1, float_data=[-FLOAT32_MAX, FLOAT32_MAX]))
@example("textproto", TensorProto(dims=[2], data_type=1, float_data=[1.0, FLOAT32_MAX]))
@example("textproto", TensorProto(dims=[2], data_type=1, float_data=[1.0, -FLOAT32_MAX]))
def test_text_formats_match_onnx_on_generated_tensors(fmt: str, t: TensorProto) -> None:
    expected = onnx_bytes(t, fmt)
    assert serialization.registry.get(fmt).serialize_proto(t) == expected
    ours = onnxdata.load_tensor_from_string(expected, format=fmt)  # type: ignore[arg-type]
    refusal = flt_max_refusal(t) if fmt == "json" else None
    if refusal is None:
        theirs = onnx.load_tensor_from_string(expected, format=fmt)  # type: ignore[arg-type]
    else:
        with pytest.raises(json_format.ParseError, match=re.escape(refusal)):
            onnx.load_tensor_from_string(expected, format=fmt)  # type: ignore[arg-type]
        theirs = json_format.ParseDict(exact_flt_max(json.loads(expected)), onnx.TensorProto())
    assert ours.encode() == theirs.SerializeToString()


@pytest.mark.parametrize("fmt", ["textproto", "json"])
def test_text_formats_are_picked_by_extension(fmt: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / ("t.txtpb" if fmt == "textproto" else "t.json")
    onnxdata.save_tensor(sample(), path)
    assert path.read_bytes() == onnx_bytes(sample(), fmt)
    assert onnxdata.load_tensor(path) == sample()


def test_protobuf_needs_bytes_and_text_formats_take_str() -> None:
    with pytest.raises(TypeError, match="must be bytes"):
        onnxdata.load_tensor_from_string("\x08\x01")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes or str"):
        serialization.registry.get("json").deserialize_proto(42, TensorProto())
    with pytest.raises(DecodeError):
        onnxdata.load_tensor_from_string(b"\x08")


# -- the registry -------------------------------------------------------------------


def test_deserialize_proto_fills_the_message_given_in_place() -> None:
    data = sample().encode()
    protobuf = serialization.registry.get("protobuf")
    target = TensorProto(name="old", doc_string="gone")
    assert protobuf.deserialize_proto(data, target) is target
    assert target == sample()
    theirs = onnx.TensorProto(name="old")
    assert protobuf.deserialize_proto(data, theirs) is theirs
    assert theirs.SerializeToString() == data
    with pytest.raises(TypeError, match="FileDescriptorProto"):
        protobuf.deserialize_proto(data, descriptor_pb2.FileDescriptorProto())
    with pytest.raises(TypeError):
        protobuf.deserialize_proto(data, TensorProto)


def test_serialize_proto_gives_the_bytes_of_every_data_message() -> None:
    protobuf = serialization.registry.get("protobuf")
    seq = SequenceProto(name="s", elem_type=1, tensor_values=[sample()])
    assert protobuf.serialize_proto(seq) == to_oracle(seq).SerializeToString()
    assert protobuf.serialize_proto(to_oracle(seq)) == seq.encode()
    with pytest.raises(TypeError):
        protobuf.serialize_proto(object())


def test_a_registered_format_is_found_by_name_and_extension() -> None:
    class Upper:
        supported_format = "upper-test"
        file_extensions = frozenset({".upper-test"})

        def serialize_proto(self, proto: Any) -> bytes:
            return proto.encode().upper()

        def deserialize_proto(self, serialized: Any, proto: Any) -> Any:
            return proto

    registry = type(serialization.registry)()
    registry.register(Upper())
    assert registry.get_format_from_file_extension(".upper-test") == "upper-test"
    assert registry.get("upper-test").serialize_proto(sample()) == sample().encode().upper()


# -- saving is atomic; loading reads regular files only ------------------------------


def unencodable() -> TensorProto:
    return TensorProto(data_type=1, dims=["x"])  # type: ignore[list-item]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_failed_save_leaves_the_old_file(fmt: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.pb"
    path.write_bytes(b"old contents")
    with pytest.raises(TypeError):
        onnxdata.save_tensor(unencodable(), path, format=fmt)  # type: ignore[arg-type]
    assert path.read_bytes() == b"old contents"
    assert os.listdir(tmp_path) == ["t.pb"]  # no temporary left behind


def test_a_failed_save_to_a_file_object_writes_nothing() -> None:
    out = io.BytesIO()
    with pytest.raises(TypeError):
        onnxdata.save_tensor(unencodable(), out)
    assert out.getvalue() == b""


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_failed_write_leaves_the_old_file(
    fmt: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.pb"
    path.write_bytes(b"old contents")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)  # the data cannot be made durable
    with pytest.raises(OSError, match="No space"):
        onnxdata.save_tensor(sample(), path, format=fmt)  # type: ignore[arg-type]
    monkeypatch.undo()
    assert path.read_bytes() == b"old contents"
    assert os.listdir(tmp_path) == ["t.pb"]


def test_save_replaces_a_symlinks_target_not_the_link(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "real.pb"
    target.write_bytes(b"")
    link = tmp_path / "link.pb"
    link.symlink_to(target)
    onnxdata.save_tensor(sample(), link)
    assert link.is_symlink()
    assert target.read_bytes() == sample().encode()


@pytest.mark.parametrize("fmt", FORMATS)
def test_load_tensor_refuses_what_is_not_a_regular_file(fmt: str, tmp_path: pathlib.Path) -> None:
    fifo = tmp_path / "fifo.pb"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="FIFO"):
        onnxdata.load_tensor(fifo, format=fmt)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="directory"):
        onnxdata.load_tensor(tmp_path, format=fmt)  # type: ignore[arg-type]


# -- external data ------------------------------------------------------------------


def external(tmp_path: pathlib.Path) -> TensorProto:
    (tmp_path / "w.bin").write_bytes(b"\0\0\x80?\0\0\0@")
    return TensorProto(
        name="w",
        data_type=TensorProto.FLOAT,
        dims=[2],
        data_location=TensorProto.EXTERNAL,
        external_data=[onnxdata.StringStringEntryProto(key="location", value="w.bin")],
    )


def test_load_tensor_leaves_external_data_where_it_is_as_onnx_does(
    tmp_path: pathlib.Path,
) -> None:
    t = external(tmp_path)
    path = tmp_path / "t.pb"
    onnxdata.save_tensor(t, path)
    assert onnxdata.load_tensor(path) == t
    assert_same(onnxdata.load_tensor(path), onnx.load_tensor(str(path)))


def test_load_tensor_reads_external_data_when_asked(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.pb"
    onnxdata.save_tensor(external(tmp_path), path)
    loaded = onnxdata.load_tensor(path, load_external_data=True)
    assert loaded.raw_data == b"\0\0\x80?\0\0\0@"
    assert loaded.data_location == TensorProto.DEFAULT
    assert not loaded.external_data
    escaping = external(tmp_path)
    escaping.external_data[0].value = "../w.bin"
    onnxdata.save_tensor(escaping, path)
    with pytest.raises(ValidationError, match=r"'\.\.'"):
        onnxdata.load_tensor(path, load_external_data=True)
