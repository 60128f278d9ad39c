"""Reading and writing a tensor's external data, with onnx's path-traversal protections.

A TensorProto with ``data_location = EXTERNAL`` names a file by the
``location``/``offset``/``length`` entries of ``external_data``.  The file is
untrusted input, so (as onnx does since GHSA-538c-55jv-c5g9 and its
follow-ups) this module refuses:

* a missing or empty ``location``, or one holding a NUL character;
* absolute paths, Windows drive or UNC paths, and paths with a ``..``
  component (split on both ``/`` and ``\\``, so a model made on one system
  is judged the same on another);
* a location that names a folder: one ending in a separator or in ``.``
  (``data.bin/`` is not read as ``data.bin``; onnx refuses it too);
* a symbolic link anywhere below ``base_dir``, a file that is not a regular
  file, a file with several hard links;
* ``offset``/``length`` that are not non-negative decimal integers, or that
  reach past the end of the file (checked against ``fstat`` before reading,
  so a forged length cannot allocate memory).

Keys other than location, offset, length, checksum and basepath are ignored
with a warning.  ``checksum`` and ``basepath`` are accepted and not used, as in
onnx.  On systems with ``dir_fd`` support (Linux, macOS) the path is opened
one component at a time below an open ``base_dir`` descriptor with
``O_NOFOLLOW``, which leaves no window for swapping in a symlink; elsewhere
the same checks run on paths, and the opened file is compared by identity
with the one checked.

Writing (:func:`write_external_data`) follows the same rules for the path,
creates the file if needed, and only appends: the data goes at the end of the
file, after an alignment gap of at most :data:`MAX_PADDING` zero bytes, as the
only writer of that file among the threads of the process and the processes
that lock it (see :func:`write_external_data`).  Descriptors are owned from
the instant they are opened and closed once, Ctrl-C or not (``owned.py``).
Refusals of a path are :class:`ValidationError` (a ``ValueError``), as onnx
raises ``onnx.checker.ValidationError`` there.  Only the standard library is
used.
"""

from __future__ import annotations

import contextlib
import errno
import ntpath
import os
import re
import stat
import sys
import threading
import warnings
import weakref
from functools import partial

from .._core.errors import ValidationError
from .._core.mapped import check_value, map_file
from .._core.short_writes import write_all
from .._messages.declarations import TensorProto
from .atomic import sync_folder
from .owned import Descriptor, deferred_interrupts, holding

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable, Iterator
    from typing import Any

ALLOWED_KEYS = frozenset({"location", "offset", "length", "checksum", "basepath"})
SYNC_THREADS = 8
"""How many external files a save syncs at once (:func:`sync_external_files`)."""
_THREADS = sys.platform not in ("emscripten", "wasi")  # WebAssembly builds start no thread
MAX_PADDING = 64 * 1024
"""The largest gap written before a tensor's data to honour its ``offset``: an
alignment gap is under one alignment boundary, as in onnx."""
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")  # ASCII digits only (not \d, which is Unicode's)
MAX_DIGITS = 100
"""The most digits (leading zeros apart) an ``offset`` or ``length`` may have."""
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_WRITE_FLAGS = os.O_RDWR | os.O_CREAT
USE_DIR_FD = (
    os.open in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
    and bool(_O_NOFOLLOW)
    and bool(_O_DIRECTORY)
)
"""Whether the race-free, descriptor-relative walk is available."""
# open(O_NOFOLLOW) of a symlink fails with ELOOP (Linux, macOS) or EMLINK (FreeBSD).
_LINK_ERRNOS = frozenset({errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP)})


def uses_external_data(tensor: TensorProto) -> bool:
    """True when the tensor's values live in an external file."""
    return tensor.data_location == TensorProto.EXTERNAL


