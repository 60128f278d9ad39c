"""numpy and ml_dtypes are the numpy extra: behaviour without them, in fresh interpreters.

``sys.modules[name] = None`` makes ``import name`` raise ImportError, which
is what an environment without the package does.  Without ml_dtypes nothing
changes silently: a type numpy lacks is refused with an ImportError naming
ml_dtypes, unless the caller asks for the storage view, which is the same
with or without ml_dtypes.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from onnx import helper as onnx_helper

import onnxdata
from onnxdata import numpy_helper as nh
from onnxdata._numpy.missing import ML_DTYPES_REQUIREMENT, NUMPY_REQUIREMENT
from tests.support.paths import ROOT

ROOT = ROOT


def run(code: str, *blocked: str, cwd: Path = ROOT) -> Any:
    """Run ``code`` in a fresh interpreter with ``blocked`` modules missing; its JSON output."""
    prelude = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
    env = dict(os.environ)
    if cwd != ROOT:  # a vendored copy: found from its folder, the checkout's onnxdata out of reach
        env["PYTHONPATH"] = str(cwd)
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
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
        result = []
        for module in ("numpy_helper", "helper"):
            try:
                __import__("onnxdata." + module)
            except ImportError as exc:
                result.append([type(exc).__name__, exc.name, str(exc)])
        print(json.dumps(result))
        """,
        "numpy",
    )
    assert len(out) == 2
    for kind, name, message in out:
        assert (kind, name) == ("ImportError", "numpy")
        assert "pip install 'onnxdata[numpy]'" in message


# data_type -> the storage view's dtype name
FALLBACK = {16: "uint16", 17: "uint8", 18: "uint8", 19: "uint8", 20: "uint8", 21: "uint8",
            22: "uint8", 23: "uint8", 24: "uint8", 25: "uint8", 26: "uint8", 27: "uint8",
            28: "uint8"}  # fmt: skip
PACKED = {21: 4, 22: 4, 23: 4, 25: 2, 26: 2, 27: 6, 28: 6}

