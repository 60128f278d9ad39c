"""Oneofs on the wire, as upb reads and writes them.

The last member on the wire wins; the same message member seen twice merges;
a different member replaces the one before (switching back starts afresh); a
member set to its default is present and written.  Each row is checked by
the decode contract (values, re-encoded bytes) and ``WhichOneof`` against upb.
"""

from __future__ import annotations

from typing import Any

import onnx
import pytest

from onnxdata import SimpleShardedDimProto, TensorShapeProto, TypeProto
from tests.support import wirekit as wk
from tests.support.oracle import ORACLE, check_decode

Dim = TensorShapeProto.Dimension

_TENSOR_1 = wk.f_len(1, wk.f_varint(1, 1))  # tensor_type { elem_type: 1 }
_TENSOR_SHAPE = wk.f_len(1, wk.f_len(2, b""))  # tensor_type { shape {} }
_SEQUENCE = wk.f_len(4, wk.f_len(1, _TENSOR_1))  # sequence_type { elem_type { tensor_type } }
_OPAQUE = wk.f_len(7, wk.f_len(1, b"d"))

ROWS = [
    ("value then param", Dim, wk.f_varint(1, 5) + wk.f_len(2, b"N"), "dim_param"),
    ("param then value", Dim, wk.f_len(2, b"N") + wk.f_varint(1, 5), "dim_value"),
    ("value 0 is present", Dim, wk.f_varint(1, 0), "dim_value"),
    ("empty param is present", Dim, wk.f_len(2, b""), "dim_param"),
    ("denotation between", Dim, wk.f_varint(1, 3) + wk.f_len(3, b"D") + wk.f_len(2, b""),
     "dim_param"),
    ("value twice: last wins", Dim, wk.f_varint(1, 3) + wk.f_varint(1, 4), "dim_value"),
    ("same message member merges", TypeProto, _TENSOR_1 + _TENSOR_SHAPE, "tensor_type"),
    ("another member replaces", TypeProto, _TENSOR_1 + _SEQUENCE, "sequence_type"),
    ("switching back starts afresh", TypeProto, _TENSOR_1 + _OPAQUE + _TENSOR_SHAPE,
     "tensor_type"),
    ("empty member is present", TypeProto, wk.f_len(8, b""), "sparse_tensor_type"),
    ("denotation stays", TypeProto, wk.f_len(6, b"img") + _TENSOR_1 + _OPAQUE, "opaque_type"),
    ("nested switch", TypeProto, wk.f_len(4, wk.f_len(1, _TENSOR_1))
     + wk.f_len(4, wk.f_len(1, _OPAQUE)), "sequence_type"),
    ("sharding: param then value", SimpleShardedDimProto,
     wk.f_len(2, b"x") + wk.f_varint(1, 2) + wk.f_varint(3, 4), "dim_value"),
    ("none", TypeProto, wk.f_len(6, b"img"), None),
]  # fmt: skip


@pytest.mark.parametrize("cls, data, member", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_oneof_members_on_the_wire_read_as_upb(cls: type, data: bytes, member: Any) -> None:
    ours = check_decode(cls, data)
    assert ours is not None
    theirs = ORACLE[cls].FromString(data)
    name = next(iter(cls._SPEC.oneofs))  # type: ignore[attr-defined]
    assert theirs.WhichOneof(name) == member
    assert ours.WhichOneof(name) == member
    assert ours.HasField(name) == theirs.HasField(name) == (member is not None)
    # the members not chosen are unset: each reads as its default, as upb's do
    for f in cls._SPEC.oneofs[name]:  # type: ignore[attr-defined]
        assert ours.HasField(f.name) == (f.name == member)


def test_the_inner_oneof_of_a_switched_member_is_its_own() -> None:
    data = wk.f_len(4, wk.f_len(1, _TENSOR_1)) + wk.f_len(4, wk.f_len(1, _OPAQUE))
    ours = TypeProto.decode(data)
    theirs = onnx.TypeProto.FromString(data)
    # the same member (sequence_type) merged; inside it, elem_type switched member
    assert ours.sequence_type.elem_type.WhichOneof("value") == "opaque_type"
    assert theirs.sequence_type.elem_type.WhichOneof("value") == "opaque_type"


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (Dim(dim_value=0), onnx.TensorShapeProto.Dimension(dim_value=0)),
        (Dim(dim_param=""), onnx.TensorShapeProto.Dimension(dim_param="")),
        (TypeProto(opaque_type=TypeProto.Opaque()), onnx.TypeProto(opaque_type={})),
        (SimpleShardedDimProto(dim_value=0), onnx.SimpleShardedDimProto(dim_value=0)),
    ],
)
def test_a_member_set_to_its_default_is_written(ours: Any, theirs: Any) -> None:
    assert ours.encode() == theirs.SerializeToString() != b""