class ExternalDataInfo:
    """The parsed ``external_data`` entries of one tensor.

    ``location`` ("" when absent), ``offset`` and ``length`` (``int`` or
    None), ``checksum`` (None when absent) and ``basepath`` ("" when absent),
    as onnx's ``ExternalDataInfo`` has them.  Other keys are ignored with one
    warning and never become attributes.  The location is judged when the
    file is opened (:func:`split_location`), not here.

    Raises (from the constructor):
        ValueError: ``offset``/``length`` is not a non-negative integer.
    """

    __slots__ = ("basepath", "checksum", "length", "location", "name", "offset")

    def __init__(self, tensor: TensorProto, *, warn: bool = True) -> None:
        name = tensor.name or ""
        values: dict[str, str] = {}
        unknown: list[str] = []
        for entry in tensor.external_data:
            key = entry.key or ""
            if key in ALLOWED_KEYS:
                values[key] = entry.value or ""  # a repeated key: the last wins, as in onnx
            else:
                unknown.append(key[:100] + ("..." if len(key) > 100 else ""))
        if unknown and warn:
            shown = sorted(set(unknown))[:10]
            more = len(unknown) - len(shown)
            warnings.warn(
                f"Ignoring unknown external data key(s) {shown!r}"
                + (f" and {more} more" if more > 0 else "")
                + f" for tensor {name!r}. Allowed keys: {sorted(ALLOWED_KEYS)}",
                stacklevel=_caller_outside_package(),
            )
        self.name = name
        self.location = values.get("location", "")
        self.checksum = values.get("checksum")
        self.basepath = values.get("basepath", "")
        self.offset = _non_negative(values.get("offset"), "offset", name)
        self.length = _non_negative(values.get("length"), "length", name)

    @property
    def parts(self) -> list[str]:
        """The components of ``location`` (see :func:`split_location`).

        Raises:
            ValidationError: the location is not a safe relative path.
        """
        return split_location(self.location, self.name)

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)!r}" for k in
                          ("location", "offset", "length", "checksum", "basepath"))  # fmt: skip
        return f"ExternalDataInfo({shown})"


def _caller_outside_package() -> int:
    """The ``stacklevel`` that points a warning, raised by the caller of this
    function, at the first frame outside this package: the user's call,
    however many of this package's functions (``to_array``, ``to_list``, a
    sparse tensor's values) lie between."""
    package = __name__.rsplit(".", 2)[0]  # onnxdata (or a vendored copy), not its layer
    inside = package + "."
    frame = sys._getframe(1)  # the function that warns: stacklevel 1
    level = 1
    while frame.f_back is not None:
        name = frame.f_globals.get("__name__", "")
        if name != package and not name.startswith(inside):
            break
        frame = frame.f_back
        level += 1
    return level


def _non_negative(text: str | None, what: str, name: str) -> int | None:
    return None if text is None else parse_count(text, what, name)


def parse_count(text: str, what: str = "length", name: str = "") -> int:
    """An ``offset`` or ``length`` entry's value: a non-negative integer in ASCII
    decimal digits (an optional sign, then ``0``-``9`` only).  The one reading of
    them, for the reader, the validator and ``show``: ``str.isdigit`` takes
    ``"²"`` and ``int`` takes ``"٣"``, ``" 7"`` and ``"1_0"``, none of which a
    file offset is.  A number of more than :data:`MAX_DIGITS` digits is refused
    rather than converted (no file is that large, and ``int`` itself refuses
    4,300 digits).

    Raises:
        ValueError: ``text`` is not such an integer, is negative, or too long.
    """
    if not _INTEGER.match(text):
        raise ValueError(f"External data {what} {text[:40]!r} of tensor {name!r} is not an integer")
    sign, digits = (text[0], text[1:]) if text[0] in "+-" else ("", text)
    digits = digits.lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise ValueError(f"External data {what} of tensor {name!r} has {len(digits)} digits: "
                         f"more than any file holds ({MAX_DIGITS} at most)")  # fmt: skip
    value = int(sign + digits)
    if value < 0:
        raise ValueError(
            f"External data {what} must be non-negative, got {value} for tensor {name!r}"
        )
    return value


