"""A loaded model never takes its file down with it (issue 38, classes 1, 7 and 11).

1. ``m = load_model(p)`` then onnx's idioms over the same file (``open(p, "wb")``
   and ``f.write(m.SerializeToString())``, ``save_model(m, f)``, ``save_tensor``)
   work as with onnx: by default every loader reads the file into a buffer the
   model owns.  The mapped way (``mmap=True``) is asked for by name; there, a
   file that shrank under its mapping makes the package's own readers raise
   ``MappedFileError`` instead of dying of SIGBUS (in a subprocess: a miss would
   be that signal): encoding, saving, ``to_array``, ``==``, text format, JSON,
   ``deepcopy``, ``pickle``, ``CopyFrom``.
7. No descriptor per mapping: 100 external files load, and 100 mapped tensors
   stay alive, under a descriptor limit of 64 (in a subprocess); a
   ``Descriptor`` whose ``__init__`` never ran closes and is collected quietly.
11. ``max_size`` holds on both paths for a file that grows between the size
   check and the read or the mapping.
"""

from __future__ import annotations

import gc
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

import onnxdata
import onnxdata._io.file_buffers as file_buffers
from onnxdata import DecodeError, TensorProto, external_data_helper, helper, numpy_helper
from onnxdata._core import mapped
from onnxdata._io.owned import Descriptor

POSIX_FDS = os.path.isdir("/proc/self/fd") and hasattr(os, "fork")


def weights_model(n: int = 3, size: int = 5000) -> Any:
    """A small model with ``n`` float32 initializers of ``size`` values each."""
    inits = [
        numpy_helper.from_array(np.arange(size, dtype=np.float32) + i, name=f"w{i}")
        for i in range(n)
    ]
    nodes = [helper.make_node("Identity", [f"w{i}"], [f"y{i}"]) for i in range(n)]
    outs = [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [size]) for i in range(n)]
    graph = helper.make_graph(nodes, "g", [], outs, inits)
    return helper.make_model(graph)


# -- 1. the default: a model owns its bytes -------------------------------------------


@pytest.mark.parametrize("idiom", ["write_serialized", "save_model_to_file", "save_model_path"])
def test_load_modify_save_over_the_same_file_as_onnx_does(tmp_path: Path, idiom: str) -> None:
    path = tmp_path / "m.onnx"
    onnx.save_model(onnx.load_model_from_string(weights_model().encode()), path)
    original = path.read_bytes()
    ours = onnxdata.load_model(path)
    theirs = onnx.load_model(path)
    for m in (ours, theirs):
        m.graph.doc_string = "edited"
    expected = theirs.SerializeToString()
    if idiom == "write_serialized":
        with open(path, "wb") as f:  # truncates the file the model came from
            f.write(ours.SerializeToString())
    elif idiom == "save_model_to_file":
        with open(path, "wb") as f:
            onnxdata.save_model(ours, f)
    else:
        onnxdata.save_model(ours, path)
    assert path.read_bytes() == expected != original
    assert onnx.load_model(path) == theirs


def test_every_loader_s_result_survives_its_file_being_rewritten(tmp_path: Path) -> None:
    tensor = numpy_helper.from_array(np.arange(20000, dtype=np.int64), name="t")
    path = tmp_path / "t.pb"
    path.write_bytes(tensor.encode())
    loaded = [
        onnxdata.load(path),
        onnxdata.load(path, TensorProto),
        onnxdata.load_tensor(path),
        *onnxdata.iter_sequence(_sequence_file(tmp_path, tensor)),
    ]
    for p in (path, tmp_path / "seq.pb"):
        with open(p, "wb") as f:  # truncated, then rewritten shorter
            f.write(b"\x08\x01")
    for got in loaded:
        assert got == tensor
        np.testing.assert_array_equal(numpy_helper.to_array(got), np.arange(20000))
        with open(path, "wb") as f:
            onnxdata.save_tensor(got, f)
        assert TensorProto.decode(path.read_bytes()) == tensor


