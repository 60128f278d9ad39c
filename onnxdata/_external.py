"""Reading a tensor's external data, with onnx's path-traversal protections.

A TensorProto with ``data_location = EXTERNAL`` names a file by the
``location``/``offset``/``length`` entries of ``external_data``.  The file is
untrusted input, so (as onnx does since GHSA-538c-55jv-c5g9 and its
follow-ups) this module refuses:

* a missing or empty ``location``, or one holding a NUL character;
* absolute paths, Windows drive or UNC paths, and paths with a ``..``
  component (split on both ``/`` and ``\\``, so a model made on one system
  is judged the same on another);
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
with the one checked.  Only the standard library is used.
"""

from __future__ import annotations

import errno
import ntpath
import os
import re
import stat
import sys
import warnings

from ._messages import TensorProto

ALLOWED_KEYS = frozenset({"location", "offset", "length", "checksum", "basepath"})
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
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

    Raises (from the constructor):
        ValueError: ``location`` is missing, empty or not a safe relative
            path, or ``offset``/``length`` is not a non-negative integer.
    """

    __slots__ = ("checksum", "length", "location", "offset", "parts")

    def __init__(self, tensor: TensorProto) -> None:
        name = tensor.name or ""
        values: dict[str, str] = {}
        unknown: list[str] = []
        for entry in tensor.external_data:
            key = entry.key or ""
            if key in ALLOWED_KEYS:
                values[key] = entry.value or ""  # a repeated key: the last wins, as in onnx
            else:
                unknown.append(key[:100] + ("..." if len(key) > 100 else ""))
        if unknown:
            shown = sorted(set(unknown))[:10]
            more = len(unknown) - len(shown)
            warnings.warn(
                f"Ignoring unknown external data key(s) {shown!r}"
                + (f" and {more} more" if more > 0 else "")
                + f" for tensor {name!r}. Allowed keys: {sorted(ALLOWED_KEYS)}",
                stacklevel=_caller_outside_package(),
            )
        self.location = values.get("location", "")
        self.checksum = values.get("checksum")
        self.offset = _non_negative(values.get("offset"), "offset", name)
        self.length = _non_negative(values.get("length"), "length", name)
        self.parts = split_location(self.location, name)


def _caller_outside_package() -> int:
    """The ``stacklevel`` that points a warning, raised by the caller of this
    function, at the first frame outside this package: the user's call,
    however many of this package's functions (``to_array``, ``to_list``, a
    sparse tensor's values) lie between."""
    package = __name__.rpartition(".")[0]
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
    if text is None:
        return None
    if not _INTEGER.match(text):
        raise ValueError(f"External data {what} {text!r} of tensor {name!r} is not an integer")
    value = int(text)
    if value < 0:
        raise ValueError(
            f"External data {what} must be non-negative, got {value} for tensor {name!r}"
        )
    return value


def split_location(location: str, name: str = "") -> list[str]:
    """The components of a safe relative ``location``, without ``.`` and empty ones.

    Raises:
        ValueError: the location is empty, absolute, a drive or UNC path,
            holds a NUL, has a ``..`` component, or names no file.
    """
    if not location:
        raise ValueError(f"Location of external tensor {name!r} should not be empty")
    if "\0" in location:
        raise ValueError(f"Location of external tensor {name!r} contains a NUL character")
    drive, rest = ntpath.splitdrive(location)
    if drive or location.startswith(("/", "\\")) or rest.startswith(("/", "\\")):
        raise ValueError(
            f"Location of external tensor {name!r} should be a relative path, "
            f"but it is an absolute or drive path: {location!r}"
        )
    if ".." in re.split(r"[/\\]", location):
        raise ValueError(
            f"Location of external tensor {name!r} must stay inside the base directory, "
            f"but {location!r} has a '..' component"
        )
    # On POSIX a backslash is an ordinary file-name character (onnx opens
    # "a\\b" as one name too); on Windows it separates components.
    separators = r"[/\\]" if os.sep == "\\" else "/"
    parts = [p for p in re.split(separators, location) if p not in ("", ".")]
    if not parts:
        raise ValueError(f"Location of external tensor {name!r} names no file: {location!r}")
    return parts


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
    fd = _open_dir_fd(base, info.parts, name) if USE_DIR_FD else _open_by_path(base, info, name)
    try:
        return _read_range(fd, info, name)
    finally:
        os.close(fd)


def _refuse_link(st: os.stat_result, shown: str, name: str) -> None:
    reparse = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0)
    if stat.S_ISLNK(st.st_mode) or (getattr(st, "st_file_attributes", 0) & reparse):
        raise ValueError(f"External data of tensor {name!r}: {shown!r} is a symbolic link")


def _check_file(st: os.stat_result, shown: str, name: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"External data of tensor {name!r}: {shown!r} is not a regular file")
    if st.st_nlink > 1:
        raise ValueError(
            f"External data of tensor {name!r}: {shown!r} has {st.st_nlink} hard links "
            "(refused: a hard link can expose a file from outside the base directory)"
        )


def _open_dir_fd(base: str, parts: list[str], name: str) -> int:
    """Walk ``parts`` below ``base`` by descriptor, refusing symlinks on the way."""
    fd = os.open(base, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        for i, part in enumerate(parts):
            shown = "/".join(parts[: i + 1])
            _refuse_link(os.stat(part, dir_fd=fd, follow_symlinks=False), shown, name)
            last = i == len(parts) - 1
            flags = os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC
            flags |= (_O_NONBLOCK | _O_BINARY) if last else _O_DIRECTORY
            try:
                child = os.open(part, flags, dir_fd=fd)
            except OSError as exc:
                if exc.errno in _LINK_ERRNOS:  # swapped for a link since the stat
                    raise ValueError(
                        f"External data of tensor {name!r}: {shown!r} is a symbolic link"
                    ) from exc
                raise  # pragma: no cover - e.g. EACCES, which root (the CI user) never gets
            os.close(fd)
            fd = child
        _check_file(os.fstat(fd), "/".join(parts), name)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_by_path(base: str, info: ExternalDataInfo, name: str) -> int:
    """The same checks by path, for systems without ``dir_fd`` (Windows)."""
    real_base = os.path.realpath(base)
    path = real_base
    for i, part in enumerate(info.parts):
        path = os.path.join(path, part)
        _refuse_link(os.lstat(path), "/".join(info.parts[: i + 1]), name)
    if os.path.commonpath([real_base, os.path.realpath(path)]) != real_base:
        raise ValueError(f"External data of tensor {name!r} resolves outside {base!r}")
    shown = "/".join(info.parts)
    before = os.lstat(path)
    _check_file(before, shown, name)
    fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_BINARY | _O_CLOEXEC)
    try:
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
            raise ValueError(f"External data of tensor {name!r}: {shown!r} changed while opened")
        _check_file(after, shown, name)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_range(fd: int, info: ExternalDataInfo, name: str) -> bytearray:
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


def _read_into(fd: int, view: memoryview, start: int) -> int:  # pragma: no cover - no readv
    chunk = os.read(fd, min(len(view) - start, 1 << 30))
    view[start : start + len(chunk)] = chunk
    return len(chunk)
