"""The wire cursor's loops agree with its field-by-field reader, and fields are reachable
by identifier through the schema.

``wire.fields`` (the lean loop of ``iter_sequence`` and model detection) and the
bulk moves (``field_run``, ``short_entries``, ``count_varints``) are each compared
with ``wire.read_field`` / ``read_varint`` on arbitrary bytes: same fields, same
offsets, same first error.  And no module but ``_core/wire.py`` (the cursor) and
``_core/inline.py`` (its one-byte read as source for generated code) reads a
varint, a tag or a length byte by hand, in its code or in a template of generated
code, but the copies listed with their reasons.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import onnxdata
from onnxdata import DecodeError, SequenceProto, TensorProto
from onnxdata._core import wire
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
    pos, count, size = wire.short_entries(buf, 0, len(buf), tag, upto)
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
    assert wire.count_varints(payload, 0, len(payload)) == len(values)
    assert len(wire.packed_elements(payload, wire.VARINT)) == len(values)


def test_every_field_is_reachable_by_identifier() -> None:
    for cls in all_message_types():
        spec = spec_of(cls)
        for f in spec.fields:
            assert getattr(spec.named, f.name) is f
    assert spec_of(TensorProto).named.raw_data.number == 9
    with pytest.raises(AttributeError, match="SequenceProto has no field 'tensor'"):
        _ = spec_of(SequenceProto).named.tensor


# -- no hand-written inline read outside the cursor and its one template -----------
#
# The cursor is ``_core/wire.py``; ``_core/inline.py`` holds its one-byte path as the
# source every generator takes.  Anywhere else, code (or a template of generated
# code) that tests a byte read from the wire against 0x80, masks one with 0x7F or
# 0x80, shifts by 7, splits a tag (``& 7``, ``tag >> 3``) or matches the wire's bytes
# with a varint's byte classes is a second copy of the cursor.  A test of a *value*
# against 0x80 (a writer choosing one length byte) reads nothing and passes.

_PACKAGE = Path(onnxdata.__file__).parent
_CURSOR = {"_core/wire.py", "_core/inline.py"}
# Copies kept, each for what it alone can do (figures in its docstring):
_JUSTIFIED = {
    # numpy's table of continuation bits over a whole window: no byte-at-a-time
    # read to share (int64_1M decodes 8x faster than by the lanes, 35x the loop).
    "_codec/npvarints.py": "numpy whole-array varint decoding",
    # pickle's SHORT_BINBYTES walk: a table of steps by length byte over a copy
    # that pickle reads (strings100k decodes 1.5x faster than by the loop).
    "_codec/short_entries.py": "a run of short entries made in one pickle.loads call",
    # a level of a chain of nested lists read by one test; from the templates
    # it measured 8-10 % slower on nested50 (its module's docstring).
    "_codec/tails.py": "the chain's one-test read of a level, measured",
}
# Tables by byte value that read no wire: protobuf's text format escapes bytes above ASCII.
_NOT_WIRE = {"_text/escapes.py": "text escapes: octal for every byte above ASCII"}
_BYTE_CLASSES = (rb"\x80-\xff", rb"\x00-\x7f")
_TEMPLATE_READS = (
    re.compile(r"&\s*0x7[fF]\b|&\s*0x80\b|<<\s*7\b|&\s*7\b|\btag\s*>>\s*3\b"),
    # a byte read from the buffer, or a name it was read into, tested against 0x80
    re.compile(r"(?:\bbuf\[[^\]]*\]|\b(?P<name>\w+))\s*(?:<|>=|>|<=)\s*(?:0x80|128)\b"),
)


def _is_byte_test(node: ast.Compare, from_buffer: set[str]) -> bool:
    if not any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops):
        return False
    sides = [node.left, *node.comparators]
    if not any(isinstance(s, ast.Constant) and s.value == 0x80 for s in sides):
        return False
    return any(
        isinstance(s, ast.Subscript) or (isinstance(s, ast.Name) and s.id in from_buffer)
        for s in sides
    )


def _is_wire_arithmetic(node: ast.BinOp) -> bool:
    """``x & 0x7F``, ``x & 0x80``, ``x << 7``, ``x & 7`` or ``tag >> 3``."""
    right = node.right.value if isinstance(node.right, ast.Constant) else None
    if isinstance(node.op, ast.BitAnd):
        return right in (0x7F, 0x80, 7)
    if isinstance(node.op, ast.LShift):
        return right == 7
    left = node.left.id if isinstance(node.left, ast.Name) else ""
    return isinstance(node.op, ast.RShift) and right == 3 and "tag" in left


def _is_byte_table(node: ast.AST) -> bool:
    """A table by byte value split at 0x80 (``[... if b < 0x80 ... for b in range(256)]``),
    or the range of bytes a varint goes on after (``range(0x80, 0x100)``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return [a.value for a in node.args if isinstance(a, ast.Constant)] == [0x80, 0x100]
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return False
    bytes_ = any(
        isinstance(g.iter, ast.Call)
        and any(isinstance(a, ast.Constant) and a.value == 0x100 for a in g.iter.args)
        for g in node.generators
    )
    return bytes_ and any(
        isinstance(c, ast.Compare) and _is_byte_test(c, {n.id for n in ast.walk(c)
                                                          if isinstance(n, ast.Name)})
        for c in ast.walk(node.elt)
    )  # fmt: skip


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
    }


