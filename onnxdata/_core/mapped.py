"""Files mapped into memory: held by no descriptor, and checked before their bytes are read.

A view of a mapped file is only as good as the file.  If the file is
truncated (``open(p, "wb")`` truncates before it writes), reading a page past
its new end is a ``SIGBUS``: the process dies, in the middle of whatever was
writing, and Python cannot turn that signal into an exception.  So the
package maps a file only when the caller asked for a mapping (``mmap=True``),
and every path of its own that reads a view of one (encoding, saving,
``to_array``, ``==``, the text format, JSON, copies) first calls
:func:`check_view` (or :func:`check_value`), which compares the file's size
now with the length mapped and raises :class:`MappedFileError` if it shrank.
What cannot be protected is a view the caller already holds (a numpy array
over ``raw_data``): reading it after the file shrank is the signal still.

The file is found again by the path it was mapped from, and believed only
if that path still names the same file (device and inode): a file replaced by
a rename (every atomic save, ``onnxdata.save`` included) leaves the mapped
one intact and unreachable by name, so nothing can shrink it there.  No
descriptor is kept for this, or for anything else: a mapping outlives the
descriptor it was made from (POSIX says so), and a process holding thousands
of mapped tensors must not hold thousands of descriptors.  Python's ``mmap``
keeps a duplicate of the descriptor for ``size()`` and ``resize()`` unless
told not to (``trackfd=False``, Python 3.13+); before 3.13, on 64-bit POSIX
systems, the file is mapped through ``ctypes`` instead, and elsewhere the
duplicate is kept (the only case where a mapping holds a descriptor).

The mapping is made exactly as long as the size that was checked (the
caller's ``max_size`` included), so a file that grows meanwhile is never
read further than that.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import weakref

from .errors import MappedFileError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "LIVE",
    "FileMapping",
    "check_target",
    "check_value",
    "check_view",
    "is_mapped",
    "map_file",
    "watched",
]


class _Source:
    """Where a mapping's bytes come from: the file's path and identity, and the length mapped."""

    __slots__ = ("ident", "length", "path")

    def __init__(self, path: Any, ident: tuple[int, int], length: int) -> None:
        self.path = path
        self.ident = ident
        self.length = length

    def check(self) -> None:
        """Raise :class:`MappedFileError` if the file is now shorter than the mapping.

        A path that no longer names the mapped file (removed, or replaced by a
        rename) is fine: the mapped file itself is then out of reach of a
        truncation by name.
        """
        try:
            st = os.stat(self.path)
        except OSError:
            return
        if (st.st_dev, st.st_ino) == self.ident and st.st_size < self.length:
            shown = os.fsdecode(self.path)
            err = MappedFileError(
                f"{shown!r} was mapped with {self.length} bytes and now has {st.st_size}: "
                "the file shrank (truncated or rewritten in place) under a model loaded "
                "with mmap=True, and its bytes can no longer be read; load without "
                "mmap=True to keep a model's bytes in memory"
            )
            err.filename = shown
            raise err


LIVE: dict[int, _Source] = {}
"""The live mappings, by ``id`` of the object that exports their buffer (the
``obj`` of every view of them); an entry goes when its object is collected.
Others only test whether it is empty (``if LIVE:``), which spares a hot loop
the call to :func:`check_value` while nothing is mapped."""


def watched() -> int:
    """How many mappings are alive (for tests)."""
    return len(LIVE)


def is_mapped(view: Any) -> bool:
    """Whether ``view`` (a ``memoryview``) is a view of a file mapped by :func:`map_file`."""
    try:
        return id(view.obj) in LIVE
    except (AttributeError, ValueError):
        return False


def check_view(view: Any) -> None:
    """Before reading ``view`` (a ``memoryview``): raise if it is a view of a mapped
    file that shrank since it was mapped.  Costs a dictionary lookup when it is
    not (and nothing while no file is mapped).

    Raises:
        MappedFileError: (an ``OSError``) the mapped file is now shorter than
            the mapping, so reading the view could kill the process.
    """
    if LIVE:
        try:
            source = LIVE.get(id(view.obj))
        except (AttributeError, ValueError):  # not a memoryview, or released
            return
        if source is not None:
            source.check()


def check_target(file: Any) -> None:
    """Before writing into the open file object ``file`` in place: raise if a
    live mapping is of that very file.  A message loaded with ``mmap=True``
    and streamed into its own file (``open(p, "r+b")``) read its bytes from
    the pages it had just overwritten: a grown header shifted the weights
    over themselves, and the save reported success over corrupt weights.
    Anything without a descriptor (``BytesIO``), and everything while nothing
    is mapped, passes at no cost.

    Raises:
        MappedFileError: (an ``OSError``) ``file`` is a file mapped by the
            package; nothing was written.
    """
    if not LIVE:
        return
    fileno = getattr(file, "fileno", None)
    try:
        fd = fileno() if callable(fileno) else None
        st = os.fstat(fd) if isinstance(fd, int) else None
    except (OSError, ValueError, TypeError):  # io.UnsupportedOperation is both of the first
        return
    if st is None or _appends(fd):  # what is appended lies past every mapped byte
        return
    for source in list(LIVE.values()):
        if source.ident == (st.st_dev, st.st_ino):
            shown = os.fsdecode(source.path)
            err = MappedFileError(
                f"{shown!r} is mapped (loaded with mmap=True) and would be written in "
                "place: the bytes being written would overwrite those still to be read; "
                "save to the path instead (it is replaced by a rename), or load without "
                "mmap=True"
            )
            err.filename = shown
            raise err


def _appends(fd: Any) -> bool:
    """Whether every write to ``fd`` goes to the file's end (``O_APPEND``)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no such flag to read
        return False
    try:
        return bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND)
    except OSError:
        return False


