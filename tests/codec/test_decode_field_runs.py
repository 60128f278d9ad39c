"""The decoder's run fast paths give what the general loop gives.

Three places read a run of same-tag fields without going round the field
loop: a SequenceProto's tensors of one shape (``_tensor_template``: the bytes
before each raw payload repeat, so an element that repeats them is made
without parsing), a TensorProto's ``string_data``, and a MapProto's unpacked
``keys`` (one regular expression finds the run, decoded as one packed
payload).  Each is checked against the oracle on inputs built to hit the fast
path, to leave it at every point, and to break inside it.
"""

from __future__ import annotations

import contextlib
import pickle
import pickletools
import sys
from collections.abc import Iterator
from typing import Any

import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import MapProto, SequenceProto, TensorProto
from onnxdata._codec import reading as _reading
from onnxdata._codec import short_entries as _short_entries
from tests.support import wirekit as wk
from tests.support.message_strategies import scaled
from tests.support.oracle import VARINT_PATHS, check_decode, varint_path


def _tensor(dims: list[int], data_type: int, raw: bytes, extra: bytes = b"") -> bytes:
    """A TensorProto written as encoders write it, then ``extra`` fields."""
    out = b"".join(wk.f_varint(1, d) for d in dims)
    return out + wk.f_varint(2, data_type) + wk.f_len(9, raw) + extra


def _sequence(elements: list[bytes], tag_number: int = 3) -> bytes:
    return wk.f_varint(2, 1) + b"".join(wk.f_len(tag_number, e) for e in elements)


# Elements that differ from a shared template in one place each: a different
# payload length, dim, type, an extra field after the payload or before it, a
# non-canonical varint in the header, an unpacked dim of another value.
_VARIANTS = st.sampled_from(
    [
        "same", "longer", "shorter", "empty", "dim", "type", "name_after", "name_before",
        "long_dims", "negative_dim", "overlong_type", "no_type", "float_data",
    ]
)  # fmt: skip


def _variant(kind: str, raw: bytes) -> bytes:
    if kind == "same":
        return _tensor([3, 4], 1, raw)
    if kind == "longer":
        return _tensor([3, 4], 1, raw + b"\0")
    if kind == "shorter":
        return _tensor([3, 4], 1, raw[:-1])
    if kind == "empty":
        return b""
    if kind == "dim":
        return _tensor([4, 3], 1, raw)
    if kind == "type":
        return _tensor([3, 4], 6, raw)
    if kind == "name_after":
        return _tensor([3, 4], 1, raw, wk.f_len(8, b"x"))
    if kind == "name_before":
        return wk.f_len(8, b"x") + _tensor([3, 4], 1, raw)
    if kind == "long_dims":
        return _tensor([300, 2**40], 1, raw)
    if kind == "negative_dim":
        return _tensor([-1, 4], 1, raw)
    if kind == "overlong_type":  # data_type 1 as a two-byte varint: same value, other bytes
        head = wk.f_varint(1, 3) + wk.f_varint(1, 4)
        return head + b"\x10\x81\x00" + wk.f_len(9, raw)
    if kind == "no_type":
        return wk.f_varint(1, 3) + wk.f_varint(1, 4) + wk.f_len(9, raw)
    assert kind == "float_data"
    return _tensor([3, 4], 1, raw, wk.f_len(4, b"\0\0\x80\x3f"))


@settings(max_examples=scaled(0.5))
@given(
    kinds=st.lists(_VARIANTS, min_size=1, max_size=12),
    raw=st.binary(min_size=1, max_size=48),
    path=st.sampled_from(VARINT_PATHS),
)
def test_tensor_runs_match_oracle(kinds: list[str], raw: bytes, path: str) -> None:
    data = _sequence([_variant(k, raw) for k in kinds])
    with varint_path(path):
        ours = check_decode(SequenceProto, data)
    assert ours is not None
    assert len(ours.tensor_values) == len(kinds)
    # Every element owns its dims: a template's list is copied, never shared.
    lists = [id(t.dims) for t in ours.tensor_values]
    assert len(set(lists)) == len(lists)


@pytest.mark.parametrize("cut", range(1, 12))
def test_tensor_run_cut_short_matches_oracle(cut: int) -> None:
    raw = bytes(range(48))
    data = _sequence([_tensor([3, 4], 1, raw)] * 6)
    check_decode(SequenceProto, data[:-cut])


