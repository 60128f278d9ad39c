"""Nested lists read in one frame give what the recursive decode gives.

A SequenceProto's ``sequence_values`` element and an OptionalProto's
``optional_value`` that run to the end of their message are read on in the
same call, the element taking the message's place (declared
``runs="tail"``); levels written as ``elem_type`` then that element are read
by the chain loop (``tails.chain``) without going back to the dispatch.
Here every chain of such messages, with fields before and after each
element, unknown fields, and faults at any level or a cut anywhere, decodes
to the same message or fails with the same error (reason, offset, path) as
on the general paths (``switches.GENERAL_PATHS``), and as the oracle accepts or rejects it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import DecodeError, OptionalProto, SequenceProto
from onnxdata._codec import decode as _decode
from onnxdata._core import switches
from onnxdata._core.schema import spec_of
from tests.support import wirekit as wk
from tests.support.message_strategies import scaled
from tests.support.oracle import check_decode
from tests.support.outcomes import decoded

# These tests compare the fast paths with the general ones: the fast paths
# stay on when the suite runs with ONNXDATA_GENERAL_PATHS=1.
pytestmark = pytest.mark.usefixtures("fast_paths")

LINK = {SequenceProto: 5, OptionalProto: 7}  # the field of a child of each type


@contextlib.contextmanager
def general_decoders() -> Iterator[None]:
    """The general decoders, with no tail: every element read by a call."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(switches, "GENERAL_PATHS", True)
        yield


# The fields around a level's child: none, a set elem_type, a name, an
# unknown field, a second child (its own, short), a bad varint, a bad wire type.
EXTRAS = {
    "none": b"",
    "elem_type": wk.f_varint(2, 5),
    "elem_type 0": wk.f_varint(2, 0),
    "elem_type 127": wk.f_varint(2, 127),
    "elem_type 128": wk.f_varint(2, 128),  # two bytes: not a chain level
    "elem_type twice": wk.f_varint(2, 5) + wk.f_varint(2, 4),
    "name": wk.f_len(1, b"lvl"),
    "unknown": wk.f_varint(99, 7),
    "cut varint": b"\x10\x80",
    "wrong wire type": wk.f_len(2, b"x"),
}
LEAVES = [
    b"",
    wk.f_varint(2, 1) + wk.f_len(3, wk.f_varint(2, 1)),  # a tensor
    b"\x10",  # a tag with no value
    b"\x2a\x05ab",  # a child longer than what is left
    wk.f_varint(2, 2**40),  # elem_type out of int32: kept as protobuf keeps it
]


@st.composite
def chains(draw: st.DrawFn) -> tuple[type, bytes]:
    """A chain of 1-120 SequenceProto/OptionalProto levels, the outermost's class
    and bytes."""
    levels = draw(st.lists(st.sampled_from([SequenceProto, OptionalProto]), min_size=1,
                           max_size=120))  # fmt: skip
    data = draw(st.sampled_from(LEAVES))
    for i in range(len(levels) - 1, 0, -1):
        # Mostly a chain level (elem_type, then the child), as encoders write one.
        before = EXTRAS[draw(st.sampled_from(["elem_type"] * 8 + sorted(EXTRAS)))]
        after = EXTRAS[draw(st.sampled_from(["none"] * 6 + sorted(EXTRAS)))]
        # Now and then the child twice: in a SequenceProto two elements, in an
        # OptionalProto one, the second merged into the first (empty, the same
        # chain, or one whose own child has a name: the second's levels must
        # merge into those read before, not replace them).
        twice = draw(st.integers(0, 8)) == 0
        child = wk.f_len(LINK[levels[i]], data)
        if twice:
            named = wk.f_len(LINK[levels[i]], wk.f_len(1, b"kept"))
            child = wk.f_len(LINK[levels[i]], draw(st.sampled_from([b"", data, named]))) + child
        data = before + child + after
    cut = draw(st.none() | st.integers(0, len(data)))
    return levels[0], data if cut is None else data[:cut]


@settings(max_examples=scaled(1.0))
@given(chains())
def test_a_chain_decodes_as_without_the_tail(chain: tuple[type, bytes]) -> None:
    cls, data = chain
    check_decode(cls, data)
    tail = [decoded(cls, data, copy) for copy in (True, False)]
    with general_decoders():
        general = [decoded(cls, data, copy) for copy in (True, False)]
    assert tail == general


def chain_of(depth: int, leaf: bytes) -> bytes:
    """``depth`` OptionalProto levels as encoders write them (elem_type, then
    optional_value) around ``leaf``."""
    for _ in range(depth):
        leaf = wk.f_varint(2, 5) + wk.f_len(7, leaf)
    return leaf


@pytest.mark.parametrize("depth", [1, 2, 5, 96])
@pytest.mark.parametrize("inside", [False, True], ids=["top", "inside a sequence"])
def test_a_chain_merged_into_levels_read_before_keeps_their_fields(
    depth: int, inside: bool
) -> None:
    # optional_value twice: the second, a chain to the end, is merged into the
    # first level by level (each level's fields kept, its own child merged),
    # as protobuf merges a singular message read twice.  The chain must not
    # make levels anew where the first one made them.
    first = chain_of(depth, wk.f_len(1, b"kept"))
    second = chain_of(depth, wk.f_varint(2, 1) + wk.f_len(3, wk.f_varint(2, 1)))
    data = wk.f_len(7, first) + wk.f_len(7, second)
    cls: type = OptionalProto
    if inside:  # the optional as a sequence's last element, read in its frame
        cls, data = SequenceProto, wk.f_varint(2, 6) + wk.f_len(7, data)
    merged = check_decode(cls, data)
    level = merged.optional_values[0] if inside else merged
    for _ in range(depth + 1):
        level = level.optional_value
    assert level.name == "kept" and level.HasField("tensor_value")
    with general_decoders():
        assert [decoded(cls, data, copy) for copy in (True, False)] == [("value", merged)] * 2


