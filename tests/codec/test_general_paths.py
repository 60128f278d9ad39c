"""One switch turns every fast path off, and both paths agree on every input.

``switches.GENERAL_PATHS`` (``ONNXDATA_GENERAL_PATHS=1``) makes the codec
generate its decoders and encoders from the general tables alone and keeps
the packed-varint code to its loops.  Here: the general sources hold none of
the fast paths' code; numpy's and the lanes' varint code is never called;
and a broad sample (random messages, and mutations of their bytes: cuts,
flips, forged lengths, unknown fields) decodes to equal messages, or fails
with the same error (reason, offset, path), and encodes to the same bytes or
the same error, on both paths, in both decode modes, each value of the same
type (a ``bytes`` value or a view).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnxdata import (
    DecodeError,
    EncodeError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from onnxdata._codec import decode, encode, lanes, npvarints
from onnxdata._core import switches
from onnxdata._core.schema import spec_of
from tests.fuzz import mutate
from tests.support import message_strategies as ms
from tests.support import wirekit as wk
from tests.support.oracle import ALL_MESSAGE_TYPES, MODEL_MESSAGE_TYPES, ORACLE

# These tests compare the fast paths with the general ones: the fast paths
# stay on when the suite runs with ONNXDATA_GENERAL_PATHS=1.
pytestmark = pytest.mark.usefixtures("fast_paths")

MESSAGES = [TensorProto, SparseTensorProto, SequenceProto, MapProto, OptionalProto]

# What only the fast paths write: the tail and chain of nested lists, runs of
# elements read by a helper, the bytes-run reader, inline one-byte reads, and the
# encoders' tables and caches.
FAST_ONLY_DECODE = [
    "msg = sub",
    "while end - pos > 3",
    "pos = run_",
    "varint_run(",
    "= strings(",  # the bytes-run reader (a field may be named strings)
    "if v < 0x80",
    "if n < 0x80",
    "while True:\n                    ",  # a run of one field read in its own loop
]
FAST_ONLY_ENCODE = ["TAGGED_", "HEADS_", "seen_", "bytes_list(", "small_unpacked(", "INTS"]


@contextlib.contextmanager
def general(on: bool) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(switches, "GENERAL_PATHS", on)
        yield


@pytest.mark.parametrize("cls", ALL_MESSAGE_TYPES, ids=lambda c: c.__qualname__)
def test_the_general_sources_hold_no_fast_path(cls: type) -> None:
    with general(True):
        for copy in (True, False):
            text = decode.source(cls, copy)
            assert [s for s in FAST_ONLY_DECODE if s in text] == []
        for plan in (False, True):
            text = encode.source(cls, plan)
            assert [s for s in FAST_ONLY_ENCODE if s in text] == []


def test_the_fast_sources_hold_them() -> None:
    # The test above can fail: the same words are in the default sources.
    decoders = "".join(decode.source(c, copy) for c in MESSAGES for copy in (True, False))
    encoders = "".join(encode.source(c) for c in MESSAGES)
    assert [s for s in FAST_ONLY_DECODE if s not in decoders] == []
    assert [s for s in FAST_ONLY_ENCODE if s not in encoders] == []


def test_flipping_the_switch_picks_the_other_codecs() -> None:
    fast = decode.decoder(SequenceProto)[1]
    with general(True):
        assert decode.decoder(SequenceProto)[1] is not fast
        slow = encode.encoder(SequenceProto)
    assert decode.decoder(SequenceProto)[1] is fast
    assert encode.encoder(SequenceProto) is not slow


def test_clear_makes_the_codecs_anew() -> None:
    before = decode.decoder(TensorProto)[1], encode.encoder(TensorProto)
    decode.clear()
    encode.clear()
    after = decode.decoder(TensorProto)[1], encode.encoder(TensorProto)
    assert before[0] is not after[0] and before[1] is not after[1]
    assert TensorProto.decode(TensorProto(dims=[3], raw_data=b"abc").encode()).dims == [3]


def test_no_varint_fast_path_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    for module, name in [
        (lanes, "decode"),
        (lanes, "encode"),
        (npvarints, "decode"),
        (npvarints, "encode"),
    ]:
        real = getattr(module, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    big = list(range(-5000, 5000, 7))
    tensor = TensorProto(int64_data=big, int32_data=big, dims=big)
    keys = MapProto(keys=big)
    with general(True):
        for m in (tensor, keys):
            assert type(m).decode(m.encode()) == m
    assert calls == []
    for m in (tensor, keys):  # and the same messages do take them by default
        assert type(m).decode(m.encode()) == m
    assert calls


def outcome(cls: type, data: bytes, copy: bool) -> Any:
    """What decoding gives: the message and its encoding, or the error's attributes."""
    try:
        m = cls.decode(data, copy=copy)
    except DecodeError as err:
        return ("decode error", err.reason, err.offset, err.path)
    return m, encoded(m), list(value_types(m))


