"""``install_as_onnx``: ``import onnx`` resolves to onnxdata, and uninstalling restores all.

In a fresh interpreter where onnx and protobuf cannot be imported (a finder at the head of
``sys.meta_path`` refuses them, as if uninstalled), every way packages reach onnx resolves
to onnxdata's own modules, a module onnxdata lacks fails as Python's own
``ModuleNotFoundError`` and a name as ``AttributeError``, and uninstalling leaves
``sys.modules`` and ``sys.meta_path`` exactly as they were.  Here, where onnx is
installed, the call does nothing unless forced; forced, it sets onnx's modules aside and
puts them back.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from typing import Any

import onnx
import pytest

import onnxdata
from onnxdata import shim
from tests.support.paths import ROOT

HIDDEN = r'''
import importlib, importlib.util, json, sys

class Hidden:
    """onnx and protobuf are not installed."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("onnx", "google"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Hidden())
import onnxdata, onnxdata.helper, onnxdata.numpy_helper, onnxdata.checker, onnxdata.shim
import onnxdata.external_data_helper, onnxdata.serialization, onnxdata.onnx_ml_pb2
import onnxdata.onnx_pb, onnxdata.onnx_data_pb2
onnxdata.load  # imported before the snapshot: onnxdata's own modules stay imported
if importlib.util.find_spec("onnxdata.defs") is not None:
    import onnxdata.defs
out = {}
helper_spec = onnxdata.helper.__spec__
modules, meta_path = dict(sys.modules), list(sys.meta_path)

def fails(statement):
    try:
        exec(statement, {})
    except ModuleNotFoundError as exc:
        return ["ModuleNotFoundError", exc.name]
    except ImportError as exc:
        return ["ImportError", exc.name]
    except AttributeError as exc:
        return ["AttributeError", str(exc)]
    return None

out["installed"] = onnxdata.install_as_onnx()
out["again"] = onnxdata.install_as_onnx()
out["finders"] = sum(type(f).__name__ == "_Finder" for f in sys.meta_path)
import onnx
import onnx.helper
from onnx import checker, external_data_helper, helper, numpy_helper, serialization
from onnx import onnx_ml_pb2, onnx_pb
from onnx.onnx_cpp2py_export.checker import ValidationError
from onnx.onnx_cpp2py_export.shape_inference import InferenceError
from onnx.shape_inference import infer_shapes
import onnx.onnx_cpp2py_export.shape_inference
out["same"] = {
    "helper": sys.modules["onnx.helper"] is onnxdata.helper and helper is onnxdata.helper,
    "attribute": onnx.helper is onnxdata.helper and onnx.numpy_helper is onnxdata.numpy_helper,
    "numpy_helper": importlib.import_module("onnx.numpy_helper") is onnxdata.numpy_helper,
    "checker": checker is onnxdata.checker,
    "external_data_helper": external_data_helper is onnxdata.external_data_helper,
    "serialization": serialization is onnxdata.serialization,
    "pb": onnx_ml_pb2 is onnxdata.onnx_ml_pb2 and onnx_pb is onnxdata.onnx_pb,
    "messages": onnx.TensorProto is onnxdata.TensorProto and onnx.load is onnxdata.load,
    "ValidationError": ValidationError is onnxdata.checker.ValidationError,
    "InferenceError": InferenceError is onnxdata.shim.InferenceError,
    "cpp attribute": onnx.onnx_cpp2py_export.shape_inference.InferenceError is InferenceError,
    "spec kept": onnxdata.helper.__spec__ is helper_spec,
}
import onnx.onnx_cpp2py_export.checker as C
out["cpp checker"] = sorted(n for n in dir(C) if not n.startswith("__"))
out["version"] = onnx.__version__
out["ONNX_ML"] = onnx.onnx_cpp2py_export.ONNX_ML
try:  # an operator whose inference onnxdata does not have yet
    infer_shapes(onnx.helper.make_model(onnx.helper.make_graph(
        [onnx.helper.make_node("Conv", ["x", "w"], ["y"])], "g", [], []
    ), opset_imports=[onnx.helper.make_opsetid("", 13)]))