def test_tensor_run_copy_false_keeps_views() -> None:
    raw = [bytes([i]) * 48 for i in range(5)]
    data = _sequence([_tensor([3, 4], 1, r) for r in raw])
    views = SequenceProto.decode(data, copy=False)
    assert views == SequenceProto.decode(data)
    for t, r in zip(views.tensor_values, raw, strict=True):
        assert type(t.raw_data) is memoryview and t.raw_data.readonly and t.raw_data == r
        assert t.dims == [3, 4] and t.data_type == 1


def test_tensor_run_in_map_values_matches_oracle() -> None:
    values = _sequence([_tensor([4], 1, bytes([i]) * 16) for i in range(20)])
    keys = b"".join(wk.f_varint(3, k) for k in range(20))
    check_decode(MapProto, wk.f_varint(2, 7) + keys + wk.f_len(5, values))


@pytest.mark.usefixtures("fast_paths")
def test_a_tensor_template_is_used() -> None:
    # Not a timing: the fast path is taken (only the first element is parsed).
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_name == "decode_TensorProto":
            calls += 1

    data = _sequence([_tensor([3, 4], 1, b"\1" * 48)] * 50)
    SequenceProto.decode(data)  # the decoders are generated on first use
    sys.setprofile(count)
    try:
        decoded = SequenceProto.decode(data)
    finally:
        sys.setprofile(None)
    assert calls == 1 and len(decoded.tensor_values) == 50


# -- string_data runs ----------------------------------------------------------


_STRINGS = st.lists(
    st.one_of(
        st.binary(max_size=3),
        st.binary(min_size=126, max_size=130),
        # entries that read as tags, lengths or pickle opcodes
        st.sampled_from([b"2", b"2\x01", b"C", b"(", b"l.", b"\x80\x01"]),
    ),
    max_size=8,
)


# Three readers of a run: the bounded loop; from LONG_RUN bytes left, the
# short entries made by pickling (read_short_entries), its first copy of the
# run either of the default size or one byte long (then it grows a byte, two,
# four... so its end falls at every place of an entry).  The two last lower
# LONG_RUN so that every run of two entries or more takes them, and check
# every pickle they load (see checked_pickles).
_STRING_READERS = ["bounded", "pickled", "pickled in growing chunks"]

_PICKLE_OPS = {"MARK", "SHORT_BINBYTES", "LIST", "STOP"}


@contextlib.contextmanager
def checked_pickles() -> Iterator[list[bytes]]:
    """Every stream ``read_short_entries`` loads is MARK, SHORT_BINBYTES
    opcodes, LIST and STOP, in that order, and nothing else: no byte of an
    entry is read as an opcode.  Yields the list of streams loaded."""
    loaded: list[bytes] = []
    real = pickle.loads

    def loads(data: Any, **kwargs: Any) -> Any:
        ops = [op.name for op, _, _ in pickletools.genops(bytes(data))]
        assert ops[0] == "MARK" and ops[-2:] == ["LIST", "STOP"], ops
        assert set(ops[1:-2]) <= {"SHORT_BINBYTES"}, ops
        assert bytes(data).endswith(b"l."), "nothing after STOP"
        loaded.append(bytes(data))
        return real(data, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pickle, "loads", loads)
        yield loaded


@contextlib.contextmanager
def string_reader(kind: str) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp, checked_pickles():
        if kind != "bounded":
            mp.setattr(_reading, "LONG_RUN", 1)
        if kind == "pickled in growing chunks":
            mp.setattr(_short_entries, "FIRST_CHUNK", 1)
        yield


@pytest.mark.parametrize("reader", _STRING_READERS)
@settings(max_examples=scaled(0.5))
@given(
    strings=_STRINGS,
    after=st.sampled_from([b"", b"\x42\x01x", b"\x08\x05", b"\x32", b"\x32\x81"]),
    cut=st.integers(0, 4),
)
def test_string_runs_match_oracle(
    reader: str, strings: list[bytes], after: bytes, cut: int
) -> None:
    data = wk.f_varint(2, 8) + b"".join(wk.f_len(6, s) for s in strings) + after
    with string_reader(reader):
        check_decode(TensorProto, data[: len(data) - cut] if cut else data)


