"""External data: to_array(tensor, base_dir) reads location/offset/length safely.

Every refused case has a crafted tensor here, run through both openers: the
descriptor-relative walk (``dir_fd``, used on Linux and macOS) and the
path-based checks used where ``dir_fd`` is missing (Windows).  Accepted cases
are compared with onnx's own reader.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import numpy_helper as onh

import onnxdata
from onnxdata import numpy_helper as nh
from onnxdata._io import external as _external
from tests.support.numpy_support import assert_same_value, chdir

T = onnxdata.TensorProto
VALUES = np.arange(12, dtype=np.float32)
DATA = VALUES.tobytes()  # 48 bytes

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file system features")


@pytest.fixture(params=["dir_fd", "by_path"])
def opener(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "dir_fd" and not _external.USE_DIR_FD:
        pytest.skip("no dir_fd support here")
    monkeypatch.setattr(_external, "USE_DIR_FD", request.param == "dir_fd")
    return str(request.param)


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """base/ with w.bin and sub/w.bin; secret.bin next to base/, outside it."""
    root = tmp_path / "base"
    (root / "sub").mkdir(parents=True)
    (root / "w.bin").write_bytes(DATA)
    (root / "sub" / "w.bin").write_bytes(DATA)
    (tmp_path / "secret.bin").write_bytes(b"\x00" * 48)
    return root


def external(
    location: str | None, dims: Any = (12,), data_type: int = T.FLOAT, **entries: str
) -> T:
    tensor = T(dims=list(dims), data_type=data_type, name="w", data_location=T.EXTERNAL)
    items = {} if location is None else {"location": location}
    items.update(entries)
    tensor.external_data = [
        onnxdata.StringStringEntryProto(key=k, value=v) for k, v in items.items()
    ]
    return tensor


def onnx_to_array(tensor: T, base_dir: str) -> Any:
    return onh.to_array(onnx.TensorProto.FromString(tensor.encode()), base_dir)


# --------------------------------------------------------------------------
# accepted


@pytest.mark.parametrize(
    ("location", "entries", "expected"),
    [
        ("w.bin", {}, VALUES),
        ("sub/w.bin", {}, VALUES),
        ("./w.bin", {}, VALUES),
        ("sub//./w.bin", {}, VALUES),
        ("w.bin", {"offset": "8", "length": "16"}, VALUES[2:6]),
        ("w.bin", {"offset": "40"}, VALUES[10:]),
        ("w.bin", {"length": "8"}, VALUES[:2]),
        ("w.bin", {"offset": "48", "length": "0"}, VALUES[:0]),
        ("w.bin", {"offset": "+4", "length": "4", "checksum": "x", "basepath": "y"}, VALUES[1:2]),
    ],
)
def test_reads(
    opener: str, base: Path, location: str, entries: dict[str, str], expected: Any
) -> None:
    tensor = external(location, dims=expected.shape, **entries)
    before = tensor.encode()
    out = nh.to_array(tensor, str(base))
    assert_same_value(out, expected)
    assert out.flags.writeable  # a fresh buffer, not a view of anything shared
    assert tensor.encode() == before  # the tensor is not modified
    assert_same_value(out, onnx_to_array(tensor, str(base)))


def test_reads_packed_and_relative_base(opener: str, base: Path) -> None:
    (base / "i4.bin").write_bytes(b"\x21\x43\x05")
    tensor = external("i4.bin", dims=(5,), data_type=T.INT4)
    with chdir(base.parent):
        out = nh.to_array(tensor, "base")
        assert out.tolist() == [1, 2, 3, 4, 5]
        assert_same_value(out, onnx_to_array(tensor, "base"))
    with chdir(base):
        assert nh.to_array(tensor).tolist() == [1, 2, 3, 4, 5]  # base_dir "" is the cwd


@posix_only
def test_base_dir_itself_may_be_a_symlink(opener: str, base: Path) -> None:
    link = base.parent / "link-to-base"
    link.symlink_to(base, target_is_directory=True)
    assert_same_value(nh.to_array(external("sub/w.bin"), str(link)), VALUES)


def test_unknown_keys_warn_and_are_ignored(opener: str, base: Path) -> None:
    tensor = external("w.bin", evil="1", __class__="x")
    with pytest.warns(
        UserWarning, match=r"Ignoring unknown external data key\(s\) \['__class__', 'evil'\]"
    ):
        out = nh.to_array(tensor, str(base))
    assert_same_value(out, VALUES)


def test_string_tensor_ignores_external_data(base: Path) -> None:
    tensor = external("w.bin", dims=(1,), data_type=T.STRING)
    tensor.string_data = [b"x"]
    assert nh.to_array(tensor, str(base)).tolist() == ["x"]
    assert onnx_to_array(tensor, str(base)).tolist() == ["x"]


# --------------------------------------------------------------------------
# refused locations


@pytest.mark.parametrize(
    ("location", "message"),
    [
        (None, "should not be empty"),
        ("", "should not be empty"),
        (".", "names no file"),
        ("./", "names no file"),
        ("w.bin\0.txt", "NUL"),
        ("../secret.bin", "'..' component"),
        ("sub/../../secret.bin", "'..' component"),
        ("sub/../w.bin", "'..' component"),  # onnx normalises this one and accepts it
        ("sub/..", "'..' component"),
        ("..\\secret.bin", "'..' component"),
        ("sub\\..\\..\\secret.bin", "'..' component"),
        ("C:\\secret.bin", "absolute or drive path"),
        ("C:secret.bin", "absolute or drive path"),
        ("\\\\server\\share\\secret.bin", "absolute or drive path"),
        ("\\secret.bin", "absolute or drive path"),
        ("//server/share/x", "absolute or drive path"),
    ],
)
def test_refused_locations(opener: str, base: Path, location: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        nh.to_array(external(location), str(base))


def test_refused_absolute_path_to_an_existing_file(opener: str, base: Path) -> None:
    target = str(base.parent / "secret.bin")
    with pytest.raises(ValueError, match="absolute or drive path"):
        nh.to_array(external(target), str(base))
    with pytest.raises(Exception, match="absolute path"):  # onnx refuses it too
        onnx_to_array(external(target), str(base))


@posix_only
@pytest.mark.parametrize("target", ["w.bin", "../secret.bin"])
def test_refused_symlinked_file(opener: str, base: Path, target: str) -> None:
    (base / "link.bin").symlink_to(target)
    with pytest.raises(ValueError, match=r"'link\.bin' is a symbolic link"):
        nh.to_array(external("link.bin"), str(base))
    with pytest.raises(Exception, match="symbolic link"):
        onnx_to_array(external("link.bin"), str(base))


@posix_only
def test_refused_symlinked_directory(opener: str, base: Path) -> None:
    (base / "linkdir").symlink_to(base / "sub", target_is_directory=True)
    with pytest.raises(ValueError, match="'linkdir' is a symbolic link"):
        nh.to_array(external("linkdir/w.bin"), str(base))
    (base / "out").symlink_to(base.parent, target_is_directory=True)
    with pytest.raises(ValueError, match="'out' is a symbolic link"):
        nh.to_array(external("out/secret.bin"), str(base))
    with pytest.raises(Exception, match="outside"):  # onnx: via canonical containment
        onnx_to_array(external("out/secret.bin"), str(base))


@posix_only
def test_refused_hard_link(opener: str, base: Path) -> None:
    os.link(base.parent / "secret.bin", base / "hard.bin")
    with pytest.raises(ValueError, match=r"'hard\.bin' has 2 hard links"):
        nh.to_array(external("hard.bin"), str(base))
    with pytest.raises(Exception, match="hard link"):
        onnx_to_array(external("hard.bin"), str(base))


def test_refused_directory(opener: str, base: Path) -> None:
    with pytest.raises(ValueError, match="'sub' is not a regular file"):
        nh.to_array(external("sub"), str(base))


@posix_only
def test_refused_fifo_without_blocking(opener: str, base: Path) -> None:
    os.mkfifo(base / "pipe")  # opening it for reading would block without O_NONBLOCK
    with pytest.raises(ValueError, match="'pipe' is not a regular file"):
        nh.to_array(external("pipe"), str(base))


def test_missing_file(opener: str, base: Path) -> None:
    with pytest.raises(FileNotFoundError):
        nh.to_array(external("nothing.bin"), str(base))
    with pytest.raises(FileNotFoundError):
        nh.to_array(external("nodir/w.bin"), str(base))


# --------------------------------------------------------------------------
# refused offsets and lengths


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"offset": "-1"}, "offset must be non-negative, got -1"),
        ({"length": "-4"}, "length must be non-negative, got -4"),
        ({"offset": "abc"}, "offset 'abc' .* is not an integer"),
        ({"length": "1e3"}, "is not an integer"),
        ({"offset": " 4"}, "is not an integer"),
        ({"offset": "4_0"}, "is not an integer"),
        ({"offset": ""}, "is not an integer"),
        ({"offset": "49"}, r"offset \(49\) exceeds file size \(48\)"),
        (
            {"offset": "40", "length": "9"},
            r"length \(9\) exceeds available data \(8 bytes from offset 40\)",
        ),
        ({"length": "49"}, r"length \(49\) exceeds available data \(48 bytes"),
        ({"length": str(10**15)}, "exceeds available data"),  # refused before any allocation
        ({"offset": str(2**70)}, "exceeds file size"),
    ],
)
def test_refused_ranges(opener: str, base: Path, entries: dict[str, str], message: str) -> None:
    tensor = external("w.bin", **entries)
    with pytest.raises(ValueError, match=message):
        nh.to_array(tensor, str(base))


def test_onnx_refuses_the_same_ranges(base: Path) -> None:
    for entries in ({"offset": "-1"}, {"offset": "49"}, {"length": "49"}):
        with pytest.raises(ValueError):
            onnx_to_array(external("w.bin", **entries), str(base))


def test_size_must_match_dims(opener: str, base: Path) -> None:
    with pytest.raises(ValueError, match="external data holds 48, dims \\[5\\] need 20"):
        nh.to_array(external("w.bin", dims=(5,)), str(base))


def test_external_with_data_in_the_message_too(base: Path) -> None:
    tensor = external("w.bin")
    tensor.raw_data = DATA
    with pytest.raises(ValueError, match="raw_data is set too"):
        nh.to_array(tensor, str(base))
    tensor = external("w.bin")
    tensor.float_data = VALUES.tolist()
    with pytest.raises(ValueError, match="float_data holds 12 values too"):
        nh.to_array(tensor, str(base))


def test_dots_inside_a_name_are_not_a_parent(opener: str, base: Path) -> None:
    (base / "w..bin").write_bytes(DATA)
    assert_same_value(nh.to_array(external("w..bin"), str(base)), VALUES)
    with pytest.raises(Exception, match="points outside"):  # onnx refuses any ".."
        onnx_to_array(external("w..bin"), str(base))


def test_split_location_directly() -> None:
    assert _external.split_location("a/./b//c.bin") == ["a", "b", "c.bin"]
    if os.sep == "/":
        assert _external.split_location("a\\b.bin") == ["a\\b.bin"]  # one POSIX file name
    with pytest.raises(ValueError):
        _external.split_location("a/../b")


# --------------------------------------------------------------------------
# races and defence in depth: the later checks hold when an earlier one is fooled


@posix_only
def test_link_swapped_in_after_the_check_is_refused(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """O_NOFOLLOW refuses a link even when the lstat-time check did not see one."""
    if not _external.USE_DIR_FD:
        pytest.skip("no dir_fd support here")
    (base / "link.bin").symlink_to("w.bin")
    monkeypatch.setattr(_external, "_refuse_link", lambda *args: None)
    with pytest.raises(ValueError, match=r"'link\.bin' is a symbolic link"):
        nh.to_array(external("link.bin"), str(base))


@posix_only
def test_by_path_refuses_what_resolves_outside(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_external, "USE_DIR_FD", False)
    monkeypatch.setattr(_external, "_refuse_link", lambda *args: None)
    (base / "out").symlink_to(base.parent, target_is_directory=True)
    with pytest.raises(ValueError, match="resolves outside"):
        nh.to_array(external("out/secret.bin"), str(base))


def test_by_path_refuses_a_file_swapped_while_opened(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_external, "USE_DIR_FD", False)
    real_open = os.open
    other = str(base.parent / "secret.bin")
    monkeypatch.setattr(_external.os, "open", lambda path, *a, **k: real_open(other, *a, **k))
    with pytest.raises(ValueError, match="changed while opened"):
        nh.to_array(external("w.bin"), str(base))


def test_file_shrinking_while_read(
    opener: str, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if hasattr(os, "readv"):
        monkeypatch.setattr(_external.os, "readv", lambda fd, buffers: 0)
    else:  # pragma: no cover - Windows
        monkeypatch.setattr(_external, "_read_into", lambda fd, view, start: 0)
    with pytest.raises(
        ValueError, match="ended after 8 bytes while reading 16 bytes from offset 8"
    ):
        nh.to_array(external("w.bin", dims=(4,), offset="8", length="16"), str(base))


def test_unknown_keys_warning_points_at_the_callers_line(base: Path) -> None:
    tensor = external("w.bin", evil="1")
    wrapped = onnxdata.OptionalProto(elem_type=1, tensor_value=tensor)
    sparse = onnxdata.SparseTensorProto(
        values=external("w.bin", evil="1"),
        indices=T(dims=[12], data_type=T.INT64, int64_data=list(range(12))),
        dims=[12],
    )
    with chdir(base):  # to_optional reads from the current directory
        for call in (
            lambda: nh.to_array(tensor),
            lambda: nh.to_optional(wrapped),
            lambda: nh.to_array(sparse),
        ):
            with pytest.warns(UserWarning, match="unknown external data key") as caught:
                call()
            assert [w.filename for w in caught] == [__file__]
