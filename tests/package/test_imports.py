"""``import onnxdata`` (and a full encode/decode) loads only the standard library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnxdata

_PROBE = r"""
import json, sys
before = set(sys.modules)
import onnxdata
m = onnxdata.SequenceProto(tensor_values=[onnxdata.TensorProto(dims=[1], float_data=[1.0])])
assert onnxdata.SequenceProto.decode(m.encode()) == m
try:
    onnxdata.TensorProto.decode(b"\x80")
except onnxdata.DecodeError:
    pass
loaded = sorted(set(sys.modules) - before)
files = {name: getattr(sys.modules[name], "__file__", None) for name in loaded}
print(json.dumps({"loaded": loaded, "files": files, "stdlib": sorted(sys.stdlib_module_names)}))
"""


def test_import_loads_only_the_standard_library() -> None:
    package_root = Path(onnxdata.__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(package_root)!r})\n"
         + _PROBE],
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip
    report = json.loads(result.stdout)
    stdlib = set(report["stdlib"])
    foreign = [
        name
        for name in report["loaded"]
        if name.split(".")[0] not in stdlib and name.split(".")[0] != "onnxdata"
    ]
    assert foreign == [], foreign
    for banned in ("numpy", "google", "onnx", "google.protobuf"):
        assert banned not in report["loaded"]
    # every onnxdata module loaded is a file of this package
    for name, file in report["files"].items():
        if name.split(".")[0] == "onnxdata":
            assert file is not None and Path(file).resolve().is_relative_to(package_root)
