"""Replacing a file atomically: a temporary beside it, renamed over it when complete.

What is not a regular file (a device such as ``/dev/null``, a FIFO, the
pipe or file behind ``/dev/stdout``) cannot be rebuilt by a rename: it is
written through instead (:class:`_Through`), as onnx's ``open(path, "wb")``
writes it, and never replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
import weakref

from .owned import Descriptor, deferred_interrupts

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, BinaryIO, NoReturn

__all__ = [
    "TEMPORARY_PREFIX",
    "AtomicFile",
    "name_max",
    "sync_folder",
    "temporary_name",
    "writes_through",
]

TEMPORARY_PREFIX = ".onnxdata-"
"""How the temporaries of atomic writes begin (they end in ``.tmp``)."""
_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
)
# A target written through: opened as it is, never created or truncated.  Non-blocking,
# so that opening a FIFO with no reader neither blocks with SIGINT held back (Descriptor
# opens under deferred_interrupts) nor hangs: it is retried until a reader comes.
_THROUGH_FLAGS = (
    os.O_WRONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_READER_POLL = 0.05
"""How long (seconds) a write into a FIFO waits between two attempts to find its reader."""
_MAX_LINKS = 40
"""The most symbolic links followed in resolving one path (Linux's limit)."""


def name_max(folder: str) -> int | None:
    """The longest file name, in bytes, that ``folder`` takes (``NAME_MAX``), or
    None where the system cannot say (Windows counts UTF-16 units, not bytes)."""
    try:
        found = os.pathconf(folder or ".", "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return None
    return found if found > 0 else None  # -1: no limit


def _owner(fd: int) -> tuple[int, int]:
    """The owner and group of the open file ``fd``."""
    st = os.fstat(fd)
    return st.st_uid, st.st_gid


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

    __slots__ = ("desc", "file", "name", "replaced")

    def __init__(self) -> None:
        self.name: str | None = None
        self.desc: Descriptor | None = None
        self.file: BinaryIO | None = None
        self.replaced = False

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
            self.name, self.replaced = None, True

    def remove(self) -> None:
        """Close and remove the temporary (what discarding, or dropping, an AtomicFile does)."""
        with contextlib.suppress(OSError):  # the error that brought us here matters more
            self.close()
        with deferred_interrupts():
            name, self.name = self.name, None
            if name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(name)


def writes_through(path: str) -> int | None:
    """The ``st_mode`` of the existing file at ``path`` when it must be written
    through rather than replaced, else None (a new file, or a regular file).

    Written through: whatever is not a regular file (a character or block
    device, a FIFO, a socket, a folder: the open then fails as onnx's does),
    symbolic links followed; and a regular file reached through a process's
    descriptor link (``/dev/stdout``, ``/dev/fd/N``, ``/proc/<pid>/fd/N``),
    which a rename would take away from the process writing to it.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # absent (then created), or an error the writer reports
        return None
    if not stat.S_ISREG(mode) or _through_descriptor(path):
        return mode
    return None


def _is_descriptor_folder(folder: str) -> bool:
    return folder == "/dev/fd" or (folder.startswith("/proc/") and os.path.basename(folder) == "fd")


def _through_descriptor(path: str) -> bool:
    """Whether resolving ``path`` passes through a folder of descriptor links
    (``/proc/<pid>/fd`` on Linux, ``/dev/fd`` where it is no link)."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        folder = os.path.dirname(current)
        if _is_descriptor_folder(os.path.realpath(folder)):
            return True
        try:
            if not stat.S_ISLNK(os.lstat(current).st_mode):
                return False
            current = os.path.join(folder, os.readlink(current))
        except OSError:
            return False
    return False


class _Through:
    """A target written in place: a device, a FIFO, a descriptor's file.

    Opened for writing as it is (never created, truncated or replaced; a
    regular file behind a descriptor link in append mode, so nothing already
    in it is lost), waiting for a FIFO's reader as onnx's ``open`` waits, but
    in short steps, so that Ctrl-C still stops the wait.  What was written
    before a failure has reached the reader: a stream cannot be taken back.
    The descriptor, then the file object, is recorded in the uninterruptible
    step that makes it, as the temporary's are.
    """

    __slots__ = ("desc", "file")

    def __init__(self) -> None:
        self.desc: Descriptor | None = None
        self.file: BinaryIO | None = None

    def open(self, path: str, mode: int) -> BinaryIO:
        """Open ``path`` (of ``st_mode`` ``mode``) for writing; the file object.

        Raises:
            OSError: from ``open`` (ENXIO: a socket); ``BrokenPipeError``: a
                pipe reached through a descriptor link (``/dev/stdout``) has
                no reader left.  Nothing is left open then, once :meth:`drop`
                is called.
        """
        flags = _THROUGH_FLAGS | (os.O_APPEND if stat.S_ISREG(mode) else 0)
        while True:
            try:
                with deferred_interrupts():
                    self.desc = Descriptor(path, flags)
                break
            except OSError as exc:
                if exc.errno != errno.ENXIO or not stat.S_ISFIFO(mode):
                    raise  # a socket gives ENXIO too, and never gets a reader
                if _through_descriptor(path):  # a pipe whose reader is gone: none will come
                    raise BrokenPipeError(errno.EPIPE, "the pipe has no reader", path) from None
            time.sleep(_READER_POLL)  # a FIFO with no reader yet
        if _THROUGH_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(self.desc.fd, True)  # writes wait for the reader, as onnx's
        with deferred_interrupts():
            file: BinaryIO = self.desc.to_file("wb")
            self.file, self.desc = file, None
        return file

    def commit(self) -> None:
        """Write out what is buffered, sync a regular file, close.

        Raises:
            OSError: from writing, syncing or closing; :meth:`drop` then
                closes what is still open.
        """
        file = self.file
        assert file is not None
        file.flush()
        if stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            os.fsync(file.fileno())
        file.close()

    def drop(self) -> None:
        """Close without writing out what is still buffered (a failed write's rest)."""
        with deferred_interrupts():
            file, desc, self.file, self.desc = self.file, self.desc, None, None
            if desc is not None:
                with contextlib.suppress(OSError):
                    desc.close()
            if file is not None:
                with contextlib.suppress(OSError, ValueError):
                    file.raw.close()  # type: ignore[attr-defined]
                with contextlib.suppress(OSError, ValueError):
                    file.close()  # its buffer is dropped: the raw file is closed


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

    A symbolic link to a regular file stays a link: the file it points to is
    replaced.  A target that a rename cannot rebuild (:func:`writes_through`:
    a device such as ``/dev/null``, a FIFO, whatever ``/dev/stdout`` is) is
    written through instead, as onnx writes it, and never replaced; a FIFO is
    waited for until it has a reader.  ``temp`` is None then, and what was
    written before a failure has reached the reader.

    Raises (from the constructor):
        OSError: the temporary cannot be created (the error names ``path``);
            ``path``'s name is longer than its directory takes (ENAMETOOLONG);
            a target written through cannot be opened for writing (a folder:
            ``IsADirectoryError``; a socket: ENXIO); ``path`` ends in a
            separator, ``.`` or ``..`` (``IsADirectoryError``).
    """

    def __init__(self, path: Any) -> None:
        name = os.fsdecode(path)
        self._through: _Through | None = None
        if name.endswith(("/", os.sep)) or os.path.basename(name) in (".", ".."):
            # "x.pb/" names a folder: open() refuses it, a rename of its realpath would not
            raise OSError(errno.EISDIR, "names a folder, not a file", name)
        mode = writes_through(name)
        if mode is not None:
            self.path = name
            through = self._through = _Through()
            self._cleanup = weakref.finalize(self, through.drop)
            try:
                self.file: BinaryIO = through.open(name, mode)
            except BaseException as exc:
                self._cleanup()
                _reraise(exc, name)
            return
        # A symlink stays a symlink: the file it points to is replaced.
        self.path = os.path.realpath(name)
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
                except OSError as exc:
                    if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                        raise
                    # The file itself may be writable: say that its folder is not.
                    why = f"{exc.strerror}: cannot create a temporary file in its folder "
                    raise OSError(exc.errno, why + "(it is replaced atomically through one)",
                                  self.path) from None  # fmt: skip
            self._keep_mode(temp)
            self.file = temp.open_file()
        except BaseException as exc:
            self._cleanup()
            _reraise(exc, self.path)

    @property
    def replaced(self) -> bool:
        """Whether the target was replaced by the new file: once it is, a failure
        after (syncing the folder) leaves the new file in place, which whatever it
        depends on (its external data) must then outlive."""
        return self._temp.replaced

    @property
    def temp(self) -> str | None:
        """The temporary's path; None once it is renamed or removed, or when the
        target is written through."""
        return None if self._through is not None else self._temp.name

    def _keep_mode(self, temp: _Temporary) -> None:
        """A file replaced keeps its permission bits, and its owner and group
        where the writer may give them (root, or a group it is in): run as
        root, a save over a user's file left it root's, which the user could
        then no longer write, where onnx's write in place keeps the owner.
        Ownership is set first, since changing it clears set-id bits."""
        try:
            st = os.stat(self.path)
        except OSError:
            return
        if temp.desc is None:  # pragma: no cover - the temporary is always opened by descriptor
            return
        if hasattr(os, "fchown") and (st.st_uid, st.st_gid) != _owner(temp.desc.fd):
            with contextlib.suppress(PermissionError):
                os.fchown(temp.desc.fd, st.st_uid, st.st_gid)
        if hasattr(os, "fchmod"):
            os.fchmod(temp.desc.fd, st.st_mode & 0o7777)

    def commit(self) -> None:
        """Make the complete file durable and rename it over the target (or,
        written through, write out the rest and close it).

        Raises:
            OSError: from flushing, syncing or renaming (naming the target);
                the temporary is then removed and the target left as it was.
                EEXIST: the target stopped being a regular file while it was
                written (a FIFO or a device made at its name): left as it is.
        """
        if self._through is not None:
            try:
                self._through.commit()
            except BaseException as exc:
                self._cleanup()
                _reraise(exc, self.path)
            self._cleanup.detach()
            return
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self._temp.close()
            _refuse_if_not_regular(self.path)
            self._temp.renamed(self.path)
        except BaseException as exc:
            self.discard()
            _reraise(exc, self.path)
        self._cleanup.detach()
        sync_folder(os.path.dirname(self.path))

    def discard(self) -> None:
        """Remove the temporary; the target is left as it was (written through:
        close it, without writing out what is still buffered)."""
        self._cleanup()


def _refuse_if_not_regular(path: str) -> None:
    """Refuse to rename over a device, FIFO or socket made at ``path`` since the
    write began: a rename would destroy it (a folder makes the rename fail, and
    a link is only a name)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
        raise OSError(errno.EEXIST, "is no longer a regular file: left as it is", path)


def sync_folder(folder: str) -> None:
    """Make a rename, or a file's creation, durable (POSIX); a no-op where
    folders cannot be opened or synced."""
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
