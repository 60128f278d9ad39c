"""Replacing a file atomically: a temporary beside it, renamed over it when complete."""

from __future__ import annotations

import contextlib
import errno
import os
import weakref

from .owned import Descriptor, deferred_interrupts

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, BinaryIO, NoReturn

__all__ = ["TEMPORARY_PREFIX", "AtomicFile", "name_max", "temporary_name"]

TEMPORARY_PREFIX = ".onnxdata-"
"""How the temporaries of atomic writes begin (they end in ``.tmp``)."""
_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
)


def name_max(folder: str) -> int | None:
    """The longest file name, in bytes, that ``folder`` takes (``NAME_MAX``), or
    None where the system cannot say (Windows counts UTF-16 units, not bytes)."""
    try:
        found = os.pathconf(folder or ".", "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return None
    return found if found > 0 else None  # -1: no limit


def temporary_name(limit: int | None) -> str:
    """A fresh random name for a temporary, of at most ``limit`` bytes.

    It does not depend on the target's name, so any name the folder takes
    can be the target: a temporary named after the target would be longer
    than it and refused (ENAMETOOLONG) for a target near the limit.  64
    random bits make a collision with another writer's temporary out of
    reach; it would only cost a retry (the file is created exclusively).
    """
    token = os.urandom(8).hex()
    name = f"{TEMPORARY_PREFIX}{token}.tmp"
    if limit is not None and len(name) > limit:  # a file system of very short names
        name = "." + token[: max(limit - 1, 1)]
    return name


class _Temporary:
    """The temporary's name, descriptor and file object: what must go if the
    write is given up.  Each is recorded in the same uninterruptible step that
    makes it, and cleared in the step that releases it."""

    __slots__ = ("desc", "file", "name")

    def __init__(self) -> None:
        self.name: str | None = None
        self.desc: Descriptor | None = None
        self.file: BinaryIO | None = None

    def create(self, name: str) -> None:
        """Create ``name`` exclusively; FileExistsError if it exists (nothing recorded)."""
        with deferred_interrupts():
            desc = Descriptor(name, _FLAGS, 0o666)  # the umask applies, as for open()
            self.name, self.desc = name, desc

    def open_file(self) -> BinaryIO:
        """Hand the descriptor over to a buffered file object."""
        desc = self.desc
        assert desc is not None
        with deferred_interrupts():
            file: BinaryIO = desc.to_file("wb")
            self.file, self.desc = file, None
        return file

    def close(self) -> None:
        """Close the file or descriptor, once.

        Raises:
            OSError: from flushing the last buffered bytes, or closing.
        """
        with deferred_interrupts():
            file, desc, self.file, self.desc = self.file, self.desc, None, None
        try:
            if file is not None:
                file.close()  # a file object marks itself closed before it closes
        finally:
            if desc is not None:
                desc.close()

    def renamed(self, target: str) -> None:
        """Rename the temporary over ``target``; from then on it is not ours to remove."""
        name = self.name
        assert name is not None
        with deferred_interrupts():
            os.replace(name, target)
            self.name = None

    def remove(self) -> None:
        """Close and remove the temporary (what discarding, or dropping, an AtomicFile does)."""
        with contextlib.suppress(OSError):  # the error that brought us here matters more
            self.close()
        with deferred_interrupts():
            name, self.name = self.name, None
            if name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(name)


def _reraise(exc: BaseException, path: str) -> NoReturn:
    """Raise ``exc``, an OSError as one that names ``path``, the target: the
    temporary is ours, and its name would only puzzle the caller."""
    if not isinstance(exc, OSError) or exc.errno is None or exc.filename == path:
        raise exc
    # OSError(errno, ...) makes the same subclass (FileNotFoundError, ...).
    raise OSError(exc.errno, exc.strerror, path) from None


class AtomicFile:
    """A temporary file beside ``path``, renamed over it when complete.

    ``os.replace`` is atomic on POSIX and Windows: a reader sees the old file or
    the new one, never a mix; ``fsync`` first makes the new contents durable
    before the name points at them, and the directory is synced after.

    The temporary has a short random name in the same directory
    (``.onnxdata-<16 hex digits>.tmp``), so any name the directory takes can
    be the target, and every error names the target.  A temporary never
    outlives its use: one that is neither committed nor discarded (its owner
    dropped, an exception or a Ctrl-C at any point, the interpreter exiting)
    is removed when the object is collected, or at exit.

    Raises (from the constructor):
        OSError: the temporary cannot be created (the error names ``path``);
            ``path``'s name is longer than its directory takes (ENAMETOOLONG).
    """

    def __init__(self, path: Any) -> None:
        # A symlink stays a symlink: the file it points to is replaced.
        self.path = os.path.realpath(os.fsdecode(path))
        folder, base = os.path.split(self.path)
        limit = name_max(folder)
        if limit is not None and len(os.fsencode(base)) > limit:  # refused now, not after writing
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), self.path)
        temp = self._temp = _Temporary()
        self._cleanup = weakref.finalize(self, temp.remove)
        try:
            while True:
                try:
                    temp.create(os.path.join(folder, temporary_name(limit)))
                    break
                except FileExistsError:  # pragma: no cover - 64 random bits collided
                    continue
            self._keep_mode(temp)
            self.file: BinaryIO = temp.open_file()
        except BaseException as exc:
            self._cleanup()
            _reraise(exc, self.path)

    @property
    def temp(self) -> str | None:
        """The temporary's path; None once it is renamed or removed."""
        return self._temp.name

    def _keep_mode(self, temp: _Temporary) -> None:
        """A file replaced keeps its permission bits."""
        try:
            mode = os.stat(self.path).st_mode & 0o7777
        except OSError:
            return
        if hasattr(os, "fchmod") and temp.desc is not None:
            os.fchmod(temp.desc.fd, mode)

    def commit(self) -> None:
        """Make the complete file durable and rename it over the target.

        Raises:
            OSError: from flushing, syncing or renaming (naming the target);
                the temporary is then removed and the target left as it was.
        """
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self._temp.close()
            self._temp.renamed(self.path)
        except BaseException as exc:
            self.discard()
            _reraise(exc, self.path)
        self._cleanup.detach()
        _sync_folder(os.path.dirname(self.path))

    def discard(self) -> None:
        """Remove the temporary; the target is left as it was."""
        self._cleanup()


def _sync_folder(folder: str) -> None:
    """Make a rename durable (POSIX); a no-op where folders cannot be opened."""
    try:
        desc = Descriptor(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - Windows
        return
    try:
        os.fsync(desc.fd)
    except OSError:  # pragma: no cover - file systems that refuse it
        pass
    finally:
        desc.close()
