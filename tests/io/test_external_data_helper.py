"""onnxdata.external_data_helper against onnx.external_data_helper: same entries, same
files, same refusals, and the same safety for writing as for reading."""

from __future__ import annotations

import os
import pathlib
import warnings
from typing import Any

import onnx
import onnx.external_data_helper as theirs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata import (
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from onnxdata import external_data_helper as ours
from onnxdata._io import external as _external
from onnxdata.checker import ValidationError
from tests.support.message_strategies import scaled
from tests.support.oracle import to_oracle

E = StringStringEntryProto


@pytest.fixture(autouse=True, params=["dir_fd", "by_path"])
def opener(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs with both ways of opening files: by descriptor, and by path."""
    if request.param == "dir_fd" and not _external.USE_DIR_FD:
        pytest.skip("no dir_fd support here")
    monkeypatch.setattr(_external, "USE_DIR_FD", request.param == "dir_fd")
    return str(request.param)


def tensor(name: str = "w", raw: bytes = b"\x01\x02\x03\x04", **kw: Any) -> TensorProto:
    return TensorProto(name=name, data_type=TensorProto.UINT8, dims=[len(raw)], raw_data=raw, **kw)


def same(mine: TensorProto, onnx_tensor: Any) -> None:
    assert mine.encode() == onnx_tensor.SerializeToString()


# -- ExternalDataInfo --------------------------------------------------------------

_KEYS = st.sampled_from(
    ["location", "offset", "length", "checksum", "basepath", "evil", "__class__"]
)
_VALUES = st.one_of(
    st.integers(-5, 1 << 40).map(str),
    st.sampled_from(["", "abc", "w.bin", "sha256:00"]),
)


@settings(max_examples=scaled(0.4))
@given(st.lists(st.tuples(_KEYS, _VALUES), max_size=6))
def test_external_data_info_reads_entries_as_onnx_does(entries: list[tuple[str, str]]) -> None:
    t = TensorProto(name="t", external_data=[E(key=k, value=v) for k, v in entries])
    results = []
    for make, arg in ((ours.ExternalDataInfo, t), (theirs.ExternalDataInfo, to_oracle(t))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                info = make(arg)
            except ValueError:
                results.append(("ValueError", len(caught)))
                continue
        fields = ("location", "offset", "length", "checksum", "basepath")
        results.append((tuple(getattr(info, k) for k in fields), len(caught)))
    assert results[0] == results[1]


def test_unknown_keys_warn_once_and_never_become_attributes() -> None:
    t = TensorProto(
        name="t",
        external_data=[E(key="location", value="w.bin"), E(key="__class__", value="x"),
                       E(key="evil", value="y")],
    )  # fmt: skip
    with pytest.warns(UserWarning, match=r"unknown external data key.*'__class__'.*'evil'") as w:
        info = ours.ExternalDataInfo(t)
    assert len(w) == 1
    assert type(info) is ours.ExternalDataInfo and not hasattr(info, "evil")
    assert ours._ALLOWED_EXTERNAL_DATA_KEYS == theirs._ALLOWED_EXTERNAL_DATA_KEYS
    assert ours._MAX_EXTERNAL_DATA_PADDING == theirs._MAX_EXTERNAL_DATA_PADDING


# -- set_external_data, uses_external_data, remove_external_data_field -----------------


@settings(max_examples=scaled(0.4))
@given(
    st.binary(max_size=16),
    st.text(min_size=1, max_size=8),
    st.none() | st.integers(0, 1 << 40),
    st.none() | st.integers(0, 1 << 40),
    st.none() | st.text(max_size=4),
    st.none() | st.text(max_size=4),
)
def test_set_external_data_writes_the_entries_onnx_writes(
    raw: bytes, location: str, offset: Any, length: Any, checksum: Any, basepath: Any
) -> None:
    t = tensor(raw=raw, external_data=[E(key="old", value="x")])
    o = to_oracle(t)
    ours.set_external_data(t, location, offset, length, checksum, basepath)
    theirs.set_external_data(o, location, offset, length, checksum, basepath)
    same(t, o)
    assert ours.uses_external_data(t) and theirs.uses_external_data(o)


def test_set_external_data_changes_an_onnx_tensor_in_place() -> None:
    o = to_oracle(tensor())
    expected = to_oracle(tensor())
    ours.set_external_data(o, "w.bin", offset=4)
    theirs.set_external_data(expected, "w.bin", offset=4)
    assert o.SerializeToString() == expected.SerializeToString()
    assert ours.uses_external_data(o)


def test_set_external_data_needs_raw_data() -> None:
    with pytest.raises(ValueError, match="does not have raw_data"):
        ours.set_external_data(TensorProto(name="t", data_type=1, float_data=[1.0]), "w.bin")


def test_uses_external_data_is_the_data_location() -> None:
    assert not ours.uses_external_data(TensorProto())
    assert not ours.uses_external_data(TensorProto(data_location=TensorProto.DEFAULT))
    assert ours.uses_external_data(TensorProto(data_location=TensorProto.EXTERNAL))
    assert not ours.uses_external_data(onnx.TensorProto(data_location=0))
    assert ours.uses_external_data(onnx.TensorProto(data_location=1))
    with pytest.raises(TypeError, match="TensorProto"):
        ours.uses_external_data(SequenceProto())  # type: ignore[arg-type]


def test_remove_external_data_field_removes_every_entry_with_the_key() -> None:
    entries = ["location", "offset", "offset", "length", "offset"]
    t = tensor(external_data=[E(key=k, value="1") for k in entries])
    ours.remove_external_data_field(t, "offset")
    assert [e.key for e in t.external_data] == ["location", "length"]
    # onnx deletes while it iterates and keeps one of two adjacent entries:
    o = to_oracle(tensor(external_data=[E(key=k, value="1") for k in entries]))
    theirs.remove_external_data_field(o, "offset")
    assert [e.key for e in o.external_data] == ["location", "offset", "length"]
    single = to_oracle(tensor(external_data=[E(key="location", value="a"), E(key="x", value="")]))
    ours.remove_external_data_field(single, "x")
    assert [e.key for e in single.external_data] == ["location"]


# -- save_external_data and load_external_data_for_tensor: the same files --------------


@settings(max_examples=scaled(0.2), deadline=None)
@given(
    st.lists(
        st.tuples(st.binary(max_size=40), st.none() | st.integers(0, 70)),
        min_size=1,
        max_size=4,
    )
)
def test_save_external_data_writes_the_file_onnx_writes(
    tmp_path_factory: Any, parts: list[tuple[bytes, int | None]]
) -> None:
    mine, their_dir = tmp_path_factory.mktemp("ours"), tmp_path_factory.mktemp("theirs")
    size = 0
    for i, (raw, gap) in enumerate(parts):
        t = tensor(name=f"t{i}", raw=raw)
        offset = None if gap is None else size + gap
        ours.set_external_data(t, "data.bin", offset=offset)
        o = to_oracle(t)
        ours.save_external_data(t, str(mine))
        theirs.save_external_data(o, str(their_dir))
        same(t, o)
        size = (mine / "data.bin").stat().st_size
        assert (mine / "data.bin").read_bytes() == (their_dir / "data.bin").read_bytes()
        del t.raw_data  # a tensor written out holds only the reference
        t.ClearField("raw_data")
        back, o_back = TensorProto.decode(t.encode()), to_oracle(t)
        ours.load_external_data_for_tensor(back, str(mine))
        theirs.load_external_data_for_tensor(o_back, str(their_dir))
        same(back, o_back)
        assert back.raw_data == raw


def test_load_external_data_for_tensor_bounds_offset_and_length(tmp_path: pathlib.Path) -> None:
    (tmp_path / "data.bin").write_bytes(b"0123456789")
    t = tensor(raw=b"", data_location=TensorProto.EXTERNAL)
    t.ClearField("raw_data")
    t.external_data = [E(key="location", value="data.bin"), E(key="offset", value="11")]
    with pytest.raises(ValueError, match=r"offset.*exceeds file size"):
        ours.load_external_data_for_tensor(t, str(tmp_path))
    t.external_data = [E(key="location", value="data.bin"), E(key="length", value="11")]
    with pytest.raises(ValueError, match=r"length.*exceeds available data"):
        ours.load_external_data_for_tensor(t, str(tmp_path))
    t.external_data = [E(key="location", value="data.bin"), E(key="offset", value="2"),
                       E(key="length", value="3")]  # fmt: skip
    ours.load_external_data_for_tensor(t, str(tmp_path))
    assert t.raw_data == b"234"
    assert t.data_location == TensorProto.DEFAULT
    assert not t.external_data


def test_load_external_data_for_tensor_changes_an_onnx_tensor(tmp_path: pathlib.Path) -> None:
    (tmp_path / "data.bin").write_bytes(b"abcd")
    o = onnx.TensorProto(name="w", data_type=2, dims=[4], data_location=1)
    o.external_data.add(key="location", value="data.bin")
    ours.load_external_data_for_tensor(o, str(tmp_path))
    assert o.raw_data == b"abcd" and not o.external_data


# -- what writing refuses -----------------------------------------------------------


def marked(location: str, offset: int | None = None) -> TensorProto:
    t = tensor()
    ours.set_external_data(t, location, offset=offset)
    return t


@pytest.mark.parametrize("location", ["/etc/passwd", "../outside.bin", "a/../../b.bin", "", "."])
def test_save_refuses_locations_outside_the_base_directory(
    location: str, tmp_path: pathlib.Path
) -> None:
    base = tmp_path / "base"
    base.mkdir()
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(ValidationError):
        ours.save_external_data(marked(location), str(base))
    with pytest.raises(onnx.checker.ValidationError):
        theirs.save_external_data(to_oracle(marked(location)), str(base))
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize(
    "location", ["C:\\x.bin", "C:x.bin", "\\\\server\\share\\x.bin", "a\\..\\..\\x"]
)
def test_windows_paths_are_refused_on_every_system(location: str, tmp_path: pathlib.Path) -> None:
    # onnx, on POSIX, takes them as one file name; a model made for Windows would
    # then write elsewhere there: they are judged as Windows judges them.
    with pytest.raises(ValidationError):
        ours.save_external_data(marked(location), str(tmp_path))
    assert not list(tmp_path.iterdir())


def test_save_refuses_a_symlinked_file_and_leaves_its_target(tmp_path: pathlib.Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"keep")
    base = tmp_path / "base"
    base.mkdir()
    (base / "data.bin").symlink_to(secret)
    with pytest.raises(ValidationError, match="symbolic link"):
        ours.save_external_data(marked("data.bin"), str(base))
    assert secret.read_bytes() == b"keep"


def test_save_refuses_a_dangling_symlink(tmp_path: pathlib.Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "data.bin").symlink_to(tmp_path / "created-elsewhere")
    with pytest.raises(ValidationError, match="symbolic link"):
        ours.save_external_data(marked("data.bin"), str(base))
    assert not (tmp_path / "created-elsewhere").exists()


def test_save_refuses_a_symlinked_directory_on_the_path(tmp_path: pathlib.Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    base = tmp_path / "base"
    base.mkdir()
    (base / "sub").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValidationError, match="symbolic link"):
        ours.save_external_data(marked("sub/data.bin"), str(base))
    assert not list(outside.iterdir())


def test_save_refuses_hard_links_and_fifos(tmp_path: pathlib.Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"keep")
    base = tmp_path / "base"
    base.mkdir()
    os.link(secret, base / "data.bin")
    with pytest.raises(ValidationError, match="hard links"):
        ours.save_external_data(marked("data.bin"), str(base))
    assert secret.read_bytes() == b"keep"
    os.mkfifo(base / "fifo.bin")
    with pytest.raises(ValidationError, match="not a regular file"):
        ours.save_external_data(marked("fifo.bin"), str(base))


def test_save_into_a_missing_directory_is_an_os_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        ours.save_external_data(marked("no/such/dir.bin"), str(tmp_path))
    assert not list(tmp_path.iterdir())


def test_save_writes_into_an_existing_subdirectory(tmp_path: pathlib.Path) -> None:
    (tmp_path / "sub").mkdir()
    t = marked("sub/data.bin")
    ours.save_external_data(t, str(tmp_path))
    assert (tmp_path / "sub" / "data.bin").read_bytes() == t.raw_data


@pytest.mark.parametrize(
    ("existing", "offset"),
    [(b"", ours._MAX_EXTERNAL_DATA_PADDING + 1), (b"0123456789", 4), (b"0123456789", 9)],
)
def test_an_offset_that_would_overwrite_or_over_pad_writes_nothing(
    existing: bytes, offset: int, tmp_path: pathlib.Path
) -> None:
    (tmp_path / "data.bin").write_bytes(existing)
    with pytest.raises(ValidationError, match=r"offset.*must be between"):
        ours.save_external_data(marked("data.bin", offset), str(tmp_path))
    assert (tmp_path / "data.bin").read_bytes() == existing


@pytest.mark.parametrize("offset", [0, ours._MAX_EXTERNAL_DATA_PADDING])
def test_padding_up_to_the_cap_is_written(offset: int, tmp_path: pathlib.Path) -> None:
    t = marked("data.bin", offset)
    ours.save_external_data(t, str(tmp_path))
    data = (tmp_path / "data.bin").read_bytes()
    assert data == bytes(offset) + b"\x01\x02\x03\x04"
    assert {e.key: e.value for e in t.external_data} == {
        "location": "data.bin", "offset": str(offset), "length": "4"}  # fmt: skip


def test_a_failed_write_is_cut_back(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data.bin").write_bytes(b"old")
    real_write = os.write
    calls = []

    def half_then_full(fd: int, data: Any) -> int:
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real_write(fd, bytes(data)[: max(1, len(data) // 2)])

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(OSError, match="No space"):
        ours.save_external_data(marked("data.bin", 5), str(tmp_path))
    monkeypatch.undo()
    assert (tmp_path / "data.bin").read_bytes() == b"old"


def test_save_needs_raw_data(tmp_path: pathlib.Path) -> None:
    t = marked("data.bin")
    t.ClearField("raw_data")
    with pytest.raises(ValidationError, match="raw_data field doesn't exist"):
        ours.save_external_data(t, str(tmp_path))
    assert not list(tmp_path.iterdir())


# -- many tensors: the tensor versions of onnx's model functions ------------------------


def tensors3() -> list[TensorProto]:
    return [tensor("a", bytes(range(10))), tensor("small", b"\x01"), tensor("c", b"xyz" * 5)]


def test_writing_tensors_out_gives_onnx_s_file_and_entries(tmp_path: pathlib.Path) -> None:
    mine = tensors3()
    graph = onnx.helper.make_graph([], "g", [], [], initializer=[to_oracle(t) for t in mine])
    model = onnx.helper.make_model(graph)
    (tmp_path / "ours").mkdir()
    (tmp_path / "theirs").mkdir()
    ours.convert_tensors_to_external_data(mine, location="data.bin", size_threshold=8)
    # onnx compares sys.getsizeof(raw_data), 33 bytes more than the data's length
    theirs.convert_model_to_external_data(model, location="data.bin", size_threshold=8 + 33)
    ours.write_external_data_tensors(mine, str(tmp_path / "ours"))
    theirs.write_external_data_tensors(model, str(tmp_path / "theirs"))
    for t, o in zip(mine, model.graph.initializer, strict=True):
        same(t, o)
    assert [ours.uses_external_data(t) for t in mine] == [True, False, True]
    assert (tmp_path / "ours/data.bin").read_bytes() == (tmp_path / "theirs/data.bin").read_bytes()
    ours.load_external_data_for_tensors(mine, str(tmp_path / "ours"))
    assert [t.raw_data for t in mine] == [t.raw_data for t in tensors3()]
    assert not any(ours.uses_external_data(t) for t in mine)


def test_one_file_per_tensor_is_named_after_the_tensor(tmp_path: pathlib.Path) -> None:
    mine = [tensor("w1"), tensor(".."), tensor("a/b"), tensor("")]
    ours.convert_tensors_to_external_data(mine, all_tensors_to_one_file=False, size_threshold=0)
    locations = [t.external_data[0].value for t in mine]
    assert locations[0] == "w1"
    assert all(loc not in ("..", "a/b", "") for loc in locations[1:])
    ours.write_external_data_tensors(mine, str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == sorted(locations)


def test_converting_refuses_an_escaping_location_first() -> None:
    mine = tensors3()
    with pytest.raises(ValidationError):
        ours.convert_tensors_to_external_data(mine, location="/tmp/x.bin", size_threshold=0)
    assert mine == tensors3()


def test_convert_from_external_data_keeps_the_values() -> None:
    mine = tensors3()
    ours.convert_tensors_to_external_data(mine, location="d.bin", size_threshold=0)
    ours.convert_tensors_from_external_data(mine)
    assert mine == [TensorProto.decode(t.encode()) for t in mine]
    assert all(t.data_location == TensorProto.DEFAULT and not t.external_data for t in mine)
    gone = tensor(data_location=TensorProto.EXTERNAL)
    gone.ClearField("raw_data")
    with pytest.raises(ValueError, match="raw_data field doesn't exist"):
        ours.convert_tensors_from_external_data([gone])


def nested() -> SequenceProto:
    a, b, c, d = (tensor(n, bytes(12)) for n in "abcd")
    sparse = SparseTensorProto(values=b, indices=c, dims=[12])
    inner = MapProto(key_type=7, keys=[1], values=SequenceProto(elem_type=1, tensor_values=[d]))
    return SequenceProto(
        elem_type=4,
        sequence_values=[
            SequenceProto(elem_type=1, tensor_values=[a]),
            SequenceProto(elem_type=2, sparse_tensor_values=[sparse]),
            SequenceProto(elem_type=3, map_values=[inner]),
        ],
    )


def test_get_all_tensors_finds_every_tensor_in_field_order() -> None:
    assert [t.name for t in ours.get_all_tensors(nested())] == ["a", "b", "c", "d"]
    assert [t.name for t in ours.get_all_tensors(tensor("x"))] == ["x"]
    opt = OptionalProto(elem_type=1, tensor_value=tensor("y"))
    assert [t.name for t in ours.get_all_tensors(opt)] == ["y"]
    assert [t.name for t in ours.get_all_tensors(to_oracle(nested()))] == ["a", "b", "c", "d"]


def test_a_data_message_goes_out_and_back_in_place(tmp_path: pathlib.Path) -> None:
    seq = nested()
    ours.convert_tensors_to_external_data(seq, location="d.bin", size_threshold=0)
    ours.write_external_data_tensors(seq, str(tmp_path))
    assert not any(t.HasField("raw_data") for t in ours.get_all_tensors(seq))
    assert (tmp_path / "d.bin").stat().st_size == 4 * 12
    ours.load_external_data_for_tensors(seq, str(tmp_path))
    for t in ours.get_all_tensors(seq):
        assert (t.raw_data, t.data_location, list(t.external_data)) == (bytes(12), 0, [])


def test_an_onnx_data_message_is_changed_in_place(tmp_path: pathlib.Path) -> None:
    o = to_oracle(nested())
    ours.convert_tensors_to_external_data(o, location="d.bin", size_threshold=0)
    ours.write_external_data_tensors(o, str(tmp_path))
    assert all(t.data_location == 1 for t in ours.get_all_tensors(o))
    ours.load_external_data_for_tensors(o, str(tmp_path))
    assert [t.raw_data for t in ours.get_all_tensors(o)] == [bytes(12)] * 4
    assert all(t.data_location == 0 for t in ours.get_all_tensors(o))


def test_anything_else_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="iterable of TensorProto"):
        ours.convert_tensors_to_external_data(42)
    with pytest.raises(TypeError, match="TensorProto"):
        ours.convert_tensors_to_external_data([SequenceProto()])
