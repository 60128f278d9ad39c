"""mutate and crossover do work linear in their input's size (issue 31, class 10).

Fuzzers feed inputs of any size; crossover used to insert each field of the
other input with ``list.insert`` and the packing mutation removed a run with
one list scan per field, so work grew with the square of the size.  Work is
counted here, never timed: every Python call, and for the list methods that
move or scan a list (``insert``, ``pop``, ``remove``, ``index``), the length
of the list.  A field's ``==`` is made a Python call while counting, so a
scan of a list of fields (``x in fields``) counts one per field it passes.
Over sizes 10 KB, 40 KB and 160 KB and several seeds, four times the input
must cost at most about four times the work (a bound of 6 leaves room for
n log n and noise; a quadratic step makes it 16).
"""

from __future__ import annotations

import random
import struct
import sys
from collections.abc import Callable
from itertools import pairwise
from types import FrameType
from typing import Any

import pytest

import onnxdata
from onnxdata._core.schema import spec_of
from onnxdata._fuzz import mutate as m
from onnxdata.fuzz import crossover, mutate

SIZES = (10_000, 40_000, 160_000)
GROWTH = 6.0  # the largest ratio of work for 4 times the input
_MOVING = {"insert", "pop", "remove", "index"}


@pytest.fixture(autouse=True)
def _visible_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fields compare by identity, as before, but through a Python call the counter sees."""

    def same(self: m.Field, other: object) -> bool:
        return self is other

    monkeypatch.setattr(m.Field, "__eq__", same)
    monkeypatch.setattr(m.Field, "__hash__", object.__hash__)


def work(call: Callable[[], Any]) -> int:
    """The work ``call()`` does: Python calls, plus the list elements moved or scanned."""
    total = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal total
        if event == "call":
            total += 1
        elif event == "c_call":
            owner = getattr(arg, "__self__", None)
            if isinstance(owner, list) and getattr(arg, "__name__", "") in _MOVING:
                total += len(owner) + 1
            else:
                total += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return total


def _dims(size: int) -> bytes:
    """A tensor of ~``size`` bytes of two-byte fields: dims, one field per value."""
    return onnxdata.TensorProto(dims=[1] * (size // 2)).encode()


def _unpacked_floats(size: int) -> bytes:
    """float_data written unpacked, one five-byte field per value (packing folds the run)."""
    head = onnxdata.TensorProto(dims=[size // 5], data_type=1).encode()
    return head + b"".join(b"\x25" + struct.pack("<f", i) for i in range(size // 5))


def _sequence(size: int) -> bytes:
    """A sequence of small tensors: sub-messages to descend into and splice."""
    t = onnxdata.TensorProto(dims=[2], data_type=1, float_data=[1.0, 2.0], name="t")
    n = size // (len(t.encode()) + 2)
    return onnxdata.SequenceProto(elem_type=1, tensor_values=[t] * n).encode()


INPUTS: dict[str, tuple[Callable[[int], bytes], type[onnxdata.Message]]] = {
    "dims": (_dims, onnxdata.TensorProto),
    "unpacked-floats": (_unpacked_floats, onnxdata.TensorProto),
    "sequence": (_sequence, onnxdata.SequenceProto),
}


def _growth(cost: Callable[[int], int]) -> list[float]:
    costs = [cost(size) for size in SIZES]
    return [b / a for a, b in pairwise(costs)]


@pytest.mark.slow
@pytest.mark.parametrize("kind", INPUTS)
def test_mutate_and_crossover_work_grows_linearly(kind: str) -> None:
    make, cls = INPUTS[kind]
    seeds = range(6)

    def mutate_cost(size: int) -> int:
        data = make(size)
        return sum(work(lambda s=s: mutate(data, 1 << 30, s, message=cls)) for s in seeds)

    def crossover_cost(size: int) -> int:
        a, b = make(size), make(size)[::-1]  # the second input also half broken
        other = make(size)
        return sum(
            work(lambda s=s: crossover(a, other if s % 2 else b, 1 << 30, s, message=cls))
            for s in seeds
        )

    for name, cost in (("mutate", mutate_cost), ("crossover", crossover_cost)):
        growth = _growth(cost)
        assert max(growth) <= GROWTH, (kind, name, growth)


def _interleave_of_everything(node: m.Node, rng: random.Random) -> None:
    """crossover's second mix: every field of a copy of the message, interleaved."""
    other = [f.copy() for f in node.fields]
    places = sorted(rng.sample(range(len(node.fields) + len(other)), len(other)))
    node.fields = m.interleave(node.fields, other, places)


def _pool(node: m.Node) -> list[bytes]:
    return m._pool(node, [])


# Each mutation of one message, applied to the root of the split input.
OPERATORS: dict[str, Callable[[m.Node, random.Random], None]] = {
    "add": lambda n, r: m._op_add(n, r, _pool(n), 0),
    "drop": m._op_drop,
    "duplicate": m._op_duplicate,
    "reorder": m._op_reorder,
    "edge": lambda n, r: m._op_edge(n, r, _pool(n), 0),
    "packing": lambda n, r: m._op_packing(n, r, _pool(n), 0),
    "overlong": m._op_overlong,
    "splice": lambda n, r: m._op_splice(n, r, _pool(n)),
    "types": lambda n, r: m._op_types(n, r, _pool(n), 0),
    "interleave": _interleave_of_everything,
}


@pytest.mark.slow
@pytest.mark.parametrize("operator", OPERATORS)
def test_each_mutation_works_in_linear_time(operator: str) -> None:
    op = OPERATORS[operator]
    for kind in ("dims", "unpacked-floats"):  # the inputs with the most fields
        make, cls = INPUTS[kind]

        def cost(size: int, make: Callable[[int], bytes] = make, cls: type = cls) -> int:
            data = make(size)
            total = 0
            for seed in range(3):
                rng = random.Random(seed)

                def run(rng: random.Random = rng) -> None:
                    node = m.split(data, spec_of(cls))
                    op(node, rng)
                    m._fit(node, node.join(), 1 << 30, rng)

                total += work(run)
            return total

        growth = _growth(cost)
        assert max(growth) <= GROWTH, (kind, operator, growth)


def test_the_counter_sees_a_quadratic_step() -> None:
    """The counter is not blind: inserting each of n items at the front costs n**2 / 2."""

    def inserts(n: int) -> Callable[[], None]:
        def run() -> None:
            out: list[int] = []
            for i in range(n):
                out.insert(0, i)

        return run

    assert work(inserts(4000)) > 12 * work(inserts(1000))

    def scans(n: int) -> Callable[[], None]:
        fields = [m.Field(1, 0, b"\x00") for _ in range(n)]
        return lambda: [f for f in fields if f not in fields[n // 2 :]]

    assert work(scans(4000)) > 12 * work(scans(1000))

    def interleaves(n: int) -> Callable[[], list[m.Field]]:
        base, items = [m.Field(1, 0, b"\x00")] * n, [m.Field(2, 0, b"\x00")] * n
        return lambda: m.interleave(base, items, list(range(0, 2 * n, 2)))

    assert work(interleaves(4000)) < 5 * work(interleaves(1000))