except InferenceError as exc:
    out["infer_shapes"] = [type(exc).__name__, isinstance(exc, NotImplementedError)]
from onnx._mapping import TENSOR_TYPE_MAP
out["mapping"] = {k: [str(v.np_dtype), v.storage_dtype, v.name] for k, v in TENSOR_TYPE_MAP.items()}
out["model"] = onnx.helper.make_model(
    onnx.helper.make_graph([onnx.helper.make_node("Relu", ["x"], ["y"])], "g", [], [])
).graph.node[0].op_type
out["defs"] = fails("import onnx.defs") or (sys.modules["onnx.defs"] is onnxdata.defs)
if out["defs"] is True:
    import onnx.onnx_cpp2py_export.defs as C
    out["cpp defs"] = {
        name: getattr(C, name) is getattr(onnxdata.defs, name)
        for name in dir(C) if not name.startswith("__")
    }
    out["opset"] = onnx.defs.onnx_opset_version()
out["fails"] = {
    statement: fails(statement)
    for statement in [
        "import onnx.reference", "import onnx.no_such_module", "import onnx.helper.inner",
        "from onnx import reference", "import onnx; onnx.reference", "import onnx; onnx.no_such",
        "from onnx import no_such", "import onnx.onnx_cpp2py_export.parser",
        "import onnx.onnx_cpp2py_export.checker as C; C.no_such_check",
        "import onnx.onnx_cpp2py_export.shape_inference as C; C.GraphInferencer",
    ]
}
onnxdata.uninstall_as_onnx()
onnxdata.uninstall_as_onnx()  # a second call does nothing
# every module as it was; added only onnxdata's own modules that the imports loaded
out["restored"] = {
    "modules": all(sys.modules.get(k) is v for k, v in modules.items()),
    "added": sorted(k for k in set(sys.modules) - set(modules) if not k.startswith("onnxdata.")),
    "meta_path": sys.meta_path == meta_path,
    "import onnx": fails("import onnx"),
}
with onnxdata.installed_as_onnx() as done:
    import onnx.helper
    out["with"] = [done, sys.modules["onnx.helper"] is onnxdata.helper]
