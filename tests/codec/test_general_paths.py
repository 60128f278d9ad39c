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
    EncodeError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from onnxdata._codec import decode, encode, fastpaths, lanes, npvarints
from onnxdata._codec.blocks import FIELDS
from onnxdata._core import switches
from onnxdata._core.schema import spec_of
from tests.fuzz import mutate
from tests.support import message_strategies as ms
from tests.support import wirekit as wk
from tests.support.oracle import ALL_MESSAGE_TYPES, MODEL_MESSAGE_TYPES, ORACLE
from tests.support.outcomes import decoded

# These tests compare the fast paths with the general ones: the fast paths
# stay on when the suite runs with ONNXDATA_GENERAL_PATHS=1.
pytestmark = pytest.mark.usefixtures("fast_paths")

MESSAGES = [TensorProto, SparseTensorProto, SequenceProto, MapProto, OptionalProto]

# What only the fast paths write, from the registry (_codec/fastpaths.py): the
# tail and chain of nested lists, runs of elements read by a helper, the
# bytes-run reader, inline one-byte reads, and the encoders' tables and caches.
FAST_ONLY_DECODE = [m for p in fastpaths.PATHS if p.side == fastpaths.DECODE for m in p.marks]
FAST_ONLY_ENCODE = [m for p in fastpaths.PATHS if p.side == fastpaths.ENCODE for m in p.marks]


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
    decoders = "".join(sources(c, fastpaths.DECODE) for c in ALL_MESSAGE_TYPES)
    encoders = "".join(sources(c, fastpaths.ENCODE) for c in ALL_MESSAGE_TYPES)
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


def compared(m: Any) -> Any:
    """What a decoded message is compared by: itself, its encoding and its values' types."""
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
        fast = decoded(cls, data, copy, compared)
        with general(True):
            slow = decoded(cls, data, copy, compared)
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


# -- the registry: each fast path against its general path ------------------------
# Each fast path of the registry (``_codec/fastpaths.py``) is taken by some
# declaration, only the fast sources hold its text, and messages of typical
# values that hold a field taking it (drawn from the schema alone) agree on
# both paths.


def taking(path: fastpaths.FastPath) -> list[type]:
    """The message classes with a field that takes ``path``."""
    return [
        cls
        for cls in ALL_MESSAGE_TYPES
        if any(path.takes(spec_of(cls), f) for f in spec_of(cls).fields)
    ]


def sources(cls: type, side: str) -> str:
    if side == fastpaths.DECODE:
        return "".join(decode.source(cls, copy) for copy in (True, False))
    return "".join(encode.source(cls, plan) for plan in (False, True))


def test_every_fast_path_is_registered() -> None:
    # Every field a declaration option asks a fast path for, and every field
    # whose writer writes other code when fast, is taken by a registered path.
    declared = [p for p in fastpaths.PATHS if p.option]
    for cls in ALL_MESSAGE_TYPES:
        spec = spec_of(cls)
        for f in spec.fields:
            if f.first or f.last or f.runs:
                assert any(p.takes(spec, f) for p in declared), (spec.name, f.name)
            code = FIELDS[f.kind]
            for side, write in [(fastpaths.DECODE, code.decode), (fastpaths.ENCODE, code.encode)]:
                for mode in (False, True):
                    if write(spec, f, mode, True, {}) != write(spec, f, mode, False, {}):
                        paths = [p for p in fastpaths.PATHS if p.side == side]
                        assert any(p.takes(spec, f) for p in paths), (side, spec.name, f.name)


@pytest.mark.parametrize("path", fastpaths.PATHS, ids=lambda p: p.title)
def test_each_fast_path_is_taken_and_only_on_the_fast_side(path: fastpaths.FastPath) -> None:
    classes = taking(path)
    assert classes, f"no declaration takes {path.title}"
    fast = "".join(sources(cls, path.side) for cls in classes)
    assert [m for m in path.marks if m not in fast] == []
    with general(True):
        slow = "".join(sources(cls, path.side) for cls in classes)
    assert [m for m in path.marks if m in slow] == []


_SMALL_INTS = [0, 1, 5, 127, 128, 300, -1]
_TEXTS = ["", "a", "batch", "é", "x" * 127, "y" * 128]