@pytest.mark.parametrize("reader", _STRING_READERS)
@settings(max_examples=scaled(0.5))
@given(strings=_STRINGS, cut=st.integers(0, 4))
def test_string_runs_inside_a_message_stop_at_its_end(
    reader: str, strings: list[bytes], cut: int
) -> None:
    # The tensor is a sequence's element, and the sequence's next field has
    # string_data's tag byte (0x32: map_values): the run must stop at the
    # tensor's end, where a top-level tensor's run stops at the buffer's.
    tensor = wk.f_varint(2, 8) + b"".join(wk.f_len(6, s) for s in strings)
    tensor = tensor[: len(tensor) - cut] if cut else tensor
    after = wk.f_len(6, wk.f_varint(2, 7)) + wk.f_len(6, b"")
    with string_reader(reader):
        check_decode(SequenceProto, wk.f_varint(2, 1) + wk.f_len(3, tensor) + after)


_LONG_RUN_ENTRIES = [bytes([i % 251]) * (i % 19) for i in range(3000)] + [b"x" * 300, b"", b"yz"]


@pytest.mark.usefixtures("fast_paths")
@pytest.mark.parametrize("cut", [0, 1, 2, 7, 200])
def test_a_long_string_run_to_the_end_matches_oracle(cut: int) -> None:
    # Over LONG_RUN bytes, as the default takes it: short and long entries,
    # the input cut inside the last ones, or after a lone tag.
    data = wk.f_varint(2, 8) + b"".join(wk.f_len(6, s) for s in _LONG_RUN_ENTRIES)
    assert len(data) > 16 * _short_entries.FIRST_CHUNK > _reading.LONG_RUN  # several chunks
    with checked_pickles() as loaded:
        check_decode(TensorProto, data[: len(data) - cut] if cut else data)
        check_decode(TensorProto, data + b"\x32")
        views = TensorProto.decode(bytearray(data), copy=False)
    assert [bytes(s) for s in views.string_data] == _LONG_RUN_ENTRIES
    assert loaded  # the run's short entries were made by pickling


@pytest.mark.usefixtures("fast_paths")
@pytest.mark.parametrize("cut", [0, 1, 2, 200])
def test_a_long_string_run_inside_a_message_matches_oracle(cut: int) -> None:
    # The tensor is a sequence's element followed by the sequence's fields
    # (one with string_data's tag byte): the chunks stop at the tensor's end.
    tensor = wk.f_varint(2, 8) + b"".join(wk.f_len(6, s) for s in _LONG_RUN_ENTRIES[:2000])
    tensor = tensor[: len(tensor) - cut] if cut else tensor
    after = wk.f_len(6, wk.f_varint(2, 7)) + wk.f_len(3, wk.f_len(6, b"ab"))
    with checked_pickles() as loaded:
        check_decode(SequenceProto, wk.f_varint(2, 1) + wk.f_len(3, tensor) + after)
    assert loaded


# What ends a run: a long entry, the message's end, an entry cut off by it.
_RUN_ENDS = {"a long entry": wk.f_len(6, b"z" * 200), "the end": b"", "a cut entry": b"\x32\x09abc"}


@pytest.mark.usefixtures("fast_paths")
@pytest.mark.parametrize("ends", sorted(_RUN_ENDS))
@pytest.mark.parametrize("first_chunk", [1, 2, 3, 5, 7, 11, 13, _short_entries.FIRST_CHUNK])
def test_every_short_entry_of_a_run_is_pickled(first_chunk: int, ends: str) -> None:
    # Not a timing: however the chunks cut the run (an entry across a cut is
    # completed from the input), each whole short entry is made by a pickle,
    # none by the loop, up to what ends the run.
    entries = _LONG_RUN_ENTRIES[:2500]
    data = wk.f_varint(2, 8) + b"".join(wk.f_len(6, s) for s in entries) + _RUN_ENDS[ends]
    with pytest.MonkeyPatch.context() as mp, checked_pickles() as loaded:
        mp.setattr(_short_entries, "FIRST_CHUNK", first_chunk)
        if ends == "a cut entry":
            with pytest.raises(onnxdata.DecodeError):
                TensorProto.decode(data)
        else:
            want = [*entries, b"z" * 200] if ends == "a long entry" else entries
            assert TensorProto.decode(data).string_data == want
    made = [pickle.loads(stream) for stream in loaded]
    assert sum(len(m) for m in made) == len(entries) - 1  # all but the first (read before)


