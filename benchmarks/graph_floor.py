"""The least work decoding a graph takes in Python: the floor under the graph-heavy target.

Issue 33 asks for a 100,000-node graph to load in at most 4x the time of
``onnx.load`` (upb, in C).  A decoder in Python that gives protobuf's API
must make one Python object per message and one ``str`` per string field
the graph holds, whatever else it does.  This measures only that part:

- it decodes the model once with onnxdata, untimed, to count the messages
  and the string values it holds (reading the slots, as the codec does);
- it times making that many objects of a class with five slots, each slot
  stored once (every message has at least its fields' slots and
  ``unknown_fields``), and decoding that many 10-byte UTF-8 strings;
- it times upb decoding the same bytes.

Objects plus strings ÷ upb is then a floor of the ratio: no eager decoder
made in Python, however fast its parsing, can do better, since it parses
nothing here.  Run ``python -m benchmarks.graph_floor MODEL.onnx``
(``benchmarks.models`` writes the graph-heavy model into its ``--dir``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any


def _best(fn: Callable[[], Any], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        made = fn()
        best = min(best, time.perf_counter() - start)
        del made
    return best


def census(model: Any) -> tuple[int, int]:
    """(messages, string values) in a decoded onnxdata message, nested ones included."""
    from onnxdata._core.schema import MESSAGE, STRING, spec_of

    messages = strings = 0
    pending = [model]
    while pending:
        m = pending.pop()
        messages += 1
        for f in spec_of(type(m)).fields:
            value = getattr(m, f.slot)
            if value is None:
                continue
            if f.kind == MESSAGE:
                pending.extend(value if f.repeated else (value,))
            elif f.kind == STRING:
                strings += len(value) if f.repeated else 1
    return messages, strings


class _Five:
    __slots__ = ("a", "b", "c", "d", "e")
    a: Any
    b: Any
    c: Any
    d: Any
    e: Any


def objects(count: int) -> list[Any]:
    """``count`` objects of a five-slot class, each slot stored once."""
    new = object.__new__
    made: list[Any] = []
    append = made.append
    for _ in range(count):
        o = new(_Five)
        o.a = o.b = o.c = o.d = None
        o.e = b""
        append(o)
    return made


def strings(count: int) -> list[str]:
    """``count`` strings decoded from UTF-8 bytes."""
    raw = b"node_00042"
    return [str(raw, "utf-8") for _ in range(count)]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m benchmarks.graph_floor MODEL.onnx", file=sys.stderr)
        return 2
    import onnx

    import onnxdata

    with open(args[0], "rb") as f:
        data = f.read()
    messages, texts = census(onnxdata.ModelProto.decode(data))
    upb = _best(lambda: onnx.ModelProto.FromString(data))
    ours = _best(lambda: onnxdata.ModelProto.decode(data))
    made = _best(lambda: objects(messages))
    decoded = _best(lambda: strings(texts))
    floor = made + decoded
    print(f"{args[0]}: {len(data):,} bytes, {messages:,} messages, {texts:,} strings")
    print(f"upb FromString            {upb * 1e3:9.1f} ms")
    print(f"onnxdata decode           {ours * 1e3:9.1f} ms  {ours / upb:5.1f}x upb")
    print(f"floor: objects            {made * 1e3:9.1f} ms")
    print(f"floor: strings            {decoded * 1e3:9.1f} ms")
    print(f"floor: objects + strings  {floor * 1e3:9.1f} ms  {floor / upb:5.1f}x upb")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
