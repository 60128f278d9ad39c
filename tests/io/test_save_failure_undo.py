"""A failed save with external data leaves the caller's model and the data files as they were.

Issue 38 follow-up: ``save_model(m, p, save_as_external_data=True)`` marked
the caller's tensors external, appended their bytes to the data files and
dropped their ``raw_data`` before the model was encoded and written.  A
failure after that (a value of the wrong type or out of range set in Python,
a refused location, an ``OSError`` writing the model, a Ctrl-C) left the
caller's model without its weights, and the data files written (onnx does the
same).  Each failure kind below, for each way of saving, must leave the
model's bytes and every tensor's fields as they were given, no new file in the
folder, and an existing data file byte for byte as it was.  On success the
model is changed in place exactly as onnx changes it.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import onnxdata
from onnxdata import external_data_helper
from onnxdata.checker import ValidationError


def _onnx_model() -> onnx.ModelProto:
    weights = [
        numpy_helper.from_array(np.arange(i, i + 600, dtype=np.float32), name)
        for i, name in enumerate(("a", "b"))
    ]
    const = numpy_helper.from_array(np.arange(300, dtype=np.float32), "c")
    out = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [600])
    nodes = [
        helper.make_node("Constant", [], ["k"], value=const),
        helper.make_node("Add", ["a", "b"], ["y"]),
    ]
    return helper.make_model(helper.make_graph(nodes, "g", [], [out], weights))


def _model() -> onnxdata.ModelProto:
    return onnxdata.ModelProto.decode(_onnx_model().SerializeToString())


def _fields(model: Any) -> list[tuple[Any, ...]]:
    """Every tensor's fields a save may change, with their presence."""
    return [
        (
            t.name,
            t.HasField("raw_data") and bytes(t.raw_data),
            t.HasField("data_location") and t.data_location,
            [(e.key, e.value) for e in t.external_data],
        )
        for t in external_data_helper.get_all_tensors(model)
    ]


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# -- the failures: each breaks one save in its own place --------------------------------


# Each sets its failure up and returns the error it raises and how to take it back
# (the model's own bytes are compared once the bad value is gone again).
_Failure = tuple[type[BaseException], Callable[[], None]]


def _wrong_type(model: Any, monkeypatch: pytest.MonkeyPatch) -> _Failure:
    node = model.graph.node[1]
    node.name = 5  # found only by the encoding, after the data is written
    return TypeError, lambda: node.ClearField("name")


def _out_of_range(model: Any, monkeypatch: pytest.MonkeyPatch) -> _Failure:
    node = model.graph.node[1]
    node.attribute.add(name="n", type=onnxdata.AttributeProto.INT, i=2**70)
    return ValueError, lambda: node.attribute.pop()


def _nothing() -> None:
    pass


def _model_write_fails(model: Any, monkeypatch: pytest.MonkeyPatch) -> _Failure:
    def refuse(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)  # the model's rename, after the data's sync
    return OSError, _nothing


def _interrupt_at_sync(model: Any, monkeypatch: pytest.MonkeyPatch) -> _Failure:
    def interrupt(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)  # every data file is written by then
    return KeyboardInterrupt, _nothing


def _interrupt_second_write(model: Any, monkeypatch: pytest.MonkeyPatch) -> _Failure:
    real = os.write
    calls = iter(range(1_000_000))

    def write(fd: int, data: Any) -> int:
        if len(data) and next(calls) == 1:
            raise KeyboardInterrupt  # the second tensor's data: the first one is written
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    return KeyboardInterrupt, _nothing


FAILURES: dict[str, Callable[[Any, pytest.MonkeyPatch], _Failure]] = {
    "wrong_type": _wrong_type,
    "out_of_range": _out_of_range,
    "model_write_oserror": _model_write_fails,
    "interrupt_at_sync": _interrupt_at_sync,
    "interrupt_second_write": _interrupt_second_write,
}

