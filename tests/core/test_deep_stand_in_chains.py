"""A chain of stand-ins thousands deep (``t.sequence_type.elem_type`` read
again and again, then written at the end) attaches every level, as protobuf
sets every message on the way, with no RecursionError."""

from __future__ import annotations

import sys
from typing import Any

import onnx
import pytest

import onnxdata

LEVELS = sys.getrecursionlimit() * 3


def _chain(module: Any, levels: int) -> Any:
    root = module.TypeProto()
    cur = root
    for _ in range(levels):
        cur = cur.sequence_type.elem_type
    cur.tensor_type.elem_type = 1
    return root


def test_writing_at_the_end_of_a_deep_chain_sets_every_level() -> None:
    ours = _chain(onnxdata, LEVELS)
    theirs = _chain(onnx, LEVELS)
    a, b = ours, theirs
    for _ in range(LEVELS):
        assert a.WhichOneof("value") == b.WhichOneof("value") == "sequence_type"
        a = a.sequence_type.elem_type
        b = b.sequence_type.elem_type
    assert a.WhichOneof("value") == b.WhichOneof("value") == "tensor_type"
    assert a.tensor_type.elem_type == b.tensor_type.elem_type == 1


def test_a_chain_deeper_than_a_parser_takes_is_refused_when_encoding() -> None:
    # protobuf writes it, then refuses to parse it back; onnxdata refuses to write it.
    deep = _chain(onnxdata, LEVELS)
    with pytest.raises(onnxdata.EncodeError, match="deeper than 100"):
        deep.encode()
