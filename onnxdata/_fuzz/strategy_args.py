"""Checks of the strategies' arguments: a bad one raises hypothesis' ``InvalidArgument``.

A value is checked when the strategy is built; a strategy given for a value
is checked as it is drawn (``value_or_strategy``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .._core.schema import is_boolean

TEXT = st.text(max_size=8)


def is_int(value: object) -> bool:
    """An int or an integer scalar such as ``numpy.int64`` (``__index__``), not a bool."""
    if is_boolean(value):
        return False
    try:
        operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def size_arg(name: str, value: object) -> int:
    if not is_int(value) or operator.index(value) < 0:  # type: ignore[arg-type]
        raise InvalidArgument(f"{name} must be a non-negative int, not {value!r}")
    return operator.index(value)  # type: ignore[arg-type]


def sizes(min_size: object, max_size: object) -> tuple[int, int]:
    lo, hi = size_arg("min_size", min_size), size_arg("max_size", max_size)
    if lo > hi:
        raise InvalidArgument(f"min_size={lo} is larger than max_size={hi}")
    return lo, hi


def choice_arg(
    name: str, value: object, allowed: Iterable[int], name_of: Callable[[int], str]
) -> int:
    """``value`` as one of ``allowed``, else InvalidArgument naming each allowed value
    (enum values are plain ints: ``name_of`` is the enum's ``Name``)."""
    allowed = list(allowed)
    if not is_int(value) or value not in allowed:
        names = ", ".join(f"{name_of(a)} ({a})" for a in allowed)
        raise InvalidArgument(f"{name} must be one of {names}; got {value!r}")
    return int(value)


def dims_arg(value: object) -> list[int]:
    """A shape: an int (one axis) or a sequence of non-negative ints."""
    if not isinstance(value, Iterable) and is_int(value):
        value = (value,)
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidArgument(f"shape must be an int or a sequence of ints, not {value!r}")
    dims = list(value)
    for d in dims:
        if not is_int(d) or operator.index(d) < 0:
            raise InvalidArgument(f"shape {value!r}: every side must be a non-negative int")
    return [operator.index(d) for d in dims]


def strategy_arg(name: str, value: object) -> st.SearchStrategy[Any]:
    if not isinstance(value, st.SearchStrategy):
        raise InvalidArgument(f"{name} must be a hypothesis strategy, not {value!r}")
    return value


def value_or_strategy(name: str, value: object, check: Any) -> Any:
    """A strategy for ``value``: itself (each draw checked) or the checked value."""
    if isinstance(value, st.SearchStrategy):
        return value.map(check)
    return st.just(check(value))


def depth_arg(max_depth: object) -> int:
    return size_arg("max_depth", max_depth)


def flag_arg(name: str, value: object) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise InvalidArgument(f"{name} must be True, False or None, not {value!r}")
    return value


def text_or(name: str, value: object) -> st.SearchStrategy[str | None]:
    if value is None:
        return st.none() | TEXT

    def text(v: object) -> str:
        if not isinstance(v, str):
            raise InvalidArgument(f"{name} must be a str, not {v!r}")
        return v

    return value_or_strategy(name, value, text)  # type: ignore[no-any-return]
