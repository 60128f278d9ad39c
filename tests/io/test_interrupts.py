"""A Ctrl-C at any step of a file operation leaves nothing behind (issue 31, class 9).

A SIGINT arriving as the atomic writer opened its temporary left the file
forever; one just after ``os.close`` in the external-data walk closed the same
descriptor number twice.  Here every system call of each operation
(``os.open``, ``os.close``, the hand-over of a descriptor to a file object,
``os.fchmod``, ``os.fsync``, ``os.replace``, ``os.unlink``, ``os.write``,
``os.lseek``, ``os.ftruncate``, ``flock``, and the
encoder's writing) is made to receive a real SIGINT (``signal.raise_signal``),
just before it acts and just after, one call at a time.  After each run:

- no temporary remains, and the target is the old file or the complete new one
  (an external-data file: as it was, or with the whole tensor appended);
- as many descriptors are open as before (``/proc/self/fd``), and no number
  was closed twice without being opened in between;
- SIGINT's handler is the one it was, and no lock of the writers is held.

A subprocess test sends SIGINT to ``python -m onnxdata from-npy`` while it writes.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import onnxdata
import onnxdata._io.external as external
import onnxdata._io.files as files
import onnxdata._io.owned as owned
from onnxdata import SequenceProto, SequenceWriter, TensorProto
from onnxdata.external_data_helper import (
    load_external_data_for_tensor,
    save_external_data,
    set_external_data,
)

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd") or not hasattr(signal, "raise_signal"),
    reason="counts descriptors in /proc/self/fd",
)

OLD = TensorProto(name="old", dims=[2], data_type=TensorProto.INT32, int32_data=[1, 2])
NEW = TensorProto(
    name="new", dims=[5000], data_type=TensorProto.UINT8, raw_data=bytes(range(250)) * 20
)
STEPS = ["open", "close", "fchmod", "fsync", "replace", "unlink", "write", "lseek"]
STEPS += ["ftruncate"]


def _descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


class Injector:
    """Wraps the steps; counts their calls, delivers SIGINT at one of them, and
    records every descriptor opened and closed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: dict[str, int] = {}
        self.target: tuple[str, int, str] | None = None  # (step, call number, "before"/"after")
        self.fired = False
        self.open_fds: set[int] = set()
        self.double_closes: list[int] = []
        for name in STEPS:
            monkeypatch.setattr(os, name, self._wrap(name, getattr(os, name)))
        if external.fcntl is not None:
            monkeypatch.setattr(external.fcntl, "flock", self._wrap("flock", external.fcntl.flock))
        monkeypatch.setattr(files, "encode_to", self._wrap("encode_to", files.encode_to))
        # A descriptor handed over to a file object: open(fd, mode) in owned.py.
        monkeypatch.setattr(owned, "open", self._wrap("to_file", open), raising=False)

    def _wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> Any:
            n = self.calls[name] = self.calls.get(name, 0) + 1
            here = self.target is not None and self.target[:2] == (name, n)
            if here and self.target is not None and self.target[2] == "before":
                self._interrupt()
            if name == "close" and args[0] not in self.open_fds:
                self.double_closes.append(args[0])
            result = real(*args, **kwargs)
            if name == "open":
                self.open_fds.add(result)
            elif name == "close":
                self.open_fds.discard(args[0])
            if here and self.target is not None and self.target[2] == "after":
                self._interrupt()
            return result

        return step

    def _interrupt(self) -> None:
        self.fired = True
        signal.raise_signal(signal.SIGINT)  # what Ctrl-C does at this point

    def arm(self, target: tuple[str, int, str] | None) -> None:
        self.calls = {}
        self.target = target
        self.fired = False


def _points(counts: dict[str, int]) -> list[tuple[str, int, str]]:
    return [
        (s, n, w)
        for s, c in sorted(counts.items())
        for n in range(1, c + 1)
        for w in ("before", "after")
    ]


def _no_lock_held() -> bool:
    return not any(lock.locked() for lock in list(external._LOCKS.values()))