_READ_ALL = """
    import json
    import onnxdata
    from onnxdata import numpy_helper as nh
    out = {"have": nh.HAVE_ML_DTYPES, "arrays": {}, "table": {}, "refused": {}}
    for code, dims, raw_hex, int32 in CASES:
        t = onnxdata.TensorProto(dims=dims, data_type=code, raw_data=bytes.fromhex(raw_hex))
        t2 = onnxdata.TensorProto(dims=dims, data_type=code, int32_data=int32)
        a = nh.to_array(t, storage_view=True)
        b = nh.to_array(t2, storage_view=True)
        out["arrays"][str(code)] = [a.dtype.name, list(a.shape), a.tobytes().hex(),
                                    b.dtype.name, b.tobytes().hex()]
        out["table"][str(code)] = nh.tensor_dtype_to_np_dtype(code, storage_view=True).name
        refused = []
        for call in (lambda: nh.to_array(t), lambda: nh.to_array(t2),
                     lambda: nh.tensor_dtype_to_np_dtype(code)):
            try:
                got = call()
            except ImportError as exc:
                refused.append([type(exc).__name__, exc.name, str(exc)])
            else:
                refused.append(str(getattr(got, "dtype", got)))
        out["refused"][str(code)] = refused
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


def test_without_ml_dtypes_types_numpy_lacks_are_refused_unless_the_storage_view_is_asked() -> None:
    cases = _cases()
    out = run(f"CASES = {cases!r}\n" + textwrap.dedent(_READ_ALL), "ml_dtypes")
    assert out["have"] is False
    expected = _with_ml_dtypes(cases)
    for code, fallback in FALLBACK.items():
        dtype, shape, raw_hex, dtype32, raw32_hex = out["arrays"][str(code)]
        assert dtype == dtype32 == fallback == out["table"][str(code)], code
        # the same bytes as the ml_dtypes array: .view(ml_dtypes.x) recovers it
        assert (raw_hex, raw32_hex, shape) == (*expected[str(code)][:2], expected[str(code)][2])
        for refused in out["refused"][str(code)]:  # never another dtype in onnx's place
            kind, name, message = refused
            assert (kind, name) == ("MissingMLDtypesError", "ml_dtypes"), code
            assert "ml_dtypes is not installed" in message and "storage_view=True" in message
            assert f"as {fallback}" in message and "pip install 'onnxdata[numpy]'" in message


def test_the_storage_view_does_not_depend_on_ml_dtypes() -> None:
    """With ml_dtypes, ``storage_view=True`` gives what it gives without (above),
    and without it the dtype is onnx's."""
    for code, dims, raw_hex, int32 in _cases():
        for tensor in (
            onnxdata.TensorProto(dims=dims, data_type=code, raw_data=bytes.fromhex(raw_hex)),
            onnxdata.TensorProto(dims=dims, data_type=code, int32_data=int32),
        ):
            real = nh.to_array(tensor)
            view = nh.to_array(tensor, storage_view=True)
            assert real.dtype == onnx_helper.tensor_dtype_to_np_dtype(code)
            assert view.dtype.name == FALLBACK[code]
            assert nh.tensor_dtype_to_np_dtype(code, storage_view=True) == view.dtype
            assert view.shape == real.shape and view.tobytes() == real.tobytes()
            assert np.array_equal(view.view(real.dtype), real, equal_nan=real.dtype.kind == "f")
            decoded = onnxdata.TensorProto.decode(tensor.encode())  # the raw_data fast path
            assert nh.to_array(decoded, storage_view=True).tobytes() == view.tobytes()
    # the types numpy has are the same either way
    floats = nh.from_array(np.arange(3, dtype=np.float16))
    assert nh.to_array(floats, storage_view=True).dtype == np.float16
    assert nh.tensor_dtype_to_np_dtype(10, storage_view=True) == np.float16


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
            "float16_back": nh.to_array(nh.from_array(np.zeros(2, np.float16))).dtype.name,
        }
        try:
            nh.np_dtype_to_tensor_dtype(np.dtype("V2"))
        except ValueError as exc:
            result["void"] = str(exc)
        # containers: their numpy-type elements read, a bfloat16 element is refused
        from onnxdata import SequenceProto, TensorProto
        bf16 = TensorProto(dims=[1], data_type=TensorProto.BFLOAT16, raw_data=b"\\x80\\x3f")
        seq = nh.from_list([np.zeros(2, np.float16)])
        result["list"] = [a.dtype.name for a in nh.to_list(seq)]
        for key, call in (
            ("list_bf16", lambda: nh.to_list(SequenceProto(elem_type=1, tensor_values=[bf16]))),
            ("optional_bf16", lambda: nh.to_optional(nh.from_optional(bf16))),
        ):
            try:
                call()
            except ImportError as exc:
                result[key] = type(exc).__name__
        print(json.dumps(result))
        """,
        "ml_dtypes",
    )
    assert out["uint16"] == 4 and out["float16"] == 10 and out["table_float"] == "float32"
    assert out["float16_back"] == "float16" and out["list"] == ["float16"]
    assert out["list_bf16"] == out["optional_bf16"] == "MissingMLDtypesError"
    assert "Unable to convert" in out["void"]


def test_old_ml_dtypes_without_the_newest_types() -> None:
    """An ml_dtypes lacking some types: those are refused one by one, naming the version."""
    out = run(
        """
        import json, types
        import ml_dtypes as real
        old = types.ModuleType("ml_dtypes")
        old.__version__ = "0.3.2"
        for name in ("bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                     "float8_e5m2fnuz", "int4", "uint4"):
            setattr(old, name, getattr(real, name))
        sys.modules["ml_dtypes"] = old
        from onnxdata import numpy_helper as nh
        table = {}
        for c in range(16, 29):
            try:
                table[c] = nh.tensor_dtype_to_np_dtype(c).name
            except ImportError as exc:
                table[c] = [type(exc).__name__, str(exc),
                            nh.tensor_dtype_to_np_dtype(c, storage_view=True).name]
        print(json.dumps([nh.HAVE_ML_DTYPES, table]))
        """
    )
    have, table = out
    assert have is False
    assert table["16"] == "bfloat16" and table["22"] == "int4"
    for code, ml_name in (("23", "float4_e2m1fn"), ("24", "float8_e8m0fnu"), ("26", "int2"),
                          ("27", "float6_e2m3fn")):  # fmt: skip
        kind, message, view = table[code]
        assert kind == "MissingMLDtypesError" and view == "uint8"
        assert f"the installed ml_dtypes 0.3.2 has no {ml_name}" in message


def test_the_numpy_extra_brings_ml_dtypes_with_onnxs_lower_bound() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extra = project["project"]["optional-dependencies"]["numpy"]
    onnx_requires = importlib.metadata.requires("onnx") or []
    onnx_ml = next(r for r in onnx_requires if r.startswith("ml_dtypes"))
    assert onnx_ml == "ml_dtypes>=0.5.4"  # onnx 1.23.2's
    assert sorted(extra) == sorted([NUMPY_REQUIREMENT, ML_DTYPES_REQUIREMENT])
    assert onnx_ml == ML_DTYPES_REQUIREMENT
    # the version installed here has every type
    assert nh.HAVE_ML_DTYPES and tuple(map(int, ml_dtypes.__version__.split(".")[:2])) >= (0, 5)


def _vendor(tmp_path: Path) -> Path:
    """A copy of onnxdata vendored as ``mypkg._vendor.onnxdata`` (docs/vendoring.md)."""
    target = tmp_path / "mypkg" / "_vendor" / "onnxdata"
    shutil.copytree(
        ROOT / "onnxdata", target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    (tmp_path / "mypkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "mypkg" / "_vendor" / "__init__.py").write_text("", encoding="utf-8")
    return tmp_path


def test_a_vendored_copy_without_numpy_is_told_to_install_numpy_and_ml_dtypes(
    tmp_path: Path,
) -> None:
    """A vendored copy is not the onnxdata distribution: ``pip install
    'onnxdata[numpy]'`` would install another copy, so it names the packages."""
    folder = _vendor(tmp_path)
    out = run(
        """
        import json
        import mypkg._vendor.onnxdata as od  # the core works without numpy
        result = {"core": sorted(m for m in ("numpy", "ml_dtypes") if sys.modules.get(m)),
                  "onnxdata": "onnxdata" in sys.modules}
        for module in ("numpy_helper", "helper"):
            try:
                __import__("mypkg._vendor.onnxdata." + module)
            except ImportError as exc:
                result[module] = [exc.name, str(exc)]
        print(json.dumps(result))
        """,
        "numpy",
        cwd=folder,
    )
    assert out["core"] == [] and out["onnxdata"] is False
    for module in ("numpy_helper", "helper"):
        name, message = out[module]
        assert name == "numpy"
        assert f"mypkg._vendor.onnxdata.{module} needs numpy" in message
        assert "pip install 'numpy>=1.23' 'ml_dtypes>=0.5.4'" in message
        assert "onnxdata[numpy]" not in message


def test_a_vendored_copy_without_ml_dtypes_names_ml_dtypes(tmp_path: Path) -> None:
    """Importing the bridge imports numpy at once (docs/vendoring.md says so),
    and a type that needs ml_dtypes names the package, not the extra."""
    folder = _vendor(tmp_path)
    out = run(
        """
        import json
        import mypkg._vendor.onnxdata as od
        before = bool(sys.modules.get("numpy"))
        from mypkg._vendor.onnxdata import numpy_helper as nh
        after = bool(sys.modules.get("numpy"))
        t = od.TensorProto(dims=[1], data_type=od.TensorProto.BFLOAT16, raw_data=b"\\x80\\x3f")
        try:
            nh.to_array(t)
        except ImportError as exc:
            message = str(exc)
        view = nh.to_array(t, storage_view=True).tolist()
        print(json.dumps([before, after, message, view]))
        """,
        "ml_dtypes",
        cwd=folder,
    )
    before, after, message, view = out
    assert (before, after) == (False, True)
    assert "pip install 'ml_dtypes>=0.5.4'" in message and "onnxdata[numpy]" not in message
    assert "vendored mypkg._vendor.onnxdata" in message
    assert view == [0x3F80]