def _sequence_file(folder: Path, tensor: TensorProto) -> Path:
    path = folder / "seq.pb"
    path.write_bytes(onnxdata.SequenceProto(tensor_values=[tensor], elem_type=1).encode())
    return path


def test_external_data_is_read_and_its_files_may_be_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    onnxdata.save_model(weights_model(), path, save_as_external_data=True, location="w.bin")
    expected = onnx.load_model(path).SerializeToString()
    model = onnxdata.load_model(path)
    assert all(type(t.raw_data) is bytes for t in model.graph.initializer)  # as onnx holds them
    (tmp_path / "w.bin").write_bytes(b"")
    assert model.SerializeToString() == expected
    onnxdata.save_model(weights_model(), tmp_path / "n.onnx", save_as_external_data=True,
                        location="v.bin")  # fmt: skip
    helper_loaded = onnxdata.load_model(tmp_path / "n.onnx", load_external_data=False)
    external_data_helper.load_external_data_for_model(helper_loaded, str(tmp_path))
    (tmp_path / "v.bin").write_bytes(b"")
    assert helper_loaded.SerializeToString() == expected


def test_the_default_load_keeps_one_copy_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    onnxdata.save_model(weights_model(), path)
    model = onnxdata.load_model(path)
    owners = {id(t.raw_data.obj) for t in model.graph.initializer}
    assert len(owners) == 1  # every initializer a view of the one buffer read
    raw = model.graph.initializer[0].raw_data
    assert raw.readonly and not mapped.is_mapped(raw)
    assert len(raw.obj) == path.stat().st_size


# -- 1. the mapped way: a file that shrank is an error, never a signal ----------------