def check_value(value: Any) -> None:
    """:func:`check_view` for a field's value: a view, or a list holding views (the
    long entries of a repeated bytes field); anything else passes.

    Raises:
        MappedFileError: as :func:`check_view`.
    """
    if LIVE:
        if type(value) is memoryview:
            check_view(value)
        elif type(value) is list:
            for v in value:
                if type(v) is memoryview:
                    check_view(v)


class FileMapping:
    """One mapped file: ``view`` (a read-only byte ``memoryview`` of it) and how to let it go.

    The mapping is unmapped when the last view of it is gone; :meth:`close`
    lets it go early when no view is left.
    """

    __slots__ = ("_closer", "_madvise", "view")

    def __init__(self, view: memoryview, closer: Any, madvise: Any) -> None:
        self.view = view
        self._closer = closer
        self._madvise = madvise

    def close(self) -> None:
        """Drop this object's view; unmap now if nothing else refers to the mapping
        (else the mapping goes with the last view)."""
        try:
            self.view.release()
        except BufferError:  # exported (e.g. to numpy): it goes with its last user
            return
        if self._closer is not None:
            with contextlib.suppress(BufferError):  # a view is alive: unmapped when it goes
                self._closer()

    def dont_need(self, start: int, length: int) -> bool:
        """Give the pages in ``[start, start + length)`` back to the system (they
        fault back in from the file if read again); False where that cannot be done."""
        if self._madvise is None:
            return False
        self._madvise(start, length)
        return True


def map_file(fd: int, length: int, path: Any) -> FileMapping | None:
    """The first ``length`` bytes of the regular file open at ``fd`` (opened from
    ``path``), mapped read-only; None for an empty range or where files cannot be
    mapped.  The descriptor may be closed at once: the mapping does not use it.

    Raises:
        MappedFileError: (an ``OSError``) the file is already shorter than ``length``.
        OSError: the system refused the mapping (besides "not supported").
    """
    if length <= 0:
        return None
    st = os.fstat(fd)
    made = _map_stdlib(fd, length) if _TRACKFD else _map_ctypes(fd, length)
    if made is None:
        made = _map_stdlib(fd, length)
    if made is None:
        return None
    exporter, closer, madvise = made
    source = _Source(os.path.abspath(path), (st.st_dev, st.st_ino), length)
    key = id(exporter)
    LIVE[key] = source
    weakref.finalize(exporter, LIVE.pop, key, None).atexit = False
    view = memoryview(exporter)
    if view.format != "B":
        view = view.cast("B")
    mapping = FileMapping(view.toreadonly(), closer, madvise)
    del view
    try:
        source.check()  # shrunk since its size was taken: say so before anything reads it
    except BaseException:
        mapping.close()
        raise
    return mapping