out["with restored"] = (
    all(sys.modules.get(k) is v for k, v in modules.items())
    and not [k for k in sys.modules if k == "onnx" or k.startswith("onnx.")]
    and sys.meta_path == meta_path
)
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def hidden() -> Any:
    """What the script reports, run in a fresh interpreter without onnx."""
    done = subprocess.run(
        [sys.executable, "-c", HIDDEN], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_modules_onnx_has_are_listed() -> None:
    assert {m.name for m in pkgutil.iter_modules(onnx.__path__)} == shim.ONNX_MODULES


def test_every_name_resolves_to_onnxdata(hidden: Any) -> None:
    assert hidden["installed"] is True and hidden["again"] is True and hidden["finders"] == 1
    assert hidden["same"] == dict.fromkeys(hidden["same"], True)
    assert hidden["version"] == onnx.__version__ == shim.ONNX_VERSION
    assert hidden["ONNX_ML"] == onnx.onnx_cpp2py_export.ONNX_ML
    assert hidden["model"] == "Relu"


def test_onnxs_cpp_checker_names_are_onnxdata_checkers(hidden: Any) -> None:
    import onnx.onnx_cpp2py_export.checker as C  # noqa: N812 - onnx's own name for it

    namespace = getattr(onnxdata.checker, "C", onnxdata.checker)
    theirs = [n for n in dir(C) if not n.startswith("_")]
    had = [n for n in theirs if hasattr(namespace, n) or hasattr(onnxdata.checker, n)]
    assert hidden["cpp checker"] == sorted(had)
    assert {"ValidationError"} <= set(had)


def test_shape_inference_raises_an_inference_error(hidden: Any) -> None:
    assert hidden["infer_shapes"] == ["ShapeInferenceUnavailableError", True]


def test_onnx_mapping_is_onnxs_table(hidden: Any) -> None:
    from onnx._mapping import TENSOR_TYPE_MAP

    theirs = {
        str(k): [str(v.np_dtype), v.storage_dtype, v.name] for k, v in TENSOR_TYPE_MAP.items()
    }
    assert hidden["mapping"] == theirs


def test_onnx_defs_is_onnxdata_defs_once_it_exists(hidden: Any) -> None:
    has_defs = (ROOT / "onnxdata" / "defs.py").exists() or (ROOT / "onnxdata" / "defs").exists()
    assert hidden["defs"] == (True if has_defs else ["ModuleNotFoundError", "onnx.defs"])


def test_onnxs_cpp_defs_names_are_onnxdata_defs(hidden: Any) -> None:
    if hidden["defs"] is not True:
        pytest.skip("onnxdata.defs is not in this checkout")
    import onnx.onnx_cpp2py_export.defs as C  # noqa: N812 - onnx's own name for it

    assert hidden["cpp defs"] == {n: True for n in dir(C) if not n.startswith("__")}
    assert hidden["opset"] == onnx.defs.onnx_opset_version()


def test_what_onnxdata_lacks_fails_as_python_fails(hidden: Any) -> None:
    no_attribute = "module 'onnx' has no attribute"
    assert hidden["fails"] == {
        "import onnx.reference": ["ModuleNotFoundError", "onnx.reference"],
        "import onnx.no_such_module": ["ModuleNotFoundError", "onnx.no_such_module"],
        "import onnx.helper.inner": ["ModuleNotFoundError", "onnx.helper.inner"],
        "from onnx import reference": ["ImportError", "onnx"],  # Python's "cannot import name"
        "import onnx; onnx.reference": [
            "AttributeError",
            f"{no_attribute} 'reference' (onnxdata does not provide it)",
        ],
        "import onnx; onnx.no_such": ["AttributeError", f"{no_attribute} 'no_such'"],
        "from onnx import no_such": ["ImportError", "onnx"],
        "import onnx.onnx_cpp2py_export.parser": [
            "ModuleNotFoundError",
            "onnx.onnx_cpp2py_export.parser",
        ],
        "import onnx.onnx_cpp2py_export.checker as C; C.no_such_check": [
            "AttributeError",
            "module 'onnx.onnx_cpp2py_export.checker' has no attribute 'no_such_check'",
        ],
        "import onnx.onnx_cpp2py_export.shape_inference as C; C.GraphInferencer": [
            "AttributeError",
            "module 'onnx.onnx_cpp2py_export.shape_inference' has no attribute 'GraphInferencer'",
        ],
    }


def test_uninstalling_restores_sys_modules_and_meta_path(hidden: Any) -> None:
    assert hidden["restored"] == {
        "modules": True,
        "added": [],
        "meta_path": True,
        "import onnx": ["ModuleNotFoundError", "onnx"],
    }
    assert hidden["with"] == [True, True] and hidden["with restored"] is True


def _onnx_state() -> tuple[dict[str, Any], list[Any]]:
    named = {k: v for k, v in sys.modules.items() if k == "onnx" or k.startswith("onnx.")}
    return named, list(sys.meta_path)


def test_with_onnx_installed_it_does_nothing() -> None:
    before = _onnx_state()
    assert onnxdata.install_as_onnx() is False
    with onnxdata.installed_as_onnx() as done:
        assert done is False and sys.modules["onnx"] is onnx
    assert _onnx_state() == before


def test_forced_it_sets_onnx_aside_and_puts_it_back() -> None:
    import onnx.helper  # the real one, imported before

    real_helper = onnx.helper
    before = _onnx_state()
    try:
        assert onnxdata.install_as_onnx(force=True) is True
        import onnx as forced
        import onnx.helper as forced_helper

        assert forced is not onnx and forced.TensorProto is onnxdata.TensorProto
        assert forced_helper is onnxdata.helper and sys.modules["onnx.helper"] is onnxdata.helper
        assert "onnx.numpy_helper" not in sys.modules or (
            sys.modules["onnx.numpy_helper"] is not onnx.numpy_helper
        )
    finally:
        onnxdata.uninstall_as_onnx()
    assert _onnx_state() == before and sys.modules["onnx.helper"] is real_helper