_SHRUNK = """
import copy, os, pickle, sys
import numpy as np
import onnxdata
from onnxdata import MappedFileError, TensorProto, checker, json_format, numpy_helper
from onnxdata._core import mapped
from tests.io.test_loads_own_their_bytes import weights_model

folder = sys.argv[1]
if sys.argv[2] == "stdlib":  # the other way of mapping: Python's mmap as it is
    mapped._map_ctypes = lambda fd, length: None
path = os.path.join(folder, "m.onnx")
onnxdata.save_model(weights_model(), path)
model = onnxdata.load_model(path, mmap=True)
raw = model.graph.initializer[0].raw_data
assert mapped.is_mapped(raw), type(raw.obj)
onnxdata.save_model(model, path)  # a rename: the mapped file is left whole
assert model.SerializeToString() == weights_model().encode()
model = onnxdata.load_model(path, mmap=True)
owned = onnxdata.load_model(path)
t_path = os.path.join(folder, "t.pb")
onnxdata.save_tensor(model.graph.initializer[1], t_path)
tensor = onnxdata.load(t_path, TensorProto, mmap=True)
floats = TensorProto(dims=[4000], data_type=1, float_data=np.arange(4000.0).tolist())
f_path = os.path.join(folder, "f.pb")
onnxdata.save(floats, f_path)
packed = onnxdata.load(f_path, TensorProto, mmap=True)
assert type(packed.float_data) is memoryview
s_path = os.path.join(folder, "s.onnx")
values = numpy_helper.from_array(np.arange(4000, dtype=np.float32), "v")
indices = numpy_helper.from_array(np.arange(4000, dtype=np.int64), "i")
sparse = onnxdata.helper.make_sparse_tensor(values, indices, [8000])
onnxdata.save_model(onnxdata.helper.make_model(
    onnxdata.helper.make_graph([], "g", [], [], sparse_initializer=[sparse])), s_path)
sparse_model = onnxdata.load_model(s_path, mmap=True)
for p in (path, t_path, f_path, s_path):
    with open(p, "wb") as f:
        f.write(b"\\x08\\x01")
checks = {
    "SerializeToString": model.SerializeToString,
    "encode": model.encode,
    "ByteSize": model.ByteSize,
    "save_model": lambda: onnxdata.save_model(model, os.path.join(folder, "other.onnx")),
    "save_model external": lambda: onnxdata.save_model(
        model, os.path.join(folder, "other.onnx"), save_as_external_data=True,
        location="other.bin", size_threshold=0),
    "to_array": lambda: numpy_helper.to_array(model.graph.initializer[0]),
    "save_tensor": lambda: onnxdata.save_tensor(tensor, os.path.join(folder, "t2.pb")),
    "tensor to_array": lambda: numpy_helper.to_array(tensor),
    "float_data": packed.SerializeToString,
    "float to_array": lambda: numpy_helper.to_array(packed),
    "==": lambda: model == owned,
    "str": lambda: str(model),
    "MessageToJson": lambda: json_format.MessageToJson(model),
    "deepcopy": lambda: copy.deepcopy(model),
    "pickle": lambda: pickle.dumps(model),
    "CopyFrom": lambda: onnxdata.ModelProto().CopyFrom(model),
    "float str": lambda: str(packed),
    "check": lambda: onnxdata.check(model),
    "make_sequence": lambda: onnxdata.helper.make_sequence("s", 1, [tensor]),
    "make_attribute": lambda: onnxdata.helper.make_attribute("a", tensor),
    "make_graph": lambda: onnxdata.helper.make_graph([], "g", [], [], [tensor]),
    "checker sparse": lambda: checker.check_model(sparse_model),
    "check_sparse_tensor": lambda: checker.check_sparse_tensor(
        sparse_model.graph.sparse_initializer[0]),
}
for name, call in checks.items():
    try:
        call()
    except MappedFileError as err:
        assert isinstance(err, OSError) and "shrank" in str(err), (name, str(err))
        assert err.filename in (path, t_path, f_path, s_path), (name, err.filename)
    else:
        raise AssertionError(name + " did not raise")
with open(path, "wb") as f:
    try:
        onnxdata.save_model(model, f)  # onto the truncated file itself
    except MappedFileError:
        pass
    else:
        raise AssertionError("save_model onto the open file did not raise")
assert not os.path.exists(os.path.join(folder, "other.onnx"))
assert not os.path.exists(os.path.join(folder, "other.bin"))  # was EFAULT after writing it
# Shrunk between the mapping and the decoding: the load itself says so.
late = os.path.join(folder, "late.pb")
onnxdata.save(floats, late)
way = "_map_stdlib" if sys.argv[2] == "stdlib" or mapped._TRACKFD else "_map_ctypes"
real = getattr(mapped, way)
if real(os.open(late, os.O_RDONLY), 1) is not None:  # this way maps on this Python
    def shrinking(fd, length):
        made = real(fd, length)
        os.truncate(late, 10)
        return made
    setattr(mapped, way, shrinking)
    try:
        onnxdata.load(late, TensorProto, mmap=True)
    except MappedFileError as err:
        assert err.filename == late
    else:
        raise AssertionError("a load of a file shrunk under its new mapping did not raise")
print("ok")
"""


