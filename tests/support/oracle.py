"""The oracle: protobuf's own (upb) classes from the ``onnx`` package.

* :func:`to_oracle` rebuilds an onnxdata message as an ``onnx`` message field
  by field through the generated API, so the oracle's own type and range
  checks run (it never parses onnxdata's bytes).  The exceptions are values
  the oracle's Python API cannot hold bit-exactly: float32 signalling NaNs
  (a Python ``float`` quiets them) and strings carrying raw non-UTF-8 bytes
  (``surrogateescape``); those, and ``unknown_fields``, are merged in from
  bytes built here by :mod:`wirekit`.
* :func:`assert_same` compares every field of an onnxdata message with an
  oracle message: presence, ints exactly, floats by their bits, strings by
  their UTF-8 bytes (the oracle returns ``bytes`` instead of ``str`` when a
  parsed string is not valid UTF-8), and unknown fields through the oracle's
  serialization of a copy with every known field cleared.
* :func:`check_decode` is the decode contract for one input and one type.
* :data:`CORPUS` and :func:`corpus_files`: the ``.pb`` files of the onnx
  wheel's backend test data, each with the message type its model says.
"""

from __future__ import annotations

import contextlib
import functools
import re
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import onnx
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError as OracleDecodeError

import onnxdata
import onnxdata._codec.lanes as lanes
import onnxdata._codec.npvarints as npvarints
from tests.support import wirekit as wk

# The data messages (onnx-data.proto and what it uses): what MESSAGE_TYPES has
# always meant, and what type detection and the older tests iterate.
DATA_ORACLE: dict[type, type] = {
    onnxdata.TensorProto: onnx.TensorProto,
    onnxdata.TensorProto.Segment: onnx.TensorProto.Segment,
    onnxdata.StringStringEntryProto: onnx.StringStringEntryProto,
    onnxdata.SparseTensorProto: onnx.SparseTensorProto,
    onnxdata.SequenceProto: onnx.SequenceProto,
    onnxdata.MapProto: onnx.MapProto,
    onnxdata.OptionalProto: onnx.OptionalProto,
}


def _proto_messages(desc: Any) -> Iterator[Any]:
    """Every message descriptor declared in ``desc`` (a file or a message), nested ones after
    their parent, in declaration order."""
    children = (
        desc.message_types_by_name.values()
        if hasattr(desc, "message_types_by_name")
        else desc.nested_types
    )
    for child in children:
        yield child
        yield from _proto_messages(child)


def _ours(full_name: str) -> type:
    value: Any = onnxdata
    for part in full_name.split(".")[1:]:  # "onnx.TypeProto.Tensor" -> TypeProto.Tensor
        value = getattr(value, part)
    return value  # type: ignore[no-any-return]


def _oracle_class(full_name: str) -> type:
    value: Any = onnx
    for part in full_name.split(".")[1:]:
        value = getattr(value, part)
    return value  # type: ignore[no-any-return]


# Every message of onnx-ml.proto, in declaration order, then onnx-data.proto's.
ORACLE: dict[type, type] = {
    _ours(d.full_name): _oracle_class(d.full_name)
    for d in (
        *_proto_messages(onnx.onnx_ml_pb2.DESCRIPTOR),
        *_proto_messages(onnx.onnx_data_pb2.DESCRIPTOR),
    )
    if d.full_name.startswith("onnx.")
}
OURS: dict[type, type] = {v: k for k, v in ORACLE.items()}
MESSAGE_TYPES: list[type] = list(DATA_ORACLE)
ALL_MESSAGE_TYPES: list[type] = list(ORACLE)
# The messages that are new with the model (everything but the data messages).
MODEL_MESSAGE_TYPES: list[type] = [c for c in ORACLE if c not in DATA_ORACLE]

_T = FieldDescriptor
_FLOAT_CODES = {_T.TYPE_FLOAT: "f", _T.TYPE_DOUBLE: "d"}


def oracle_type(cls: type) -> type:
    return ORACLE[cls]