try:
    import mmap as _mmap
except ImportError:  # pragma: no cover - e.g. WebAssembly builds
    _mmap = None  # type: ignore[assignment]

_TRACKFD = sys.version_info >= (3, 13)


def _map_stdlib(fd: int, length: int) -> tuple[Any, Any, Any] | None:
    """``mmap.mmap``: without a duplicate descriptor on Python 3.13+, with one before."""
    if _mmap is None:  # pragma: no cover
        return None
    extra: dict[str, Any] = {"trackfd": False} if _TRACKFD else {}
    try:
        m = _mmap.mmap(fd, length, access=_mmap.ACCESS_READ, **extra)
    except ValueError:  # pragma: no cover - e.g. a file system that cannot map
        return None
    except OSError as exc:
        if exc.errno in _UNSUPPORTED:  # pragma: no cover
            return None
        raise
    advice = getattr(_mmap, "MADV_DONTNEED", None)
    madvise = None if advice is None else (lambda start, n: m.madvise(advice, start, n))
    return m, m.close, madvise


# -- before Python 3.13: the system's mmap through ctypes, which keeps no descriptor ----

# A file system that cannot map files: the file is read instead.
_UNSUPPORTED = frozenset(
    getattr(errno, name)
    for name in ("ENODEV", "EINVAL", "EOPNOTSUPP", "ENOTSUP")
    if hasattr(errno, name)
)
_libc: Any = None


def _ctypes_libc() -> Any:
    """The C library's ``mmap``, ``munmap`` and ``madvise``, typed; None where this
    way is not taken (Windows, 32-bit systems, no ctypes)."""
    global _libc
    if _libc is not None:
        return _libc or None
    _libc = False
    if os.name != "posix" or sys.maxsize <= 2**32 or _mmap is None:
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        # off_t is 64 bits on every 64-bit POSIX system.
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_int64]  # fmt: skip
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    except (ImportError, OSError, AttributeError):  # pragma: no cover
        return None
    _libc = (ctypes, libc)
    return _libc


def _map_ctypes(fd: int, length: int) -> tuple[Any, Any, Any] | None:
    """The system's ``mmap`` called directly: the mapping owns no descriptor.

    Private and writable (copy on write): the buffer object ctypes makes is
    writable, and a write through it must change a private copy, never the
    file, and never fault on a read-only page.  Unmapped by a finalizer when
    the buffer object goes, which is after its last view.
    """
    found = _ctypes_libc()
    if found is None:
        return None
    ctypes, libc = found
    prot = _mmap.PROT_READ | _mmap.PROT_WRITE
    addr = libc.mmap(None, length, prot, _mmap.MAP_PRIVATE, fd, 0)
    if addr is None or addr == ctypes.c_void_p(-1).value:
        err = ctypes.get_errno()
        if err in _UNSUPPORTED:  # pragma: no cover
            return None
        raise OSError(err, os.strerror(err))
    try:
        exporter = (ctypes.c_ubyte * length).from_address(addr)
        # Not at exit: an exit handler may still read a view; the system unmaps at exit.
        weakref.finalize(exporter, libc.munmap, addr, length).atexit = False
    except BaseException:  # pragma: no cover - out of memory making the object
        libc.munmap(addr, length)
        raise
    advice = getattr(_mmap, "MADV_DONTNEED", None)
    page = _mmap.PAGESIZE

    def madvise(start: int, n: int, keep: Any = exporter) -> None:
        # ``keep``: never advise an address after its mapping went (it may be another's).
        first = start - start % page
        libc.madvise(addr + first, n + start - first, advice)

    return exporter, None, madvise if advice is not None else None