def split_location(location: str, name: str = "") -> list[str]:
    """The components of a safe relative ``location``, without ``.`` and empty ones.

    Raises:
        ValidationError: (a ``ValueError``) the location is empty, absolute, a
            drive or UNC path, holds a NUL, has a ``..`` component, or names a
            folder: it ends in a separator or in ``.`` (``data.bin/``,
            ``w.data/.``, ``.``), which onnx refuses to read and to write.
            The one rule for reading, writing and checking a location.
    """
    if not location:
        raise ValidationError(f"Location of external tensor {name!r} should not be empty")
    if "\0" in location:
        raise ValidationError(f"Location of external tensor {name!r} contains a NUL character")
    drive, rest = ntpath.splitdrive(location)
    if drive or location.startswith(("/", "\\")) or rest.startswith(("/", "\\")):
        raise ValidationError(
            f"Location of external tensor {name!r} should be a relative path, "
            f"but it is an absolute or drive path: {location!r}"
        )
    if ".." in re.split(r"[/\\]", location):
        raise ValidationError(
            f"Location of external tensor {name!r} must stay inside the base directory, "
            f"but {location!r} has a '..' component"
        )
    # On POSIX a backslash is an ordinary file-name character (onnx opens
    # "a\\b" as one name too); on Windows it separates components.
    separators = r"[/\\]" if os.sep == "\\" else "/"
    split = re.split(separators, location)
    if split[-1] in ("", "."):  # "data.bin/", "w.data/.", ".": a folder, as onnx reads it
        raise ValidationError(
            f"Location of external tensor {name!r} names no file: {location!r} "
            "ends in a separator or '.', so it names a folder"
        )
    return [p for p in split if p not in ("", ".")]


def read_external_data(tensor: TensorProto, base_dir: str) -> bytearray:
    """The bytes of ``tensor``'s external data, read from below ``base_dir``.

    Returns a fresh ``bytearray`` (numpy can view it without copying).

    Raises:
        ValueError: a refused location, entry or file (see the module docstring).
        OSError: the file or a directory on its path cannot be opened
            (``FileNotFoundError`` when it does not exist).
    """
    info = ExternalDataInfo(tensor)
    name = tensor.name or ""
    base = base_dir or "."
    with _open(base, info.parts, name, write=False) as desc:
        return _read_range(desc.fd, info, name)


def external_file_problem(tensor: TensorProto, base_dir: str) -> str | None:
    """Why ``tensor``'s external data cannot be read from below ``base_dir``, or None.

    The file is opened as :func:`read_external_data` opens it (below
    ``base_dir``, following no link, without blocking) and its size compared
    with the ``offset`` and ``length``; nothing is read.  So a missing file, a
    symbolic link, a FIFO, a directory, a file with several hard links or a
    range past the end is a reason, in the reader's words.  Entries that are
    wrong in themselves (no location, an unsafe one, an ``offset`` that is no
    integer) give None: they are the validator's rules, reported once there.
    Raises nothing.
    """
    try:
        info = ExternalDataInfo(tensor, warn=False)
        parts = info.parts
    except ValueError:
        return None
    name = tensor.name or ""
    try:
        with _open(base_dir or ".", parts, name, write=False) as desc:
            _range(desc.fd, info, name)
    except OSError as err:
        return (f"External data file {info.location!r} of tensor {name!r} cannot be opened: "
                f"{err.strerror or err}")  # fmt: skip
    except ValueError as err:
        return str(err)
    return None


class ExternalMaps:
    """The external files read (or mapped) by one load.

    By default a tensor's data is read into a ``bytes`` of its own, as onnx
    reads it, and the file is closed: the model keeps nothing of the file.
    With ``mmap`` each file is mapped once, whatever the number of tensors in
    it, and a tensor's data becomes a read-only ``memoryview`` slice of the
    mapping (:meth:`view`): nothing is read until the values are touched, so
    a model with gigabytes of external weights loads in the time its
    metadata takes, and no descriptor is kept (``_core/mapped.py``).  Each
    slice keeps its mapping alive; the mapping is unmapped when the last
    slice (and this object) is gone.  Files are opened with the reader's
    rules (see the module docstring), the range is checked against the file's
    size, and exactly that size is mapped, so a slice is never shorter than
    the tensor's ``length``.  Where ``mmap`` is unavailable the bytes are
    read instead.
    """

    __slots__ = ("_maps", "mmap")

    def __init__(self, mmap: bool = False) -> None:
        self.mmap = mmap
        self._maps: dict[tuple[int, int], memoryview] = {}

    def view(self, tensor: TensorProto, base_dir: str) -> Any:
        """The bytes of ``tensor``'s external data: the ``bytes`` read from the file
        (with ``mmap``, a read-only view of the mapped file).

        Raises:
            as :func:`read_external_data`.
        """
        info = ExternalDataInfo(tensor)
        name = tensor.name or ""
        base = base_dir or "."
        parts = info.parts
        with _open(base, parts, name, write=False) as desc:
            offset, length, size = _range(desc.fd, info, name)
            whole = None
            if self.mmap and length:
                whole = self._mapped(desc.fd, size, os.path.join(base, *parts))
            if whole is None or len(whole) < offset + length:
                return _read_bytes(desc.fd, info, name)
            return whole[offset : offset + length]

    def _mapped(self, fd: int, size: int, path: str) -> memoryview | None:
        st = os.fstat(fd)
        key = (st.st_dev, st.st_ino)
        found = self._maps.get(key)
        if found is None or len(found) < size:
            mapping = map_file(fd, size, path)
            if mapping is None:  # pragma: no cover - no mmap here
                return None
            found = self._maps[key] = mapping.view
        return found


