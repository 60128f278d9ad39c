"""Writers never replace what a rename cannot rebuild (issue 38, class 2).

Every writer (``save``, ``save_model``, ``save_tensor``, ``SequenceWriter``,
the command line's ``-o``) went through the atomic writer, which renamed a
temporary over its target whatever it was: a character device became an
11-byte regular file, a FIFO's reader got nothing, and run as root
``save_model(m, os.devnull)`` would have replaced the system's ``/dev/null``;
``/dev/stdout`` into a pipe failed with ``FileNotFoundError:
/proc/<pid>/fd/pipe:[N]``.  onnx opens the path and writes through; so does
onnxdata now, for a device, a FIFO, ``/dev/stdout`` (a pipe or a file) and a
symbolic link to any of them, while a regular file, new or old (through a
link too), is still replaced atomically.

Devices are made with ``mknod`` (the null device, 1:3) in the test's folder:
the test is skipped where that is not permitted.  ``os.devnull`` itself is
written only after the same writer has left such a device in place.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import onnxdata
from onnxdata import SequenceProto, SequenceWriter, TensorProto
from onnxdata.cli import main
from tests.support.paths import ROOT

pytestmark = pytest.mark.skipif(os.name != "posix", reason="devices and FIFOs are POSIX")

TENSOR = TensorProto(name="t", dims=[3], data_type=TensorProto.FLOAT, float_data=[1, 2, 3])


def _model() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.arange(600, dtype=np.float32), "w")
    out = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [600])
    graph = helper.make_graph([helper.make_node("Identity", ["w"], ["y"])], "g", [], [out], [w])
    return helper.make_model(graph)


def _sequence(path: Path) -> None:
    with SequenceWriter(path, TensorProto) as writer:
        writer.append(TENSOR)
        writer.append(TENSOR)


# Each writer, given a path, writes what its regular-file output would hold.
WRITERS: dict[str, Callable[[Path], object]] = {
    "save_model": lambda p: onnxdata.save_model(_model(), p),
    "save_model-text": lambda p: onnxdata.save_model(_model(), p, format="textproto"),
    "save": lambda p: onnxdata.save(TENSOR, p),
    "save_tensor": lambda p: onnxdata.save_tensor(TENSOR, p),
    "save_tensor-json": lambda p: onnxdata.save_tensor(TENSOR, p, format="json"),
    "SequenceWriter": _sequence,
}


def _expected(name: str, tmp_path: Path) -> bytes:
    regular = tmp_path / f"regular-{name}"
    WRITERS[name](regular)
    return regular.read_bytes()


def _null_device(path: Path) -> None:
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, AttributeError) as exc:
        pytest.skip(f"cannot make a device here: {exc}")


def _is_null_device(path: Path | str) -> bool:
    st = os.stat(path)
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


@contextmanager
def _reader(fifo: Path) -> Iterator[list[bytes]]:
    """A thread reading ``fifo`` to its end; the bytes are in the list afterwards."""
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        # The writer has closed its end: the reader ends at once, unless the FIFO
        # was replaced under it (then it waits forever on a FIFO without a name).
        thread.join(timeout=10)
    assert not thread.is_alive(), "the FIFO's reader never saw a writer"


def _no_temporaries(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("via_link", [False, True], ids=["device", "link-to-device"])
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_device_is_written_through(name: str, via_link: bool, tmp_path: Path) -> None:
    device = tmp_path / "n"
    _null_device(device)
    target = device
    if via_link:
        target = tmp_path / "link"
        target.symlink_to(device.name)
    WRITERS[name](target)
    assert _is_null_device(device), "the device was replaced"
    assert not via_link or target.is_symlink()
    _no_temporaries(tmp_path)


@pytest.mark.parametrize("via_link", [False, True], ids=["fifo", "link-to-fifo"])
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_fifo_is_written_through(name: str, via_link: bool, tmp_path: Path) -> None:
    expected = _expected(name, tmp_path)
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    target = fifo
    if via_link:
        target = tmp_path / "link"
        target.symlink_to(fifo)  # an absolute link, this time
    with _reader(fifo) as got:
        WRITERS[name](target)
    assert got == [expected]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    _no_temporaries(tmp_path)


def test_a_fifo_gets_the_bytes_onnx_writes(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with _reader(fifo) as theirs:
        onnx.save_model(_model(), str(fifo))
    with _reader(fifo) as ours:
        onnxdata.save_model(_model(), fifo)
    assert ours == theirs and len(ours[0]) > 2000


def test_a_failed_write_leaves_the_fifo_and_sends_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    bad = TensorProto(dims=[2**64])  # refused by the encoder before a byte is written
    with _reader(fifo) as got, pytest.raises(ValueError):
        onnxdata.save_tensor(bad, fifo)
    assert got == [b""]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    device = tmp_path / "n"
    _null_device(device)
    with pytest.raises(ValueError):
        onnxdata.save(bad, device)
    assert _is_null_device(device)
    _no_temporaries(tmp_path)


def test_devnull_stays_the_null_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same writers first leave a device of our own in place: if they did not,
    # this test fails there, before the system's /dev/null is written.
    test_a_device_is_written_through("save_model", False, tmp_path)
    before = os.stat(os.devnull)
    onnxdata.save_model(_model(), os.devnull)
    onnxdata.save_tensor(TENSOR, os.devnull)
    np.save(tmp_path / "a.npy", np.arange(5.0))
    assert main(["from-npy", str(tmp_path / "a.npy"), "-o", os.devnull]) == 0
    after = os.stat(os.devnull)
    assert _is_null_device(os.devnull)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert capsys.readouterr().err == ""


def test_a_link_to_a_regular_file_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.pb"
    real.write_bytes(b"old")
    real.chmod(0o640)
    old_inode = real.stat().st_ino
    link = tmp_path / "link.pb"
    link.symlink_to(real.name)
    onnxdata.save_tensor(TENSOR, link)
    assert link.is_symlink() and os.readlink(link) == real.name
    assert TensorProto.decode(real.read_bytes()) == TENSOR
    assert real.stat().st_ino != old_inode, "a regular file is replaced, atomically"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    _no_temporaries(tmp_path)


def test_what_cannot_be_written_through_is_an_error_and_left(tmp_path: Path) -> None:
    import socket

    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as err:
        onnxdata.save_tensor(TENSOR, folder)
    assert err.value.filename == str(folder)
    regular = tmp_path / "x.pb"
    regular.write_bytes(b"old")
    for spelling in (f"{regular}/", f"{tmp_path}/new/", f"{folder}/.", f"{folder}/.."):
        with pytest.raises(IsADirectoryError) as err:
            onnxdata.save(TENSOR, spelling)  # open() refuses each; a rename took "x.pb/"
        assert err.value.filename == spelling
    assert regular.read_bytes() == b"old" and not (tmp_path / "new").exists()
    sock_path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(OSError) as err:
            onnxdata.save_model(_model(), sock_path)
        assert err.value.errno == errno.ENXIO
        assert stat.S_ISSOCK(os.stat(sock_path).st_mode)
    _no_temporaries(tmp_path)


@pytest.mark.parametrize("kind", ["device", "fifo", "link-to-device"])
def test_external_data_into_what_is_no_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    """External data is appended at offsets a loader must find again: as every
    reader (onnx's too) refuses a data file that is no regular file, the writer
    refuses one, with nothing written, never replaced."""
    device, fifo = tmp_path / "n", tmp_path / "f"
    if kind == "fifo":
        os.mkfifo(fifo)
        location = "f"
    else:
        _null_device(device)
        location = "n"
        if kind == "link-to-device":
            (tmp_path / "l").symlink_to("n")
            location = "l"
    model_path = tmp_path / "model.onnx"
    onnxdata.save_model(_model(), model_path)
    old = model_path.read_bytes()
    with pytest.raises(ValueError, match=r"not a regular file|symbolic link"):
        onnxdata.save_model(_model(), model_path, save_as_external_data=True, location=location)
    tensor = TensorProto(name="t", dims=[4], data_type=TensorProto.UINT8, raw_data=b"abcd")
    onnxdata.external_data_helper.set_external_data(tensor, location)
    with pytest.raises(ValueError, match=r"not a regular file|symbolic link"):
        onnxdata.external_data_helper.save_external_data(tensor, str(tmp_path))
    assert model_path.read_bytes() == old
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) if kind == "fifo" else _is_null_device(device)
    _no_temporaries(tmp_path)


def test_a_fifo_made_at_the_target_while_writing_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "seq.pb"
    writer = SequenceWriter(target, TensorProto)  # a new file: a temporary beside it
    writer.append(TENSOR)
    os.mkfifo(target)
    with pytest.raises(OSError) as err:
        writer.close()
    assert err.value.errno == errno.EEXIST and err.value.filename == str(target)
    assert stat.S_ISFIFO(os.stat(target).st_mode)
    _no_temporaries(tmp_path)


@pytest.mark.parametrize("command", ["from-npy", "from-json", "to-npy"])
def test_the_commands_write_through(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if command == "from-npy":
        src = tmp_path / "in.npy"
        np.save(src, np.arange(10, dtype=np.float32))
    elif command == "from-json":
        src = tmp_path / "in.json"
        src.write_text('{"dims": ["3"], "dataType": 1, "floatData": [1, 2, 3]}')
    else:
        src = tmp_path / "in.pb"
        onnxdata.save(TENSOR, src)
    regular = tmp_path / "regular"
    assert main([command, str(src), "-o", str(regular)]) == 0
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with _reader(fifo) as got:
        assert main([command, str(src), "-o", str(fifo)]) == 0
    assert got == [regular.read_bytes()]
    device = tmp_path / "n"
    _null_device(device)
    assert main([command, str(src), "-o", str(device)]) == 0
    assert _is_null_device(device)
    assert capsys.readouterr().err == ""
    _no_temporaries(tmp_path)


@pytest.mark.parametrize("what", ["folder", "socket"])
def test_a_command_output_that_cannot_be_opened_is_one_line(
    what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    src = tmp_path / "in.npy"
    np.save(src, np.arange(10, dtype=np.float32))
    out = tmp_path / "out"
    with socket.socket(socket.AF_UNIX) as sock:
        if what == "folder":
            out.mkdir()
        else:
            sock.bind(str(out))
        assert main(["from-npy", str(src), "-o", str(out)]) == 2
        kind = os.stat(out).st_mode
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write {out}" in err
    assert stat.S_ISDIR(kind) if what == "folder" else stat.S_ISSOCK(kind)


_STDOUT_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    import onnxdata
    from onnxdata import TensorProto
    t = TensorProto(name="t", dims=[3], data_type=1, float_data=[1, 2, 3])
    onnxdata.save_tensor(t, "/dev/stdout")
    onnxdata.save(t, "/dev/fd/1")
    with onnxdata.SequenceWriter("/dev/stdout", TensorProto) as w:
        w.append(t)
    """
)


