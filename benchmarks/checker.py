"""``check_model`` of a large graph: onnxdata's checker beside onnx's C++ one.

    python -m benchmarks.checker                 # 10k, 30k and 100k nodes
    python -m benchmarks.checker --nodes 100000

The graph is a chain of ordinary operators (Conv, Relu, Add with an
initializer, Transpose with its ``perm``, Gemm with attributes, Cast), each
node with its schema looked up, its arity and attributes verified and its
names checked for SSA and order: the work of a real model's check, per node.
onnx's time is ``onnx.checker.check_model`` of its ``ModelProto`` (which
serializes the model and parses it in C++, as it always does); onnxdata's is
``onnxdata.checker.check_model`` of its ``ModelProto``, decoded from the same
bytes.  Both are timed best of ``--repeat``; the ratio and the time per node
at each size (linear when it stays flat) are printed.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import onnx
from onnx import TensorProto, helper

import onnxdata
from onnxdata import checker


def build(nodes: int) -> onnx.ModelProto:
    """A chain of ``nodes`` nodes, six operators in turn, on a [1, 4] float tensor."""
    made = []
    inits = [
        helper.make_tensor("bias", TensorProto.FLOAT, [4], [0.5] * 4),
        helper.make_tensor("w", TensorProto.FLOAT, [4, 4], [0.1] * 16),
    ]
    previous = "x"
    for i in range(nodes):
        out = f"v{i}"
        kind = i % 6
        if kind == 0:
            node = helper.make_node("Relu", [previous], [out], name=f"n{i}")
        elif kind == 1:
            node = helper.make_node("Add", [previous, "bias"], [out], name=f"n{i}")
        elif kind == 2:
            node = helper.make_node("Transpose", [previous], [out], name=f"n{i}", perm=[0, 1])
        elif kind == 3:
            node = helper.make_node(
                "Gemm", [previous, "w"], [out], name=f"n{i}", alpha=1.0, beta=1.0, transB=1
            )
        elif kind == 4:
            node = helper.make_node("Cast", [previous], [out], name=f"n{i}", to=TensorProto.FLOAT)
        else:
            node = helper.make_node("Dropout", [previous], [out], name=f"n{i}")
        made.append(node)
        previous = out
    graph = helper.make_graph(
        made, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [1, 4])], inits,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def best(run: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(nodes: int, repeat: int) -> dict[str, float]:
    model = build(nodes)
    ours = onnxdata.ModelProto.decode(model.SerializeToString())
    onnx.checker.check_model(model)
    checker.check_model(ours)
    theirs_s = best(lambda: onnx.checker.check_model(model), repeat)
    ours_s = best(lambda: checker.check_model(ours), repeat)
    return {"nodes": nodes, "onnx_s": theirs_s, "onnxdata_s": ours_s}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, action="append")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print("| nodes | onnx (C++) | onnxdata | ratio | onnxdata per node |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for nodes in args.nodes or [10_000, 30_000, 100_000]:
        r = measure(nodes, args.repeat)
        ratio = r["onnxdata_s"] / r["onnx_s"]
        per_node = r["onnxdata_s"] / nodes * 1e6
        print(f"| {nodes:,} | {r['onnx_s'] * 1e3:.1f} ms | {r['onnxdata_s'] * 1e3:.1f} ms "
              f"| {ratio:.2f}x | {per_node:.2f} µs |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
