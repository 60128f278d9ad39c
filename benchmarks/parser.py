"""Parsing ONNX's textual syntax: onnxdata's parser beside onnx's C++ one.

    python -m benchmarks.parser                  # 10k, 30k and 100k nodes
    python -m benchmarks.parser --nodes 100000

The text is onnx's printing of ``benchmarks.checker``'s chain of ordinary
operators (Conv-free: Relu, Add, Transpose with ``perm``, Gemm with three
attributes, Cast, Dropout; each node named), the 100,000-node graph of the
issue.  onnx's time is ``onnx.parser.parse_model`` (its C++ parser, then the
Python message read from its bytes); onnxdata's is ``onnxdata.parser.parse_model``,
and again with ``ONNXDATA_GENERAL_PATHS`` set (its fast paths off).  Each is the
best CPU time of ``--repeat``; the ratio and the time per node (linear when
flat) are printed, with the load average.  ``--quoted`` gives the names the form of
an exported model's (``/model/n3``), which onnx's printer quotes.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import onnx
import onnx.parser
import onnx.printer

import onnxdata.parser
from benchmarks.checker import build
from onnxdata._core import switches


def best(run: Any, repeat: int) -> float:
    """The best CPU time of ``repeat`` runs: on a shared machine the wall clock
    is mostly the wait for a core, which moves the ratio from run to run."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def quoted(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with the names of exported models (``/model/n3``, ``/m/v3``), which
    are no identifiers: onnx's printer quotes them."""
    for node in model.graph.node:
        node.name = "/model/" + node.name
        node.input[:] = ["/m/" + x if x.startswith("v") else x for x in node.input]
        node.output[:] = ["/m/" + x for x in node.output]
    model.graph.output[0].name = "/m/" + model.graph.output[0].name
    return model


def measure(nodes: int, repeat: int, quote: bool = False) -> dict[str, float]:
    model = build(nodes)
    text = onnx.printer.to_text(quoted(model) if quote else model)
    same = onnxdata.parser.parse_model(text).SerializeToString()
    assert same == onnx.parser.parse_model(text).SerializeToString()
    theirs = best(lambda: onnx.parser.parse_model(text), repeat)
    ours = best(lambda: onnxdata.parser.parse_model(text), repeat)
    saved = switches.GENERAL_PATHS
    switches.GENERAL_PATHS = True
    try:
        general = best(lambda: onnxdata.parser.parse_model(text), repeat)
    finally:
        switches.GENERAL_PATHS = saved
    return {"nodes": nodes, "chars": len(text), "onnx": theirs, "ours": ours, "general": general}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, action="append")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quoted", action="store_true", help="names onnx prints quoted")
    args = parser.parse_args(argv)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    print("| nodes | text | onnx (C++) | onnxdata | ratio | per node | general path | ratio |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for nodes in args.nodes or [10_000, 30_000, 100_000]:
        r = measure(nodes, args.repeat, args.quoted)
        print(f"| {nodes:,} | {r['chars'] / 1e6:.1f} MB | {r['onnx'] * 1e3:.1f} ms "
              f"| {r['ours'] * 1e3:.1f} ms | {r['ours'] / r['onnx']:.2f}x "
              f"| {r['ours'] / nodes * 1e6:.2f} µs | {r['general'] * 1e3:.1f} ms "
              f"| {r['general'] / r['onnx']:.2f}x |")  # fmt: skip
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
