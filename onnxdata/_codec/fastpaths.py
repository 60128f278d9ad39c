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

from .._core.schema import BYTES, ENUM, INT32, INT64, MESSAGE, STRING, UINT64
from . import blocks, runs, small, tails, varints, writers

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec

__all__ = ["DECODE", "ENCODE", "PATHS", "FastPath"]

DECODE = "decode"
ENCODE = "encode"

_INTS = (INT32, INT64, UINT64)


class FastPath:
    """One fast path: what asks for it, what writes it, what it must equal.

    ``option`` is the declaration option that asks for it (``field(...,
    runs="tail")``), or ``""`` when every field of ``kinds`` takes it.
    ``takes(spec, f)`` says whether field ``f`` of message ``spec`` takes it;
    ``marks`` are pieces of text only its generated code holds (none for a
    path that changes only the order of the branches, or that is no
    generated code).
    """

    __slots__ = ("general", "generator", "kinds", "marks", "option", "side", "takes", "title")

    def __init__(
        self,
        title: str,
        *,
        side: str,
        option: str,
        generator: Callable[..., Any],
        general: Callable[..., Any],
        takes: Callable[[MessageSpec, FieldSpec], bool],
        kinds: tuple[str, ...] = (),
        marks: tuple[str, ...] = (),
    ) -> None:
        self.title = title
        self.side = side
        self.option = option
        self.generator = generator
        self.general = general
        self.takes = takes
        self.kinds = kinds
        self.marks = marks

    def __repr__(self) -> str:
        return f"FastPath({self.title!r}, {self.side}, option={self.option!r})"


def _one_byte(f: FieldSpec) -> bool:
    return len(f.tag) == 1


PATHS: tuple[FastPath, ...] = (
    # -- declared: options of field() -------------------------------------------
    FastPath(
        "tested first",
        side=DECODE,
        option="first=True",
        generator=blocks.FAST[INT64],  # only the order of the branches changes
        general=blocks.GENERAL[INT64],
        takes=lambda spec, f: f.first,
    ),
    FastPath(
        "tested last",
        side=DECODE,
        option="last=True",
        generator=blocks.FAST[STRING],
        general=blocks.GENERAL[STRING],
        takes=lambda spec, f: f.last,
    ),
    FastPath(
        "unpacked varint runs",
        side=DECODE,
        option='runs="varints"',
        generator=runs.varint_run,
        general=blocks.GENERAL[INT64],
        takes=lambda spec, f: f.runs == "varints",
        marks=("varint_run(",),
    ),
    FastPath(
        "tails of nested lists and optionals",
        side=DECODE,
        option='runs="tail"',
        generator=tails.chain,
        general=blocks.GENERAL[MESSAGE],
        takes=lambda spec, f: f.runs == "tail",
        marks=("msg = sub", "while end - pos > 3"),
    ),
    FastPath(
        "elements sharing a head",
        side=DECODE,
        option="runs=(fields...)",
        generator=runs.head_runner,
        general=blocks.GENERAL[MESSAGE],
        takes=lambda spec, f: isinstance(f.runs, tuple),
        marks=("pos = run_",),
    ),
    FastPath(
        "small elements made inline",
        side=DECODE,
        option='runs="small"',
        generator=small.small_element,
        general=blocks.GENERAL[MESSAGE],
        takes=lambda spec, f: f.runs == "small",
        marks=("if n == 2 and buf[pos] == ",),
    ),
    # -- by kind: every field of the kind ---------------------------------------
    FastPath(
        "one-byte varints inline",
        side=DECODE,
        option="",
        kinds=(*_INTS, ENUM),
        generator=blocks.FAST[INT64],
        general=blocks.GENERAL[INT64],
        takes=lambda spec, f: f.kind in (*_INTS, ENUM) and not (f.repeated and f.typecode),
        marks=("if v < 0x80",),
    ),
    FastPath(
        "closed enums' one-byte values",
        side=DECODE,
        option="",
        kinds=(ENUM,),
        generator=blocks.FAST[ENUM],
        general=blocks.GENERAL[ENUM],
        takes=lambda spec, f: f.kind == ENUM,
        marks=("in short_",),
    ),
    FastPath(
        "strings inline, runs of strings",
        side=DECODE,
        option="",
        kinds=(STRING,),
        generator=blocks.FAST[STRING],
        general=blocks.GENERAL[STRING],
        takes=lambda spec, f: f.kind == STRING,
        marks=('str(buf[pos : pos + n], "utf-8", "surrogateescape")', "if n < 0x80"),
    ),
    FastPath(
        "runs of bytes entries (short ones through the unpickler)",
        side=DECODE,
        option="",
        kinds=(BYTES,),
        generator=blocks.FAST[BYTES],
        general=blocks.GENERAL[BYTES],
        takes=lambda spec, f: f.kind == BYTES and f.repeated and _one_byte(f),
        marks=("= strings(",),
    ),
    FastPath(
        "sub-messages: lengths inline, runs of elements",
        side=DECODE,
        option="",
        kinds=(MESSAGE,),
        generator=blocks.FAST[MESSAGE],
        general=blocks.GENERAL[MESSAGE],
        takes=lambda spec, f: f.kind == MESSAGE and f.repeated and _one_byte(f),
        marks=("while True:\n" + " " * 20,),  # a run's loop, inside a branch
    ),
    FastPath(
        "packed varints: numpy, big-integer lanes",
        side=DECODE,
        option="",
        kinds=_INTS,
        generator=varints.decode_into_array,  # takes them unless the switch is set
        general=varints.decode_into_list,
        takes=lambda spec, f: f.kind in _INTS and f.repeated,
    ),
    # -- the encoder --------------------------------------------------------------
    FastPath(
        "small integers from a table",
        side=ENCODE,
        option="",
        kinds=_INTS,
        generator=writers.FAST[INT64],
        general=writers.GENERAL[INT64],
        takes=lambda spec, f: f.kind in _INTS and not f.repeated and _one_byte(f),
        marks=("TAGGED_", "INTS"),
    ),
    FastPath(
        "short integer lists remembered",
        side=ENCODE,
        option="",
        kinds=_INTS,
        generator=writers.FAST[INT64],
        general=writers.GENERAL[INT64],
        takes=lambda spec, f: (
            f.kind in _INTS and f.repeated and f.typecode is None and _one_byte(f)
        ),
        marks=("seen_", "small_unpacked("),
    ),
    FastPath(
        "bytes entries a chunk at a time",
        side=ENCODE,
        option="",
        kinds=(BYTES,),
        generator=writers.FAST[BYTES],
        general=writers.GENERAL[BYTES],
        takes=lambda spec, f: f.kind == BYTES and f.repeated,
        marks=("bytes_list(",),
    ),
    FastPath(
        "repeated messages' loop written out",
        side=ENCODE,
        option="",
        kinds=(MESSAGE,),
        generator=writers.FAST[MESSAGE],
        general=writers.GENERAL[MESSAGE],
        takes=lambda spec, f: f.kind == MESSAGE and f.repeated,
        marks=("HEADS_",),
    ),
)
"""Every fast path, declared ones first."""
