"""The model messages' fast paths agree with the general ones, and with upb.

Two fast paths serve graphs: strings read inline, a repeated string field
(a node's inputs and outputs) read as a run; and a closed enum's one-byte
value known without a call (``AttributeProto.type``).  Here:
only the fast sources hold them (the text of every path of the registry,
``_codec/fastpaths.py``, that a field of a model message takes); byte
tables of each form and its edge cases (two-byte lengths and values, bad
UTF-8, unnamed enum values, lengths past the end, unknown fields) and the
onnx package's models, whole and mutated, decode alike on both paths in
both modes, and the valid ones re-encode to what protobuf (upb) writes.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import onnx
import pytest

from onnxdata import AttributeProto, ModelProto, NodeProto, TensorShapeProto
from onnxdata._codec import decode, fastpaths
from onnxdata._core import switches
from onnxdata._core.schema import spec_of
from tests.support import wirekit as wk
from tests.support.oracle import MODEL_MESSAGE_TYPES
from tests.support.outcomes import decoded

pytestmark = pytest.mark.usefixtures("fast_paths")

OURS_TO_ONNX: dict[type, Any] = {
    ModelProto: onnx.ModelProto,
    NodeProto: onnx.NodeProto,
    AttributeProto: onnx.AttributeProto,
    TensorShapeProto: onnx.TensorShapeProto,
}

# Each model message and each fast path of the registry a field of it takes:
# the text only that path's code holds (``_codec/fastpaths.py``).
TAKEN = [
    (cls, path)
    for cls in MODEL_MESSAGE_TYPES
    for path in fastpaths.PATHS
    if path.side == fastpaths.DECODE
    and path.marks
    and any(path.takes(spec_of(cls), f) for f in spec_of(cls).fields)
]


def test_the_registry_names_the_paths_of_graphs() -> None:
    # Strings inline and in runs, closed enums: each taken here.
    names = {path.title for _, path in TAKEN}
    assert {"strings inline, runs of strings", "closed enums' one-byte values"} <= names


def _general(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(switches, "GENERAL_PATHS", on)


@pytest.mark.parametrize(
    ("cls", "path"), TAKEN, ids=[f"{c.__qualname__}-{p.title}" for c, p in TAKEN]
)
def test_only_the_fast_sources_hold_the_model_paths(
    cls: type, path: fastpaths.FastPath, monkeypatch: pytest.MonkeyPatch
) -> None:
    for copy in (True, False):
        fast = decode.source(cls, copy)
        assert [s for s in path.marks if s not in fast] == []
        _general(monkeypatch, True)
        slow = decode.source(cls, copy)
        _general(monkeypatch, False)
        assert [s for s in path.marks if s in slow] == []


def compared(m: Any) -> Any:
    """What a decoded message is compared by: itself and its encoding."""
    return m, m.encode()


def both_ways(cls: type, data: bytes, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The fast and the general outcome, which must be equal; returned for more checks."""
    results = []
    for copy in (True, False):
        fast = decoded(cls, data, copy, compared)
        _general(monkeypatch, True)
        try:
            slow = decoded(cls, data, copy, compared)
        finally:
            _general(monkeypatch, False)
        assert fast == slow, (cls.__name__, copy, data.hex())
        results.append(fast)
    return results[0]


def _oracle_accepts(cls: type, data: bytes) -> bytes | None:
    try:
        return bytes(OURS_TO_ONNX[cls].FromString(data).SerializeToString())
    except Exception:  # upb's DecodeError: the input is invalid
        return None


L, V = wk.f_len, wk.f_varint
TEXT_200 = b"n" * 200
TABLE: list[tuple[type, bytes]] = [
    # dimensions: a value, a name, a denotation, and what the inline test must leave alone
    (TensorShapeProto, L(1, V(1, 5)) + L(1, L(2, b"batch")) + L(1, L(3, b"N"))),
    (TensorShapeProto, L(1, V(1, 0)) + L(1, b"") + L(1, V(1, 127))),
    (TensorShapeProto, L(1, V(1, 128)) + L(1, V(1, 2**62)) + L(1, V(1, -1))),
    (TensorShapeProto, L(1, L(2, b"x" * 126)) + L(1, L(2, b"x" * 127)) + L(1, L(2, TEXT_200))),
    (TensorShapeProto, L(1, L(2, b"\xff\xfe")) + L(1, V(1, 3) + L(2, b"b"))),
    (TensorShapeProto, L(1, L(2, b"a") + V(1, 4)) + L(1, V(4, 1)) + L(1, V(1, 1) + V(1, 2))),
    (TensorShapeProto, L(1, bytes([8, 0x80]))),  # a varint cut at the element's end
    (TensorShapeProto, L(1, bytes([18, 5, 97]))),  # a name longer than its element
    (TensorShapeProto, L(1, bytes([18, 0x80, 1]) + b"a" * 128)),  # a two-byte name length
    (TensorShapeProto, L(1, bytes([8]))),
    # attribute types: named, unnamed (an unknown field), negative, long, cut
    (AttributeProto, L(1, b"axis") + V(3, -1) + V(20, 2)),
    (AttributeProto, L(1, b"x") + V(20, 99) + V(20, 6) + V(20, 0)),
    (AttributeProto, V(20, -1) + V(20, 2**31 + 2) + V(20, 2 | 1 << 7)),
    (AttributeProto, V(20, 15) + V(20, 14) + bytes([0xA0, 0x01])),
    (AttributeProto, bytes([0xA0, 0x01, 0x82])),
    # node inputs and outputs: runs, interrupted runs, long and bad strings, cut lengths
    (NodeProto, L(1, b"a") + L(1, b"") + L(1, TEXT_200) + L(2, b"y") + L(1, b"b") + L(2, b"z")),
    (NodeProto, L(1, b"\xff") + L(2, b"\xc3\x28") + L(3, b"n") + L(4, b"Relu") + L(7, b"")),
    (NodeProto, L(1, b"a") + bytes([10, 5, 98])),
    (NodeProto, L(1, b"a") + bytes([10, 0x80])),
    (NodeProto, L(2, b"a") + bytes([18, 0x80, 0x02]) + b"q" * 10),
    (NodeProto, L(1, b"a") + V(99, 1) + L(1, b"b") + bytes([10])),
]


@pytest.mark.parametrize(("cls", "data"), TABLE, ids=range(len(TABLE)))
def test_byte_tables_agree_and_match_upb(
    cls: type, data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = both_ways(cls, data, monkeypatch)
    theirs = _oracle_accepts(cls, data)
    if theirs is None:
        assert got[0] == "raised", data.hex()
    else:
        assert got[1][1] == theirs, data.hex()


def _models() -> list[Path]:
    root = Path(onnx.__file__).parent
    return sorted(root.rglob("*.onnx"))


def test_the_onnx_package_models_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    models = _models()
    assert models
    for path in models:
        data = path.read_bytes()
        got = both_ways(ModelProto, data, monkeypatch)
        assert got[1][1] == data, path


@pytest.mark.parametrize("seed", range(4))
def test_mutated_models_agree(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    models = [p.read_bytes() for p in _models()]
    donors = rng.sample(models, 8)
    desc = onnx.ModelProto.DESCRIPTOR
    for data in rng.sample(models, 12):
        fields = wk.parse_fields(data, desc)
        mutated = wk.encode_fields(wk.mutate_fields(fields, desc, rng, donors))
        both_ways(ModelProto, wk.mutate_bytes(mutated, rng, donors), monkeypatch)
