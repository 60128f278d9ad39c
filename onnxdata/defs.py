"""onnx's operator schemas, as ``onnx.defs`` gives them, without C++.

Every schema of onnx 1.23.2 (all domains, every version) is data in the package, generated
from onnx and checked against it by the tests; onnx's prose (``doc``, the descriptions) is not
copied (docs/compat.md).  The data load on the first lookup, not at import::

    from onnxdata import defs

    schema = defs.get_schema("Relu", 13)
    assert (schema.since_version, schema.min_input, schema.max_input) == (13, 1, 1)
    assert defs.has("LinearClassifier", domain=defs.ONNX_ML_DOMAIN)
    assert defs.onnx_opset_version() == 28

Lookups raise :class:`SchemaError` as onnx's do; custom operators are added with
:func:`register_schema` and removed with :func:`deregister_schema`, for the whole process.
"""

from __future__ import annotations

from ._defs import registry as _registry
from ._defs.opschema import OpSchema
from ._defs.registry import (
    deregister_schema,
    get_all_schemas,
    get_all_schemas_with_history,
    get_schema,
    has,
    register_schema,
    schema_version_map,
    set_domain_to_version,
)
from ._defs.schema_parts import SchemaError

ONNX_DOMAIN = ""
ONNX_ML_DOMAIN = "ai.onnx.ml"
AI_ONNX_PREVIEW_DOMAIN = "ai.onnx.preview"
AI_ONNX_PREVIEW_TRAINING_DOMAIN = "ai.onnx.preview.training"

# onnx's C++ names, which packages reach through ``onnx.defs`` (``C.has_schema``...)
has_schema = has


def onnx_opset_version() -> int:
    """The highest opset of the default domain ``ai.onnx``: 28 for onnx 1.23.2."""
    return _registry.schema_version_map()[ONNX_DOMAIN][1]


def onnx_ml_opset_version() -> int:
    """The highest opset of ``ai.onnx.ml``."""
    return _registry.schema_version_map()[ONNX_ML_DOMAIN][1]


def get_function_ops() -> list[OpSchema]:
    """The latest schemas whose operator is defined as a function (plain or context-dependent)."""
    return [
        schema
        for schema in get_all_schemas()
        if schema.has_function or schema.has_context_dependent_function
    ]


__all__ = [
    "AI_ONNX_PREVIEW_DOMAIN",
    "AI_ONNX_PREVIEW_TRAINING_DOMAIN",
    "ONNX_DOMAIN",
    "ONNX_ML_DOMAIN",
    "OpSchema",
    "SchemaError",
    "deregister_schema",
    "get_all_schemas",
    "get_all_schemas_with_history",
    "get_function_ops",
    "get_schema",
    "has",
    "has_schema",
    "onnx_ml_opset_version",
    "onnx_opset_version",
    "register_schema",
    "schema_version_map",
    "set_domain_to_version",
]
