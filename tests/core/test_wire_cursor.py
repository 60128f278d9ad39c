"""The wire cursor's loops agree with its field-by-field reader, and fields are reachable
by identifier through the schema.

``wire.fields`` (the lean loop of ``iter_sequence`` and model detection) and the
bulk moves of ``field_runs`` are each compared with ``wire.read_field`` /
``read_varint`` on arbitrary bytes: same fields, same offsets, same first error.
And no module outside ``_core`` (the cursor) and ``_codec`` (the generated
decoders' inline paths) reads a byte's varint continuation bit itself.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import onnxdata
from onnxdata import DecodeError, SequenceProto, TensorProto
from onnxdata._core import field_runs, wire
from onnxdata._core.schema import spec_of
from onnxdata._messages.catalog import all_message_types


def _by_read_field(buf: bytes, pos: int, end: int) -> tuple[list[tuple[int, ...]], str | None]:
    out: list[tuple[int, ...]] = []
    try:
        for f in wire.iter_fields(buf, pos, end):
            out.append(
                (f.number, f.wire_type, f.body_at if f.wire_type == wire.LEN else f.tag_end, f.end)
            )
    except DecodeError as err:
        return out, f"{err.offset}: {err}"
    return out, None


def _by_fields(buf: bytes, pos: int, end: int) -> tuple[list[tuple[int, ...]], str | None]:
    out: list[tuple[int, ...]] = []
    try:
        out.extend(wire.fields(buf, pos, end))
    except DecodeError as err:
        return out, f"{err.offset}: {err}"
    return out, None


# Bytes that are mostly fields: one-byte LEN tags and lengths (the inline path), with
# anything else between them.
_PIECES = st.one_of(
    st.builds(
        lambda t, body: bytes([t, len(body)]) + body, st.integers(0, 0x7F), st.binary(max_size=6)
    ),
    st.binary(min_size=1, max_size=4),
    st.sampled_from(
        [b"\x02", b"\x0a", b"\x0a\x05", b"\x0a\x80", b"\x1a\x7f", b"\x00", b"\x0b\x0c"]
    ),
)


@given(st.lists(_PIECES, max_size=8).map(b"".join), st.integers(0, 3), st.integers(0, 3))
def test_fields_reads_what_read_field_reads(data: bytes, cut_front: int, cut_back: int) -> None:
    buf = b"\xff" * cut_front + data + b"\x0a\x7f" * cut_back  # reads stop at ``end``
    pos, end = cut_front, cut_front + len(data)
    assert _by_fields(buf, pos, end) == _by_read_field(buf, pos, end)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("0a0161 1203626364", [(1, 2, 2, 3), (2, 2, 5, 8)]),
        ("0800 0a00", [(1, 0, 1, 2), (1, 2, 4, 4)]),
        ("0a02 61", "1: length 2 at offset 1 runs past"),  # the payload runs past the end
        ("02 00", "0: field number 0"),  # a LEN tag of field 0 is refused, not read inline
    ],
)
def test_fields_golden(data: str, expected: Any) -> None:
    buf = bytes.fromhex(data.replace(" ", ""))
    got, error = _by_fields(buf, 0, len(buf))
    if isinstance(expected, str):
        assert error is not None and error.startswith(expected)
    else:
        assert (got, error) == (expected, None)


@given(st.binary(max_size=40), st.integers(0, 20))
def test_short_entries_stops_where_a_field_by_field_read_would_look(data: bytes, upto: int) -> None:
    tag = 0x0A
    buf = b"".join(bytes([tag, len(p)]) + p for p in data.split(b"\x00")) + data[:3]
    pos, count, size = field_runs.short_entries(buf, 0, len(buf), tag, upto)
    at = n = total = 0
    while at < upto and at < len(buf):
        try:
            f = wire.read_field(buf, at, len(buf))
        except DecodeError:
            break
        if buf[at] != tag or f.body_at != at + 2:
            break
        at, n, total = f.end, n + 1, total + f.value
    assert (pos, count, size) == (at, n, total)


@given(st.lists(st.integers(0, (1 << 64) - 1), max_size=30))
def test_count_varints_counts_each_varint(values: list[int]) -> None:
    payload = b"".join(wire.encode_varint(v) for v in values)
    assert field_runs.count_varints(payload, 0, len(payload)) == len(values)
    assert len(wire.packed_elements(payload, wire.VARINT)) == len(values)


def test_every_field_is_reachable_by_identifier() -> None:
    for cls in all_message_types():
        spec = spec_of(cls)
        for f in spec.fields:
            assert getattr(spec.named, f.name) is f
    assert spec_of(TensorProto).named.raw_data.number == 9
    with pytest.raises(AttributeError, match="SequenceProto has no field 'tensor'"):
        _ = spec_of(SequenceProto).named.tensor


# -- no reader of one-byte varints outside the cursor and the generated code -----------

_PACKAGE = Path(onnxdata.__file__).parent
# Comparisons with 0x80 that read no varint: printable ASCII, a float format's sign bit.
_NOT_VARINTS = {"_fuzz/dictionary.py", "_text/escapes.py", "_numpy/floats.py"}
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def one_byte_reads(source: str) -> list[str]:
    """Where ``source`` asks whether a byte is below 0x80: a varint's (or a tag's,
    or a length's) one-byte path, read inline."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(isinstance(op, _ORDER) for op in node.ops):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Constant) and s.value == 0x80 for s in sides):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_outside_the_cursor_reads_a_one_byte_varint() -> None:
    """``_core`` holds the cursor, ``_codec`` the generated decoders' inline paths."""
    found = {}
    for path in sorted(_PACKAGE.rglob("*.py")):
        rel = path.relative_to(_PACKAGE).as_posix()
        if rel.startswith(("_core/", "_codec/")) or rel in _NOT_VARINTS:
            continue
        hits = one_byte_reads(path.read_text(encoding="utf-8"))
        if hits:
            found[rel] = hits
    assert found == {}


def test_the_one_byte_scan_finds_an_inline_read() -> None:
    assert one_byte_reads("if tag >= 0x80:\n    pass") == ["line 1: tag >= 128"]
    assert one_byte_reads("n = buf[pos] if buf[pos] < 0x80 else 0") != []
    assert one_byte_reads("if tag == 0x80:\n    pass") == []
    for rel in _NOT_VARINTS:  # each exception is still needed
        assert one_byte_reads((_PACKAGE / rel).read_text(encoding="utf-8")) != [], rel
