"""Every fast path of the codec, in one registry.

Each :class:`FastPath` names what asks for it (a declaration option, such as
``runs="tail"``, or a field kind: every field of the kind takes it), the
generator that writes it, the general path it must equal, and the text only
its generated code holds.  The tests take the registry
(``tests/codec/test_general_paths.py``): for each entry they find the
messages whose declarations take it, check that the fast sources hold its
text and the general ones (``ONNXDATA_GENERAL_PATHS=1``) none, and compare
the two paths on random messages and mutations of their bytes.  A fast path
added here is so compared with no new test; one left out fails
``test_every_fast_path_is_registered``.

Nothing imports this module while decoding or encoding: it is the list the
tests, ``docs/architecture.md`` and a maintainer read.
"""

from __future__ import annotations

from typing import NamedTuple

from .._core.schema import BYTES, ENUM, INT32, INT64, MESSAGE, STRING, UINT64
from . import runs, tails, varints
from .blocks import FIELDS

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec

__all__ = ["DECODE", "ENCODE", "PATHS", "FastPath"]

DECODE = "decode"
ENCODE = "encode"

_INTS = (INT32, INT64, UINT64)


class FastPath(NamedTuple):
    """One fast path: what asks for it, what writes it, what it must equal.

    ``option`` is the declaration option that asks for it (``field(...,
    runs="tail")``), or ``""`` when every field of ``kinds`` takes it.
    ``takes(spec, f)`` says whether field ``f`` of message ``spec`` takes it.
    ``generator`` writes it; ``general`` is the general path it must equal,
    ``None`` where that is the same writer with ``fast`` off (``blocks.py``).
    ``marks`` are pieces of text only its generated code holds (none for a
    path that changes only the order of the branches, or that is no
    generated code).
    """

    title: str
    side: str
    option: str
    generator: Callable[..., Any]
    takes: Callable[[MessageSpec, FieldSpec], bool]
    general: Callable[..., Any] | None = None
    kinds: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()


def _one_byte(f: FieldSpec) -> bool:
    return len(f.tag) == 1


PATHS: tuple[FastPath, ...] = (
    # -- declared: options of field() -------------------------------------------
    FastPath(
        "tested first",
        side=DECODE,
        option="first=True",
        generator=FIELDS[INT64].decode,  # only the order of the branches changes
        takes=lambda spec, f: f.first,
    ),
    FastPath(
        "tested last",
        side=DECODE,
        option="last=True",
        generator=FIELDS[STRING].decode,
        takes=lambda spec, f: f.last,
    ),
    FastPath(
        "unpacked varint runs",
        side=DECODE,
        option='runs="varints"',
        generator=runs.varint_run,
        general=FIELDS[INT64].decode,
        takes=lambda spec, f: f.runs == "varints",
        marks=("varint_run(",),
    ),
    FastPath(
        "tails of nested lists and optionals",
        side=DECODE,
        option='runs="tail"',
        generator=tails.chain,
        general=FIELDS[MESSAGE].decode,
        takes=lambda spec, f: f.runs == "tail",
        marks=("msg = sub", "while end - pos > 3"),
    ),
    FastPath(
        "elements sharing a head",
        side=DECODE,
        option="runs=(fields...)",
        generator=runs.head_runner,
        general=FIELDS[MESSAGE].decode,
        takes=lambda spec, f: isinstance(f.runs, tuple),
        marks=("pos = run_",),
    ),
    FastPath(
        "one-byte varints inline",
        side=DECODE,
        option="",
        kinds=(*_INTS, ENUM),
        generator=FIELDS[INT64].decode,
        takes=lambda spec, f: f.kind in (*_INTS, ENUM) and not (f.repeated and f.typecode),
        marks=("if v < 0x80",),
    ),
    FastPath(
        "closed enums' one-byte values",
        side=DECODE,
        option="",
        kinds=(ENUM,),
        generator=FIELDS[ENUM].decode,
        takes=lambda spec, f: f.kind == ENUM,
        marks=("in short_",),
    ),
    FastPath(
        "strings inline, runs of strings",
        side=DECODE,
        option="",
        kinds=(STRING,),
        generator=FIELDS[STRING].decode,
        takes=lambda spec, f: f.kind == STRING,
        marks=("if n < 0x80",),
    ),
    FastPath(
        "lengths inline, sub-messages made inline",
        side=DECODE,
        option="",
        kinds=(BYTES, MESSAGE),
        generator=FIELDS[MESSAGE].decode,
        takes=lambda spec, f: (
            f.kind in (BYTES, MESSAGE) and not (f.repeated and (f.kind == BYTES or _one_byte(f)))
        ),
        marks=("if n < 0x80",),
    ),
    FastPath(
        "runs of bytes entries (short ones through the unpickler)",
        side=DECODE,
        option="",
        kinds=(BYTES,),
        generator=FIELDS[BYTES].decode,
        takes=lambda spec, f: f.kind == BYTES and f.repeated and _one_byte(f),
        marks=("= strings(",),
    ),
    FastPath(
        "sub-messages: runs of elements",
        side=DECODE,
        option="",
        kinds=(MESSAGE,),
        generator=FIELDS[MESSAGE].decode,
        takes=lambda spec, f: f.kind == MESSAGE and f.repeated and _one_byte(f),
        marks=("while True:\n" + " " * 20,),  # a run's loop, inside a branch
    ),
    FastPath(
        "packed varints: numpy, big-integer lanes",
        side=DECODE,
        option="",
        kinds=_INTS,
        generator=varints.decode_into_array,  # takes them unless the switch is set
        general=varints.read_each,
        takes=lambda spec, f: f.kind in _INTS and f.repeated,
    ),
    # -- the encoder --------------------------------------------------------------
    FastPath(
        "small integers from a table",
        side=ENCODE,
        option="",
        kinds=_INTS,
        generator=FIELDS[INT64].encode,
        takes=lambda spec, f: f.kind in _INTS and not f.repeated and _one_byte(f),
        marks=("TAGGED_", "INTS"),
    ),
    FastPath(
        "short integer lists remembered",
        side=ENCODE,
        option="",
        kinds=_INTS,
        generator=FIELDS[INT64].encode,
        takes=lambda spec, f: (
            f.kind in _INTS and f.repeated and f.typecode is None and _one_byte(f)
        ),
        marks=("seen_", "small_unpacked("),
    ),
    FastPath(
        "short bytes values after a head from a table",
        side=ENCODE,
        option="",
        kinds=(BYTES,),
        generator=FIELDS[BYTES].encode,
        takes=lambda spec, f: f.kind == BYTES and not f.repeated and _one_byte(f),
        marks=("len(v) < 0x80",),
    ),
    FastPath(
        "bytes entries a chunk at a time",
        side=ENCODE,
        option="",
        kinds=(BYTES,),
        generator=FIELDS[BYTES].encode,
        takes=lambda spec, f: f.kind == BYTES and f.repeated,
        marks=("bytes_list(",),
    ),
    FastPath(
        "repeated messages' loop written out",
        side=ENCODE,
        option="",
        kinds=(MESSAGE,),
        generator=FIELDS[MESSAGE].encode,
        takes=lambda spec, f: f.kind == MESSAGE and f.repeated,
        marks=("HEADS_",),
    ),
)
"""Every fast path, declared ones first."""
