"""The one place where generated source is written and becomes code.

Decoders, encoders, ``__init__`` methods, blank makers and the validator's
readers are written as Python source from the schema by an :class:`Emitter`
(indentation, the names the code reads from its environment, and which
field each line belongs to, recorded as the lines are written) and compiled
here, through the on-disk cache of ``codecache.py``.  Each
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
the line's text.  What the wait saves (CPython 3.11, CPU time, best of 25
fresh processes, against registering every source at once): 0.9 ms of the
3.7 ms ``import onnxdata`` (0.8 ms of 5.3 with the code cache cold), in a
process that never decodes or encodes; nothing in one that does.
"""

from __future__ import annotations

import sys
from threading import Lock

from .codecache import cached, keep

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["Emitter", "build", "generated", "indent", "register"]

_STEP = "    "


def indent(text: str, levels: int = 1) -> str:
    """``text`` ``levels`` deeper (blank lines stay empty): the body of a block
    written as text by a generator that returns pieces for an :class:`Emitter`."""
    pad = _STEP * levels
    return "\n".join(pad + line if line else line for line in text.splitlines())


class Emitter:
    """The writer of one piece of generated source.

    Lines are written at the present depth (:meth:`block` goes one deeper);
    the names the code reads are bound in its environment through
    :meth:`bind`, which refuses to bind a name to two different objects (two
    generators picking the same name would otherwise break each other
    silently); and each line written inside :meth:`labelled` is recorded
    under its label (a field), so that an error raised at a line can be
    traced to its field by the line's number (:meth:`labels`), with no
    parsing of the source afterwards and no cost while the code runs.
    """

    __slots__ = ("_depth", "_label", "_labels", "_lines", "env")

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        self.env: dict[str, Any] = {} if env is None else env
        self._lines: list[str] = []
        self._labels: dict[int, Any] = {}
        self._depth = 0
        self._label: Any = None

    def __call__(self, text: str) -> None:
        """Write ``text`` (one line or several, indented relative to each
        other) at the present depth."""
        lines = self._lines
        start = len(lines)
        if self._depth:
            pad = _STEP * self._depth
            lines += [pad + line if line else line for line in text.splitlines()]
        else:
            lines += text.splitlines()
        if self._label is not None:
            self._labels.update(dict.fromkeys(range(start + 1, len(lines) + 1), self._label))

    def block(self, header: str = "", levels: int = 1) -> _Deeper:
        """Write ``header`` (if any); what the ``with`` body writes goes ``levels`` deeper."""
        if header:
            self(header)
        return _Deeper(self, levels)

    def labelled(self, label: Any) -> _Labelled:
        """Record every line the ``with`` body writes under ``label``."""
        return _Labelled(self, label)

    def bind(self, name: str, value: Any) -> str:
        """Bind ``name`` to ``value`` in the environment; return ``name``.

        Raises:
            ValueError: ``name`` is bound to another value already (a
                generator's bug: two of them chose the same name).
        """
        env = self.env
        if name in env:
            held = env[name]
            if held is not value and held != value:
                raise ValueError(f"generated code: {name} bound twice, to different values")
        env[name] = value
        return name

    def labels(self) -> dict[int, Any]:
        """The label of each labelled line, by line number (from 1)."""
        return dict(self._labels)

    def source(self) -> str:
        """The source written so far."""
        return "\n".join(self._lines) + "\n"

    def build(self, filename: str, *, at_import: bool = False) -> dict[str, Any]:
        """Compile the source and run it in the environment (see :func:`build`)."""
        return build(self.source(), filename, self.env, at_import=at_import)


class _Deeper:
    """The body of :meth:`Emitter.block` (a class, not a generator: a decoder's
    generation enters some hundreds of them)."""

    __slots__ = ("emit", "levels")

    def __init__(self, emit: Emitter, levels: int) -> None:
        self.emit = emit
        self.levels = levels

    def __enter__(self) -> None:
        self.emit._depth += self.levels

    def __exit__(self, *exc: object) -> None:
        self.emit._depth -= self.levels


class _Labelled:
    """The body of :meth:`Emitter.labelled`."""

    __slots__ = ("emit", "label", "outer")

    def __init__(self, emit: Emitter, label: Any) -> None:
        self.emit = emit
        self.label = label
        self.outer: Any = None

    def __enter__(self) -> None:
        self.outer, self.emit._label = self.emit._label, self.label

    def __exit__(self, *exc: object) -> None:
        self.emit._label = self.outer


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
    code = cached(source, name)
    if code is None:
        code = compile(source, name, "exec")
        keep(source, name, code)
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
