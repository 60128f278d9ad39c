"""One input, two decoders: onnxdata against protobuf's upb parser (the oracle).

:func:`compare` is the whole contract the fuzz targets and the CI differential
run check, with no pytest and no atheris, so a finding replays in a plain
``python`` shell:

* both accept or both reject (onnxdata with :class:`onnxdata.DecodeError`,
  nothing else; the oracle with ``google.protobuf.message.DecodeError``);
* when both reject, the error is well formed: ``offset`` inside the input,
  ``path`` starting with the message type, ``str(err) == f"{path}: {reason}"``;
* when both accept, onnxdata re-encodes to the oracle's bytes, every field
  value matches (:func:`oracle.assert_same`: presence, int values, float bits,
  string bytes, unknown fields at every level), and decoding onnxdata's own
  output gives an equal message.

The buffer type (bytes, bytearray, memoryview), the packed-varint
implementation (``oracle.VARINT_PATHS``: default; numpy hidden, big-int lanes at
every size; numpy at every size; numpy hidden, the plain loop) and whether to
decode a second time with ``copy=False`` (views on the input; it must give the
same error or an equal message that re-encodes the same) are picked from a
CRC of the input, so each input always replays the same way and the fuzzer
still reaches every decoder path.
"""

from __future__ import annotations

import inspect
import sys
import zlib
from pathlib import Path
from typing import Any

from google.protobuf.message import DecodeError as OracleDecodeError

import onnxdata
from tests.support.oracle import MESSAGE_TYPES, ORACLE, VARINT_PATHS, assert_same, varint_path

BY_NAME: dict[str, type] = {cls.__qualname__: cls for cls in MESSAGE_TYPES}
# Short names for the command line and the corpus directories.
SHORT: dict[str, type] = {
    "tensor": onnxdata.TensorProto,
    "segment": onnxdata.TensorProto.Segment,
    "entry": onnxdata.StringStringEntryProto,
    "sparse": onnxdata.SparseTensorProto,
    "sequence": onnxdata.SequenceProto,
    "map": onnxdata.MapProto,
    "optional": onnxdata.OptionalProto,
}
BUFFERS = ("bytes", "bytearray", "memoryview")
# decode(..., copy=False) keeps views on the input instead of copies, where the build has it.
HAS_COPY = "copy" in inspect.signature(onnxdata.TensorProto.decode).parameters


class Divergence(AssertionError):  # noqa: N818 - a test failure, not an error
    """onnxdata and the oracle disagree on one input."""


def variant(data: bytes) -> tuple[str, str, bool]:
    """(buffer type, packed-varint path, also decode with copy=False?) for ``data``.

    Fixed per input, so a finding replays the same way.
    """
    crc = zlib.crc32(data)
    paths = len(VARINT_PATHS)
    path = VARINT_PATHS[(crc // 3) % paths]
    return BUFFERS[crc % 3], path, HAS_COPY and (crc // (3 * paths)) % 2 == 1


def _as(kind: str, data: bytes) -> Any:
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(data)
    return data


def oracle_parse(cls: type, data: bytes) -> Any | None:
    try:
        return ORACLE[cls].FromString(data)
    except OracleDecodeError:
        return None


def compare(cls: type, data: bytes, kind: str | None = None, path: str | None = None) -> bool:
    """Check the contract on ``data`` decoded as ``cls``; True if both accepted it.

    Raises :class:`Divergence` on a disagreement; any exception onnxdata
    raises other than ``DecodeError`` propagates unchanged.
    """
    data = bytes(data)
    auto_kind, auto_path, views = variant(data)
    kind = kind or auto_kind
    path = path or auto_path
    o = oracle_parse(cls, data)
    name = cls.__qualname__
    with varint_path(path):
        try:
            ours = cls.decode(_as(kind, data))
        except onnxdata.DecodeError as err:
            if o is not None:
                raise Divergence(
                    f"{name}: onnxdata rejects ({err}), the oracle accepts: {data.hex()}"
                ) from err
            _check_error(err, name, data)
            if views:
                _check_views(cls, data, kind, err)
            return False
        if o is None:
            raise Divergence(f"{name}: onnxdata accepts, the oracle rejects: {data.hex()}")
        mine = ours.encode()
        theirs = o.SerializeToString()
        if mine != theirs:
            raise Divergence(
                f"{name}: re-encoded bytes differ for input {data.hex()}:\n"
                f"  onnxdata {mine.hex()}\n  oracle   {theirs.hex()}"
            )
        try:
            assert_same(ours, o)
        except AssertionError as exc:
            raise Divergence(f"{name}: field values differ ({exc}) for {data.hex()}") from exc
        again = cls.decode(mine)
        if again != ours:
            raise Divergence(f"{name}: decode(encode(m)) != m for {data.hex()}")
        if views:
            _check_views(cls, data, kind, ours)
    return True


def _check_views(cls: type, data: bytes, kind: str, expected: Any) -> None:
    """``decode(copy=False)`` agrees with the copying decode: same error, or an equal message."""
    name = cls.__qualname__
    try:
        viewed = cls.decode(_as(kind, data), copy=False)
    except onnxdata.DecodeError as err:
        if not isinstance(expected, onnxdata.DecodeError):
            raise Divergence(  # noqa: B904 - the error is in the message
                f"{name}: copy=False rejects ({err}), copy=True accepts: {data.hex()}"
            )
        if (err.offset, err.path, err.reason) != (expected.offset, expected.path, expected.reason):
            raise Divergence(  # noqa: B904 - both errors are in the message
                f"{name}: copy=False error {err} != copy=True {expected}: {data.hex()}"
            )
        return
    if isinstance(expected, onnxdata.DecodeError):
        raise Divergence(f"{name}: copy=False accepts, copy=True rejects: {data.hex()}")
    if viewed != expected or viewed.encode() != expected.encode():
        raise Divergence(f"{name}: copy=False decodes differently: {data.hex()}")


def _check_error(err: onnxdata.DecodeError, name: str, data: bytes) -> None:
    problems = []
    if type(err.offset) is not int or not 0 <= err.offset <= len(data):
        problems.append(f"offset {err.offset!r} outside 0..{len(data)}")
    if not isinstance(err.path, str) or not (err.path == name or err.path.startswith(name + ".")):
        problems.append(f"path {err.path!r} does not start with {name}")
    if str(err) != f"{err.path}: {err.reason}":
        problems.append(f"str(err) {str(err)!r} is not 'path: reason'")
    if "malformed input near offset" in err.reason:  # the decoder's last line of defence
        problems.append("a stray exception was converted")
    if problems:
        raise Divergence(f"{name}: bad DecodeError {err!r} for {data.hex()}: {'; '.join(problems)}")


def main(argv: list[str]) -> int:
    """Replay files: ``python -m tests.fuzz.differential TYPE FILE...`` (TYPE: tensor, map, ...)."""
    if len(argv) < 2 or argv[0] not in SHORT:
        print(f"usage: differential {{{','.join(SHORT)}}} FILE...", file=sys.stderr)
        return 2
    cls = SHORT[argv[0]]
    for f in argv[1:]:
        data = Path(f).read_bytes()
        accepted = compare(cls, data)
        print(f"{f}: {'both accept' if accepted else 'both reject'} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
