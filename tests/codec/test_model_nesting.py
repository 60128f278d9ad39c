"""Errors and nesting through the model messages.

A model nests messages in loops: a graph's node holds attributes, an
attribute a graph (the bodies of If, Loop, Scan); a type holds types
(sequence, map, optional).  Decoding stops at protobuf's depth limit (100
messages below the top one) exactly where upb does, with a ``DecodeError``
whose path names every hop; an input claiming 100,000 levels is refused
after reading the first hundred, never with a RecursionError; encoding a
message nested deeper than a parser takes is refused with an EncodeError.
"""

from __future__ import annotations

import re
from typing import Any

import onnx
import pytest

import onnxdata
from onnxdata import DecodeError, EncodeError, GraphProto, ModelProto, TypeProto
from tests.support import wirekit as wk
from tests.support.oracle import check_decode, oracle_parse

_HOP = ".node[0].attribute[0].g"  # GraphProto.node -> NodeProto.attribute -> AttributeProto.g


def _graphs(levels: int, inner: bytes = b"") -> bytes:
    """``levels`` graphs, each the ``g`` of a node's first attribute, below a top graph."""
    for _ in range(levels):
        inner = wk.f_len(1, wk.f_len(5, wk.f_len(6, inner)))
    return inner


def _types(levels: int) -> bytes:
    """``levels`` sequence types, each the element type of the one above."""
    inner = wk.f_len(1, wk.f_varint(1, 1))  # tensor_type { elem_type: 1 }
    for _ in range(levels):
        inner = wk.f_len(4, wk.f_len(1, inner))  # sequence_type { elem_type { ... } }
    return inner


def _linear(heads: list[bytes]) -> bytes:
    """Length-delimited fields nested as deep as ``heads`` (their tags, outermost
    first) is long, built in linear time: each header holds the size of
    everything inside it."""
    out: list[bytes] = []
    size = 0
    for tag in reversed(heads):
        head = tag + wk.varint(size)
        out.append(head)
        size += len(head)
    return b"".join(reversed(out))


def test_an_error_deep_in_a_model_names_every_hop() -> None:
    cut = wk.tag(1, 2) + wk.varint(50) + b"ab"  # input: a length past the end
    body = wk.f_len(1, b"") + wk.f_len(1, wk.f_len(1, b"x") + cut)  # g.node[1]
    graph = wk.f_len(1, b"") * 3 + wk.f_len(1, wk.f_len(5, wk.f_len(6, body)))  # node[3]
    model = wk.f_varint(1, 8) + wk.f_len(7, graph)
    assert oracle_parse(ModelProto, model) is None
    with pytest.raises(DecodeError) as info:
        ModelProto.decode(model)
    err = info.value
    # an element of a repeated string is named by its field (as string_data is)
    assert err.path == "ModelProto.graph.node[3].attribute[0].g.node[1].input"
    assert err.offset == len(model) - len(cut) + 1  # the length prefix
    assert re.fullmatch(r"length 50 at offset \d+ runs past the end.*\(2 bytes left\)", err.reason)


@pytest.mark.parametrize("levels", [32, 33, 34, 35])
def test_subgraphs_nest_as_deep_as_upb_takes(levels: int) -> None:
    data = _graphs(levels)
    ours = check_decode(GraphProto, data)  # accepted or refused as upb does
    assert (ours is None) == (levels * 3 > 100)
    if ours is None:
        with pytest.raises(DecodeError) as info:
            GraphProto.decode(data)
        # 100 levels entered (33 hops and a node), then the attribute that would be the 101st
        assert info.value.path == "GraphProto" + _HOP * 33 + ".node[0].attribute[0]"
        assert info.value.reason.startswith("nesting deeper than 100 messages")


@pytest.mark.parametrize("levels", [49, 50, 51])
def test_types_nest_as_deep_as_upb_takes(levels: int) -> None:
    data = _types(levels)
    ours = check_decode(TypeProto, data)
    assert (ours is None) == (levels * 2 + 1 > 100)  # the tensor type at the bottom counts
    if ours is None:
        with pytest.raises(DecodeError) as info:
            TypeProto.decode(data)
        last = ".tensor_type" if levels == 50 else ".sequence_type"
        assert info.value.path == "TypeProto" + ".sequence_type.elem_type" * 50 + last


@pytest.mark.parametrize("depth", range(95, 101))
def test_every_kind_of_hop_counts_towards_the_limit(depth: int) -> None:
    # model.graph.value_info.type, then map value types and optional element types
    hops = [b"\x3a", b"\x6a", b"\x12"]  # graph, value_info, type
    while len(hops) < depth:
        hops += [b"\x2a", b"\x12", b"\x4a", b"\x0a"]  # map_type.value_type, optional_type.elem_type
    assert check_decode(ModelProto, _linear(hops[:depth])) is not None


@pytest.mark.parametrize(
    "cls, first, loop",
    [
        (TypeProto, [], [b"\x22", b"\x0a"]),  # sequence_type.elem_type, 50,000 times
        (GraphProto, [], [b"\x0a", b"\x2a", b"\x32"]),  # node.attribute.g, 33,333 times
        (ModelProto, [b"\x3a"], [b"\x0a", b"\x2a", b"\x32"]),  # graph, then the same
    ],
    ids=["TypeProto", "GraphProto", "ModelProto"],
)
def test_a_hundred_thousand_levels_end_in_a_decode_error(
    cls: type, first: list[bytes], loop: list[bytes]
) -> None:
    heads = [*first, *loop * (100_000 // len(loop) + 1)][:100_000]
    data = _linear(heads)
    assert oracle_parse(cls, data) is None
    with pytest.raises(DecodeError) as info:
        cls.decode(data)
    # refused at the 101st level, near the start: the rest is never read
    assert info.value.reason.startswith("nesting deeper than 100")
    assert info.value.offset < 1000


def _graph_chain(module: Any, levels: int) -> Any:
    top = module.GraphProto()
    g = top
    for _ in range(levels):
        g = g.node.add().attribute.add().g
    g.name = "body"
    return top


def test_encoding_nested_subgraphs_gives_upbs_bytes_up_to_the_limit() -> None:
    ours = _graph_chain(onnxdata, 33)
    assert ours.encode() == _graph_chain(onnx, 33).SerializeToString()


@pytest.mark.parametrize("levels", [34, 5000])
def test_encoding_deeper_than_a_parser_takes_is_an_encode_error(levels: int) -> None:
    # upb writes it, then refuses to parse what it wrote; onnxdata refuses to write it.
    deep = _graph_chain(onnxdata, levels)
    assert oracle_parse(GraphProto, _graph_chain(onnx, levels).SerializeToString()) is None
    with pytest.raises(EncodeError, match="deeper than 100"):
        deep.encode()
    with pytest.raises(EncodeError, match="deeper than 100"):
        deep.ByteSize()
