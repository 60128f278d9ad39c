"""Replacing a file atomically: a temporary beside it, renamed over it when complete."""

from __future__ import annotations

import contextlib
import os
import weakref

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, BinaryIO

__all__ = ["AtomicFile"]


class AtomicFile:
    """A temporary file beside ``path``, renamed over it when complete.

    ``os.replace`` is atomic on POSIX and Windows: a reader sees the old file or
    the new one, never a mix; ``fsync`` first makes the new contents durable
    before the name points at them, and the directory is synced after.

    A temporary never outlives its use: one that is neither committed nor
    discarded (its owner dropped, an exception in between, the interpreter
    exiting) is removed when the object is collected, or at exit.
    """

    def __init__(self, path: Any) -> None:
        # A symlink stays a symlink: the file it points to is replaced.
        self.path = os.path.realpath(os.fsdecode(path))
        folder, base = os.path.split(self.path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        while True:
            self.temp = os.path.join(folder, f".{base}.{os.urandom(4).hex()}.tmp")
            try:
                fd = os.open(self.temp, flags, 0o666)  # the umask applies, as for open()
                break
            except FileExistsError:  # pragma: no cover - 32 random bits collided
                continue
        try:
            self._keep_mode(fd)
            self.file: BinaryIO = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            os.unlink(self.temp)
            raise
        self._cleanup = weakref.finalize(self, _remove, self.file, self.temp)

    def _keep_mode(self, fd: int) -> None:
        """A file replaced keeps its permission bits."""
        try:
            mode = os.stat(self.path).st_mode & 0o7777
        except OSError:
            return
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)

    def commit(self) -> None:
        """Make the complete file durable and rename it over the target.

        Raises:
            OSError: from flushing, syncing or renaming; the temporary is then
                removed and the target left as it was.
        """
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            os.replace(self.temp, self.path)
        except BaseException:
            self.discard()
            raise
        self._cleanup.detach()
        _sync_folder(os.path.dirname(self.path))

    def discard(self) -> None:
        """Remove the temporary; the target is left as it was."""
        self._cleanup()


def _remove(file: BinaryIO, temp: str) -> None:
    """Close and remove a temporary (what discarding, or dropping, an AtomicFile does)."""
    with contextlib.suppress(OSError):  # the error that brought us here matters more
        file.close()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)


def _sync_folder(folder: str) -> None:
    """Make a rename durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - file systems that refuse it
        pass
    finally:
        os.close(fd)