@pytest.mark.usefixtures("fast_paths")
@pytest.mark.parametrize("first_chunk", range(1, 16))
def test_entries_across_a_copy_to_the_end_are_pickled(first_chunk: int) -> None:
    # Every place of the first copy's end, up to the message's end: an entry
    # across it is completed from the input, the last one too.
    entries = [b"ab", b"cd", b"efgh", b"ij"]
    data = b"".join(wk.f_len(6, s) for s in entries)
    with pytest.MonkeyPatch.context() as mp, checked_pickles() as loaded:
        mp.setattr(_reading, "LONG_RUN", 1)
        mp.setattr(_short_entries, "FIRST_CHUNK", first_chunk)
        assert TensorProto.decode(data).string_data == entries
    assert sum(len(pickle.loads(stream)) for stream in loaded) == len(entries) - 1


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_pickled_entries_are_bytes_copies(copy: bool, kind: type) -> None:
    # From every kind of input and in both modes, every entry is a bytes
    # object of its own, as onnx's are (string_data is not declared a view;
    # tests/io/test_bytes_fields.py covers a field that is).
    data = wk.f_varint(2, 8) + b"".join(wk.f_len(6, s) for s in _LONG_RUN_ENTRIES)
    decoded = TensorProto.decode(kind(data), copy=copy)
    assert [bytes(s) for s in decoded.string_data] == _LONG_RUN_ENTRIES
    assert {type(s) for s in decoded.string_data} == {bytes}
    assert len(decoded.string_data[-3]) >= 128


def test_string_run_past_the_end_reports_the_entry() -> None:
    data = wk.f_len(6, b"ab") + b"\x32\x05abc"
    with pytest.raises(onnxdata.DecodeError) as info:
        TensorProto.decode(data)
    assert onnx.TensorProto.FromString(data[:4])  # the first entry alone is fine
    assert info.value.offset == 5 and info.value.path == "TensorProto.string_data"


def test_string_run_copy_false_gives_bytes() -> None:
    data = b"".join(wk.f_len(6, bytes([65 + i]) * (i * 100)) for i in range(5))
    views = TensorProto.decode(bytearray(data), copy=False)
    kinds = [type(s) for s in views.string_data]
    assert kinds == [bytes] * 5
    assert views == TensorProto.decode(data) == TensorProto.decode(bytearray(data))
    assert all(type(s) is bytes for s in TensorProto.decode(bytearray(data)).string_data)


# -- MapProto.keys runs --------------------------------------------------------


_KEYS = st.lists(
    st.one_of(
        st.integers(0, 127).map(wk.varint),
        st.integers(-(2**63), 2**63 - 1).map(lambda k: wk.varint(k & (2**64 - 1))),
        # ten bytes with junk above bit 63 in the last one (upb drops it)
        st.integers(0, 2**64 - 1).map(lambda k: wk.varint(k)[:9].ljust(9, b"\x80") + b"\x7f"),
        st.just(b"\x80" * 10 + b"\x01"),  # eleven bytes: rejected
        st.just(b"\xff\xff"),  # cut off by the next tag
    ),
    max_size=10,
)


@settings(max_examples=scaled(0.5))
@given(
    keys=_KEYS,
    after=st.sampled_from([b"", b"\x22\x01a", b"\x10\x07"]),
    path=st.sampled_from(VARINT_PATHS),
)
def test_key_runs_match_oracle(keys: list[bytes], after: bytes, path: str) -> None:
    data = wk.f_varint(2, 7) + b"".join(b"\x18" + k for k in keys) + after
    with varint_path(path):
        check_decode(MapProto, data)
        check_decode(MapProto, data[:-1])


def test_a_long_key_run_matches_oracle() -> None:
    keys = [(-1) ** i * (i * 7919) ** 4 % 2**62 for i in range(5000)]
    data = onnx.helper.make_map("m", onnx.TensorProto.INT64, keys, onnx.SequenceProto())
    raw = data.SerializeToString()
    for path in VARINT_PATHS:
        with varint_path(path):
            ours = check_decode(MapProto, raw)
            assert ours is not None and ours.keys == keys
