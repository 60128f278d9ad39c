"""Which message type a ``.pb`` file holds, when nobody says.

The wire format carries no type name, so every type is tried and each
successful decode is scored by how well the bytes fit that schema: unknown
fields cost their size, an out-of-range enum or an element type that does not
match the populated field costs a little.  The best fit wins; a tie is
reported as ambiguous rather than guessed.
"""

from __future__ import annotations

from typing import Any

from ._errors import DecodeError
from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)

# Most specific first: on a tie, the earlier one is listed first.
CANDIDATES: tuple[type[Message], ...] = (
    TensorProto,
    SparseTensorProto,
    SequenceProto,
    MapProto,
    OptionalProto,
)

_ELEM_FIELDS = ("tensor", "sparse_tensor", "sequence", "map", "optional")
_MAP_KEY_TYPES = frozenset({2, 3, 4, 5, 6, 7, 8, 12, 13})


class Candidate:
    """One way to read the bytes: the type, the message, and its misfit score."""

    __slots__ = ("message", "misfit", "type")

    def __init__(self, type: type[Message], message: Message, misfit: int) -> None:
        self.type = type
        self.message = message
        self.misfit = misfit


def detect(data: Any) -> list[Candidate]:
    """Every type the bytes decode as, best fit first (lowest ``misfit``).

    Raises:
        DecodeError: the bytes decode as none of the message types; the error
            is the one for ``TensorProto``.
    """
    found: list[Candidate] = []
    first_error: DecodeError | None = None
    raw = bytes(data)
    for cls in CANDIDATES:
        try:
            msg = cls.decode(raw)
        except DecodeError as err:
            first_error = first_error or err
            continue
        # protobuf writers never repeat a singular field: bytes that only decode
        # by merging (a sequence read as an optional) fit that type worse.
        canonical = msg.encode() == raw
        found.append(Candidate(cls, msg, misfit(msg) + (not canonical)))
    if not found:
        assert first_error is not None
        raise first_error
    found.sort(key=lambda c: c.misfit)  # stable: ties keep CANDIDATES order
    return found


def misfit(msg: Message) -> int:
    """How badly a decoded message fits its schema; 0 is a perfect fit."""
    score = len(msg.unknown_fields)  # type: ignore[attr-defined]
    if isinstance(msg, TensorProto):
        if msg.data_type is not None and not 0 <= msg.data_type <= 28:
            score += 1
        if msg.segment is not None:
            score += misfit(msg.segment)
        for entry in (*msg.external_data, *msg.metadata_props):
            score += misfit(entry)
    elif isinstance(msg, SparseTensorProto):
        for sub in (msg.values, msg.indices):
            if sub is not None:
                score += misfit(sub)
    elif isinstance(msg, SequenceProto):
        lists = [getattr(msg, f"{name}_values") for name in _ELEM_FIELDS]
        score += _elem_misfit(msg.elem_type, [i for i, v in enumerate(lists, 1) if v])
        score += sum(misfit(m) for values in lists for m in values)
    elif isinstance(msg, MapProto):
        if msg.key_type is not None and msg.key_type not in _MAP_KEY_TYPES:
            score += 1
        if msg.values is not None:
            score += misfit(msg.values)
    elif isinstance(msg, OptionalProto):
        subs = [getattr(msg, f"{name}_value") for name in _ELEM_FIELDS]
        score += _elem_misfit(msg.elem_type, [i for i, v in enumerate(subs, 1) if v is not None])
        score += sum(misfit(m) for m in subs if m is not None)
    return score


def _elem_misfit(elem_type: int | None, populated: list[int]) -> int:
    """An element type that is invalid or disagrees with the populated field."""
    score = 0
    if elem_type is not None and not 0 <= elem_type <= 5:
        score += 1
    if len(populated) > 1:
        score += len(populated) - 1
    if populated and elem_type is not None and populated[0] != elem_type:
        score += 1
    return score