def test_the_tail_is_taken() -> None:
    # 100 levels read in one frame; an error at the bottom names every
    # level, as the calls' handlers would.
    data = wk.nest(5, b"\x10\x80", 99)
    with pytest.raises(DecodeError) as info:
        SequenceProto.decode(data)
    assert info.value.path == "SequenceProto" + ".sequence_values[0]" * 99 + ".elem_type"
    source = _decode.source(SequenceProto)
    assert "msg = sub" in source
    with general_decoders():
        assert "msg = sub" not in _decode.source(SequenceProto)


def test_an_element_after_others_is_named_by_its_index() -> None:
    # Two elements, the second runs to the end and fails: index 1 at that level.
    inner = wk.f_len(5, b"") + wk.f_len(5, b"\x10\x80")
    data = wk.f_len(5, inner)
    for decode in (SequenceProto.decode, lambda d: SequenceProto.decode(d, copy=False)):
        with pytest.raises(DecodeError) as info:
            decode(data)
        assert info.value.path == "SequenceProto.sequence_values[0].sequence_values[1].elem_type"


def test_a_chain_through_both_tails_names_every_level() -> None:
    # Optional -> optional -> optional -> sequence -> sequence -> sequence, the
    # last one's elem_type cut: three tails, one call (optional to sequence), two tails.
    data = wk.nest(7, wk.nest(5, b"\x10\x80", 3), 3)
    want = "OptionalProto" + ".optional_value" * 3 + ".sequence_value"
    want += ".sequence_values[0]" * 2 + ".elem_type"
    assert decoded(OptionalProto, data, True)[1][2] == want
    with general_decoders():
        assert decoded(OptionalProto, data, True)[1][2] == want


def test_only_a_field_of_its_own_type_can_be_a_tail() -> None:
    declared = spec_of(SequenceProto).by_number[6]  # a field of another message type
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(declared, "runs", "tail")
            _decode.clear()
            with pytest.raises(ValueError, match="its own message type"):
                onnxdata.SequenceProto.decode(b"")
    finally:
        _decode.clear()


def chain_levels(cls: type, data: bytes) -> int:
    """How many levels the chain loops of ``cls``'s decoders made in decoding ``data``."""
    made = 0
    loops: set[tuple[str, int]] = set()
    for c in (SequenceProto, OptionalProto):
        looping = False
        for number, line in enumerate(_decode.source(c).splitlines(), 1):
            looping = looping or line.lstrip().startswith("while end - pos > 3")
            if looping and line.strip() == "msg._elem_type = v":  # once a level made
                loops.add((c.__name__, number))
                looping = False

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal made
        name = frame.f_code.co_filename
        if event == "line" and name.startswith("<onnxdata decoder"):
            made += (name.split()[2].rstrip(">"), frame.f_lineno) in loops
        return trace

    sys.settrace(trace)
    try:
        cls.decode(data)
    finally:
        sys.settrace(None)
    return made


@pytest.mark.parametrize("link", [5, 7], ids=["sequences", "optionals"])
def test_the_chain_reads_every_level_written_as_encoders_write_it(link: int) -> None:
    # elem_type then the child, 99 levels: the outer ones have two-byte lengths.
    leaf = wk.f_varint(2, 1) + wk.f_len(3, wk.f_varint(2, 1))
    data = leaf
    for _ in range(99):
        data = wk.f_varint(2, 4) + wk.f_len(link, data)
    cls = SequenceProto if link == 5 else OptionalProto
    assert len(data) > 300
    # The first level is the dispatch's (it makes the first child), the
    # other 98 the loop's; the leaf's fields are no chain level.
    assert chain_levels(cls, data) == 98
    with general_decoders():
        assert "while end - pos > 3" not in _decode.source(cls)
    check_decode(cls, data)


# Bytes of a level after which the chain stops and the dispatch reads on.
STOPS = {
    "a name first": wk.f_len(1, b"n") + wk.f_varint(2, 4) + wk.f_len(5, b""),
    "a two-byte elem_type": wk.f_varint(2, 300) + wk.f_len(5, b""),
    "the child and more": wk.f_varint(2, 4) + wk.f_len(5, b"") + wk.f_varint(99, 1),
    "a child past the end": wk.f_varint(2, 4) + b"\x2a\x05ab",
    "a cut two-byte length": wk.f_varint(2, 4) + b"\x2a\x80",
    "a three-byte length": wk.f_varint(2, 4) + b"\x2a\x80\x80\x01",
    # 2**14 bytes after its second byte: read as a two-byte length, it would fit.
    "a three-byte length a byte short": wk.f_varint(2, 4) + b"\x2a\x80\x80\x01" + bytes(2**14 - 1),
    "a tensor": wk.f_varint(2, 1) + wk.f_len(3, b""),
    "three bytes": wk.f_varint(2, 4) + b"\x2a",
}


@pytest.mark.parametrize("stop", sorted(STOPS))
@pytest.mark.parametrize("depth", [1, 5, 98, 99, 100, 101])
def test_where_the_chain_stops_the_dispatch_reads_on(stop: str, depth: int) -> None:
    data = STOPS[stop]
    for _ in range(depth):
        data = wk.f_varint(2, 4) + wk.f_len(5, data)
    check_decode(SequenceProto, data)
    chained = [decoded(SequenceProto, data, copy) for copy in (True, False)]
    with general_decoders():
        assert chained == [decoded(SequenceProto, data, copy) for copy in (True, False)]
