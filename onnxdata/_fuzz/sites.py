"""Defects placed deep inside a message: at a model's sites, such as
``graph.node[i].attribute[j].t`` or a subgraph's initializer.

A path is walked down the records of a valid encoding, from one sub-message
field to one inside it, as deep as the encoding goes; the defect is put in
the innermost body and every length prefix on the way is written again.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._core.schema import MESSAGE, spec_of
from .._core.wire import LEN
from .._messages.declarations import Message
from .defects import Defect, Picker, applies, place
from .records import join, record, split


def _steps(cls: type[Message], data: bytes) -> list[tuple[int, int, type[Message], str]]:
    """(index of the record, its field number, its message class, its name) of each
    sub-message record of ``data``."""
    spec = spec_of(cls)
    found = []
    for i, (number, wire_type, _) in enumerate(split(data)):
        f = spec.by_number.get(number)
        if f is not None and f.kind == MESSAGE and wire_type == LEN:
            found.append((i, number, f.message, f.name))
    return found


def place_deep(defect: Defect, cls: type[Message], data: bytes, pick: Picker,
               depth: int, prefer: Sequence[str] = ()) -> tuple[bytes, str] | None:  # fmt: skip
    """``data`` with ``defect`` placed up to ``depth`` sub-messages down, and the path
    of fields it went through (``"graph.node.attribute.t"``); None when no message on
    the way can hold the defect.  Where a field named in ``prefer`` is at hand it is
    taken one time in two (``t``, ``initializer``: the tensors of a model)."""
    steps = _steps(cls, data)
    if depth > 0 and steps:
        preferred = [s for s in steps if s[3] in prefer]
        if not preferred or pick.randint(0, 1):
            preferred = steps
        i, number, inner_cls, name = pick.choice(preferred)
        records = split(data)
        inner = place_deep(defect, inner_cls, records[i][2], pick, depth - 1, prefer)
        if inner is not None:
            body, path = inner
            rebuilt = join(records[:i]) + record(number, LEN, body) + join(records[i + 1 :])
            return rebuilt, f"{name}.{path}" if path else name
    if not applies(defect, cls):
        return None
    placed = place(defect, cls, data, pick)
    return None if placed is None else (placed, "")