def _stdout_writes() -> bytes:
    seq = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[TENSOR])
    return TENSOR.encode() * 2 + seq.encode()


def test_dev_stdout_into_a_pipe_is_written_through() -> None:
    script = _STDOUT_SCRIPT.format(root=str(ROOT))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=False)
    assert done.stderr == b"" and done.returncode == 0
    assert done.stdout == _stdout_writes()


def test_the_command_writes_to_dev_stdout_into_a_pipe(tmp_path: Path) -> None:
    src = tmp_path / "in.npy"
    np.save(src, np.arange(10, dtype=np.float32))
    regular = tmp_path / "regular.pb"
    assert main(["from-npy", str(src), "-o", str(regular)]) == 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "onnxdata", "from-npy", str(src), "-o", "/dev/stdout"],
        capture_output=True, env=env, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == regular.read_bytes()


def test_dev_stdout_onto_a_file_is_appended_to_not_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out.bin"
    out.write_bytes(b"kept:")
    inode = out.stat().st_ino
    script = _STDOUT_SCRIPT.format(root=str(ROOT))
    with open(out, "ab") as stdout:
        done = subprocess.run(
            [sys.executable, "-c", script], stdout=stdout, stderr=subprocess.PIPE, check=False
        )
    assert done.stderr == b"" and done.returncode == 0
    assert out.stat().st_ino == inode, "the file the shell opened was replaced"
    assert out.read_bytes() == b"kept:" + _stdout_writes()
    _no_temporaries(tmp_path)


