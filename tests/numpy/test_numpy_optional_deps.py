"""numpy and ml_dtypes are optional: behaviour without them, in fresh interpreters.

``sys.modules[name] = None`` makes ``import name`` raise ImportError, which
is what an environment without the package does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np

import onnxdata
from onnxdata import numpy_helper as nh
from tests.support.paths import ROOT

ROOT = ROOT


def run(code: str, *blocked: str) -> Any:
    """Run ``code`` in a fresh interpreter with ``blocked`` modules missing; its JSON output."""
    prelude = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_core_never_imports_numpy() -> None:
    out = run(
        """
        import json, onnxdata
        t = onnxdata.TensorProto(dims=[1], data_type=1, float_data=[1.0])
        onnxdata.TensorProto.decode(t.encode())
        print(json.dumps(sorted(m for m in ("numpy", "ml_dtypes") if sys.modules.get(m))))
        """
    )
    assert out == []


def test_numpy_helper_without_numpy_names_the_extra() -> None:
    out = run(
        """
        import json
        import onnxdata  # the core works
        try:
            import onnxdata.numpy_helper
        except ImportError as exc:
            print(json.dumps([type(exc).__name__, str(exc)]))
        """,
        "numpy",
    )
    assert out[0] == "ImportError"
    assert "onnxdata[numpy]" in out[1] and "pip install" in out[1]


# data_type -> (fallback dtype name)
FALLBACK = {16: "uint16", 17: "uint8", 18: "uint8", 19: "uint8", 20: "uint8", 21: "uint8",
            22: "uint8", 23: "uint8", 24: "uint8", 25: "uint8", 26: "uint8", 27: "uint8",
            28: "uint8"}  # fmt: skip
PACKED = {21: 4, 22: 4, 23: 4, 25: 2, 26: 2, 27: 6, 28: 6}

_READ_ALL = """
    import json
    import onnxdata
    from onnxdata import numpy_helper as nh
    cases = json.loads(sys.argv[1]) if len(sys.argv) > 1 else CASES
    out = {"have": nh.HAVE_ML_DTYPES, "arrays": {}, "table": {}}
    for code, dims, raw_hex, int32 in cases:
        t = onnxdata.TensorProto(dims=dims, data_type=code, raw_data=bytes.fromhex(raw_hex))
        a = nh.to_array(t)
        t2 = onnxdata.TensorProto(dims=dims, data_type=code, int32_data=int32)
        b = nh.to_array(t2)
        out["arrays"][str(code)] = [a.dtype.name, list(a.shape), a.tobytes().hex(),
                                    b.dtype.name, b.tobytes().hex()]
        out["table"][str(code)] = nh.tensor_dtype_to_np_dtype(code).name
    print(json.dumps(out))
"""


def _cases() -> list[list[Any]]:
    rng = np.random.default_rng(3)
    cases: list[list[Any]] = []
    for code in FALLBACK:
        dims = [2, 3]
        bits = PACKED.get(code)
        width = nh.tensor_dtype_to_np_dtype(code).itemsize
        size = -(-6 * bits // 8) if bits else 6 * width
        raw = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        n32 = -(-6 * bits // 8) if bits in (4, 2) else 6
        top = 63 if bits == 6 else (1 << (8 * width)) - 1
        int32 = [int(v) for v in rng.integers(0, top + 1, n32)]
        cases.append([code, dims, raw.hex(), int32])
    return cases


def _with_ml_dtypes(cases: list[list[Any]]) -> dict[str, Any]:
    result = {}
    for code, dims, raw_hex, int32 in cases:
        a = nh.to_array(
            onnxdata.TensorProto(dims=dims, data_type=code, raw_data=bytes.fromhex(raw_hex))
        )
        b = nh.to_array(onnxdata.TensorProto(dims=dims, data_type=code, int32_data=int32))
        result[str(code)] = (a.tobytes().hex(), b.tobytes().hex(), list(a.shape))
    return result


def test_without_ml_dtypes_returns_the_unsigned_storage_view() -> None:
    cases = _cases()
    out = run(f"CASES = {cases!r}\n" + textwrap.dedent(_READ_ALL), "ml_dtypes")
    assert out["have"] is False
    expected = _with_ml_dtypes(cases)
    for code, fallback in FALLBACK.items():
        dtype, shape, raw_hex, dtype32, raw32_hex = out["arrays"][str(code)]
        assert dtype == dtype32 == fallback == out["table"][str(code)], code
        # the same bytes as the ml_dtypes array: .view(ml_dtypes.x) recovers it
        assert (raw_hex, raw32_hex, shape) == (*expected[str(code)][:2], expected[str(code)][2])


def test_without_ml_dtypes_from_array_and_numpy_types() -> None:
    out = run(
        """
        import json
        import numpy as np
        from onnxdata import numpy_helper as nh
        result = {
            "uint16": nh.from_array(np.zeros(2, np.uint16)).data_type,
            "float16": nh.from_array(np.zeros(2, np.float16)).data_type,
            "table_float": nh.tensor_dtype_to_np_dtype(1).name,
        }
        try:
            nh.np_dtype_to_tensor_dtype(np.dtype("V2"))
        except ValueError as exc:
            result["void"] = str(exc)
        print(json.dumps(result))
        """,
        "ml_dtypes",
    )
    assert out["uint16"] == 4 and out["float16"] == 10 and out["table_float"] == "float32"
    assert "Unable to convert" in out["void"]


def test_old_ml_dtypes_without_the_newest_types() -> None:
    """An ml_dtypes lacking some types: those fall back one by one."""
    out = run(
        """
        import json, types
        import ml_dtypes as real
        old = types.ModuleType("ml_dtypes")
        for name in ("bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                     "float8_e5m2fnuz", "int4", "uint4"):
            setattr(old, name, getattr(real, name))
        sys.modules["ml_dtypes"] = old
        from onnxdata import numpy_helper as nh
        print(json.dumps([nh.HAVE_ML_DTYPES,
                          {c: nh.tensor_dtype_to_np_dtype(c).name for c in range(16, 29)}]))
        """
    )
    have, table = out
    assert have is False
    assert table["16"] == "bfloat16" and table["22"] == "int4"
    assert table["23"] == table["24"] == table["26"] == table["27"] == "uint8"
