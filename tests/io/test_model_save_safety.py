"""A model's save with external data: durable in order, never into itself, never into a folder.

Issue 38, classes 3, 4 and 9:

- ``save_model(..., save_as_external_data=True)`` synced the temporary model,
  renamed it and synced its folder, but never synced the data files: a power
  cut could leave the new model durable and its weights lost.  Every data
  file, and every folder holding one, is now synced before the model's rename
  (recorded here by the order of the ``os.fsync`` and ``os.replace`` calls).
- A ``location`` naming the model's own file (relative to the model's folder,
  through a symbolic or hard link, or a tensor named ``model.onnx`` with
  ``all_tensors_to_one_file=False``) appended the weights to the model's file,
  which the model then replaced: the save succeeded and the load failed, as
  with onnx.  It is refused before anything is written.
- A location naming a folder (``data.bin/``, ``w.data/.``, ``.``) was read as
  the file before it and written; onnx refuses both, and so does onnxdata,
  with one rule (``split_location``) for reading, writing and checking.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import external_data_helper as theirs_helper
from onnx import helper, numpy_helper

import onnxdata
from onnxdata import external_data_helper
from onnxdata.checker import ValidationError
from onnxdata.cli import main

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="names descriptors through /proc/self/fd"
)


def _model(*names: str, n: int = 600) -> onnx.ModelProto:
    weights = [
        numpy_helper.from_array(np.arange(i, i + n, dtype=np.float32), name)
        for i, name in enumerate(names or ("w",))
    ]
    out = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [n])
    nodes = [helper.make_node("Identity", [weights[0].name], ["y"])]
    return helper.make_model(helper.make_graph(nodes, "g", [], [out], weights))


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# -- class 3: the data is durable before the model that points at it -----------------


class Journal:
    """Records every ``os.fsync`` (by the path of its descriptor) and ``os.replace``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, str]] = []
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            self.events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
            real_fsync(fd)

        def replace(src: Any, dst: Any, **kwargs: Any) -> None:
            self.events.append(("replace", os.fspath(dst)))
            real_replace(src, dst, **kwargs)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)

    def index(self, event: tuple[str, str]) -> int:
        return self.events.index(event)


