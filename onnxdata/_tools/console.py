"""The command's terminal: every line it prints escaped, and its outputs kept apart from its inputs.

Two rules of the ``onnxdata`` command live here, once each, so that no
command can forget them:

* Every line printed, on stdout (:class:`Output`) or stderr (:func:`say`),
  goes through :func:`printable`: a name, a location or a JSON key from a
  file cannot drive the terminal or forge a line.  When the reader of stdout
  goes away, the output stops but the work does not.
* An output of a command that is the same file as one of its inputs
  (through a hard link, a symlink, a relative path or ``/dev/fd/N``), stdout
  included, is found before anything runs (:func:`same_file`).
"""

from __future__ import annotations

import os
import stat
import sys

from .._messages.declarations import SparseTensorProto, TensorProto
from .terminal import printable

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import argparse
    from collections.abc import Iterable
    from typing import Any, TextIO

__all__ = ["Output", "encodable", "external_output", "identity", "same_file", "say"]


class Output:
    """The command's stdout: every line escaped (:func:`printable`).

    When the reader goes away (``BrokenPipeError``) or stdout is closed, the
    output stops and the command goes on, so its exit status is the one it
    computes: the standard output is pointed at ``os.devnull``, as Python's
    documentation advises, so that nothing fails again when the interpreter
    flushes it at exit.  Any other failure to write is kept, and reported
    once at the end.
    """

    def __init__(self) -> None:
        self.stream: TextIO | None = sys.stdout
        self.closed = self.stream is None
        self.error: OSError | None = None

    def line(self, text: str) -> None:
        """Print one line: a line break inside ``text`` is escaped, never printed."""
        self.write(printable(text) + "\n")

    def lines(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.line(text)

    def block(self, text: str) -> None:
        """Print text whose line breaks are its own (JSON, text format), each line escaped."""
        self.write("\n".join(map(printable, text.split("\n"))))

    def write(self, text: str) -> None:
        if self.closed:
            return
        try:
            assert self.stream is not None
            self.stream.write(encodable(text, self.stream))
        except OSError as err:
            self._stop(err)

    def finish(self, status: int) -> int:
        """Flush; the exit status: ``status``, or 2 if stdout could not be written."""
        if not self.closed:
            try:
                assert self.stream is not None
                self.stream.flush()
            except OSError as err:
                self._stop(err)
        if self.error is not None:
            say(f"onnxdata: cannot write the output: {self.error.strerror or self.error}")
            return max(status, 2)
        return status

    def _stop(self, err: OSError) -> None:
        self.closed = True
        if not isinstance(err, BrokenPipeError):
            self.error = err
        try:
            assert self.stream is not None
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):
            return  # not a file descriptor (a test's capture): nothing is flushed at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)


def same_file(args: argparse.Namespace, out: Output) -> tuple[str, str] | None:
    """An output of the command (or stdout, when it is a regular file) that is
    the same file as one of its inputs: (the output, the input); else None."""
    inputs: dict[tuple[int, int], str] = {}
    for name in args.inputs:
        value = getattr(args, name)
        for path in [value] if isinstance(value, str) else value:
            found = identity(path)
            if found is not None:
                inputs.setdefault(found, path)
    if not inputs:
        return None
    for name in args.outputs:
        path = getattr(args, name)
        found = identity(path)
        if found in inputs:
            return path, inputs[found]
    found = stdoutidentity(out)
    if found in inputs:
        return "<stdout>", inputs[found]
    return None


def external_output(msg: Any, base: str, output: str) -> str | None:
    """The location of ``msg``'s external data (a tensor's, or a sparse tensor's
    values or indices, below ``base``) that is the file ``output``, or None: an
    external data file is an input too, and writing over it would destroy it."""
    target = identity(output)
    if target is None:
        return None
    tensors = [msg.values, msg.indices] if isinstance(msg, SparseTensorProto) else [msg]
    for t in tensors:
        if not isinstance(t, TensorProto) or t.data_location != TensorProto.EXTERNAL:
            continue
        for entry in t.external_data:
            location = entry.value or ""
            if entry.key == "location" and identity(os.path.join(base, location)) == target:
                return location
    return None


def identity(path: str) -> tuple[int, int] | None:
    """The file at ``path``, symlinks followed, as (device, inode); None if there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def stdoutidentity(out: Output) -> tuple[int, int] | None:
    """Stdout as (device, inode), when it is a regular file (``> file``, ``>> file``)."""
    try:
        assert out.stream is not None
        st = os.fstat(out.stream.fileno())
    except (AssertionError, AttributeError, OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def say(line: str, file: Any = None) -> None:
    """Print one line on stderr (or ``file``), escaped (:func:`printable`): the one
    place errors and warnings are printed.  A closed stderr loses the line."""
    out = sys.stderr if file is None else file
    if out is None:
        return  # started with stderr closed
    try:
        out.write(encodable(printable(line) + "\n", out))
        out.flush()
    except OSError:
        pass  # nowhere left to say it


def encodable(text: str, stream: Any) -> str:
    """``text`` as ``stream``'s encoding can write it (a printable character it
    lacks, such as "é" on an ASCII terminal, escaped)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)
