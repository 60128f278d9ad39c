"""Descriptors and locks owned from the instant they exist, released exactly once, under Ctrl-C too.

CPython runs a signal handler (SIGINT's raises ``KeyboardInterrupt``) in the
main thread between two bytecodes, and one of those points is right after a
call returns: after ``os.open`` made a descriptor and before its number is
stored anywhere, after ``os.close`` and before the number is marked closed,
after ``lock.acquire`` and before the ``try`` that releases it.  An exception
there leaks the descriptor (or the lock), or leaves a number that is closed a
second time later, by when it may be a file another thread has opened.

:class:`deferred_interrupts` closes those windows: while it is held in the main
thread, a SIGINT whose handler is Python code is recorded instead of handled,
and handled as the block ends, once the result is stored.  Every acquisition
and release in this package's file code runs under it, and is short: a
system call and a store, never a wait (:func:`holding` polls a lock in short
steps, so Ctrl-C still stops a writer waiting for another).  Other threads
need nothing: Python runs signal handlers in the main thread only.

:class:`Descriptor` is a descriptor with one owner: it is stored in the
object in the same uninterruptible step that opens it, and marked closed in
the step that closes it, so no path can close it twice.
"""

from __future__ import annotations

import contextlib
import os
import threading

try:  # the C module: signal's wrappers convert to enums, a cost paid on every open
    import _signal as _handlers  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - an interpreter without it
    import signal as _handlers

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator
    from types import FrameType, TracebackType
    from typing import Any

__all__ = ["Descriptor", "deferred_interrupts", "holding"]

_SIGINT = int(_handlers.SIGINT)
_POLL = 0.05
"""How long one uninterruptible attempt to take a lock waits (seconds): the
longest that Ctrl-C can be held back while a writer waits for another."""


class deferred_interrupts:  # noqa: N801 - used as a statement, like contextlib.suppress
    """Hold SIGINT back for the duration of a ``with`` block, then handle it.

    Only in the main thread, and only when SIGINT's handler is Python code
    (the default raises ``KeyboardInterrupt``): elsewhere no Python code runs
    on SIGINT, so there is nothing to hold back.  A SIGINT received during
    the block calls the original handler as the block ends (so
    ``KeyboardInterrupt`` is raised there, after the block's stores).

    Raises:
        KeyboardInterrupt: (from ``__exit__``) SIGINT arrived during the block.
    """

    __slots__ = ("_old", "_pending")

    def __init__(self) -> None:
        self._old: Any = None
        self._pending: list[tuple[int, FrameType | None]] = []

    def __enter__(self) -> deferred_interrupts:
        if threading.current_thread() is not threading.main_thread():
            return self
        handler = _handlers.getsignal(_SIGINT)
        if not callable(handler):  # SIG_IGN, SIG_DFL, or set outside Python
            return self
        try:
            self._old = _handlers.signal(_SIGINT, self._record)
        except ValueError:  # pragma: no cover - not the main interpreter
            self._old = None
        return self

    def _record(self, signum: int, frame: FrameType | None) -> None:
        self._pending.append((signum, frame))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        old, self._old = self._old, None
        if old is None:
            return
        _handlers.signal(_SIGINT, old)
        if self._pending:
            signum, frame = self._pending[0]
            self._pending.clear()
            old(signum, frame)  # as if it arrived now: the default raises KeyboardInterrupt


class Descriptor:
    """An open file descriptor and its one owner.

    ``fd`` is the number while open and -1 once closed.  The descriptor is
    stored as it is opened and marked closed as it is closed, with SIGINT held
    back in between (:class:`deferred_interrupts`), so an interrupt can
    neither lose it nor have it closed twice; one dropped unclosed is closed
    when collected.

    Raises (from the constructor):
        OSError: from ``os.open``; nothing is left open then.
    """

    __slots__ = ("__weakref__", "fd")

    def __init__(
        self, path: Any, flags: int, mode: int = 0o666, *, dir_fd: int | None = None
    ) -> None:
        self.fd = -1
        try:
            with deferred_interrupts():
                self.fd = os.open(path, flags, mode, dir_fd=dir_fd)
        except BaseException:
            self.close()  # an interrupt held back until the number was stored
            raise

    def to_file(self, mode: str) -> Any:
        """Hand the descriptor over to a new file object (``open(fd, mode)``),
        which owns it from then on; this object is then closed.

        Raises:
            ValueError: the descriptor is closed.
            OSError: from ``open`` (the descriptor stays this object's).
        """
        if self.fd < 0:
            raise ValueError("the descriptor is closed")
        with deferred_interrupts():
            file = open(self.fd, mode)  # noqa: SIM115 - the caller owns it
            self.fd = -1
        return file

    def close(self) -> None:
        """Close the descriptor, once: later calls do nothing.

        Raises:
            OSError: from ``os.close`` (the descriptor is closed all the same).
        """
        with deferred_interrupts():
            fd = getattr(self, "fd", -1)  # unset on an object whose __init__ never ran
            self.fd = -1
            if fd >= 0:
                os.close(fd)

    def __enter__(self) -> Descriptor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        # A KeyboardInterrupt before __init__'s first store leaves ``fd`` unset:
        # nothing was opened, and nothing must be printed as "ignored".
        fd = getattr(self, "fd", -1)
        self.fd = -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


@contextlib.contextmanager
def holding(lock: Any) -> Iterator[None]:
    """Hold ``lock`` (a ``threading.Lock``) for a ``with`` block, released exactly
    once however the block ends, Ctrl-C during the acquisition included.

    Raises:
        KeyboardInterrupt: SIGINT while waiting (the lock is not held then).
    """
    held = False
    try:
        while not held:
            with deferred_interrupts():
                held = lock.acquire(timeout=_POLL)
        yield
    finally:
        if held:
            lock.release()
