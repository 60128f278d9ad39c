"""Run packages written for onnx on onnxdata: ``import onnx`` resolves to onnxdata.

In the manner of PyMySQL's ``install_as_MySQLdb()``, one call makes every later
``import onnx``, ``import onnx.helper``, ``from onnx import numpy_helper``,
``importlib.import_module("onnx.defs")`` and the names packages take from onnx's C++
module (``onnx.onnx_cpp2py_export.defs.SchemaError``, ``...checker.ValidationError``,
``...shape_inference.InferenceError``) resolve to onnxdata's modules::

    import onnxdata
    onnxdata.install_as_onnx()      # does nothing if the real onnx is installed
    import onnx.helper              # onnxdata.helper itself
    onnxdata.uninstall_as_onnx()    # sys.modules and sys.meta_path as they were

It is done by a finder at the head of ``sys.meta_path`` that owns the ``onnx`` name:
``onnx.X`` is onnxdata's module ``onnxdata.X`` itself (``sys.modules["onnx.helper"] is
onnxdata.helper``) for each module onnx 1.23.2 has and onnxdata provides; any other
``onnx.X`` raises Python's own ``ModuleNotFoundError``, and a name onnxdata lacks
``AttributeError``.  The module ``onnx`` itself is a thin module of its own that reads
every name from onnxdata, except ``__version__``: it is the version of onnx whose API
onnxdata follows, which packages compare against.  A few modules are made by the finder,
from onnxdata's: ``onnx.onnx_cpp2py_export`` and its ``defs``, ``checker``,
``shape_inference`` and ``inliner``, and ``onnx._mapping`` (onnx's private data-type table,
which packages import).  ``onnx.shape_inference`` is ``onnxdata.shape_inference``, whose
functions raise :class:`ShapeInferenceUnavailableError` where onnxdata cannot yet infer a
model as onnx does.

The finder is installed only when no other ``onnx`` can be imported (unless
``force=True``), and uninstalling restores ``sys.modules`` (every ``onnx`` entry) and
``sys.meta_path`` exactly: the library changes no process-wide state it does not restore.
Nothing here is imported by ``import onnxdata``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ._infer.failures import InferenceError, ShapeInferenceUnavailableError

__all__ = [
    "ONNX_VERSION",
    "InferenceError",
    "ShapeInferenceUnavailableError",
    "install_as_onnx",
    "installed_as_onnx",
    "uninstall_as_onnx",
]

ONNX_VERSION = "1.23.2"
"""What ``onnx.__version__`` reads once installed: the onnx whose API onnxdata follows."""

ONNX = "onnx"
# The package itself: "onnxdata", or its place when vendored (yourpkg._vendor.onnxdata).
PACKAGE = __name__.rpartition(".")[0]

# onnx 1.23.2's own submodules (tests/package/test_shim.py compares with onnx's).  An
# ``onnx.X`` outside this list fails as it does with onnx; one in it resolves to
# ``onnxdata.X`` when onnxdata has that module, else fails the same way.
ONNX_MODULES = frozenset(
    {"_mapping", "backend", "bin", "checker", "compose", "defs", "external_data_helper",
     "frontend", "gen_proto", "helper", "inliner", "model_container", "numpy_helper",
     "onnx_cpp2py_export", "onnx_data_pb", "onnx_data_pb2", "onnx_ml_pb2",
     "onnx_operators_ml_pb2", "onnx_operators_pb", "onnx_pb", "parser", "printer",
     "reference", "serialization", "shape_inference", "tools", "utils", "version",
     "version_converter"}
)  # fmt: skip

# The names of onnx's C++ modules, and the onnxdata module each is read from (from its
# ``C`` namespace when it has one, as onnxdata.checker's C holds the checks taking bytes):
# a name the onnxdata module lacks is an AttributeError, as with an older onnx.
_CPP_MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "defs": (
        "defs",
        ("OpSchema", "SchemaError", "deregister_schema", "get_all_schemas",
         "get_all_schemas_with_history", "get_schema", "has_schema", "register_schema",
         "schema_version_map", "set_domain_to_version"),
    ),
    "checker": (
        "checker",
        ("CheckerContext", "LexicalScopeContext", "ValidationError", "check_attribute",
         "check_function", "check_graph", "check_model", "check_model_path", "check_node",
         "check_sparse_tensor", "check_tensor", "check_value_info"),
    ),
    "shape_inference": (
        "shape_inference",
        ("InferenceError", "infer_function_output_types", "infer_shapes", "infer_shapes_path"),
    ),
    "inliner": (
        "inliner",
        ("inline_local_functions", "inline_selected_functions", "inline_selected_functions2"),
    ),
}  # fmt: skip


def _not_found(name: str, why: str = "") -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named {name!r}{why}", name=name)


def _onnxdata_spec(name: str, fullname: str) -> importlib.machinery.ModuleSpec:
    """The spec of ``onnxdata.<name>``, or ``ModuleNotFoundError`` naming ``fullname``."""
    try:
        found = importlib.util.find_spec(f"{PACKAGE}.{name}")
    except ModuleNotFoundError:
        found = None
    if found is None:
        raise _not_found(fullname, " (onnxdata does not provide it; see docs/compat.md)")
    return found


def _onnxdata_module(name: str, fullname: str) -> types.ModuleType:
    """``onnxdata.<name>``, or ``ModuleNotFoundError`` naming ``fullname``."""
    _onnxdata_spec(name, fullname)
    return importlib.import_module(f"{PACKAGE}.{name}")


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(f"{PACKAGE}.{name}") is not None
    except ModuleNotFoundError:
        return False


class _OnnxModule(types.ModuleType):
    """The module ``onnx``: every name read from onnxdata, submodules imported on first use."""

    def __getattr__(self, name: str) -> Any:
        if name in ONNX_MODULES:
            try:
                return importlib.import_module(f"{ONNX}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{ONNX}.{name}":
                    raise  # a dependency of the module (numpy) is missing: say which
                raise AttributeError(
                    f"module 'onnx' has no attribute {name!r} (onnxdata does not provide it)"
                ) from None
        try:
            return getattr(importlib.import_module(PACKAGE), name)
        except AttributeError:
            raise AttributeError(f"module 'onnx' has no attribute {name!r}") from None

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *dir(importlib.import_module(PACKAGE))})


_CPP_PREFIX = f"{ONNX}.onnx_cpp2py_export."
_PACKAGES = frozenset({ONNX, f"{ONNX}.onnx_cpp2py_export"})  # the packages the finder makes
_MADE = frozenset({f"{ONNX}._mapping"})  # and the other modules it always makes


def _made(fullname: str) -> types.ModuleType | None:
    """The module the finder makes for ``fullname``, or None when it is onnxdata's own."""
    if fullname == ONNX:
        module: types.ModuleType = _OnnxModule(ONNX, "onnx's API, read from onnxdata")
        module.__version__ = ONNX_VERSION  # type: ignore[attr-defined]
        return module
    if fullname == f"{ONNX}.onnx_cpp2py_export":
        module = types.ModuleType(fullname, "onnx's C++ names, read from onnxdata")
        module.ONNX_ML = True  # type: ignore[attr-defined]
        return module
    if fullname == f"{ONNX}._mapping":
        return _mapping_module(fullname)
    if fullname.startswith(_CPP_PREFIX):
        return _cpp_module(fullname, fullname[len(_CPP_PREFIX) :])
    return None


