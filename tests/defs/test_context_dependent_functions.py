"""Context-dependent function bodies: onnx's, for the node contexts the catalog keeps.

onnx builds these bodies with C++ code from a node's attributes and its inputs' types; the
catalog keeps what onnx builds for a node with no attributes and no input types (b"" where
onnx declines such a node).  For such nodes every answer equals onnx's, whatever the node's
inputs, outputs and name; for a node that has attributes or input types onnxdata says it
cannot build the body (NotImplementedError) rather than answer wrongly (docs/compat.md).
"""

from __future__ import annotations

from typing import Any

import onnx
import onnx.defs
import pytest

import onnxdata.defs as defs
from tests.support.defs_generate import strip_function_prose

CONTEXTUAL = [
    (s.domain, s.name, s.since_version)
    for s in onnx.defs.get_all_schemas_with_history()
    if s.has_context_dependent_function
]


def _nodes(schema: Any) -> dict[str, bytes]:
    """Nodes of the schema's operator naming some of its inputs and outputs, no attributes."""
    n_in, n_out = len(schema.inputs), len(schema.outputs)

    def node(ins: list[int], outs: list[int], **kw: Any) -> bytes:
        return onnx.helper.make_node(
            schema.name,
            [f"in{k}" if k in ins else "" for k in range(max(ins, default=-1) + 1)],
            [f"out{k}" if k in outs else "" for k in range(max(outs, default=-1) + 1)],
            domain=schema.domain,
            **kw,
        ).SerializeToString()

    every_in, every_out = list(range(n_in)), list(range(n_out))
    found = {
        "bare": onnx.NodeProto(op_type=schema.name, domain=schema.domain).SerializeToString(),
        "all named": node(every_in, every_out, name="n"),
        "first only": node([0], [0]),
        "all but the first": node(every_in[1:], every_out[1:]),
    }
    for k in every_in:
        found[f"input {k} missing"] = node([i for i in every_in if i != k], every_out)
    return found


def _schemas(key: tuple[str, str, int]) -> tuple[Any, Any]:
    domain, name, version = key
    return onnx.defs.get_schema(name, version, domain), defs.get_schema(name, version, domain)


def _theirs(schema: Any, version: int, node: bytes) -> bytes:
    try:
        body = schema.get_context_dependent_function_with_opset_version(version, node, [])
    except Exception:  # onnx declines a node it cannot build from: so does the catalog
        return b""
    return strip_function_prose(body)


@pytest.mark.parametrize("key", CONTEXTUAL, ids=lambda k: f"{k[1]}-{k[2]}")
def test_bodies_without_context_are_onnx_s(key: tuple[str, str, int]) -> None:
    theirs, ours = _schemas(key)
    for kind, node in _nodes(theirs).items():
        for version in range(0, 30):
            got = ours.get_context_dependent_function_with_opset_version(version, node, [])
            assert got == _theirs(theirs, version, node), (kind, version)
        try:
            expected = strip_function_prose(theirs.get_context_dependent_function(node, []))
        except Exception:  # as above
            expected = b""
        assert ours.get_context_dependent_function(node, []) == expected, kind


def test_a_node_with_context_is_refused_not_guessed() -> None:
    schema = defs.get_schema("Softmax", 13)
    node = onnx.helper.make_node("Softmax", ["x"], ["y"], axis=0).SerializeToString()
    with pytest.raises(NotImplementedError):
        schema.get_context_dependent_function_with_opset_version(13, node, [])
    typed = onnx.helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, [2]).SerializeToString()
    bare = onnx.NodeProto(op_type="Softmax").SerializeToString()
    with pytest.raises(NotImplementedError):
        schema.get_context_dependent_function(bare, [typed])
    # no builder at that version: b"", as onnx, whatever the node
    assert schema.get_context_dependent_function_with_opset_version(14, node, []) == b""
    assert defs.get_schema("Relu").get_context_dependent_function(node, []) == b""
    more = onnx.helper.make_node("Softmax", ["x", "extra"], ["y"]).SerializeToString()
    with pytest.raises(NotImplementedError):
        schema.get_context_dependent_function(more, [])