def _template_text(node: ast.AST) -> str | None:
    """The text of a string constant or f-string (each ``{...}`` as ``_``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "_" for v in node.values)
    return None


def inline_reads(source: str) -> list[str]:
    """Where ``source`` reads a varint, a tag or a length byte by hand, in its
    code or in the templates of generated code it holds."""
    tree = ast.parse(source)
    from_buffer = {  # names bound to a byte of the buffer
        t.id
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.NamedExpr))
        and any(isinstance(n, ast.Subscript) for n in ast.walk(node.value))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        for t in ast.walk(target)
        if isinstance(t, ast.Name)
    }
    docs = _docstrings(tree)
    texts = [t for n in ast.walk(tree) if id(n) not in docs and (t := _template_text(n))]
    for text in texts:
        from_buffer |= set(re.findall(r"\b(\w+)\s*=\s*buf\[", text))
    found = []
    for node in ast.walk(tree):
        if (
            (isinstance(node, ast.Compare) and _is_byte_test(node, from_buffer))
            or (isinstance(node, ast.BinOp) and _is_wire_arithmetic(node))
            or _is_byte_table(node)
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, bytes)
            and any(c in node.value for c in _BYTE_CLASSES)
        ):
            found.append(f"line {node.lineno}: a regex of varint bytes")
    masks, tests = _TEMPLATE_READS
    for text in texts:
        found += [f"template: {m.group()}" for m in masks.finditer(text)]
        found += [
            f"template: {m.group()}"
            for m in tests.finditer(text)
            if m.group("name") is None or m.group("name") in from_buffer
        ]
    return found


def _hand_written_reads() -> dict[str, list[str]]:
    found = {}
    for path in sorted(_PACKAGE.rglob("*.py")):
        rel = path.relative_to(_PACKAGE).as_posix()
        if rel not in _CURSOR and rel not in _JUSTIFIED and rel not in _NOT_WIRE:
            hits = inline_reads(path.read_text(encoding="utf-8"))
            if hits:
                found[rel] = hits
    return found


def test_no_module_outside_the_cursor_reads_a_varint_tag_or_length_byte() -> None:
    assert _hand_written_reads() == {}


@pytest.mark.parametrize(
    "snippet",
    [
        "tag = buf[pos]\nif tag >= 0x80:\n    tag, pos = read_tag(buf, start, end)",
        "n = buf[pos] if buf[pos] < 0x80 else 0",
        "def f(buf, pos):\n    b = buf[pos]\n    return b < 128",
        "v = (b & 0x7F) | m << 7",
        "STEPS = tuple(n + 2 if n < 0x80 else PAST for n in range(256))",
        "CONTINUED = bytes(range(0x80, 0x100))",
        "number, wire_type = tag >> 3, tag & 7",
        "R = re.compile(rb'[\\x80-\\xff]*[\\x00-\\x7f]')",
        # generated code, as a template and as an f-string template
        'T = """\\\nv = buf[pos]\\nif v < 0x80:\\n    pos += 1"""',
        'T = f"n = buf[{at}]\\nif n >= 0x80:\\n    break"',
        'T = "if buf[pos + 1] >= 0x80:\\n    break"',
    ],
)
def test_the_scan_flags_a_hand_written_read(snippet: str) -> None:
    assert inline_reads(snippet) != [], snippet


@pytest.mark.parametrize(
    "snippet",
    [
        "if n < 0x80:\n    out.append(HEADS[n])",  # a writer's one-byte length
        'T = "if type(v) is bytes and len(v) < 0x80:\\n    out.append(v)"',
        'def f():\n    """Reads ``buf[pos] < 0x80`` (a docstring)."""',
        "mantissa = bits & 0x7FFFFF",
        "ok = 32 <= byte < 127",
        "ESCAPED = [chr(i) if i < 128 else f'\\\\{i:03o}' for i in range(128)]",
    ],
)
def test_the_scan_passes_what_reads_no_byte(snippet: str) -> None:
    assert inline_reads(snippet) == [], snippet


def test_the_scan_finds_the_cursor_and_each_justified_copy() -> None:
    for rel in [*_CURSOR, *_JUSTIFIED, *_NOT_WIRE]:  # each exception is still needed
        assert inline_reads((_PACKAGE / rel).read_text(encoding="utf-8")) != [], rel