def _open(base: str, parts: list[str], name: str, write: bool) -> Descriptor:
    # USE_DIR_FD is read at each call, so that tests can take either path.
    return (_open_dir_fd if USE_DIR_FD else _open_by_path)(base, parts, name, write)


def write_external_data(tensor: TensorProto, base_dir: str, data: Any) -> tuple[int, int]:
    """Write ``data`` (the tensor's values) at the end of the tensor's external file.

    The file is named by the tensor's ``location`` below ``base_dir``, with the
    reader's rules (a safe relative path; no symbolic link on the way; a
    regular file with one link); it is created if it does not exist.  The data
    goes at the current end of the file or, if the tensor has an ``offset``,
    there, after a gap of zeros of at most :data:`MAX_PADDING` bytes: an
    offset before the end would overwrite data already in the file.  A write
    that fails (or a Ctrl-C) is cut off again, so the file is left as it was.

    Finding the end and writing there is one step for concurrent writers:
    the threads of this process take turns on one lock per file, and
    processes through ``flock`` (where the system has it, not on Windows:
    there only this process's threads are kept apart).  So writers into one
    file never mix their tensors, each reads back its own bytes, and a given
    ``offset`` that another writer has passed meanwhile is refused.

    Returns:
        ``(offset, length)`` of the data written.

    Raises:
        ValidationError: (a ``ValueError``) a refused location or file, or an
            offset before the end of the file or too far past it.
        ValueError: ``offset``/``length`` entries that are not integers.
        OSError: the file cannot be created, opened or written (a directory
            on its path does not exist: ``FileNotFoundError``); ``data`` is a
            view of a file mapped with ``mmap=True`` that shrank
            (``MappedFileError``, before anything is written).
    """
    info = ExternalDataInfo(tensor)
    name = tensor.name or ""
    check_value(data)  # a view of a mapped file that shrank: MappedFileError, not EFAULT
    view = memoryview(data).cast("B")
    with _open(base_dir or ".", info.parts, name, write=True) as desc, _exclusive(desc.fd):
        fd = desc.fd
        size = os.fstat(fd).st_size  # the end, as no other writer can move it now
        offset = size if info.offset is None else info.offset
        if not 0 <= offset - size <= MAX_PADDING:
            raise ValidationError(
                f"External data offset ({offset}) for tensor {name!r} must be between "
                f"the current file size ({size}) and {size + MAX_PADDING}."
            )
        os.lseek(fd, size, os.SEEK_SET)
        try:
            _write_all(fd, memoryview(bytes(offset - size)))
            _write_all(fd, view)
        except BaseException:
            with deferred_interrupts():  # a second Ctrl-C does not keep half a tensor
                os.ftruncate(fd, size)  # the file as it was
            raise
    return offset, len(view)


