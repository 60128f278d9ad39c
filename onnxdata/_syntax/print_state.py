"""What one printing carries down its walk: the texts of the numbers and names seen so far.

Both are found once per distinct value: a float32's shortest digits take a search, and
a name is looked at each time a node uses it (once as an output, again as each input).
Made per printing, so nothing outlives it.
"""

from __future__ import annotations

from .print_numbers import Float32Texts
from .print_tensors import name_text

__all__ = ["NameTexts", "Printing"]


class NameTexts(dict[str, str]):
    """``names[n]`` is ``n`` bare when it is an identifier, else quoted, found once."""

    __slots__ = ()

    def __missing__(self, name: str) -> str:
        text = self[name] = name_text(name)
        return text


class Printing:
    """The state of one printing: :class:`Float32Texts` and :class:`NameTexts`."""

    __slots__ = ("floats", "names")

    def __init__(self) -> None:
        self.floats = Float32Texts()
        self.names = NameTexts()