# --------------------------------------------------------------------------
# the onnx wheel's backend test data, typed

CORPUS = Path(onnx.__file__).parent / "backend" / "test" / "data"
_KIND = {
    "tensor_type": onnxdata.TensorProto,
    "sparse_tensor_type": onnxdata.SparseTensorProto,
    "sequence_type": onnxdata.SequenceProto,
    "map_type": onnxdata.MapProto,
    "optional_type": onnxdata.OptionalProto,
}
_NAME = re.compile(r"(?:(?P<prefix>.+)_)?(?P<kind>input|output)_(?P<index>\d+)\.pb")


@functools.cache
def _graph(model: Path) -> Any:
    return onnx.load(str(model), load_external_data=False).graph


def corpus_message_type(path: Path) -> type | None:
    """The onnxdata class of the value in the corpus file ``path`` (None: not a value file).

    ``input_N.pb`` holds a value of ``graph.input[N]`` and ``output_N.pb`` one of
    ``graph.output[N]``, as onnx's own backend runner reads them.
    """
    match = _NAME.fullmatch(path.name)
    if not match:
        return None
    if match["prefix"]:  # light/light_<model>_output_0.pb next to light_<model>.onnx
        model = path.with_name(match["prefix"] + ".onnx")
    else:  # <test>/test_data_set_K/input_N.pb, with <test>/model.onnx
        model = path.parent.parent / "model.onnx"
    graph = _graph(model)
    values = graph.input if match["kind"] == "input" else graph.output
    return _KIND[values[int(match["index"])].type.WhichOneof("value")]


def corpus_files() -> list[tuple[type, Path]]:
    """(message class, path) for every value file of the corpus (none if onnx ships none)."""
    found = [(corpus_message_type(p), p) for p in sorted(CORPUS.rglob("*.pb"))]
    return [(cls, p) for cls, p in found if cls is not None]


# --------------------------------------------------------------------------
# onnxdata -> oracle


def to_oracle(m: Any) -> Any:
    """An ``onnx`` message holding the same values as the onnxdata message ``m``.

    Raises whatever the oracle raises for a bad value (TypeError, ValueError).
    """
    o = ORACLE[type(m)]()
    _fill(o, m)
    return o


def _fill(o: Any, m: Any) -> None:
    for fd in o.DESCRIPTOR.fields:
        name = fd.name
        # The slot, not the property: an unset field must stay unset (the
        # property gives its default, or a stand-in for a sub-message, and
        # walking stand-ins never ends on a message that nests its own type).
        value = getattr(m, m._SPEC.by_name[name].slot)
        if fd.is_repeated:
            if value is None:
                continue  # a container never made: empty
            target = getattr(o, name)
            if fd.type == _T.TYPE_MESSAGE:
                for item in value:
                    _fill(target.add(), item)
            elif fd.type in _FLOAT_CODES:
                _fill_floats(o, fd, value)
            elif fd.type == _T.TYPE_STRING:
                for item in value:
                    _fill_string(o, fd, item, target.append)
            else:
                target.extend(value)
        elif value is None:
            continue
        elif fd.type == _T.TYPE_MESSAGE:
            sub = getattr(o, name)
            sub.SetInParent()
            _fill(sub, value)
        elif fd.type == _T.TYPE_STRING and isinstance(value, str):
            _fill_string(o, fd, value, functools.partial(setattr, o, name))
        else:
            setattr(o, name, value)
    if m.unknown_fields:
        o.MergeFromString(bytes(m.unknown_fields))


def _fill_string(o: Any, fd: Any, value: str, put: Any) -> None:
    try:
        put(value)
    except UnicodeEncodeError:
        # A str that carries raw bytes (U+DC80..U+DCFF, surrogateescape): the
        # oracle API refuses it, so merge the raw field instead (a repeated
        # field's merged element goes last, where ``put`` would have put it).
        o.MergeFromString(wk.f_len(fd.number, value.encode("utf-8", "surrogateescape")))


