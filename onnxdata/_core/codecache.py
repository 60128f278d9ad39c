"""Compiled generated code kept on disk, as ``__pycache__`` keeps modules'.

Compiling the generated decoders, encoders and ``__init__`` methods was most
of what a fresh process paid on its first model (compiling ~90 sources for a
small model with subgraphs).  The generators still write their source (it
also binds the names each function reads, and ``linecache`` shows it), but
the code object of a source compiled once is read back from a file here.

A file is addressed by its source: its name is a checksum of the Python
version, the source's file name and the source; its content is that key
text in full, then the marshalled code object and a CRC-32 of it.  A file is
used only if the key text it holds is exactly the one looked for and the
checksum holds, so a change of a declaration or of a generator (which
changes the source), of the Python version, or a file cut short or altered
by accident, only makes the source compiled again.  (A checksum guards
against accidents, not an attacker who may write to the folder: such a one
may write ``__pycache__`` files too.)

The folder is ``ONNXDATA_CACHE_DIR`` when that is set (``""`` turns the cache
off); else ``onnxdata-generated`` under ``sys.pycache_prefix`` when Python
has one, else ``onnxdata/_core/__pycache__/generated``, written only when
Python writes bytecode (``PYTHONDONTWRITEBYTECODE`` unset), as Python does.
A folder that cannot be made or written, or a file that cannot be read, is
no error: the code is compiled as if there were no cache.  Each file is
written under a name of its own and renamed into place, so processes
sharing the folder never read half a file.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from types import CodeType

__all__ = ["cached", "folder", "keep"]

_MAGIC = b"onnxdata generated code 1\n"
_HEAD = len(_MAGIC) + 12  # then three 4-byte little-endian numbers
_MOST = 1 << 24  # no generated piece is near this: a larger file is not one of ours
_VERSION = f"{sys.implementation.cache_tag} {sys.version}\0"


def folder() -> tuple[str | None, bool]:
    """The cache's folder (None: no cache) and whether to write to it."""
    chosen = os.environ.get("ONNXDATA_CACHE_DIR")
    if chosen is not None:
        return (chosen or None), True
    if sys.pycache_prefix:
        return os.path.join(sys.pycache_prefix, "onnxdata-generated"), not sys.dont_write_bytecode
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "__pycache__", "generated"), not sys.dont_write_bytecode


def _place(source: str, filename: str) -> tuple[str, bytes, str, bool] | None:
    """The folder, the key text, the file and whether it may be written; None: no cache."""
    where, writable = folder()
    if where is None:
        return None
    key = (_VERSION + filename + "\0" + source).encode("utf-8", "surrogatepass")
    return where, key, os.path.join(where, f"{zlib.crc32(key):08x}.code"), writable


def cached(source: str, filename: str) -> CodeType | None:
    """The code kept for ``source`` compiled under ``filename``, or None.

    A file is named by a CRC-32 of its key only: two keys of one checksum
    share the file (the last written wins), and each is checked in full.
    """
    place = _place(source, filename)
    return None if place is None else _read(place[2], place[1])


def keep(source: str, filename: str, code: CodeType) -> None:
    """Store ``code``, compiled from ``source`` under ``filename``, where the
    cache may be written; any failure leaves the cache as it was."""
    place = _place(source, filename)
    if place is not None and place[3]:
        _write(place[0], place[2], place[1], code)


def _read(path: str, key: bytes) -> CodeType | None:
    """The code kept in ``path`` for ``key``, or None if there is none, or it is
    for another key, or its bytes fail their checksum."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size) if size < _MOST else b""
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) < _HEAD or not data.startswith(_MAGIC):
        return None
    head = len(_MAGIC)
    key_size = int.from_bytes(data[head : head + 4], "little")
    code_size = int.from_bytes(data[head + 4 : head + 8], "little")
    crc = int.from_bytes(data[head + 8 : head + 12], "little")
    body = _HEAD + key_size
    if len(data) != body + code_size or data[_HEAD:body] != key:
        return None
    payload = data[body:]
    if zlib.crc32(payload) != crc:
        return None
    try:
        code = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _write(where: str, path: str, key: bytes, code: CodeType) -> None:
    """Store ``code`` for ``key`` at ``path``: written under a name of this
    process and thread, then renamed into place (atomic on every platform
    Python runs on).  Any failure leaves the cache as it was."""
    payload = marshal.dumps(code)
    head = b"".join(n.to_bytes(4, "little") for n in (len(key), len(payload), zlib.crc32(payload)))
    temporary = f"{path}.{os.getpid()}.{id(code):x}.tmp"
    try:
        os.makedirs(where, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        fd = os.open(temporary, flags, 0o644)
        try:
            with open(fd, "wb") as file:
                file.write(_MAGIC + head + key + payload)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return
