"""Every atomic writer takes every name its directory takes (issue 31, class 6).

The temporary of an atomic write used to be the target's name plus 14 bytes, so
a name of 242 to 255 bytes, which ``open()`` and onnx take, failed with
ENAMETOOLONG, and the error named the temporary.  The temporary is now a short
random name of its own, and every error names the target.  The names tried
here: 1, 200 and 240 to 255 bytes of ASCII, and names exactly at the byte
limit made of 2-, 3- and 4-byte UTF-8 characters, in each writer: ``save``,
``save_tensor`` in the three formats, ``SequenceWriter``, and the CLI's
``from-json`` and ``from-npy``.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
import pytest

import onnxdata
from onnxdata import SequenceProto, SequenceWriter, TensorProto
from onnxdata._io.atomic import TEMPORARY_PREFIX, name_max, temporary_name
from onnxdata.json_format import MessageToJson
from tests.support.oracle import to_oracle

# NAME_MAX where pytest makes its folders (255 on ext4, tmpfs, xfs, btrfs, APFS).
LIMIT = name_max(tempfile.gettempdir()) or 255


def _ascii(n: int) -> str:
    return ("n" * n)[:n]


def _utf8(char: str, n: int = LIMIT) -> str:
    """A name of exactly ``n`` bytes of ``char`` (UTF-8), topped up with ASCII."""
    width = len(char.encode())
    return char * (n // width) + "x" * (n % width)


NAMES = {
    **{f"ascii-{n}": _ascii(n) for n in (1, 200, *range(240, LIMIT + 1))},
    "utf8-2-byte": _utf8("é"),
    "utf8-3-byte": _utf8("日"),
    "utf8-4-byte": _utf8("🙂"),
    "utf8-mixed": _utf8("é日🙂", LIMIT - 3) + "abc",
}
SHORT_LIST = ["ascii-1", "ascii-200", "ascii-242", "ascii-255", "utf8-3-byte", "utf8-4-byte"]
TENSOR = TensorProto(name="t", data_type=TensorProto.FLOAT, dims=[3], float_data=[1.0, 2.5, -3.0])


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_the_limit_is_known(tmp_path: Path) -> None:
    assert name_max(str(tmp_path)) in (LIMIT, None)
    for name in NAMES.values():
        assert len(name.encode()) <= LIMIT
    assert {len(NAMES[k].encode()) for k in NAMES if k.startswith("utf8")} == {LIMIT}


@pytest.mark.parametrize("key", list(NAMES))
def test_save_takes_any_name_open_and_onnx_take(tmp_path: Path, key: str) -> None:
    name = NAMES[key]
    theirs = tmp_path / "onnx" / name
    ours = tmp_path / "ours" / name
    theirs.parent.mkdir()
    ours.parent.mkdir()
    onnx.save_tensor(to_oracle(TENSOR), str(theirs))  # onnx writes with open()
    assert onnxdata.save(TENSOR, ours) == len(theirs.read_bytes())
    assert ours.read_bytes() == theirs.read_bytes()
    onnxdata.save(TensorProto(name="again"), ours)  # and replaces it
    assert TensorProto.decode(ours.read_bytes()).name == "again"
    assert os.listdir(ours.parent) == [name]


@pytest.mark.parametrize("fmt", ["protobuf", "textproto", "json"])
@pytest.mark.parametrize("key", list(NAMES))
def test_save_tensor_takes_any_name_in_every_format(tmp_path: Path, key: str, fmt: str) -> None:
    path = tmp_path / NAMES[key]
    onnxdata.save_tensor(TENSOR, path, format=fmt)  # type: ignore[arg-type]
    expected = io.BytesIO()
    onnx.save_tensor(to_oracle(TENSOR), expected, format=fmt)
    assert path.read_bytes() == expected.getvalue()
    assert onnxdata.load_tensor(path, format=fmt) == TENSOR  # type: ignore[arg-type]
    assert os.listdir(tmp_path) == [NAMES[key]]


@pytest.mark.parametrize("key", list(NAMES))
def test_a_sequence_writer_takes_any_name(tmp_path: Path, key: str) -> None:
    path = tmp_path / NAMES[key]
    with SequenceWriter(path, TensorProto) as writer:
        writer.append(TENSOR)
        writer.append(TENSOR)
    assert SequenceProto.decode(path.read_bytes()).tensor_values == [TENSOR, TENSOR]
    assert os.listdir(tmp_path) == [NAMES[key]]


@pytest.mark.skipif(name_max(".") is None, reason="the system does not say its NAME_MAX")
def test_a_name_too_long_is_refused_before_writing_and_named(tmp_path: Path) -> None:
    for name in (_ascii(LIMIT + 1), _utf8("日", LIMIT + 1), _ascii(1000)):
        path = tmp_path / name
        with pytest.raises(OSError) as info:
            open(path, "wb")  # noqa: SIM115 - what open() says, the model
        assert info.value.errno == errno.ENAMETOOLONG
        for write in (
            lambda p=path: onnxdata.save(TENSOR, p),
            lambda p=path: onnxdata.save_tensor(TENSOR, p, format="json"),
            lambda p=path: SequenceWriter(p, TensorProto),
        ):
            with pytest.raises(OSError) as info:
                write()
            assert info.value.errno == errno.ENAMETOOLONG
            assert info.value.filename == str(path)
        assert list(tmp_path.iterdir()) == []


def test_errors_name_the_target_not_the_temporary(tmp_path: Path) -> None:
    missing = tmp_path / "no such folder" / NAMES["ascii-250"]
    for write in (
        lambda: onnxdata.save(TENSOR, missing),
        lambda: onnxdata.save_tensor(TENSOR, missing, format="textproto"),
        lambda: SequenceWriter(missing, TensorProto),
    ):
        with pytest.raises(FileNotFoundError) as info:
            write()
        assert info.value.filename == str(missing)
        assert TEMPORARY_PREFIX not in str(info.value)
    # A rename that fails (the target is a directory) names the target too.
    folder = tmp_path / NAMES["ascii-255"]
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as info:
        onnxdata.save(TENSOR, folder)
    assert info.value.filename == str(folder)
    assert _leftovers(tmp_path) == []


def test_temporary_names_fit_any_limit() -> None:
    names = {temporary_name(LIMIT) for _ in range(1000)}
    assert len(names) == 1000  # random, 64 bits
    assert all(n.startswith(TEMPORARY_PREFIX) and n.endswith(".tmp") for n in names)
    assert {len(n) for n in names} == {30}
    for limit in (1, 2, 14, 29, 30):
        assert 0 < len(temporary_name(limit)) <= max(limit, 2)
    assert len(temporary_name(None)) == 30


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "onnxdata", *args], capture_output=True, text=True, cwd=cwd
    )


@pytest.mark.parametrize("key", ["ascii-255", "ascii-242", "utf8-4-byte", "utf8-mixed"])
def test_the_cli_writers_take_any_name(tmp_path: Path, key: str) -> None:
    np = pytest.importorskip("numpy")
    name = NAMES[key]
    (tmp_path / "in.json").write_text(MessageToJson(TENSOR))
    done = _cli("from-json", "in.json", "-o", name, "--type", "tensor", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert TensorProto.decode((tmp_path / name).read_bytes()) == TENSOR
    np.save(tmp_path / "in.npy", np.arange(6, dtype=np.int32))
    done = _cli("from-npy", "in.npy", "-o", name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(TensorProto.decode((tmp_path / name).read_bytes()).dims) == [6]
    assert _leftovers(tmp_path) == []
