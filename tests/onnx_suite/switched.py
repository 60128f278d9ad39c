"""What a rewritten onnx test file imports in place of onnx's names.

``from onnx.helper import make_tensor, make_node`` becomes
``make_tensor, make_node = bind("helper", ["make_tensor", "make_node"])``:
each name is onnxdata's where onnxdata has it, else an :class:`Absent` that
raises :class:`OutOfScopeError` when the test uses it.  The file still imports
(a test module names models next to tensors), and a test that reaches an absent
name fails saying which one, instead of silently running onnx's.
"""

from __future__ import annotations

import importlib
from typing import Any


class OutOfScopeError(AttributeError):
    """A test used a name of onnx that onnxdata does not have."""


class Absent:
    """An onnx name onnxdata lacks: calling it raises :class:`OutOfScopeError`.

    Its attributes are absent names too (``AttributeProto.FLOAT``), so that a
    module whose parametrize lists name them still imports; what the
    out-of-scope tests then do with them never runs (they are deselected).
    """

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def _refuse(self) -> OutOfScopeError:
        return OutOfScopeError(f"onnxdata has no {self._name} (out of its scope)")

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)  # copy, pickle and pytest probe dunders
        return Absent(f"{self._name}.{attr}")

    def __iter__(self) -> Any:
        raise self._refuse()

    def __bool__(self) -> bool:
        raise self._refuse()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._refuse()

    def __repr__(self) -> str:
        return f"<absent {self._name}>"


def module(dotted: str) -> Any:
    """onnxdata's module for onnx's ``onnx.<dotted>`` (``""``: the package), or an
    :class:`Absent` when onnxdata has no such module.

    Raises:
        ImportError: the module exists but fails to import (a real failure).
    """
    name = f"onnxdata.{dotted}" if dotted else "onnxdata"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return Absent(f"onnx.{dotted}")
        raise


def bind(dotted: str, names: list[str]) -> Any:
    """The values of ``names`` in onnxdata's module for ``onnx.<dotted>``; one
    :class:`Absent` for each name it lacks.  A single name gives its value, not
    a list (``x = bind("helper", ["x"])``)."""
    found = module(dotted)
    where = f"onnx.{dotted}" if dotted else "onnx"
    values = []
    for name in names:
        if isinstance(found, Absent):
            values.append(Absent(f"{where}.{name}"))
            continue
        try:
            values.append(getattr(found, name))
        except AttributeError:
            # as ``from onnx import inliner`` does: a submodule not imported yet
            sub = module(f"{dotted}.{name}" if dotted else name)
            values.append(Absent(f"{where}.{name}") if isinstance(sub, Absent) else sub)
    return values[0] if len(values) == 1 else values
