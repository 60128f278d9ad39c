"""print_unknown_fields shows unknown fields exactly as protobuf's printer does.

A length-delimited unknown field prints as a nested message when protobuf's
Python unknown-field reader takes its payload whole, else as quoted bytes.
That reader is looser than upb's decoder (tags and lengths of up to 10
bytes, field number 0 inside a payload), so these payloads are the cases
where a split built on the strict primitives alone would print differently.
"""

from __future__ import annotations

import random

import onnx
import pytest
from google.protobuf import text_format as pb
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import text_format
from onnxdata._text.unknown import split_fields, unknown_fields
from tests.support import message_strategies as ms
from tests.support import wirekit as wk

PAYLOADS = {
    "message": wk.f_varint(1, 5) + wk.f_len(2, b"ab"),
    "six-byte tag": wk.tag(1, 0, size=6) + b"\x01",
    "ten-byte tag": wk.tag(1, 0, size=10) + b"\x01",
    "eleven-byte tag": wk.tag(1, 0, size=10)[:-1] + b"\x80\x00" + b"\x01",
    "six-byte length": wk.tag(2, 2) + wk.varint(2, size=6) + b"ab",
    "field number 0": wk.f_varint(0, 7),
    "group": wk.f_group(3, wk.f_varint(1, 1)),
    "group with a long end tag": wk.tag(3, 3) + wk.tag(3, 4, size=2),
    "unclosed group": wk.tag(3, 3) + wk.f_varint(1, 1),
    "end-group tag alone": wk.tag(3, 4),
    "wire type 6": wk.tag(1, 6) + b"\x00",
    "wire type 7": wk.tag(1, 7) + b"\x00",
    "truncated varint": wk.tag(1, 0) + b"\x80",
    "truncated fixed32": wk.tag(1, 5) + b"\x00\x00",
    "truncated fixed64": wk.tag(1, 1) + b"\x00" * 7,
    "length past the end": wk.tag(2, 2) + b"\x05ab",
    "overlong varint": wk.tag(1, 0) + b"\x80" * 10 + b"\x01",
    "groups 99 deep": wk.groups(99, number=3),
    "groups 100 deep": wk.groups(100, number=3),
    "text": b"hello",
    "empty": b"",
}


def printed(data: bytes, **kwargs: bool) -> tuple[str, str]:
    """(onnxdata's, protobuf's) text of a tensor holding ``data`` as unknown fields."""
    ours = onnxdata.TensorProto.decode(data)
    theirs = onnx.TensorProto.FromString(data)
    return (
        text_format.MessageToString(ours, print_unknown_fields=True, **kwargs),
        pb.MessageToString(theirs, print_unknown_fields=True, **kwargs),
    )


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
@pytest.mark.parametrize("as_one_line", [False, True])
def test_a_length_delimited_unknown_field_prints_as_protobuf_prints_it(
    payload: bytes, as_one_line: bool
) -> None:
    data = wk.f_varint(2, 1) + wk.f_len(1000, payload) + wk.f_varint(1001, 3)
    ours, theirs = printed(data, as_one_line=as_one_line)
    assert "1000" in theirs
    assert ours == theirs


@settings(max_examples=ms.scaled(0.5))
@given(st.binary(max_size=40), st.randoms(use_true_random=False))
def test_random_payloads_print_as_protobuf_prints_them(payload: bytes, rng: random.Random) -> None:
    # Half the time, a payload made of fields, so the nested form is exercised too.
    if rng.random() < 0.5:
        payload = wk.random_unknown(rng, onnx.TensorProto.DESCRIPTOR) + payload[:2]
    ours, theirs = printed(wk.f_len(1000, payload))
    assert ours == theirs


def test_the_split_reads_tags_and_lengths_of_up_to_ten_bytes() -> None:
    data = wk.tag(1, 0, size=10) + b"\x05" + wk.tag(2, 2) + wk.varint(2, size=6) + b"ab"
    fields, pos = split_fields(data, 0, len(data))
    assert pos == len(data)
    assert [(f.number, f.wire_type, f.data) for f in fields] == [(1, 0, 5), (2, 2, b"ab")]


@pytest.mark.parametrize(
    "data",
    [wk.f_varint(0, 1), b"\xff", wk.tag(1, 0) + b"\x80", wk.tag(1, 4) + wk.f_varint(1, 1)],
    ids=["field 0", "truncated tag", "truncated varint", "stray end-group tag"],
)
def test_unknown_fields_that_protobuf_would_not_have_kept_are_refused(data: bytes) -> None:
    with pytest.raises(ValueError, match="unknown_fields are not valid protobuf fields"):
        unknown_fields(data)
