"""Pausing the cyclic garbage collector while a large decode builds its tree.

Decoding makes a tree of new objects and no cycles, so the cyclic collector
has nothing to find meanwhile; left running, it rescans the growing tree
again and again and a large decode takes much longer.  But the collector is
process-wide state that belongs to the application, so the pause must never
change what the application set or sees:

- it does not touch ``gc.enable()``/``gc.disable()``: an application that
  disables the collector while another thread decodes keeps it disabled;
- it raises the first-generation threshold to a value no one else uses (the
  mark) and restores the saved thresholds only if the mark is still there: a
  ``gc.set_threshold()`` made meanwhile wins;
- concurrent decodes share one pause (a count under a lock): the last one out
  restores;
- a child forked during a decode restores the thresholds at once (an
  after-fork hook), since the decode that paused it does not exist there.

Only decodes of inputs of at least :data:`MIN_BYTES` pause: a small message
cannot build enough objects to be worth a lock.
"""

from __future__ import annotations

import gc
import os
from _thread import allocate_lock

__all__ = ["MIN_BYTES", "pause", "resume"]

MIN_BYTES = 1 << 16
"""Inputs shorter than this decode without pausing the collector."""

_MARK = (1 << 30) + 7  # a first-generation threshold that says "paused by onnxdata"

_lock = allocate_lock()
_holders = 0
_saved: tuple[int, ...] = ()


def pause() -> bool:
    """Pause the collector for one decode; True if :func:`resume` must follow.

    Nothing happens (False) when the collector is disabled or its first
    threshold is 0 (collection off): there is nothing to pause.
    """
    global _holders, _saved
    with _lock:
        if _holders == 0:
            threshold = gc.get_threshold()
            if not gc.isenabled() or threshold[0] == 0:
                return False
            _saved = threshold
            gc.set_threshold(_MARK, *threshold[1:])
        _holders += 1
        return True


def resume() -> None:
    """End one decode's pause; the last one restores the thresholds if still marked."""
    global _holders
    with _lock:
        _holders -= 1
        if _holders == 0 and gc.get_threshold()[0] == _MARK:
            gc.set_threshold(*_saved)


def _after_fork_in_child() -> None:
    """In a child forked during a decode: no decode is running here, restore now."""
    global _holders, _lock
    _lock = allocate_lock()  # another thread may have held it at the fork
    if _holders and gc.get_threshold()[0] == _MARK:
        gc.set_threshold(*_saved)
    _holders = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
