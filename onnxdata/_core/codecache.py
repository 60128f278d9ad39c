"""Compiled generated code kept on disk, as ``__pycache__`` keeps modules'.

Compiling the generated decoders, encoders and ``__init__`` methods was most
of what a fresh process paid on its first model (compiling ~90 sources for a
small model with subgraphs).  The generators still write their source (it
also binds the names each function reads, and ``linecache`` shows it), but
the code object of a source compiled once is read back from a file here.

A file is addressed by its source: its name is two checksums of the Python
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

__all__ = ["compiled", "folder"]

_MAGIC = b"onnxdata generated code 1\n"
_HEAD = len(_MAGIC) + 12  # then three 4-byte little-endian numbers
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


def compiled(source: str, filename: str) -> CodeType:
    """The code of ``source`` compiled under ``filename``: from the cache, or
    compiled (and then stored when the cache may be written).

    Raises:
        SyntaxError: the generator wrote invalid source (a bug, never input).
    """
    where, writable = folder()
    if where is None:
        return compile(source, filename, "exec")
    key = (_VERSION + filename + "\0" + source).encode("utf-8", "surrogatepass")
    path = os.path.join(where, f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}.code")
    code = _read(path, key)
    if code is None:
        code = compile(source, filename, "exec")
        if writable:
            _write(where, path, key, code)
    return code


def _read(path: str, key: bytes) -> CodeType | None:
    """The code kept in ``path`` for ``key``, or None if there is none, or it is
    for another key, or its bytes fail their checksum."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
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
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            with open(fd, "wb") as file:
                file.write(_MAGIC + head + key + payload)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return