SAVES: dict[str, dict[str, Any]] = {
    "one_file": {"all_tensors_to_one_file": True, "location": "w.bin"},
    "one_file_unnamed": {"all_tensors_to_one_file": True},
    "file_per_tensor": {"all_tensors_to_one_file": False},
    "threshold_0_attributes": {"size_threshold": 0, "convert_attribute": True},
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # onnx checks ``location`` from the current folder
    yield tmp_path


def _undo_holds(
    model: Any, save: Callable[[], None], kind: str, folder: Path, patch: pytest.MonkeyPatch
) -> None:
    encoded, fields, files = model.encode(), _fields(model), _listing(folder)
    failure, revert = FAILURES[kind](model, patch)
    with pytest.raises(failure):
        save()
    patch.undo()
    revert()
    assert _listing(folder) == files  # no new file, an old one as it was
    assert _fields(model) == fields
    assert model.encode() == encoded


@pytest.mark.parametrize("kind", sorted(FAILURES))
@pytest.mark.parametrize("how", sorted(SAVES))
def test_failed_save_model_leaves_model_and_folder(
    kind: str, how: str, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _model()
    with monkeypatch.context() as patch:
        _undo_holds(
            model,
            lambda: onnxdata.save_model(model, "m.onnx", save_as_external_data=True, **SAVES[how]),
            kind,
            folder,
            patch,
        )
    # The same model, once the failure is gone, saves and reads back with its weights.
    onnxdata.save_model(model, "m.onnx", save_as_external_data=True, **SAVES[how])
    loaded = onnx.load("m.onnx")
    assert [numpy_helper.to_array(t).sum() for t in loaded.graph.initializer] == [
        np.arange(i, i + 600, dtype=np.float32).sum() for i in range(2)
    ]


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_failed_save_of_a_model_marked_external_keeps_old_data_file(
    kind: str, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model already marked external (``convert_model_to_external_data``) with
    ``raw_data``, into a data file that exists: the file keeps its bytes."""
    (folder / "old.bin").write_bytes(b"kept" * 10)
    model = _model()
    external_data_helper.convert_model_to_external_data(model, location="x.bin", size_threshold=0)
    for t in model.graph.initializer:
        external_data_helper.set_external_data(t, "old.bin")
    with monkeypatch.context() as patch:
        _undo_holds(model, lambda: onnxdata.save_model(model, "m.onnx"), kind, folder, patch)
    assert (folder / "old.bin").read_bytes() == b"kept" * 10


def test_refused_location_restores_marks(folder: Path) -> None:
    """A location refused after the tensors were marked (one naming the model's
    own file, with a file per tensor): the marks are taken back."""
    model = _model()
    model.graph.initializer[0].name = "m.onnx"
    encoded, fields = model.encode(), _fields(model)
    with pytest.raises(ValidationError, match="own file"):
        onnxdata.save_model(
            model, "m.onnx", save_as_external_data=True, all_tensors_to_one_file=False
        )
    assert (_listing(folder), _fields(model), model.encode()) == ({}, fields, encoded)


def test_failure_through_an_onnx_model_leaves_it_unchanged(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _onnx_model()
    before = model.SerializeToString()
    with monkeypatch.context() as patch:
        _model_write_fails(model, patch)
        with pytest.raises(OSError):
            onnxdata.save_model(model, "m.onnx", save_as_external_data=True, location="w.bin")
    assert model.SerializeToString() == before
    assert _listing(folder) == {}


@pytest.mark.parametrize("how", sorted(SAVES))
def test_success_changes_the_model_as_onnx_does(how: str, folder: Path) -> None:
    ours, theirs = _model(), _onnx_model()
    for name, model, lib in (("ours", ours, onnxdata), ("theirs", theirs, onnx)):
        (folder / name).mkdir()
        lib.save_model(model, f"{name}/m.onnx", save_as_external_data=True, **SAVES[how])
    if how == "one_file_unnamed" or how == "threshold_0_attributes":  # new uuid names
        assert len(_listing(folder / "ours")) == len(_listing(folder / "theirs")) == 2

        def without_location(m: Any) -> list[tuple[Any, ...]]:
            return [(n, r, d, [x for x in e if x[0] != "location"]) for n, r, d, e in _fields(m)]

        assert without_location(ours) == without_location(theirs)
    else:
        assert _fields(ours) == _fields(theirs)
        assert _listing(folder / "ours") == _listing(folder / "theirs")


@pytest.mark.parametrize("kind", ["interrupt_second_write", "interrupt_at_sync"])
@pytest.mark.parametrize("foreign", [False, True])
def test_failed_write_external_data_tensors(
    kind: str, foreign: bool, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model: Any = _onnx_model() if foreign else _model()
    external_data_helper.convert_model_to_external_data(model, location="w.bin", size_threshold=0)
    as_list = list(model.graph.initializer)
    for tensors in (model, as_list):
        encoded = model.SerializeToString() if foreign else model.encode()
        fields = _fields(model)
        with monkeypatch.context() as patch:
            failure, _ = FAILURES[kind](model, patch)
            with pytest.raises(failure):
                external_data_helper.write_external_data_tensors(tensors, str(folder))
        assert _listing(folder) == {}
        assert _fields(model) == fields
        assert (model.SerializeToString() if foreign else model.encode()) == encoded


# -- messages other than a model, as onnx's save_model takes them ------------------------


def test_save_model_of_another_message() -> None:
    seq = onnx.SequenceProto(name="s", elem_type=onnx.SequenceProto.TENSOR)
    ours = onnxdata.SequenceProto.decode(seq.SerializeToString())
    theirs_file, ours_file = io.BytesIO(), io.BytesIO()
    onnx.save_model(seq, theirs_file)  # a file object without a name: the message's bytes
    onnxdata.save_model(ours, ours_file)
    assert ours_file.getvalue() == theirs_file.getvalue() == seq.SerializeToString()


@pytest.mark.parametrize("external", [False, True])
def test_save_model_of_another_message_to_a_path(external: bool, folder: Path) -> None:
    seq = onnx.SequenceProto(name="s")
    with pytest.raises(AttributeError):  # onnx: AttributeError: graph
        onnx.save_model(seq, "theirs.pb", save_as_external_data=external)
    ours = onnxdata.SequenceProto.decode(seq.SerializeToString())
    with pytest.raises(AttributeError, match="not SequenceProto"):
        onnxdata.save_model(ours, "ours.pb", save_as_external_data=external)
    assert _listing(folder) == {}


def test_interrupted_convert_model_to_external_data_marks_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from onnxdata._io import external_marks

    model = _model()
    encoded, fields = model.encode(), _fields(model)
    real, calls = external_marks.set_external, iter(range(100))

    def mark(t: Any, location: str, *args: Any) -> None:
        if next(calls) == 1:
            raise KeyboardInterrupt  # the first tensor is marked by then
        real(t, location, *args)

    monkeypatch.setattr(external_marks, "set_external", mark)
    with pytest.raises(KeyboardInterrupt):
        external_data_helper.convert_model_to_external_data(model, size_threshold=0)
    assert (_fields(model), model.encode()) == (fields, encoded)
