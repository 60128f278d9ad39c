"""``onnx.printer.to_text`` of a large graph: onnxdata's printer beside onnx's C++ one.

    python -m benchmarks.printer                 # 10k, 30k and 100k nodes
    python -m benchmarks.printer --nodes 100000

The graph is ``benchmarks.checker``'s chain (Conv-free: Relu, Add with an initializer,
Transpose with ``perm``, Gemm with float and int attributes, Cast, Dropout; every node
named), so each line has names to check for quoting, attributes of three kinds and a
float to write as C++ ``to_chars`` does.  onnx's time is ``onnx.printer.to_text`` of
its ``ModelProto`` (which serializes the model and parses it in C++ first, as it always
does); onnxdata's is ``onnxdata.printer.to_text`` of its ``ModelProto``, decoded from
the same bytes.  The texts are compared (they must be equal), then both are timed,
best of ``--repeat``, in wall-clock and CPU time (the CPU time is what a shared
machine's load does not inflate); the ratios and the time per node at each size (flat
when the printer is linear) are printed; then the CPU time of a graph holding 100,000
random float32 weights, whose shortest digits are the costly part.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import onnx.printer

import onnxdata
from benchmarks.checker import build
from onnxdata import printer


def best(run: Any, repeat: int) -> tuple[float, float]:
    """The best wall-clock and the best CPU time of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return min(walls), min(cpus)


def measure(nodes: int, repeat: int) -> dict[str, float]:
    model = build(nodes)
    ours = onnxdata.ModelProto.decode(model.SerializeToString())
    if printer.to_text(ours) != onnx.printer.to_text(model):
        raise SystemExit(f"the texts differ at {nodes} nodes")
    theirs_wall, theirs_cpu = best(lambda: onnx.printer.to_text(model), repeat)
    ours_wall, ours_cpu = best(lambda: printer.to_text(ours), repeat)
    return {"nodes": nodes, "onnx_s": theirs_wall, "onnxdata_s": ours_wall,
            "onnx_cpu_s": theirs_cpu, "onnxdata_cpu_s": ours_cpu}  # fmt: skip


def measure_weights(count: int, repeat: int) -> dict[str, float]:
    """A graph of one initializer of ``count`` random float32s (normal, sigma 0.1, as
    weights are): the cost of finding each value's shortest digits."""
    rng = random.Random(0)
    values = [rng.gauss(0.0, 0.1) for _ in range(count)]
    tensor = onnx.helper.make_tensor("w", onnx.TensorProto.FLOAT, [count], values)
    model = onnx.helper.make_graph([], "weights", [], [], [tensor])
    ours = onnxdata.GraphProto.decode(model.SerializeToString())
    if printer.to_text(ours) != onnx.printer.to_text(model):
        raise SystemExit("the texts of the weights differ")
    theirs_cpu = best(lambda: onnx.printer.to_text(model), repeat)[1]
    ours_cpu = best(lambda: printer.to_text(ours), repeat)[1]
    return {"onnx_cpu_s": theirs_cpu, "onnxdata_cpu_s": ours_cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, action="append")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print("| nodes | onnx (C++) | onnxdata | ratio | CPU: onnx | CPU: onnxdata | CPU ratio "
          "| onnxdata CPU per node |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for nodes in args.nodes or [10_000, 30_000, 100_000]:
        r = measure(nodes, args.repeat)
        ratio = r["onnxdata_s"] / r["onnx_s"]
        cpu_ratio = r["onnxdata_cpu_s"] / r["onnx_cpu_s"]
        per_node = r["onnxdata_cpu_s"] / nodes * 1e6
        cpu = f"{r['onnx_cpu_s'] * 1e3:.1f} ms | {r['onnxdata_cpu_s'] * 1e3:.1f} ms"
        print(f"| {nodes:,} | {r['onnx_s'] * 1e3:.1f} ms | {r['onnxdata_s'] * 1e3:.1f} ms "
              f"| {ratio:.2f}x | {cpu} | {cpu_ratio:.2f}x | {per_node:.2f} µs |")  # fmt: skip
    weights = 100_000
    r = measure_weights(weights, args.repeat)
    print(f"\n{weights:,} random float32 weights: onnx {r['onnx_cpu_s'] * 1e3:.1f} ms, onnxdata "
          f"{r['onnxdata_cpu_s'] * 1e3:.1f} ms of CPU "
          f"({r['onnxdata_cpu_s'] / r['onnx_cpu_s']:.1f}x; "
          f"{r['onnxdata_cpu_s'] / weights * 1e6:.2f} µs per value)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