def value_types(m: Any) -> Iterator[tuple[str, type]]:
    """The type of every value held at every depth: ``==`` takes a view for
    its bytes, but both paths must also give the same type (a ``bytes``
    field not declared a view is ``bytes`` in both modes)."""
    for f in spec_of(type(m)).fields:
        held = getattr(m, f.slot)
        if held is None or (f.repeated and not len(held)):  # an empty container: no value
            continue
        yield f.name, type(held)
        if f.kind == "message":
            for sub in held if f.repeated else [held]:
                yield from value_types(sub)
        elif f.kind == "bytes" and f.repeated:
            yield from ((f.name, type(v)) for v in held)


def encoded(m: Any) -> Any:
    try:
        return m.encode()
    except EncodeError as err:
        return ("encode error", str(err))


def both_ways(cls: type, data: bytes) -> None:
    for copy in (True, False):
        fast = outcome(cls, data, copy)
        with general(True):
            slow = outcome(cls, data, copy)
        assert fast == slow, (cls.__name__, copy, data.hex())


_LIGHT = settings(
    max_examples=ms.scaled(0.3), deadline=None, suppress_health_check=list(HealthCheck)
)


@_LIGHT
@given(
    st.sampled_from(MESSAGES).flatmap(lambda c: ms.messages_of(c, big=False)),
    st.integers(0, 2**32 - 1),
)
def test_random_messages_and_their_mutations_agree(message: Any, seed: int) -> None:
    _message_and_mutations(message, seed)


def _message_and_mutations(message: Any, seed: int) -> None:
    cls = type(message)
    data = message.encode()
    both_ways(cls, data)
    with general(True):
        assert message.encode() == data
    rng = random.Random(seed)
    desc = ORACLE[cls].DESCRIPTOR
    for _ in range(8):
        fields = wk.parse_fields(data, desc)
        mutated = wk.encode_fields(wk.mutate_fields(fields, desc, rng, [data]))
        both_ways(cls, wk.mutate_bytes(mutated, rng, [data]))


@settings(
    max_examples=ms.examples(0.3, heavy=True),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    st.sampled_from(MODEL_MESSAGE_TYPES).flatmap(lambda c: ms.messages_of(c, big=False)),
    st.integers(0, 2**32 - 1),
)
def test_random_model_messages_and_their_mutations_agree(message: Any, seed: int) -> None:
    _message_and_mutations(message, seed)


@_LIGHT
@given(st.sampled_from(MESSAGES).flatmap(lambda c: ms.messages_of(c, max_leaves=3)))
def test_large_payloads_agree(message: Any) -> None:
    # big=True: packed fields of thousands of values, long byte strings (the lanes, numpy).
    both_ways(type(message), message.encode())


@pytest.mark.parametrize("cls", MESSAGES)
def test_mutated_corpus_agrees(cls: type) -> None:
    mutator = mutate.Mutator(cls, 20261205)
    for _ in range(ms.scaled(1.0) * 3):
        both_ways(cls, mutator.case())


BAD_VALUES: list[tuple[type, dict[str, Any]]] = [
    (TensorProto, {"dims": [1, True]}),
    (TensorProto, {"dims": [1, 2**63]}),
    (TensorProto, {"int64_data": [1.5]}),
    (TensorProto, {"data_type": -(2**31) - 1}),
    (TensorProto, {"string_data": [b"a", "b"]}),
    (TensorProto, {"raw_data": "text"}),
    (MapProto, {"keys": [0, 1, False]}),
    (SequenceProto, {"tensor_values": [TensorProto(), SequenceProto()]}),
    (OptionalProto, {"elem_type": "1"}),
    (TensorProto, {"data_location": 7}),
]


@pytest.mark.parametrize(("cls", "values"), BAD_VALUES)
def test_bad_values_fail_alike(cls: type, values: dict[str, Any]) -> None:
    m = cls()
    for name, value in values.items():
        object.__setattr__(m, spec_slot(cls, name), value)
    fast = encoded(m)
    with general(True):
        assert encoded(m) == fast
    assert fast[0] == "encode error"


def spec_slot(cls: type, name: str) -> str:
    return spec_of(cls).by_name[name].slot
