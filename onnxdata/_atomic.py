"""Replacing a file atomically: a temporary beside it, renamed over it when complete."""

from __future__ import annotations

import contextlib
import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, BinaryIO

__all__ = ["AtomicFile"]


class AtomicFile:
    """A temporary file beside ``path``, renamed over it when complete.

    ``os.replace`` is atomic on POSIX and Windows: a reader sees the old file or
    the new one, never a mix; ``fsync`` first makes the new contents durable
    before the name points at them, and the directory is synced after.
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

    def _keep_mode(self, fd: int) -> None:
        """A file replaced keeps its permission bits."""
        try:
            mode = os.stat(self.path).st_mode & 0o7777
        except OSError:
            return
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)

    def commit(self) -> None:
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            os.replace(self.temp, self.path)
        except BaseException:
            self.discard()
            raise
        _sync_folder(os.path.dirname(self.path))

    def discard(self) -> None:
        with contextlib.suppress(OSError):  # the error that brought us here matters more
            self.file.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temp)


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
