"""onnxdata: ONNX's messages in pure Python, byte-identical to protobuf.

Every message of ``onnx-ml.proto`` as a dataclass (``TensorProto``,
``ModelProto``, ``GraphProto``...), with an encoder and a decoder that need
no protobuf runtime.  Only the standard library is imported.  The model
messages are defined on first use, so that a program that reads only data
files does not pay for them.
"""

from __future__ import annotations

from ._core.errors import (
    DecodeError,
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    EncodeValueError,
    MappedFileError,
)
from ._messages import versions as _versions
from ._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from ._messages.versions import *  # noqa: F403 - onnx-ml.proto's top-level enums and constants

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ._io.entry import load, save
    from ._io.model_io import load_from_string, load_model, load_model_from_string, save_model
    from ._io.sequences import SequenceWriter, iter_sequence
    from ._io.tensor_io import load_tensor, load_tensor_from_string, save_tensor
    from ._messages.devices import (
        DeviceConfigurationProto,
        IntIntListEntryProto,
        NodeDeviceConfigurationProto,
        ShardedDimProto,
        ShardingSpecProto,
        SimpleShardedDimProto,
    )
    from ._messages.graphs import (
        AttributeProto,
        FunctionProto,
        GraphProto,
        ModelProto,
        NodeProto,
        OperatorSetIdProto,
        TensorAnnotation,
        TrainingInfoProto,
        ValueInfoProto,
    )
    from ._messages.types import TensorShapeProto, TypeProto
    from ._tools.check import Violation, check
    from .shim import install_as_onnx, installed_as_onnx, uninstall_as_onnx

__version__ = "0.1.0"

# Imported on first use: they need the decoder and the encoder, or the validator
# and its rules, which ``import onnxdata`` alone does not load (see test_imports).
_LAZY = {
    "check": "._tools.check",
    "Violation": "._tools.check",
    "load": "._io.entry",
    "save": "._io.entry",
    "load_from_string": "._io.model_io",
    "load_model": "._io.model_io",
    "load_model_from_string": "._io.model_io",
    "save_model": "._io.model_io",
    "SequenceWriter": "._io.sequences",
    "iter_sequence": "._io.sequences",
    "load_tensor": "._io.tensor_io",
    "load_tensor_from_string": "._io.tensor_io",
    "save_tensor": "._io.tensor_io",
    "install_as_onnx": ".shim",
    "uninstall_as_onnx": ".shim",
    "installed_as_onnx": ".shim",
    **dict.fromkeys(
        ["AttributeProto", "FunctionProto", "GraphProto", "ModelProto", "NodeProto",
         "OperatorSetIdProto", "TensorAnnotation", "TrainingInfoProto", "ValueInfoProto"],
        "._messages.graphs",
    ),
    "TensorShapeProto": "._messages.types",
    "TypeProto": "._messages.types",
    **dict.fromkeys(
        ["DeviceConfigurationProto", "IntIntListEntryProto", "NodeDeviceConfigurationProto",
         "ShardedDimProto", "ShardingSpecProto", "SimpleShardedDimProto"],
        "._messages.devices",
    ),
}  # fmt: skip


# The modules that stand in for onnx's of the same names, imported on first use,
# so that ``onnxdata.checker.check_tensor`` works after ``import onnxdata`` as
# ``onnx.checker.check_tensor`` does after ``import onnx``.
_SUBMODULES = frozenset(
    {"checker", "defs", "external_data_helper", "helper", "json_format", "numpy_helper",
     "onnx_data_pb", "onnx_data_pb2", "onnx_ml_pb2", "onnx_pb", "parser", "printer",
     "serialization", "text_format", "version"}
)  # fmt: skip


def __getattr__(name: str) -> Any:
    """A name of ``_LAZY`` or a module of ``_SUBMODULES``, imported on first use.

    The submodules must wait: ``numpy_helper`` needs numpy, which ``import
    onnxdata`` does not.  The names need not, but importing them with the
    package (the loaders, the validator, the model messages) would cost 11 ms
    more than the 4.0 ms ``import onnxdata`` takes (15 ms more with the code
    cache cold), and 9 ms more on a program that decodes a data message
    (CPython 3.11, CPU time, best of 12 fresh processes).

    Raises:
        AttributeError: no such name.
        ModuleNotFoundError: a submodule's dependency (numpy) is missing.
    """
    from importlib import import_module

    if name in _SUBMODULES:
        try:
            return import_module(f".{name}", __name__)  # sets the attribute itself
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise  # a dependency (numpy) is missing: say which
            raise AttributeError(f"module 'onnxdata' has no attribute {name!r}") from None
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'onnxdata' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AttributeProto",
    "DecodeError",
    "DeviceConfigurationProto",
    "EncodeError",
    "EncodeOverflowError",
    "EncodeTypeError",
    "EncodeValueError",
    "FunctionProto",
    "GraphProto",
    "IntIntListEntryProto",
    "MapProto",
    "MappedFileError",
    "Message",
    "ModelProto",
    "NodeDeviceConfigurationProto",
    "NodeProto",
    "OperatorSetIdProto",
    "OptionalProto",
    "SequenceProto",
    "SequenceWriter",
    "ShardedDimProto",
    "ShardingSpecProto",
    "SimpleShardedDimProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorAnnotation",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    "Violation",
    "__version__",
    "check",
    "install_as_onnx",
    "installed_as_onnx",
    "iter_sequence",
    "load",
    "load_from_string",
    "load_model",
    "load_model_from_string",
    "load_tensor",
    "load_tensor_from_string",
    "save",
    "save_model",
    "save_tensor",
    "uninstall_as_onnx",
    *_versions.__all__,
]
