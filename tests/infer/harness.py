"""The differential harness of shape inference: onnx 1.23.2's ``infer_shapes`` against
onnxdata's, on the same bytes, results compared byte for byte (errors by their text)."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import onnx
import onnx.shape_inference

from onnxdata import shape_inference as ours


@functools.cache
def node_models() -> list[tuple[str, bytes]]:
    """(name, bytes) of every node-test model onnx's test cases build (about 1,900)."""
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    return [(c.name, c.model.SerializeToString()) for c in cases if c.model is not None]


def cleared(data: bytes) -> bytes:
    """The model with its ``value_info`` and its outputs' types removed (what is inferred)."""
    model = onnx.ModelProto.FromString(data)
    del model.graph.value_info[:]
    for output in model.graph.output:
        output.ClearField("type")
    return model.SerializeToString()


def run_onnx(data: bytes, **options: bool) -> tuple[str, Any]:
    try:
        return "ok", onnx.shape_inference.infer_shapes(data, **options).SerializeToString()
    except onnx.shape_inference.InferenceError as exc:
        return "error", str(exc)
    except ValueError as exc:  # check_type on a data type with no name
        return "ValueError", str(exc)


def run_ours(data: bytes, **options: bool) -> tuple[str, Any]:
    try:
        return "ok", ours.infer_shapes(data, **options).SerializeToString()
    except ours.ShapeInferenceUnavailableError as exc:
        return "unavailable", str(exc)
    except ours.InferenceError as exc:
        return "error", str(exc)
    except ValueError as exc:
        return "ValueError", str(exc)


def compare(data: bytes, **options: bool) -> tuple[str, Any, Any]:
    """("unavailable" | "same" | "differs", onnx's outcome, ours)."""
    theirs, mine = run_onnx(data, **options), run_ours(data, **options)
    if mine[0] == "unavailable":
        return "unavailable", theirs, mine
    return ("same" if theirs == mine else "differs"), theirs, mine


_POOL: list[Any] = []


def run_onnx_isolated(data: bytes, **options: bool) -> tuple[str, Any]:
    """``run_onnx`` in a child process: onnx 1.23.2's C++ crashes (SIGSEGV) on some malformed
    models, which would end the test process; a crash gives ("crash", None)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    if not _POOL:
        context = multiprocessing.get_context("fork")
        _POOL.append(ProcessPoolExecutor(max_workers=1, mp_context=context))
    try:
        result: tuple[str, Any] = _POOL[0].submit(run_onnx, data, **options).result()
    except BrokenProcessPool:
        _POOL.pop().shutdown(wait=False)
        return "crash", None
    return result
