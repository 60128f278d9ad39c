"""``onnx.version``: the package's version, for code that still reads it from here.

onnx keeps this module for older code and warns that it is deprecated; so does
this one, with the same warning, so that code behaves (and is warned) the same.
"""

from __future__ import annotations

import warnings

from . import __version__ as version

warnings.warn(
    "onnxdata.version is deprecated. Use onnxdata.__version__ instead.",
    DeprecationWarning,
    stacklevel=2,
)

git_version = ""

__all__ = ["git_version", "version"]