def _cpp_module(fullname: str, name: str) -> types.ModuleType:
    """``onnx.onnx_cpp2py_export.<name>``: onnx's C++ names, taken from onnxdata's module."""
    if name not in _CPP_MODULES:
        raise _not_found(fullname, " (onnxdata does not provide it; see docs/compat.md)")
    source_name, names = _CPP_MODULES[name]
    source = _onnxdata_module(source_name, fullname)
    module = types.ModuleType(fullname, f"onnx's C++ {name} names, read from {source.__name__}")
    namespace = getattr(source, "C", source)  # onnxdata.checker.C: the checks on bytes
    for attr in names:
        for holder in (namespace, source):
            if hasattr(holder, attr):
                setattr(module, attr, getattr(holder, attr))
                break
    if name == "defs" and hasattr(source, "has"):
        module.has_schema = getattr(source, "has_schema", source.has)  # type: ignore[attr-defined]
    return module


def _mapping_module(fullname: str) -> types.ModuleType:
    """``onnx._mapping``: onnx's private table of data types, which packages import
    (onnxslim), made from ``onnxdata.helper``'s (numpy; ml_dtypes as onnx's needs)."""
    from typing import NamedTuple

    import numpy as np

    from . import helper

    class TensorDtypeMap(NamedTuple):
        np_dtype: np.dtype[Any]
        storage_dtype: int
        name: str

    TensorDtypeMap.__module__ = fullname
    module = types.ModuleType(fullname, "onnx's data-type table, made from onnxdata.helper")
    module.TensorDtypeMap = TensorDtypeMap  # type: ignore[attr-defined]
    module.TENSOR_TYPE_MAP = {  # type: ignore[attr-defined]
        int(t): TensorDtypeMap(
            helper.tensor_dtype_to_np_dtype(t),
            helper.tensor_dtype_to_storage_tensor_dtype(t),
            helper.tensor_dtype_to_string(t),
        )
        for t in helper.get_all_tensor_dtypes()
    }
    return module


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Owns every name under ``onnx``: finds, makes or aliases each, or refuses it."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != ONNX and not fullname.startswith(f"{ONNX}."):
            return None
        if fullname in _PACKAGES or fullname in _MADE or fullname.startswith(_CPP_PREFIX):
            package = fullname in _PACKAGES
        else:
            if fullname.split(".")[1] not in ONNX_MODULES:
                raise _not_found(fullname)
            # onnxdata's own module: a package exactly when it is one
            found = _onnxdata_spec(fullname[len(ONNX) + 1 :], fullname)
            package = found.submodule_search_locations is not None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=package)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        made = _made(spec.name)
        if made is not None:
            return made
        module = _onnxdata_module(spec.name[len(ONNX) + 1 :], spec.name)
        # The import system is about to set ``__spec__`` of the module it is given:
        # exec_module puts onnxdata's own back, so its module is left as it was.
        _ORIGINAL_SPECS[spec.name] = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        fullname = module.__spec__.name if module.__spec__ is not None else ""
        if fullname in _ORIGINAL_SPECS:
            module.__spec__ = _ORIGINAL_SPECS.pop(fullname)

    def invalidate_caches(self) -> None:
        """Nothing is cached: onnxdata's modules are looked up on each import."""