def test_dev_stdout_into_a_pipe_without_reader_is_a_broken_pipe() -> None:
    script = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        import onnxdata
        sys.stdin.read()  # until the parent has closed the pipe's reading end
        try:
            onnxdata.save_tensor(onnxdata.TensorProto(name="t"), "/dev/stdout")
        except BrokenPipeError as exc:
            sys.stderr.write(f"refused: {{exc.filename}}")
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert child.stdout is not None and child.stdin is not None
    child.stdout.close()  # no reader will ever come
    _, err = child.communicate(b"", timeout=60)
    assert (child.returncode, err) == (0, b"refused: /dev/stdout")


def test_ctrl_c_stops_the_wait_for_a_fifo_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import onnxdata
        print("ready", flush=True)
        onnxdata.save_tensor(onnxdata.TensorProto(name="t"), {str(fifo)!r})
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        time.sleep(0.2)  # into the wait: no reader comes
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode != 0 and b"KeyboardInterrupt" in err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    _no_temporaries(tmp_path)


@pytest.mark.parametrize("name", ["onnx.dict", "TensorProto"])
def test_corpus_force_never_removes_a_fifo_or_device(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``corpus --force`` replaces a corpus's files and folders by moving them
    aside and removing them: a FIFO or device at such a name is refused."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / name)
    assert main(["corpus", str(out), "--force", "--count", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a device, FIFO or socket" in err
    assert stat.S_ISFIFO(os.stat(out / name).st_mode)
    assert sorted(p.name for p in out.iterdir()) == [name], "nothing was written"


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_replaced_file_keeps_its_owner_as_onnx_s_write_in_place_does(
    name: str, tmp_path: Path
) -> None:
    # Run as root, a save over a user's file renamed root's temporary over it:
    # the file became root's, and a 0600 file then unwritable by its user.
    # onnx writes in place and keeps the owner; the atomic save now gives the
    # temporary the target's owner and group (and mode) before the rename.
    if not hasattr(os, "fchown") or os.geteuid() != 0:
        pytest.skip("only root may give a file to another user")
    target = tmp_path / "mine"
    by_onnx = tmp_path / "by-onnx"
    for path in (target, by_onnx):
        path.write_bytes(b"old")
        os.chown(path, 1234, 5678)
        os.chmod(path, 0o4640)  # set-user-id survives only when set after the owner
    onnx.save_model(_model(), by_onnx)
    WRITERS[name](target)
    assert target.read_bytes() == _expected(name, tmp_path)
    st, onnx_st = target.stat(), by_onnx.stat()
    assert (st.st_uid, st.st_gid) == (onnx_st.st_uid, onnx_st.st_gid) == (1234, 5678)
    assert stat.S_IMODE(st.st_mode) == 0o4640


def test_a_file_in_a_folder_that_takes_no_new_file_is_refused_naming_the_folder(
    tmp_path: Path,
) -> None:
    # The file is writable, its folder is not: onnx writes in place; the
    # atomic save cannot make its temporary, and said only "Permission
    # denied: <the file>", which the file's own permissions contradict.  The
    # error (and the command's one line) now says it is the folder; the file
    # is left as it was.
    import shutil

    folder = tmp_path / "ro"
    folder.mkdir()
    target = folder / "m.onnx"
    target.write_bytes(b"old")
    target.chmod(0o666)
    folder.chmod(0o555)
    np.save(tmp_path / "a.npy", np.arange(3, dtype=np.float32))
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import onnxdata
        try:
            onnxdata.save(onnxdata.TensorProto(name="t"), {str(target)!r})
        except PermissionError as exc:
            print(exc)
        from onnxdata.cli import main
        sys.exit(main(["from-npy", {str(tmp_path / "a.npy")!r}, "-o", {str(target)!r}]))
    """)
    command = [sys.executable, "-c", script]
    if os.geteuid() == 0:  # root writes anywhere: run without the power to override modes
        if shutil.which("setpriv") is None:
            pytest.skip("no setpriv to drop root's override of permissions")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", *command]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    finally:
        folder.chmod(0o755)
    said = "Permission denied: cannot create a temporary file in its folder"
    assert said in done.stdout and str(target) in done.stdout
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and said in done.stderr
    assert target.read_bytes() == b"old" and os.listdir(folder) == ["m.onnx"]
