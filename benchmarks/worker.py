"""Measurements that need a process of their own; ``run.py`` starts them.

    python benchmarks/worker.py MODE < job.json > result.json

MODE is one of:

``purepy``
    protobuf's pure-Python backend: ``run.py`` sets
    ``PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python``, and this process checks
    that ``api_implementation.Type()`` really is ``"python"`` before timing
    ``onnx.<Message>.FromString`` and ``SerializeToString``, each followed by
    onnxdata's decode or encode of the same bytes (the speed-up's other half).
``nonumpy``
    onnxdata with numpy blocked (``sys.modules["numpy"] = None`` before any
    import), so that only the standard-library path can run.
``memory``
    the peak resident memory of one operation on one workload, in a fresh
    process, so that nothing freed earlier can be reused unseen.

The job (JSON on stdin) names the workloads with the files holding their
bytes (written once by ``run.py``, so every process reads the same bytes).
The result is JSON on stdout; any failure is an ``"error"`` key and exit 1.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "nonumpy":
    sys.modules["numpy"] = None  # type: ignore[assignment]  # before anything imports it

import timing  # benchmarks/ is sys.path[0]


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def purepy(job: dict[str, Any]) -> dict[str, Any]:
    from google.protobuf.internal import api_implementation

    impl = api_implementation.Type()
    if impl != "python":
        raise RuntimeError(f"protobuf backend is {impl!r}, not 'python'")
    import onnx

    import onnxdata

    budget = timing.Budget(**job["budget"])
    out: dict[str, Any] = {"backend": impl, "results": {}}
    for w in job["workloads"]:
        out["results"][w["name"]] = _purepy_one(
            getattr(onnx, w["message"]), getattr(onnxdata, w["message"]), _read(w["path"]), budget
        )
    return out


def _purepy_one(cls: Any, ours: Any, data: bytes, budget: timing.Budget) -> dict[str, Any]:
    """The pure-Python backend, and onnxdata right after it in the same process.

    onnxdata needs no protobuf, so it runs here unchanged; timing it back to
    back with the pure-Python backend keeps their ratio honest on a machine
    whose load changes from minute to minute.
    """
    msg, t_pp = timing.timed(lambda: cls.FromString(data))
    mine, t_od = timing.timed(lambda: ours.decode(data))
    pp, od = timing.measure_all(
        [lambda: cls.FromString(data), lambda: ours.decode(data)], budget, [t_pp, t_od]
    )
    out = {"decode": pp.to_dict(), "decode_onnxdata": od.to_dict()}
    encoded, t_pp = timing.timed(msg.SerializeToString)
    out["identical"] = encoded == data
    encoded, t_od = timing.timed(mine.encode)
    if encoded != data:
        raise RuntimeError("onnxdata's encoding differs from protobuf's")
    pp, od = timing.measure_all([msg.SerializeToString, mine.encode], budget, [t_pp, t_od])
    out["encode"], out["encode_onnxdata"] = pp.to_dict(), od.to_dict()
    return out


def nonumpy(job: dict[str, Any]) -> dict[str, Any]:
    import onnxdata

    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    else:  # pragma: no cover
        raise RuntimeError("numpy imported although it was blocked")
    budget = timing.Budget(**job["budget"])
    out: dict[str, Any] = {"results": {}}
    for w in job["workloads"]:
        cls = getattr(onnxdata, w["message"])
        res = _nonumpy_one(cls, _read(w["path"]), budget, job.get("profile", False))
        if res is None:
            raise RuntimeError(f"{w['name']}: onnxdata's encoding (numpy blocked) differs")
        out["results"][w["name"]] = res
    out["numpy_loaded"] = bool(sys.modules.get("numpy"))
    return out


def _nonumpy_one(
    cls: Any, data: bytes, budget: timing.Budget, profile: bool
) -> dict[str, Any] | None:
    msg, t_dec = timing.timed(lambda: cls.decode(data))
    encoded, t_enc = timing.timed(msg.encode)
    if encoded != data:
        return None
    res: dict[str, Any] = {
        "decode": timing.measure(lambda: cls.decode(data), budget, t_dec).to_dict(),
        "encode": timing.measure(msg.encode, budget, t_enc).to_dict(),
    }
    if profile:
        res["profile"] = {
            "decode": timing.profile(lambda: cls.decode(data)),
            "encode": timing.profile(msg.encode),
        }
    return res


def memory(job: dict[str, Any]) -> dict[str, Any]:
    """Peak extra RSS of one operation: ``impl`` x ``op`` on one workload."""
    if not timing.peak_rss_supported():
        raise RuntimeError("peak RSS needs Linux /proc/self/clear_refs")
    impl, op, w = job["impl"], job["op"], job["workload"]
    data = _read(w["path"])
    if impl == "onnxdata":
        import onnxdata

        cls = getattr(onnxdata, w["message"])
    else:
        import onnx

        cls = getattr(onnx, w["message"])
        if impl == "purepy":
            from google.protobuf.internal import api_implementation

            if api_implementation.Type() != "python":
                raise RuntimeError("protobuf backend is not 'python'")
    cls.FromString(b"")  # imports done, the decoder's modules loaded
    if op == "decode":
        fn = lambda: cls.FromString(data)  # noqa: E731
    elif op == "to_numpy":
        import bridges

        bridge = bridges.oracle() if impl == "upb" else bridges.ours(job["bridge"])
        to = bridge.to_numpy.get(w["kind"])
        if to is None:
            return {"skipped": bridge.missing.get(w["kind"], "no bridge")}
        fn = lambda: to(cls.FromString(data))  # noqa: E731
    else:
        raise ValueError(op)
    return {"peak": timing.peak_extra(fn), "input": len(data)}


def main() -> int:
    mode = sys.argv[1]
    job = json.load(sys.stdin)
    try:
        result = {"purepy": purepy, "nonumpy": nonumpy, "memory": memory}[mode](job)
    except Exception as exc:
        json.dump(
            {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()},
            sys.stdout,
        )
        return 1
    result["pid"] = os.getpid()
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