def _value(f: Any, depth: int, shaped_only: bool = False) -> st.SearchStrategy[Any]:
    """A typical value of field ``f``: the forms encoders write most (one-byte
    integers and lengths, short names), and the edges next to them."""
    shapes = _declared_shapes(f) if f.kind == "message" else []
    if f.kind == "enum":
        one: st.SearchStrategy[Any] = st.sampled_from(sorted(f.enum_values))
    elif f.kind == "message":
        one = typical(f.message, depth - 1)
        if shapes:  # also the elements a declaration reads as a whole
            shaped = st.sampled_from(shapes).flatmap(lambda o: typical(f.message, depth - 1, o))
            one = shaped if shaped_only else st.one_of(one, shaped)
    elif f.kind in ("float", "double"):
        one = st.sampled_from([0.0, 1.5, -2.0])
    elif f.kind == "string":
        one = st.sampled_from(_TEXTS)
    elif f.kind == "bytes":
        one = st.sampled_from([t.encode() for t in _TEXTS])
    else:
        lo, hi = f.bounds
        one = st.sampled_from([v for v in _SMALL_INTS if lo <= v <= hi])
    if not f.repeated:
        return one
    if f.kind == "message":  # elements alike but for their bytes (runs), or not
        alike = [shaped.flatmap(_alike)] if shapes else []
        return st.one_of(st.lists(one, max_size=3), one.flatmap(_alike), *alike)
    return st.lists(one, max_size=4)


def _alike(element: Any) -> st.SearchStrategy[list[Any]]:
    """Copies of ``element``, each with its bytes fields' bytes drawn anew (their
    lengths kept: elements alike but for their payloads, as runs are)."""
    payloads = [f for f in spec_of(type(element)).fields if f.kind == "bytes" and not f.repeated]

    def copy(fill: int) -> Any:
        made = type(element)()
        made.CopyFrom(element)
        for f in payloads:
            held = getattr(element, f.slot)
            if held is not None:
                setattr(made, f.name, bytes([fill]) * len(held))
        return made

    return st.lists(st.integers(0, 255).map(copy), min_size=2, max_size=4)


def _declared_shapes(f: Any) -> list[tuple[str, ...]]:
    """The sets of fields an element of ``f`` holds alone in the forms its
    declaration reads as a whole: the head and payload of ``runs=(...)``; for
    ``runs="tail"``, the integer fields numbered before ``f`` and ``f``."""
    if isinstance(f.runs, tuple):
        return [f.runs]
    element = spec_of(f.message)
    if f.runs == "tail":
        ints = ("int32", "int64", "uint64")
        head = [g.name for g in element.fields if g.number < f.number and g.kind in ints]
        return [(*head, f.name)]
    return []


@st.composite
def _typical(draw: Any, cls: type, depth: int, only: tuple[str, ...], must: str) -> Any:
    fields = [f for f in spec_of(cls).fields if f.kind != "message" or depth > 0]
    if must:
        fields = [f for f in fields if f.name == must] + [
            f for f in fields if f.name != must and draw(st.integers(0, 2)) == 0
        ]
    elif only:
        fields = [f for f in fields if f.name in only]
    elif draw(st.booleans()):  # one field alone: the form of a shape's dimension
        fields = [draw(st.sampled_from(fields))] if fields else []
    else:
        fields = [f for f in draw(st.permutations(fields)) if draw(st.integers(0, 2)) == 0]
    values: dict[str, Any] = {}
    taken: set[str] = set()
    for f in fields:
        if f.slot not in taken:  # one member of a oneof
            values[f.name] = draw(_value(f, depth, bool(only)))  # shapes all the way down
            taken.update(f.siblings)
    return cls(**values)


def typical(
    cls: type, depth: int = 3, only: tuple[str, ...] = (), must: str = ""
) -> st.SearchStrategy[Any]:
    """``cls`` messages of typical values, from the schema alone: each field
    set or not (so elements of one field are common), or exactly the fields
    ``only``, or field ``must`` and others; sub-messages a few deep."""
    return _typical(cls, depth, only, must)


@pytest.mark.parametrize("path", fastpaths.PATHS, ids=lambda p: p.title)
@settings(max_examples=ms.scaled(0.1), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_each_fast_path_agrees_with_its_general_path(
    path: fastpaths.FastPath, data: st.DataObject, seed: int
) -> None:
    cls = data.draw(st.sampled_from(taking(path)))
    spec = spec_of(cls)
    taken = data.draw(st.sampled_from([f.name for f in spec.fields if path.takes(spec, f)]))
    # Mostly typical messages holding a field that takes the path, whose forms
    # the fast paths are for; some of any form.
    held = typical(cls, must=taken)
    made = st.one_of(held, held, held, ms.messages_of(cls, 3, big=False))
    _message_and_mutations(data.draw(made), seed)
