"""What to install when the numpy bridge lacks a package: the one place that says it.

This module imports nothing beyond the standard library, so ``numpy_helper``
and ``helper`` can name what is missing before they import numpy.  A copy
vendored into another package (``yourpkg/_vendor/onnxdata``, docs/vendoring.md)
is not installed as ``onnxdata``, so ``pip install 'onnxdata[numpy]'`` would
install a second, unrelated copy: it is told to install numpy and ml_dtypes
themselves instead.
"""

from __future__ import annotations

__all__ = ["ML_DTYPES_REQUIREMENT", "NUMPY_REQUIREMENT", "MissingMLDtypesError", "install_hint"]

NUMPY_REQUIREMENT = "numpy>=1.23"
ML_DTYPES_REQUIREMENT = "ml_dtypes>=0.5.4"
"""The lower bounds of the ``numpy`` extra (ml_dtypes': onnx 1.23.2's requirement)."""

# This module is <package>._numpy.missing: <package> is "onnxdata" when installed.
PACKAGE = __name__.rpartition("._numpy.")[0]


def install_hint(*requirements: str) -> str:
    """``pip install ...`` for the numpy extra, or for ``requirements`` in a vendored copy."""
    if PACKAGE == "onnxdata":
        return "pip install 'onnxdata[numpy]'"
    wanted = " ".join(f"'{r}'" for r in requirements)
    return f"pip install {wanted} (the numpy bridge of the vendored {PACKAGE} needs them)"


class MissingMLDtypesError(ImportError):
    """A data type numpy lacks was asked for as its dtype, and ``ml_dtypes``
    (or a version that has the type) is not installed.

    onnx always returns the ``ml_dtypes`` dtype (``bfloat16``, ``float8_e4m3fn``,
    ``int4``...); an unsigned integer array in its place would compute
    differently (``astype`` an integer cast), so it is never given silently.
    ``storage_view=True`` asks for the unsigned bits on purpose.  ``name`` is
    ``"ml_dtypes"``, as ``ImportError`` names the missing module.
    """

    def __init__(self, type_name: str, ml_name: str, storage: str, installed: str | None) -> None:
        if installed is None:
            why = "ml_dtypes is not installed"
        else:
            why = f"the installed ml_dtypes {installed} has no {ml_name}"
        super().__init__(
            f"TensorProto.{type_name} is ml_dtypes.{ml_name} in numpy, and {why}: "
            f"{install_hint(ML_DTYPES_REQUIREMENT)}; or pass storage_view=True to get "
            f"its bits as {storage}",
            name="ml_dtypes",
        )
