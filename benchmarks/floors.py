"""The least work an operation needs, timed: the ceiling it sets on a speed-up.

Some targets against protobuf's pure-Python backend cannot be met by faster
code, and the report shows why with a measurement instead of a claim.  A
*floor* is a complete encoder or decoder for one workload only, made of
nothing but the steps every implementation in Python must take, each done once
by the cheapest standard-library call found for it.  Its output is checked
against the real bytes before it is timed, so it is not a partial job.  Timed
in turn with the pure-Python backend, pure-Python ÷ floor is then the ceiling:
no implementation made of these calls can be faster than its floor.

- **raw16MB**: a ``bytes`` cannot share another's memory, so decoding copies
  the 16 MiB of ``raw_data`` out of the input and encoding copies them into
  the output.  The pure-Python backend makes the same one copy, so the two
  tie: the ratio is 1 give or take the noise of a 16 MiB copy.
- **strings100k, encoded without numpy**: each entry's exact type is tested
  (a subclass's ``len`` may differ from the bytes it holds, which are what is
  written), its length taken, and its tag and length written before it.
  :data:`STEPS` times each step's candidate calls, so that the report shows
  which is cheapest.

Standard library only (it runs in the pure-Python backend's subprocess).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from typing import Any

STRINGS_TAG = b"\x32"  # TensorProto.string_data: field 6, length-delimited


@dataclass(frozen=True)
class Floor:
    """One operation's floor: ``make(data, msg)`` gives the callable and what it must return."""

    workload: str
    op: str  # "decode" or "encode"
    what: str  # for the report
    make: Callable[[bytes, Any], tuple[Callable[[], Any], Any]]


def _payload(data: bytes, msg: Any) -> tuple[int, bytes]:
    """Where ``raw_data`` starts in ``data`` (the workload writes it last), and its bytes."""
    raw = bytes(msg.raw_data)
    start = len(data) - len(raw)
    if data[start:] != raw:
        raise ValueError("raw_data is not the last field of the encoding")
    return start, raw


def _copy_out(data: bytes, msg: Any) -> tuple[Callable[[], Any], Any]:
    start, raw = _payload(data, msg)
    return (lambda: data[start:]), raw


def _copy_in(data: bytes, msg: Any) -> tuple[Callable[[], Any], Any]:
    start, raw = _payload(data, msg)
    head = data[:start]
    return (lambda: b"".join((head, raw))), data


def short_entries(tag: bytes, values: list[bytes]) -> bytes:
    """A repeated bytes field of ``bytes`` entries shorter than 128, in three passes over it.

    Raises:
        TypeError: an entry is not exactly ``bytes``.
    """
    if list(map(type, values)).count(bytes) != len(values):  # each entry's exact type
        raise TypeError("an entry is not bytes")
    lengths = bytearray(map(len, values))  # each entry's length
    cells = bytearray((tag + b"\0%b") * len(values))
    cells[1::4] = lengths
    # A length of 37 reads as "%": escaped.  Then the tag and length before each entry:
    return bytes(cells).replace(tag + b"%%b", tag + b"%%%b") % tuple(values)


def _strings_out(data: bytes, msg: Any) -> tuple[Callable[[], Any], Any]:
    values = list(msg.string_data)
    field = short_entries(STRINGS_TAG, values)
    if not data.endswith(field):
        raise ValueError("string_data is not the last field of the encoding")
    return (lambda: short_entries(STRINGS_TAG, values)), field


FLOORS = [
    Floor("raw16MB", "decode", "copy `raw_data` out of the input: `data[start:]`", _copy_out),
    Floor("raw16MB", "encode", "copy `raw_data` after its head: `b\"\".join((head, raw))`",
          _copy_in),
    Floor("strings100k", "encode", "each entry's exact type, its length, then its tag and "
          "length before it by one `%` over a template (`short_entries`)", _strings_out),
]  # fmt: skip


def find(workload: str, op: str) -> Floor | None:
    """The floor of ``op`` on ``workload``, if it has one."""
    return next((f for f in FLOORS if (f.workload, f.op) == (workload, op)), None)


# -- the steps of short_entries, each with the calls that could take it -----------------

Step = tuple[str, str, bool, Callable[[], Any]]  # step, call, used by the floor, the call


def _steps(values: list[bytes]) -> list[Step]:
    """(step, call, used by the floor, the call over ``values``) for strings100k's entries."""
    n = len(values)
    lengths = bytearray(map(len, values))
    cells = bytearray((STRINGS_TAG + b"\0%b") * n)
    cells[1::4] = lengths
    template = bytes(cells).replace(STRINGS_TAG + b"%%b", STRINGS_TAG + b"%%%b")
    heads = [STRINGS_TAG + bytes([k]) for k in range(128)]

    def heads_and_join() -> bytes:
        chunks: list[bytes] = [b""] * (2 * n)
        chunks[0::2] = map(heads.__getitem__, lengths)
        chunks[1::2] = values
        return b"".join(chunks)

    if heads_and_join() != template % tuple(values):
        raise AssertionError("the two ways of writing the heads differ")
    kind, size, both, write = ("exact type", "length", "type and length in one call",
                               "tag and length before each entry")  # fmt: skip
    return [
        (kind, "`list(map(type, v)).count(bytes)`", True,
         lambda: list(map(type, values)).count(bytes)),
        (kind, "`operator.countOf(map(type, v), bytes)`", False,
         lambda: operator.countOf(map(type, values), bytes)),
        (kind, "`set(map(type, v)) == {bytes}`", False, lambda: set(map(type, values)) == {bytes}),
        (size, "`bytearray(map(len, v))`", True, lambda: bytearray(map(len, values))),
        (size, "`bytes(map(len, v))`", False, lambda: bytes(map(len, values))),
        (size, "`bytes(list(map(len, v)))`", False, lambda: bytes(list(map(len, values)))),
        (both, "`bytearray(map(bytes.__len__, v))`", False,
         lambda: bytearray(map(bytes.__len__, values))),
        (both, "`bytearray(map(bytes.count, v, repeat(b\"\")))` (length + 1)", False,
         lambda: bytearray(map(bytes.count, values, repeat(b"", n)))),
        (write, "`template % tuple(v)`", True, lambda: template % tuple(values)),
        (write, "heads by length, interleaved with the entries, `b\"\".join`", False,
         heads_and_join),
    ]  # fmt: skip


def steps(workload: str, msg: Any) -> tuple[int, list[Step]]:
    """The entries of ``workload``'s floor, and its steps with their candidate calls.

    None but strings100k's has steps: ``(0, [])`` for the others.
    """
    if workload != "strings100k":
        return 0, []
    values = list(msg.string_data)
    return len(values), _steps(values)