def _each_interrupt(
    monkeypatch: pytest.MonkeyPatch,
    prepare: Callable[[], Any],
    operation: Callable[[Any], None],
    check: Callable[[Any, bool], None],
) -> int:
    """Run ``operation`` once per interruption point; ``check(state, completed)`` after each."""
    # An earlier test's garbage (a traceback holding a mapped model) closes its
    # descriptors when the collector runs: before counting, not in the middle.
    gc.collect()
    handler = signal.getsignal(signal.SIGINT)
    assert handler is signal.default_int_handler
    # Once before counting: what a process does only the first time (generating
    # and caching code, lazy imports) is no step of the operation, and counted it
    # would name points that no later run reaches, so the count would depend on
    # the tests run before this one.
    operation(prepare())
    inject = Injector(monkeypatch)
    state = prepare()
    inject.arm(None)
    operation(state)
    points = _points(inject.calls)
    print(f"{len(points)} points: {sorted(inject.calls.items())}")
    assert points
    for point in points:
        state = prepare()
        before = _descriptors()
        inject.arm(point)
        completed = True
        try:
            operation(state)
        except KeyboardInterrupt:
            completed = False
        assert inject.fired, point
        assert not completed, f"{point}: the SIGINT was lost"
        assert _descriptors() == before, f"{point}: a descriptor leaked"
        assert inject.double_closes == [], f"{point}: closed twice"
        assert signal.getsignal(signal.SIGINT) is handler, point
        assert _no_lock_held(), point
        check(state, completed)
    return len(points)


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    assert _leftovers(tmp_path) == []


def _replace_check(path: Path, writes: bytes) -> Callable[[Any, bool], None]:
    def check(state: Any, completed: bool) -> None:
        assert path.read_bytes() in (OLD.encode(), writes)
        assert _leftovers(path.parent) == []

    return check


