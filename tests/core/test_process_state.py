"""Decoding leaves the process's garbage collector exactly as the application set it.

A large decode pauses the cyclic collector (by a marked threshold, see
onnxdata/_codec/gcpause.py); these tests fail if the pause ever changes, or fails to
restore, what the application set: in the same thread, in another thread that
changes the collector meanwhile, and in a child forked during a decode.
"""

from __future__ import annotations

import gc
import os
import sys
import threading

import pytest

from onnxdata import SequenceProto, TensorProto

BIG = SequenceProto(
    elem_type=SequenceProto.TENSOR,
    tensor_values=[TensorProto(dims=[i % 7], int64_data=[i] * (i % 7)) for i in range(20_000)],
).encode()


@pytest.fixture(autouse=True)
def _restore_gc() -> object:
    enabled = gc.isenabled()
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_a_large_decode_restores_the_collector_exactly() -> None:
    gc.set_threshold(555, 11, 12)
    SequenceProto.decode(BIG)
    assert gc.isenabled()
    assert gc.get_threshold() == (555, 11, 12)


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    SequenceProto.decode(BIG)
    assert not gc.isenabled()


class _Decoder(threading.Thread):
    """Decodes BIG in a loop until stopped, counting finished decodes."""

    def __init__(self) -> None:
        super().__init__()
        self.done = 0
        self.stop = threading.Event()
        self.moved = threading.Condition()

    def run(self) -> None:
        while not self.stop.is_set():
            SequenceProto.decode(BIG)
            with self.moved:
                self.done += 1
                self.moved.notify_all()

    def wait_for(self, more: int) -> None:
        with self.moved:
            target = self.done + more
            self.moved.wait_for(lambda: self.done >= target)

    def __enter__(self) -> _Decoder:
        self.start()
        self.wait_for(1)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.join()


def test_changes_made_while_another_thread_decodes_are_kept() -> None:
    for _ in range(3):
        gc.enable()
        with _Decoder() as other:  # decodes start with the collector on ...
            gc.disable()  # ... and the application turns it off meanwhile
            gc.set_threshold(321, 9, 8)
            other.wait_for(2)
        assert not gc.isenabled()
        assert gc.get_threshold() == (321, 9, 8)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "emscripten", reason="no fork")
def test_a_child_forked_during_a_decode_has_the_collector_as_set() -> None:
    gc.set_threshold(700, 10, 10)
    with _Decoder():
        results = []
        for _ in range(10):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: report and leave at once
                os.close(read)
                state = f"{int(gc.isenabled())} {gc.get_threshold()}".encode()
                os.write(write, state)
                os._exit(0)
            os.close(write)
            with os.fdopen(read, "rb") as f:
                results.append(f.read().decode())
            os.waitpid(pid, 0)
    assert set(results) == {"1 (700, 10, 10)"}
