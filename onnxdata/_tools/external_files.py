"""``onnxdata check model.onnx``: the external data files a model names, as its reader finds them.

The validator judges a message alone, so it can say that a ``location`` is
unsafe but not that the file is missing.  A model read from a file has a
folder, and onnx's ``check_model(path)`` looks there: a location that is
missing, a symbolic link, a FIFO, a directory or a file with several hard
links is refused.  This module opens each external tensor's file below the
model's folder with the reader's own rules (``_io.external``), so that
``check`` passes exactly the models ``load_model`` can read.
"""

from __future__ import annotations

from .._io.external import external_file_problem
from .._messages.declarations import TensorProto
from .check import Violation
from .modelwalk import tensors

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["external_violations"]


def external_violations(model: Any, base_dir: str) -> list[Violation]:
    """One violation for each tensor of ``model`` (a ``ModelProto``) stored externally
    whose data cannot be read from below ``base_dir``, at the tensor's
    ``external_data``.  Each tensor's file is opened once and nothing is read from
    it.  Raises nothing for a decoded model."""
    head = type(model).__qualname__
    found = []
    for path, t in tensors(model):
        if t.data_location == TensorProto.EXTERNAL:
            problem = external_file_problem(t, base_dir)
            if problem is not None:
                found.append(Violation(f"{head}.{path}.external_data", problem))
    return found