@pytest.mark.skipif(not hasattr(signal, "SIGBUS"), reason="SIGBUS is the failure looked for")
@pytest.mark.parametrize("way", ["default", "stdlib"])
def test_a_mapped_file_that_shrank_is_an_error_not_a_signal(tmp_path: Path, way: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _SHRUNK, str(tmp_path), way],
        capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert proc.returncode != -signal.SIGBUS, "died of SIGBUS"
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_a_mapping_is_unwatched_when_its_last_view_goes(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    onnxdata.save_model(weights_model(), path)
    before = mapped.watched()
    model = onnxdata.load_model(path, mmap=True)
    assert mapped.watched() == before + 1
    view = model.graph.initializer[0].raw_data
    del model
    assert mapped.watched() == before + 1  # a view is still alive: so is the mapping
    assert bytes(view[:4]) == np.float32(0).tobytes()
    del view
    assert mapped.watched() == before


# -- 7. no descriptor per mapping ---------------------------------------------------------

_MANY_FILES = """
import os, resource, sys
import onnxdata
from onnxdata import TensorProto, numpy_helper
import numpy as np
from tests.io.test_loads_own_their_bytes import weights_model

folder = sys.argv[1]
count = 100
path = os.path.join(folder, "m.onnx")
onnxdata.save_model(weights_model(count, 300), path, save_as_external_data=True,
                    all_tensors_to_one_file=False, size_threshold=0)
for i in range(count):
    tensor = numpy_helper.from_array(np.full(2000, i, np.int32))
    onnxdata.save(tensor, os.path.join(folder, f"t{i}.pb"))
expected = onnxdata.load_model(path).SerializeToString()  # before the limit

def open_now():
    return len(os.listdir("/proc/self/fd"))

resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
before = open_now()
kept = []
for mmap in (False, True):
    model = onnxdata.load_model(path, mmap=mmap)
    assert model.SerializeToString() == expected, mmap
    kept.append(model)
    kept += [onnxdata.load(os.path.join(folder, f"t{i}.pb"), mmap=mmap) for i in range(count)]
    assert open_now() == before, (mmap, open_now(), before)
assert all(kept[i + 1].raw_data[:4] == np.int32(i).tobytes() for i in range(count))
print("ok")
"""


@pytest.mark.skipif(not POSIX_FDS, reason="counts descriptors in /proc/self/fd")
def test_many_files_load_under_a_low_descriptor_limit(tmp_path: Path) -> None:
    pytest.importorskip("resource")
    proc = subprocess.run(
        [sys.executable, "-c", _MANY_FILES, str(tmp_path)],
        capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_a_descriptor_whose_init_never_ran_is_quiet(tmp_path: Path) -> None:
    # A KeyboardInterrupt before __init__'s first store leaves the slot unset.
    unraisable: list[Any] = []
    old = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    try:
        half = Descriptor.__new__(Descriptor)
        half.close()  # nothing to close
        assert half.fd == -1
        half = Descriptor.__new__(Descriptor)
        del half  # __del__ on the half-built object
        whole = Descriptor(str(tmp_path / "f"), os.O_WRONLY | os.O_CREAT)
        fd = whole.fd
        del whole  # collected unclosed: closed
        with pytest.raises(OSError):
            os.fstat(fd)
    finally:
        sys.unraisablehook = old
    assert unraisable == []


# -- 11. max_size against a file that grows after its size was checked ----------------


@pytest.mark.parametrize("mmap", [False, True])
def test_max_size_holds_for_a_file_grown_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mmap: bool
) -> None:
    small = TensorProto(name="x", dims=[1])
    path = tmp_path / "t.pb"
    path.write_bytes(small.encode())
    grown = TensorProto(raw_data=bytes(1 << 20)).encode()  # merges into a 1 MiB raw_data
    real_fstat = os.fstat
    calls: list[int] = []

    def fstat_then_grow(fd: int) -> Any:
        st = real_fstat(fd)
        if not calls and sys._getframe(1).f_code.co_name == "open_buffer":
            # the size check: the file grows right after it
            calls.append(fd)
            with open(path, "ab") as f:
                f.write(grown)
        return st

    monkeypatch.setattr(file_buffers.os, "fstat", fstat_then_grow)
    got = onnxdata.load(path, TensorProto, mmap=mmap, max_size=100)
    monkeypatch.undo()
    assert calls and got == small and len(got.raw_data) == 0
    assert path.stat().st_size > 1 << 20
    with pytest.raises(DecodeError, match="is more than max_size=100"):
        onnxdata.load(path, TensorProto, mmap=mmap, max_size=100)


class _Trickle(io.RawIOBase):
    """A raw stream (a pipe's way) that gives at most 7 bytes a read and counts what it gave."""

    def __init__(self, data: bytes) -> None:
        self.data, self.given = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = min(len(b), 7, len(self.data) - self.given)
        b[:n] = self.data[self.given : self.given + n]
        self.given += n
        return n


_MAX_SIZE_READERS = {
    "load_model": lambda f, n: onnxdata.load_model(f, max_size=n),
    "load_model json": lambda f, n: onnxdata.load_model(f, "json", max_size=n),
    "load detecting": lambda f, n: onnxdata.load(f, max_size=n),
    "load typed": lambda f, n: onnxdata.load(f, type=onnxdata.ModelProto, max_size=n),
    "load typed json": lambda f, n: onnxdata.load(f, "json", type=onnxdata.ModelProto, max_size=n),
}


@pytest.mark.parametrize(
    ("reader", "stream"),
    [
        (reader, stream)
        for reader in sorted(_MAX_SIZE_READERS)
        for stream in ["BytesIO", "raw, 7 bytes a read", "text"]
        if stream != "text" or reader.endswith("json")  # text is read by the text formats only
    ],
)
def test_max_size_holds_for_a_file_object(reader: str, stream: str) -> None:
    # A file object's whole stream was read and max_size dropped: 40 MB would
    # have been read under max_size=100.  Now no more than max_size + 1 bytes
    # are read, and exactly max_size bytes are accepted, as from a path.
    read = _MAX_SIZE_READERS[reader]
    model = helper.make_model(helper.make_graph([], "g" * 60, [], []))
    data = model.SerializeToString()
    if reader.endswith("json"):
        data = onnxdata.json_format.MessageToJson(model).encode()

    def open_stream(b: bytes) -> Any:
        if stream == "BytesIO":
            return io.BytesIO(b)
        if stream == "text":
            return io.StringIO(b.decode())
        return _Trickle(b)

    assert read(open_stream(data), len(data)) == model
    big = open_stream(data + b" " * 40_000_000 if reader.endswith("json") else data * 2)
    with pytest.raises(DecodeError, match=f"more than max_size={len(data) - 1}"):
        read(big, len(data) - 1)
    if isinstance(big, _Trickle):
        assert big.given == len(data)
    if stream == "text":  # a text stream's size is its UTF-8 length
        text = json.dumps({"docString": "é" * 10}, ensure_ascii=False)  # 27 characters
        with pytest.raises(DecodeError, match="37 bytes is more than max_size=30"):
            read(io.StringIO(text), 30)
        assert read(io.StringIO(text), len(text.encode())).doc_string == "é" * 10


def _grown(model: Any) -> Any:
    model.producer_name = "x" * 5000  # the header grows: the weights move past their old place
    return model


@pytest.mark.parametrize("writer", ["save_model", "save", "encode_to", "SequenceWriter"])
def test_a_mapped_model_is_not_streamed_into_its_own_file(tmp_path: Path, writer: str) -> None:
    # A model loaded with mmap=True and saved into its own file opened "r+b"
    # read its weights from the pages it had just overwritten: the save
    # reported success and the file's weights were corrupt.  Refused now,
    # before a byte is written; appending (nothing mapped is overwritten), and
    # the same idioms on a model loaded by default, work as with onnx.
    path = tmp_path / "m.onnx"
    onnxdata.save_model(weights_model(), path)
    before = path.read_bytes()
    expected = _grown(onnx.load(path)).SerializeToString()

    def write(f: Any, model: Any) -> None:
        if writer == "save_model":
            onnxdata.save_model(model, f)
        elif writer == "save":
            onnxdata.save(model, f)
        elif writer == "encode_to":
            model.encode_to(f)
        else:
            with onnxdata.SequenceWriter(f, onnxdata.SequenceProto.TENSOR) as w:
                w.append(model.graph.initializer[0])

    mapped_model = _grown(onnxdata.load_model(path, mmap=True))
    with open(path, "r+b") as f, pytest.raises(onnxdata.MappedFileError, match="written in place"):
        write(f, mapped_model)
    assert path.read_bytes() == before
    with open(path, "ab") as f:
        write(f, mapped_model)
    assert path.read_bytes().startswith(before) and path.stat().st_size > len(before)
    del mapped_model  # its mapping goes with it: the file is no longer one the package maps
    gc.collect()
    assert mapped.watched() == 0
    path.write_bytes(before)
    owned = _grown(onnxdata.load_model(path))
    with open(path, "r+b") as f:
        write(f, owned)
    if writer != "SequenceWriter":
        assert path.read_bytes() == expected  # onnx's bytes, as onnx writes them
        assert onnx.load(path) == _grown(onnx.load_from_string(before))