_ORIGINAL_SPECS: dict[str, importlib.machinery.ModuleSpec | None] = {}
_LOCK = threading.RLock()
_installed: _Finder | None = None
_saved: dict[str, types.ModuleType] = {}  # the ``onnx`` modules set aside by force=True


def _onnx_names() -> list[str]:
    return [n for n in list(sys.modules) if n == ONNX or n.startswith(f"{ONNX}.")]


def _other_onnx() -> bool:
    """Whether an ``onnx`` other than onnxdata can be imported (the real package)."""
    module = sys.modules.get(ONNX)
    if module is not None:
        return True
    try:
        spec = importlib.util.find_spec(ONNX)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    here = Path(__file__).resolve().parent
    origin = spec.origin or ""
    # a stand-in package named onnx that lives inside onnxdata is onnxdata, not onnx
    return not (origin and Path(origin).resolve().is_relative_to(here))


def install_as_onnx(force: bool = False) -> bool:
    """Make ``import onnx`` (and its submodules) resolve to onnxdata, for packages written
    for onnx.  Does nothing, and returns False, when the real onnx can be imported (or
    is imported), unless ``force=True``, which sets the imported ``onnx`` modules aside
    until :func:`uninstall_as_onnx`.  Calling it again while installed does nothing
    and returns True.

    What resolves and what does not: the module docstring and docs/compat.md.  Call it
    before the packages are imported (a ``sitecustomize.py`` or an entry point).

    Raises:
        Nothing: onnxdata's modules are imported when ``onnx``'s are, and raise then
        (``ModuleNotFoundError`` for a module onnxdata lacks).
    """
    global _installed
    with _LOCK:
        if _installed is not None:
            return True
        if not force and _other_onnx():
            return False
        for name in _onnx_names():
            _saved[name] = sys.modules.pop(name)
        _installed = _Finder()
        sys.meta_path.insert(0, _installed)
        return True


def uninstall_as_onnx() -> None:
    """Undo :func:`install_as_onnx`: the finder leaves ``sys.meta_path``, every
    ``onnx`` module it made or aliased leaves ``sys.modules``, and the ``onnx`` modules
    that ``force=True`` set aside come back.  onnxdata's own modules, once imported,
    stay imported, as after any import.  Does nothing when not installed.

    Raises:
        Nothing.
    """
    global _installed
    with _LOCK:
        if _installed is None:
            return
        with contextlib.suppress(ValueError):  # someone else removed it: nothing to do
            sys.meta_path.remove(_installed)
        _installed = None
        for name in _onnx_names():
            del sys.modules[name]
        sys.modules.update(_saved)
        _saved.clear()
        _ORIGINAL_SPECS.clear()


@contextlib.contextmanager
def installed_as_onnx(force: bool = False) -> Iterator[bool]:
    """:func:`install_as_onnx` for the ``with`` block, and restored after it: yields what
    ``install_as_onnx`` returned; uninstalls at the end only what it installed itself.

    Raises:
        Nothing of its own; whatever the block raises.
    """
    was = _installed is not None
    done = install_as_onnx(force)
    try:
        yield done
    finally:
        if done and not was:
            uninstall_as_onnx()