def test_save(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    path = folder / "t.pb"
    n = _each_interrupt(
        monkeypatch,
        lambda: path.write_bytes(OLD.encode()),
        lambda _: onnxdata.save(NEW, path),
        _replace_check(path, NEW.encode()),
    )
    assert n >= 16


@pytest.mark.parametrize("fmt", ["textproto", "json"])
def test_save_tensor(monkeypatch: pytest.MonkeyPatch, folder: Path, fmt: str) -> None:
    path = folder / "t.txt"
    onnxdata.save_tensor(NEW, path, format=fmt)  # type: ignore[arg-type]
    expected = path.read_bytes()
    _each_interrupt(
        monkeypatch,
        lambda: path.write_bytes(OLD.encode()),
        lambda _: onnxdata.save_tensor(NEW, path, format=fmt),  # type: ignore[arg-type]
        _replace_check(path, expected),
    )


def test_sequence_writer(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    path = folder / "s.pb"
    seq = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[NEW, NEW])

    def write(_: Any) -> None:
        with SequenceWriter(path, TensorProto) as writer:
            writer.append(NEW)
            writer.append(NEW)

    _each_interrupt(
        monkeypatch,
        lambda: path.write_bytes(OLD.encode()),
        write,
        _replace_check(path, seq.encode()),
    )


def test_cli_from_json(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    from onnxdata import cli
    from onnxdata.json_format import MessageToJson

    (folder / "in.json").write_text(MessageToJson(NEW))
    path = folder / "out.pb"
    args = ["from-json", str(folder / "in.json"), "-o", str(path), "--type", "tensor"]
    _each_interrupt(
        monkeypatch,
        lambda: path.write_bytes(OLD.encode()),
        lambda _: cli.main(args),
        _replace_check(path, NEW.encode()),
    )


def test_save_into_a_device(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """A target written through (issue 38, class 2): a Ctrl-C anywhere leaves
    the device a device, and every descriptor closed once."""
    import stat

    device = folder / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError as exc:
        pytest.skip(f"cannot make a device here: {exc}")

    def check(state: Any, completed: bool) -> None:
        st = os.stat(device)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)

    n = _each_interrupt(monkeypatch, lambda: None, lambda _: onnxdata.save(NEW, device), check)
    assert n >= 6


def test_save_model_with_external_data(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """The data files are written and synced, then the model renamed (issue 38,
    class 3): a Ctrl-C anywhere leaves the old model, or the new one with all
    of its weights on disk."""
    from onnxdata import GraphProto, ModelProto

    path, data = folder / "m.onnx", folder / "w.data"
    old = ModelProto(ir_version=8).encode()

    def model() -> ModelProto:
        w = TensorProto(name="w", dims=[5000], data_type=TensorProto.UINT8, raw_data=NEW.raw_data)
        return ModelProto(ir_version=8, graph=GraphProto(name="g", initializer=[w]))

    def prepare() -> ModelProto:
        path.write_bytes(old)
        data.unlink(missing_ok=True)
        return model()

    def save(m: ModelProto) -> None:
        onnxdata.save_model(m, path, save_as_external_data=True, location="w.data")

    save(prepare())
    new = path.read_bytes()

    def check(state: Any, completed: bool) -> None:
        assert path.read_bytes() in (old, new)
        assert _leftovers(folder) == []
        if path.read_bytes() == new:
            loaded = onnxdata.load_model(path, copy=True)
            assert bytes(loaded.graph.initializer[0].raw_data) == NEW.raw_data

    _each_interrupt(monkeypatch, prepare, save, check)


def _external(location: str) -> TensorProto:
    t = TensorProto(name="e", dims=[5000], data_type=TensorProto.UINT8, raw_data=NEW.raw_data)
    set_external_data(t, location)
    return t


@pytest.mark.parametrize("by_path", [False, True], ids=["dir_fd", "by_path"])
@pytest.mark.parametrize("offset", [None, 4096])
def test_save_external_data(
    monkeypatch: pytest.MonkeyPatch, folder: Path, by_path: bool, offset: int | None
) -> None:
    if by_path:
        monkeypatch.setattr(external, "USE_DIR_FD", False)
    (folder / "sub" / "deeper").mkdir(parents=True)
    path = folder / "sub" / "deeper" / "x.bin"
    head = b"h" * 1000

    def prepare() -> TensorProto:
        path.write_bytes(head)
        t = _external("sub/deeper/x.bin")
        if offset is not None:
            set_external_data(t, "sub/deeper/x.bin", offset=offset)
        return t

    def check(t: TensorProto, completed: bool) -> None:
        data = path.read_bytes()
        pad = bytes((offset or len(head)) - len(head))
        assert data in (head, head + pad + NEW.raw_data)  # type: ignore[operator]

    _each_interrupt(monkeypatch, prepare, lambda t: save_external_data(t, str(folder)), check)


@pytest.mark.parametrize("by_path", [False, True], ids=["dir_fd", "by_path"])
def test_load_external_data(monkeypatch: pytest.MonkeyPatch, folder: Path, by_path: bool) -> None:
    if by_path:
        monkeypatch.setattr(external, "USE_DIR_FD", False)
    (folder / "sub").mkdir()
    stored = _external("sub/x.bin")
    save_external_data(stored, str(folder))
    stored.ClearField("raw_data")

    def check(t: TensorProto, completed: bool) -> None:
        assert not t.HasField("raw_data")

    _each_interrupt(
        monkeypatch,
        lambda: TensorProto.decode(stored.encode()),
        lambda t: load_external_data_for_tensor(t, str(folder)),
        check,
    )


def test_a_signal_outside_the_main_thread_needs_nothing() -> None:
    """Handlers run in the main thread only: elsewhere the guard stands aside."""
    import threading

    from onnxdata._io.owned import deferred_interrupts

    seen = []

    def run() -> None:
        with deferred_interrupts():
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]


def test_a_held_back_signal_reaches_the_handler_the_user_set() -> None:
    from onnxdata._io.owned import deferred_interrupts

    got: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        with deferred_interrupts():
            signal.raise_signal(signal.SIGINT)
            assert got == []  # held back
        assert got == [signal.SIGINT]
        with deferred_interrupts(), deferred_interrupts():  # nested: handled once, at the end
            signal.raise_signal(signal.SIGINT)
        assert got == [signal.SIGINT] * 2
    finally:
        signal.signal(signal.SIGINT, old)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with deferred_interrupts():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # nothing to hold back
    finally:
        signal.signal(signal.SIGINT, old)


def test_sigint_to_from_npy_leaves_no_temporary(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    source = tmp_path / "in.npy"
    np.save(source, np.zeros(1 << 24, dtype=np.uint8))  # 16 MiB: writing takes a while
    out = tmp_path / "out.pb"
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    stopped = 0
    for attempt in range(8):
        child = subprocess.Popen(
            [sys.executable, "-m", "onnxdata", "from-npy", str(source), "-o", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        # Wait for the temporary to appear (the write has begun), then interrupt it.
        deadline = time.monotonic() + 60
        while not _leftovers(tmp_path) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=120)
        if child.returncode != 0:
            stopped += 1
            assert b"KeyboardInterrupt" in err, err[-2000:]
        assert _leftovers(tmp_path) == [], f"attempt {attempt}"
        if out.exists():  # completed before the signal: the whole tensor
            assert len(TensorProto.decode(out.read_bytes()).raw_data or b"") == 1 << 24
            out.unlink()
        if stopped == 3:
            break
    assert stopped > 0  # at least some signals arrived mid-write