def sync_external_files(base_dir: str, locations: Iterable[str]) -> None:
    """Make the external files named by ``locations`` below ``base_dir`` durable:
    each file's data (``fsync``, once per file however many tensors it holds),
    then each folder holding one (the entry of a file just created).

    A model's save calls this before it renames the model into place, so a
    power cut never leaves a durable model whose weights are lost.  Each file
    is opened again with the reader's rules, and closed once synced: no
    descriptor is kept per file, as a model may have thousands.  Several
    files are synced by up to :data:`SYNC_THREADS` threads at once, which a
    journaling file system commits together (1,100 files on ext4 here: about
    25 times faster than one after the other).

    Raises:
        ValidationError: a refused location (see :func:`split_location`).
        OSError: a file cannot be opened or synced (the first error; the
            files not yet synced are left so).
    """
    base = base_dir or "."
    files = list(dict.fromkeys(tuple(split_location(loc)) for loc in locations))

    def sync(parts: tuple[str, ...]) -> None:
        with _open(base, list(parts), "", write=False) as desc:
            os.fsync(desc.fd)

    if len(files) == 1 or (files and not _THREADS):
        for parts in files:
            sync(parts)
    elif files:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(min(SYNC_THREADS, len(files)), "onnxdata-sync")
        try:
            for _ in pool.map(sync, files):
                pass
        finally:  # no thread outlives the call, on an error or a Ctrl-C too
            pool.shutdown(wait=True, cancel_futures=True)
    for folder in dict.fromkeys(os.path.join(base, *parts[:-1]) for parts in files):
        sync_folder(folder)


# One lock per file (by device and inode) for the writers of this process, and
# flock() for other processes.  flock() alone would do on a local file system,
# where it excludes every other open of the file, threads' included; on NFS it
# becomes a POSIX lock, which is per process, so threads need the lock here.
_LOCKS: weakref.WeakValueDictionary[tuple[int, int], threading.Lock] = weakref.WeakValueDictionary()
_LOCKS_GUARD = threading.Lock()
# Errors of file systems that have no locks: the lock of this process still holds.
_NO_LOCKS = frozenset(
    getattr(errno, code)
    for code in ("ENOLCK", "EOPNOTSUPP", "ENOTSUP", "EINVAL")
    if hasattr(errno, code)
)


def _lock_of(fd: int) -> threading.Lock:
    """The one lock of this process for the file open at ``fd``, whatever its path."""
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    with deferred_interrupts(), _LOCKS_GUARD:  # never left held by a Ctrl-C
        lock = _LOCKS.get(key)
        if lock is None:
            lock = _LOCKS[key] = threading.Lock()
    return lock


@contextlib.contextmanager
def _exclusive(fd: int) -> Iterator[None]:
    """Be the only writer of the file open at ``fd``: of the threads of this
    process, and of the processes that lock it too (with ``flock``, where the
    system has it; Windows has not, so there only this process's threads
    are kept apart).

    Finding the end and writing there is then one step: without it two
    writers find the same end, and one overwrites the other's tensor.  The
    ``flock`` goes with the descriptor, so closing it releases it on any path.

    Raises:
        OSError: from ``flock``, but for a file system without locks.
    """
    with holding(_lock_of(fd)):
        locked = False
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                locked = True
            except OSError as exc:
                if exc.errno not in _NO_LOCKS:
                    raise
        try:
            yield
        finally:
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)


def _write_all(fd: int, view: memoryview) -> None:
    # os.write may take less than given (Linux caps one write near 2 GiB); a result
    # of 0 would loop forever: write_all refuses it, as every writer of the package.
    write_all(partial(os.write, fd), view)


def _refuse_link(st: os.stat_result, shown: str, name: str) -> None:
    reparse = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0)
    if stat.S_ISLNK(st.st_mode) or (getattr(st, "st_file_attributes", 0) & reparse):
        raise ValidationError(f"External data of tensor {name!r}: {shown!r} is a symbolic link")


