"""The one place where generated source becomes code.

Decoders, encoders, ``__init__`` methods, blank makers and the validator's
readers are written as Python source from the schema and compiled here.  Each
piece of source is registered with :mod:`linecache` under a file name of its
own (``<onnxdata decoder TensorProto>``), as attrs does for its generated
methods, so that a traceback prints the generated line that failed and ``pdb``
can list and step through it.  :func:`generated` returns every source compiled
so far, and ``python -m onnxdata generated`` prints them: the code that runs
is always one command away.

``linecache`` imports ``tokenize``, a large part of ``import onnxdata`` when
nothing else has loaded it.  So the sources compiled while the package is
imported (each message's ``__init__`` and properties: ``build(...,
at_import=True)``) are registered at once only if ``linecache`` is already
loaded (as under pytest, IPython or a debugger); otherwise they wait for the
next source compiled without ``at_import`` (the codec's first decoder or
encoder, compiled on the first decode or encode), which loads ``linecache``
and registers every source waiting, or for :func:`register`.  Until then a
traceback through a generated ``__init__`` names its file and line without
the line's text.
"""

from __future__ import annotations

import sys
from threading import Lock

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["build", "generated", "register"]

_LOCK = Lock()
_SOURCES: dict[str, str] = {}  # file name -> source, in the order compiled
_WAITING: list[str] = []  # file names not yet in linecache


def build(
    source: str, filename: str, env: dict[str, Any], *, at_import: bool = False
) -> dict[str, Any]:
    """Compile and run ``source`` in ``env`` (its globals); return ``env``.

    ``filename`` names the source in tracebacks ("<onnxdata decoder
    TensorProto>"); a second source of the same name gets a numbered one
    ("<onnxdata decoder TensorProto #2>"), so that no traceback ever shows
    the lines of another piece of code.  ``at_import`` leaves the source out
    of ``linecache`` until it is loaded anyway (see the module's docstring).

    Raises:
        SyntaxError: the generator wrote invalid source (a bug here, never
            the user's input).
    """
    if not source.endswith("\n"):
        source += "\n"
    with _LOCK:
        name, n = filename, 1
        while name in _SOURCES and _SOURCES[name] != source:
            n += 1
            name = f"{filename[:-1]} #{n}>" if filename.endswith(">") else f"{filename} #{n}"
        _SOURCES[name] = source
        if name not in _WAITING:  # again after linecache.clearcache(), as every time
            _WAITING.append(name)
    if not at_import or "linecache" in sys.modules:
        register()
    code = compile(source, name, "exec")
    exec(code, env)
    return env


def register() -> None:
    """Put every source compiled so far into :mod:`linecache` (importing it)."""
    import linecache

    with _LOCK:
        for name in _WAITING:
            source = _SOURCES[name]
            # An entry whose modification time is None stays until it is
            # cleared by hand: checkcache() leaves it alone.
            linecache.cache[name] = (len(source), None, source.splitlines(keepends=True), name)
        _WAITING.clear()


def generated(contains: str = "") -> dict[str, str]:
    """The sources compiled so far, by file name, whose name contains ``contains``."""
    register()
    with _LOCK:
        return {name: text for name, text in _SOURCES.items() if contains in name}