@pytest.mark.parametrize(
    "options",
    [
        {"location": "w.data"},
        {"location": "sub/w.data"},
        {"all_tensors_to_one_file": False},
        {"location": "w.data", "existing": True},
    ],
    ids=["one-file", "in-a-subfolder", "a-file-per-tensor", "over-an-old-model"],
)
def test_data_files_are_synced_before_the_model_is_renamed(
    options: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = dict(options)
    (tmp_path / "sub").mkdir()
    model_path = tmp_path / "model.onnx"
    if options.pop("existing", False):
        onnxdata.save_model(_model("old"), model_path)
    journal = Journal(monkeypatch)
    onnxdata.save_model(
        _model("a", "b", "c"), model_path, save_as_external_data=True, size_threshold=0, **options
    )
    rename = journal.index(("replace", str(model_path)))
    data_files = [
        str(tmp_path / loc) for loc in ([options["location"]] if "location" in options else "abc")
    ]
    for data in data_files:
        synced = journal.index(("fsync", data))
        assert synced < rename, journal.events
        folder = journal.index(("fsync", os.path.dirname(data)))
        assert synced < folder < rename, journal.events
    assert sum(kind == "fsync" and path in data_files for kind, path in journal.events) == len(
        data_files
    ), "each data file is synced once, however many tensors it holds"
    assert journal.events[-1] == ("fsync", str(tmp_path)), "the rename is made durable"
    loaded = onnxdata.load_model(model_path)
    assert [
        numpy_helper.to_array(t).tolist() for t in onnx.load(str(model_path)).graph.initializer
    ] == [onnxdata.numpy_helper.to_array(t).tolist() for t in loaded.graph.initializer]


@pytest.mark.parametrize("one_file", [True, False], ids=["one-file", "a-file-per-tensor"])
def test_a_data_file_that_cannot_be_synced_leaves_the_old_model(
    one_file: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    model_path = tmp_path / "model.onnx"
    onnxdata.save_model(_model("old"), model_path)
    old = model_path.read_bytes()
    real_fsync = os.fsync
    threads = threading.active_count()

    def failing(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(("w.data", "/c")):
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing)
    options: dict[str, Any] = {"location": "w.data"} if one_file else {}
    with pytest.raises(OSError, match="Input/output"):
        onnxdata.save_model(_model(*"abcdefghij"), model_path, save_as_external_data=True,
                            all_tensors_to_one_file=one_file, size_threshold=0,
                            **options)  # fmt: skip
    assert model_path.read_bytes() == old
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert threading.active_count() == threads, "a syncing thread outlived the save"


def test_write_external_data_tensors_syncs_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """onnx's two-step way (write the tensors, then save the model) is durable too."""
    model = _model("a", "b", "c")  # onnx's protobuf message, changed in place
    external_data_helper.convert_model_to_external_data(
        model, all_tensors_to_one_file=False, size_threshold=0
    )
    journal = Journal(monkeypatch)
    external_data_helper.write_external_data_tensors(model, str(tmp_path))
    synced = [path for kind, path in journal.events if kind == "fsync"]
    assert sorted(synced[:3]) == [str(tmp_path / name) for name in "abc"]
    assert synced[3:] == [str(tmp_path)]
    assert all(not t.HasField("raw_data") for t in model.graph.initializer)


# -- class 4: never into the model's own file ----------------------------------------


def _assert_refused(save: Callable[[], object], folder: Path, before: dict[str, bytes]) -> None:
    with pytest.raises(ValidationError, match="model's own file"):
        save()
    assert _listing(folder) == before, "nothing is written when a location is refused"


@pytest.mark.parametrize(
    "case",
    ["location", "dot-slash", "double-slash", "tensor-name", "symlinked-model", "hard-link",
     "new-model"],
)  # fmt: skip
def test_data_into_the_model_file_is_refused(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)  # the model's folder is not the current one
    target = folder / "model.onnx"
    onnxdata.save_model(_model("old"), target)
    names: tuple[str, ...] = ("w",)
    options: dict[str, Any] = {"location": "model.onnx"}
    if case == "dot-slash":
        options["location"] = "./model.onnx"
    elif case == "double-slash":
        options["location"] = ".//model.onnx"
    elif case == "tensor-name":
        names, options = ("small", "model.onnx"), {"all_tensors_to_one_file": False}
    elif case == "symlinked-model":
        real = folder / "real.onnx"
        target.rename(real)
        target.symlink_to(real.name)
        options["location"] = "real.onnx"
    elif case == "hard-link":
        os.link(target, folder / "other.onnx")
        options["location"] = "other.onnx"
    elif case == "new-model":
        target.unlink()
    before = _listing(folder)
    model = _model(*names)

    def save() -> None:
        onnxdata.save_model(model, "d/model.onnx", save_as_external_data=True,
                            size_threshold=0, **options)  # fmt: skip

    _assert_refused(save, folder, before)


def test_onnx_loses_the_weights_where_onnxdata_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "d").mkdir()
    monkeypatch.chdir(tmp_path)
    onnx.save_model(_model(), "d/model.onnx", save_as_external_data=True,
                    location="model.onnx", size_threshold=0)  # fmt: skip
    with pytest.raises(Exception, match=r"exceeds"):  # the data was overwritten
        onnx.load("d/model.onnx")
    before = _listing(tmp_path / "d")
    with pytest.raises(ValidationError, match="model's own file"):
        onnxdata.save_model(_model(), "d/model.onnx", save_as_external_data=True,
                            location="model.onnx", size_threshold=0)  # fmt: skip
    assert _listing(tmp_path / "d") == before


def test_a_file_object_of_the_model_is_compared_by_identity(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"
    target.write_bytes(b"")
    with open(target, "r+b") as f, pytest.raises(ValidationError, match="model's own file"):
        onnxdata.save_model(_model(), f, save_as_external_data=True,
                            location="model.onnx", size_threshold=0)  # fmt: skip
    assert target.read_bytes() == b""


def test_other_locations_still_save_and_load(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"
    model = _model("model.onnx.data", "w2")  # a name that only begins as the model's
    onnxdata.save_model(model, target, save_as_external_data=True,
                        all_tensors_to_one_file=False, size_threshold=0)  # fmt: skip
    theirs = onnx.load(str(target))
    ours = onnxdata.load_model(target)
    assert [t.name for t in theirs.graph.initializer] == ["model.onnx.data", "w2"]
    assert [numpy_helper.to_array(t).tolist() for t in theirs.graph.initializer] == [
        onnxdata.numpy_helper.to_array(t).tolist() for t in ours.graph.initializer
    ]


# -- class 9: a location that names a folder ------------------------------------------

FOLDERS = ["data.bin/", "data.bin/.", ".", "./", "data.bin//", "sub/data.bin/", "sub/.",
           "sub/..", "data.bin/./"]  # fmt: skip
FILES = ["./data.bin", "sub//data.bin", "sub/./data.bin", "data.bin"]


def _pointing_at(folder: Path, location: str) -> Path:
    """A model whose initializer's data is at ``location`` below ``folder``,
    next to ``data.bin`` and ``sub/data.bin`` holding that data."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "sub").mkdir(parents=True)
    values = np.arange(6, dtype=np.float32)
    for name in ("data.bin", "sub/data.bin"):
        (folder / name).write_bytes(values.tobytes())
    tensor = numpy_helper.from_array(values, "w")
    theirs_helper.set_external_data(tensor, location)
    tensor.ClearField("raw_data")
    out = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [6])
    graph = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["y"])], "g", [], [out], [tensor]
    )
    path = folder / "model.onnx"
    onnx.save_model(helper.make_model(graph), str(path))
    return path


def test_a_location_naming_a_folder_is_refused_on_read_as_by_onnx(tmp_path: Path) -> None:
    for location in FOLDERS:
        path = _pointing_at(tmp_path / "m", location)
        with pytest.raises(Exception):  # noqa: B017 - onnx's ValidationError, whatever its words
            onnx.load(str(path))
        with pytest.raises(ValidationError, match=r"names no file|'\.\.' component"):
            onnxdata.load_model(path)
        model = onnxdata.load_model(path, load_external_data=False)
        with pytest.raises(ValidationError):
            external_data_helper.load_external_data_for_model(model, str(tmp_path / "m"))
    for location in FILES:  # the same folders, naming a file: both read it
        path = _pointing_at(tmp_path / "m", location)
        expected = numpy_helper.to_array(onnx.load(str(path)).graph.initializer[0])
        got = onnxdata.numpy_helper.to_array(onnxdata.load_model(path).graph.initializer[0])
        assert got.tolist() == expected.tolist()


def test_the_commands_report_a_location_naming_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _pointing_at(tmp_path / "m", "data.bin/")
    model = onnxdata.load_model(path, load_external_data=False)
    assert any("names no file" in v.message for v in onnxdata.check(model))
    assert main(["check", str(path)]) == 1
    assert "names no file" in capsys.readouterr().out
    assert main(["to-npy", str(path), "--name", "w", "-o", str(tmp_path / "w.npy")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "names no file" in err
    assert not (tmp_path / "w.npy").exists()
    assert main(["show", str(path)]) == 0
    assert "data.bin/: 1 tensors, 24 bytes, refused" in capsys.readouterr().out


@pytest.mark.parametrize("location", ["w.data/", "w.data/.", "sub/w.data/", "new/", "w.data//"])
def test_a_location_naming_a_folder_is_refused_on_write_as_by_onnx(
    location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    with pytest.raises(onnx.checker.ValidationError):
        onnx.save_model(_model(), str(tmp_path / "theirs.onnx"), save_as_external_data=True,
                        location=location, size_threshold=0)  # fmt: skip
    for p in tmp_path.iterdir():  # what onnx left, if anything
        if p.is_file():
            p.unlink()
    onnxdata.save_model(_model("old"), tmp_path / "model.onnx")
    before = _listing(tmp_path)
    with pytest.raises(ValidationError, match="names no file"):
        onnxdata.save_model(_model(), tmp_path / "model.onnx", save_as_external_data=True,
                            location=location, size_threshold=0)  # fmt: skip
    tensor = onnxdata.numpy_helper.from_array(np.arange(4, dtype=np.float32), "t")
    external_data_helper.set_external_data(tensor, location)
    with pytest.raises(ValidationError, match="names no file"):
        external_data_helper.save_external_data(tensor, str(tmp_path))
    with pytest.raises(ValidationError, match="names no file"):
        external_data_helper.convert_model_to_external_data(
            onnxdata.ModelProto.decode(_model().SerializeToString()), location=location
        )
    assert _listing(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx", "sub"]