def _check_file(st: os.stat_result, shown: str, name: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise ValidationError(f"External data of tensor {name!r}: {shown!r} is not a regular file")
    if st.st_nlink > 1:
        raise ValidationError(
            f"External data of tensor {name!r}: {shown!r} has {st.st_nlink} hard links "
            "(refused: a hard link can expose a file from outside the base directory)"
        )


def _open_dir_fd(base: str, parts: list[str], name: str, write: bool = False) -> Descriptor:
    """Walk ``parts`` below ``base`` by descriptor, refusing symlinks on the way.

    With ``write`` the file is opened for reading and writing and created if
    it does not exist (the directories on its path must exist).
    """
    current = Descriptor(base, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        for i, part in enumerate(parts):
            shown = "/".join(parts[: i + 1])
            last = i == len(parts) - 1
            try:
                _refuse_link(os.stat(part, dir_fd=current.fd, follow_symlinks=False), shown, name)
            except FileNotFoundError:
                if not (write and last):
                    raise
            flags = (_WRITE_FLAGS if write else os.O_RDONLY) if last else os.O_RDONLY
            flags |= _O_NOFOLLOW | _O_CLOEXEC
            flags |= (_O_NONBLOCK | _O_BINARY) if last else _O_DIRECTORY
            try:
                child = Descriptor(part, flags, 0o666, dir_fd=current.fd)  # the umask applies
            except OSError as exc:
                if exc.errno in _LINK_ERRNOS:  # swapped for a link since the stat
                    raise ValidationError(
                        f"External data of tensor {name!r}: {shown!r} is a symbolic link"
                    ) from exc
                raise  # e.g. a missing directory, or EACCES
            current, child = child, current  # the new one is owned before the old goes
            child.close()
        _check_file(os.fstat(current.fd), "/".join(parts), name)
    except BaseException:
        current.close()
        raise
    return current


def _open_by_path(base: str, parts: list[str], name: str, write: bool = False) -> Descriptor:
    """The same checks by path, for systems without ``dir_fd`` (Windows)."""
    real_base = os.path.realpath(base)
    path = real_base
    for i, part in enumerate(parts):
        path = os.path.join(path, part)
        try:
            _refuse_link(os.lstat(path), "/".join(parts[: i + 1]), name)
        except FileNotFoundError:
            if not (write and i == len(parts) - 1):
                raise
    if os.path.commonpath([real_base, os.path.realpath(path)]) != real_base:
        raise ValidationError(f"External data of tensor {name!r} resolves outside {base!r}")
    shown = "/".join(parts)
    try:
        before: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        if not write:
            raise
        before = None
    if before is not None:
        _check_file(before, shown, name)
    flags = (_WRITE_FLAGS if write else os.O_RDONLY) | _O_NOFOLLOW | _O_NONBLOCK
    desc = Descriptor(path, flags | _O_BINARY | _O_CLOEXEC, 0o666)
    try:
        after = os.fstat(desc.fd)
        now = os.lstat(path)
        if (after.st_dev, after.st_ino) != (now.st_dev, now.st_ino) or (
            before is not None and (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino)
        ):
            raise ValidationError(
                f"External data of tensor {name!r}: {shown!r} changed while opened"
            )
        _check_file(after, shown, name)
    except BaseException:
        desc.close()
        raise
    return desc


def _range(fd: int, info: ExternalDataInfo, name: str) -> tuple[int, int, int]:
    """``(offset, length, file size)`` of the tensor's data in the file open at ``fd``.

    Raises:
        ValueError: the offset or the length reaches past the end of the file.
    """
    size = os.fstat(fd).st_size
    offset = info.offset or 0
    if offset > size:
        raise ValueError(
            f"External data offset ({offset}) exceeds file size ({size}) for tensor {name!r}"
        )
    available = size - offset
    length = available if info.length is None else info.length
    if length > available:
        raise ValueError(
            f"External data length ({length}) exceeds available data ({available} bytes "
            f"from offset {offset}) for tensor {name!r}"
        )
    return offset, length, size


def _read_range(fd: int, info: ExternalDataInfo, name: str) -> bytearray:
    offset, length, _ = _range(fd, info, name)
    data = bytearray(length)
    view = memoryview(data)
    done = 0
    os.lseek(fd, offset, os.SEEK_SET)
    while done < length:  # read() may return less than asked (2 GiB cap on Linux)
        got = os.readv(fd, [view[done:]]) if hasattr(os, "readv") else _read_into(fd, view, done)
        if got == 0:
            raise ValueError(
                f"External data file of tensor {name!r} ended after {offset + done} bytes "
                f"while reading {length} bytes from offset {offset}"
            )
        done += got
    return data


def _read_bytes(fd: int, info: ExternalDataInfo, name: str) -> bytes:
    """The range as ``bytes``, as onnx's field holds them: one read into the result
    where the system reads it whole (``pread``), else through :func:`_read_range`."""
    offset, length, _ = _range(fd, info, name)
    if hasattr(os, "pread") and length <= 1 << 30:
        data = os.pread(fd, length, offset)
        if len(data) == length:
            return data
    return bytes(_read_range(fd, info, name))


def _read_into(fd: int, view: memoryview, start: int) -> int:  # pragma: no cover - no readv
    chunk = os.read(fd, min(len(view) - start, 1 << 30))
    view[start : start + len(chunk)] = chunk
    return len(chunk)
