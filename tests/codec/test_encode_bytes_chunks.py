"""A repeated bytes field written a chunk of entries at a time (``bytes_lists.bytes_list``).

Each chunk of ``BYTES_CHUNK`` entries takes one of two ways: all ``bytes``
shorter than 128 (one ``%`` formatting call), or some longer or of another
type (one entry at a time).  These tests shrink the chunk so that every mix
of the two meets every boundary, and compare the bytes with
upb's and the errors' entry numbers with the whole field's.
"""

from __future__ import annotations

import io
from array import array
from contextlib import AbstractContextManager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import MapProto, TensorProto
from onnxdata._codec import bytes_lists as _bytes_lists
from tests.support import message_strategies as ms
from tests.support.oracle import to_oracle


def _set(**values: int) -> AbstractContextManager[None]:
    """``bytes_lists``'s thresholds set for one hypothesis example."""
    return ms.constants(_bytes_lists, **values)


class _Lying(bytes):
    """A bytes subclass whose length says other than its bytes: its own bytes are written."""

    def __len__(self) -> int:
        return 3


def _own(entry: Any) -> bytes:
    """The bytes upb writes for ``entry``: the ones it holds."""
    return bytes(memoryview(entry))


def _expected(entries: list[Any]) -> bytes:
    plain = TensorProto(dims=[len(entries)], data_type=8, string_data=[_own(e) for e in entries])
    data: bytes = to_oracle(plain).SerializeToString()
    return data


_short = st.binary(max_size=40) | st.sampled_from([b"%" * 37, b"2%%b" * 9 + b"2", b"%b", b""])
_long = st.binary(min_size=128, max_size=300)
_other = st.one_of(
    _short.map(bytearray),
    _short.map(memoryview),
    _short.map(_Lying),
    _long.map(_Lying),
)
_entries = st.lists(
    st.one_of(_short, _short, _short, _long, _other), min_size=1, max_size=120
) | st.lists(_short, min_size=1, max_size=120)


@settings(max_examples=ms.scaled(1.0))
@given(entries=_entries, chunk=st.sampled_from([1, 2, 3, 5, 8, 64, 8192]))
def test_every_mix_of_chunks_writes_upbs_bytes(entries: list[Any], chunk: int) -> None:
    with _set(BYTES_CHUNK=chunk):
        t = TensorProto(dims=[len(entries)], data_type=8, string_data=entries)
        data = t.encode()
        assert data == _expected(entries)
        file = io.BytesIO()
        assert t.encode_to(file) == len(data)
        assert file.getvalue() == data
        keys = MapProto(key_type=8, string_keys=entries)
        assert (
            keys.encode()
            == to_oracle(
                MapProto(key_type=8, string_keys=[_own(e) for e in entries])
            ).SerializeToString()
        )


@pytest.mark.parametrize("chunk", [1, 4, 7, 8192])
@pytest.mark.parametrize("at", [0, 6, 17, 29])
@pytest.mark.parametrize("bad", ["ab", 3, None, array("b", [1])], ids=repr)
def test_an_error_names_the_entry_in_the_whole_field(chunk: int, at: int, bad: Any) -> None:
    entries: list[Any] = [b"x" * (i % 3 * 70) for i in range(30)]  # short and long chunks
    entries[at] = bad
    with _set(BYTES_CHUNK=chunk):
        for t in (TensorProto(string_data=entries), TensorProto(string_data=tuple(entries))):
            with pytest.raises(onnxdata.EncodeTypeError) as info:
                t.encode()
            assert info.value.path == f"TensorProto.string_data[{at}]"
            with pytest.raises(onnxdata.EncodeTypeError) as info:
                t.encode_to(io.BytesIO())
            assert info.value.path == f"TensorProto.string_data[{at}]"


def test_a_long_field_in_default_chunks() -> None:
    """Past one chunk: short chunks, a chunk with long entries, one with a bytearray."""
    n = 3 * _bytes_lists.BYTES_CHUNK + 5
    entries: list[Any] = [b"%d" % (i % 997) * (i % 7) for i in range(n)]
    entries[_bytes_lists.BYTES_CHUNK + 3] = b"y" * 5000
    entries[2 * _bytes_lists.BYTES_CHUNK + 1] = bytearray(b"from a bytearray")
    entries[-1] = b"%" * 37
    t = TensorProto(dims=[n], data_type=8, string_data=entries)
    assert t.encode() == _expected(entries)
    file = io.BytesIO()
    t.encode_to(file)
    assert file.getvalue() == t.encode()


def test_encode_to_passes_long_entries_without_copying() -> None:
    """Short entries are gathered; one of 64 KiB or more is written from its own buffer."""
    big = b"\x01" * (200 << 10)
    entries = [b"a" * 200] * 10 + [big] + [b"b"] * 10
    seen: list[Any] = []

    class Recorder:
        def write(self, b: Any) -> int:
            seen.append(b)
            return len(b)

    t = TensorProto(dims=[len(entries)], data_type=8, string_data=entries)
    assert t.encode_to(Recorder()) == len(t.encode())
    assert b"".join(seen) == t.encode()
    assert [b.obj for b in seen if len(b) == len(big)] == [big]