def _fill_floats(o: Any, fd: Any, value: Any) -> None:
    code = _FLOAT_CODES[fd.type]
    if isinstance(value, array):
        raw = value.tobytes()
        if array(code, list(value)).tobytes() != raw:
            # Signalling NaNs: a Python float would quiet them.  Merge the
            # exact bits as one packed field (built here, not by onnxdata).
            o.MergeFromString(wk.f_len(fd.number, raw))
            return
        value = list(value)
    getattr(o, fd.name).extend(value)


# --------------------------------------------------------------------------
# comparing


def oracle_unknown_fields(o: Any) -> bytes:
    """The raw unknown fields of the oracle message ``o`` (this level only)."""
    copy = type(o)()
    copy.CopyFrom(o)
    for fd in copy.DESCRIPTOR.fields:
        copy.ClearField(fd.name)
    return copy.SerializeToString()


def oracle_float_bits(o: Any, name: str) -> bytes:
    """The exact bits the oracle holds in the packed float field ``name``."""
    if not len(getattr(o, name)):
        return b""
    copy = type(o)()
    copy.CopyFrom(o)
    for fd in copy.DESCRIPTOR.fields:
        if fd.name != name:
            copy.ClearField(fd.name)
    data = copy.SerializeToString()
    # Drop the unknown fields (written last); what is left is the field, packed
    # (one length-delimited payload) or unpacked (one fixed-width field per
    # value, as proto2 writes AttributeProto.floats), as the .proto says.
    data = data[: len(data) - len(oracle_unknown_fields(o))]
    fields = wk.parse_fields(data)
    number = o.DESCRIPTOR.fields_by_name[name].number
    assert {f.number for f in fields} == {number}, fields
    packed = o.DESCRIPTOR.fields_by_name[name].is_packed
    assert all((f.wire_type == wk.LEN) == packed for f in fields), (name, fields)
    return b"".join(f.value for f in fields)


def float_bits(values: Any, code: str) -> bytes:
    if isinstance(values, array) and values.typecode == code:
        return values.tobytes()
    return array(code, values).tobytes()


def _string_bytes(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def assert_same(ours: Any, o: Any, path: str | None = None) -> None:
    """Every field value of the decoded message ``ours`` equals the oracle's ``o``.

    Also checks the types a decoded message holds: ``bytes`` (never a view
    into the input), ``str``, ``int`` (never ``bool``).
    """
    assert OURS[type(o)] is type(ours), (type(ours), type(o))
    path = path or type(ours).__name__
    for fd in o.DESCRIPTOR.fields:
        name = fd.name
        where = f"{path}.{name}"
        mine = getattr(ours, name)
        theirs = getattr(o, name)
        if fd.is_repeated:
            if fd.type == _T.TYPE_MESSAGE:
                assert len(mine) == len(theirs), where
                for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
                    assert_same(a, b, f"{where}[{i}]")
            elif fd.type in _FLOAT_CODES:
                code = _FLOAT_CODES[fd.type]
                assert float_bits(mine, code) == oracle_float_bits(o, name), where
            elif fd.type == _T.TYPE_BYTES:
                assert [bytes(x) for x in mine] == list(theirs), where
                assert all(type(x) is bytes for x in mine), where
            elif fd.type == _T.TYPE_STRING:
                # invalid UTF-8: ours a str with U+DC80..U+DCFF, theirs bytes
                assert all(type(x) is str for x in mine), where
                raw = [x.encode("utf-8", "surrogateescape") for x in mine]
                assert raw == [_string_bytes(x) for x in theirs], where
            else:
                assert list(mine) == list(theirs), where
            continue
        present = o.HasField(name)
        assert ours.HasField(name) == present, f"{where}: presence {mine!r} vs {present}"
        if fd.type == _T.TYPE_MESSAGE:
            if present:
                assert_same(mine, theirs, where)
            else:
                # Both read as an empty message; walking further would never
                # end on a message that nests its own type (optional_value).
                assert mine == type(ours)._SPEC.by_name[name].message(), where
                assert theirs.ByteSize() == 0 and mine.encode() == b"", where
        elif fd.type == _T.TYPE_STRING:
            assert isinstance(mine, str), where
            assert mine.encode("utf-8", "surrogateescape") == _string_bytes(theirs), where
            if isinstance(theirs, str):
                assert mine == theirs, where
        elif fd.type == _T.TYPE_BYTES:
            assert type(mine) is bytes and mine == theirs, where
        elif fd.type in _FLOAT_CODES:  # by the bits: NaN, -0.0
            assert type(mine) is float, where
            assert float_bits([mine], _FLOAT_CODES[fd.type]) == float_bits(
                [theirs], _FLOAT_CODES[fd.type]
            ), where
        else:
            assert type(mine) is not bool and mine == theirs, where
    assert type(ours.unknown_fields) is bytes, f"{path}.unknown_fields"
    assert ours.unknown_fields == oracle_unknown_fields(o), f"{path}.unknown_fields"


# --------------------------------------------------------------------------
# the decode contract


def oracle_parse(cls: type, data: bytes) -> Any | None:
    """The oracle's parse of ``data`` as ``cls`` (an onnxdata class), None if rejected."""
    try:
        return ORACLE[cls].FromString(data)
    except OracleDecodeError:
        return None


def check_decode(cls: type, data: Any) -> Any:
    """onnxdata and the oracle agree on ``data`` decoded as ``cls``.

    Returns the decoded onnxdata message, or None when both reject the input.
    Any exception from onnxdata other than DecodeError propagates and fails.
    """
    raw = bytes(data)
    o = oracle_parse(cls, raw)
    # The decoder reads ``bytes`` directly and any other buffer through a
    # memoryview: both must give the same result.
    other = bytearray(raw) if type(data) is bytes else raw
    if o is None:
        with pytest.raises(onnxdata.DecodeError) as info:
            cls.decode(data)
        err = info.value
        assert isinstance(err.offset, int) and 0 <= err.offset <= len(raw), err.offset
        assert isinstance(err.path, str) and isinstance(err.reason, str)
        assert str(err) == (f"{err.path}: {err.reason}" if err.path else err.reason)
        with pytest.raises(onnxdata.DecodeError) as again:
            cls.decode(other)
        assert (again.value.offset, again.value.path) == (err.offset, err.path)
        return None
    ours = cls.decode(data)
    assert type(ours) is cls
    assert ours.encode() == o.SerializeToString()
    assert_same(ours, o)
    via_view = cls.decode(other)
    assert via_view == ours
    assert via_view.encode() == ours.encode()
    return ours


# --------------------------------------------------------------------------
# the two implementations of packed varints

VARINT_PATHS = ("default", "python", "numpy", "loop")


@contextlib.contextmanager
def varint_path(kind: str) -> Iterator[None]:
    """Run the codec with one implementation of packed varints.

    ``"python"`` hides numpy from the codec (as in a program that never
    imported numpy) and lowers the thresholds of the standard library's block
    code (_codec/lanes.py) so even a one-value payload takes it; ``"loop"`` hides
    numpy and turns the block code off, leaving the per-value loops;
    ``"numpy"`` lowers the size thresholds so even a two-value payload takes
    the vectorised path; ``"default"`` changes nothing.
    """
    saved = (npvarints.MIN_BYTES, npvarints.MIN_VALUES, npvarints.numpy)
    saved_lanes = (lanes.MIN_BYTES, lanes.MIN_VALUES)
    try:
        if kind in ("python", "loop"):
            npvarints.numpy = lambda: None  # type: ignore[assignment]
            size = 1 if kind == "python" else 1 << 62
            lanes.MIN_BYTES = lanes.MIN_VALUES = size
        elif kind == "numpy":
            npvarints.MIN_BYTES = 1
            npvarints.MIN_VALUES = 1
        yield
    finally:
        (npvarints.MIN_BYTES, npvarints.MIN_VALUES, npvarints.numpy) = saved  # type: ignore[assignment]
        lanes.MIN_BYTES, lanes.MIN_VALUES = saved_lanes
