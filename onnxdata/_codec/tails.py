"""Nested lists and optionals read in one frame: the tail fast path.

A field declared ``runs="tail"`` holds the message's own type (a sequence's
sequences, an optional's optional).  An element of it that runs to the end
of its message is read on in the same frame: nothing of the message follows
it, so ``msg`` becomes the element and the loop goes on, a nested list
costing no call a level (:data:`TAIL_TEST`).  The levels below it that
encoders write alike are read by one test each (:func:`chain`).  An error's
path then names the elements between the call's message and ``msg``
(:func:`tail_path`).

:func:`chain` is the one inline read of the wire written by hand outside
``_core/wire.py`` and ``_core/inline.py``: its test reads a level's head
value and its tail's one- or two-byte length together and stops (never
raises) at anything else.  Written instead from ``inline.py``'s varint and
length reads (each a branch, the position stepped between them), the chain
measured 8-10 % slower on the ``nested50`` workload (decode, with and without
numpy; CPU time, interleaved fresh processes, best of 7).
"""

from __future__ import annotations

from .._core.codegen import indent
from .._core.errors import DecodeError
from .._core.schema import KINDS, MessageSpec
from .._core.wire import LEN, MAX_DEPTH, read_varint

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = [
    "TAIL_LOCATED",
    "TAIL_PROLOGUE",
    "TAIL_STRAY",
    "TAIL_TEST",
    "chain",
    "int_tag",
    "tail_field",
    "tail_path",
]

# The loop's parts for a message with a tail field (TAIL_FIELD): an error's
# path names the elements between ``top``, this call's message, and ``msg``.
TAIL_PROLOGUE = "    top = msg  # ``msg`` becomes an element that runs to the end\n"
TAIL_LOCATED = "        if msg is not top:\n            tail_path(err, top, msg, TAIL_FIELD)\n"
TAIL_STRAY = """\
        err = stray(exc, pos)
        if msg is not top:
            tail_path(err, top, msg, TAIL_FIELD)
        raise err from exc
"""

# An element of TAIL_FIELD that runs to the end of its message is read on in
# the same frame: nothing of this message follows it, so ``msg`` becomes the
# element and the loop goes on (a nested list costs no call a level).  Not
# after an unknown field, whose bytes still belong to this message.
TAIL_TEST = "if pos + n == end and run_end < 0:  # the rest of this message"


def tail_field(spec: MessageSpec) -> FieldSpec | None:
    """The field of ``spec`` declared ``runs="tail"``, if any: its elements
    that end the message are read in the same frame (see ``TAIL_TEST``).

    Raises:
        ValueError: the field does not hold ``spec``'s own type (the loop
            could not read it), or two are marked (an error could not tell
            which one the chain went through).
    """
    marked = [f for f in spec.fields if f.runs == "tail"]
    if not marked:
        return None
    if len(marked) > 1 or marked[0].message is not spec.cls:
        raise ValueError(f"{spec.name}: a tail field must be the one of its own message type")
    return marked[0]


def chain(spec: MessageSpec, f: FieldSpec, blank: str) -> str:
    """The loop that reads on down a chain of tail elements, after ``msg``
    became one: nested lists and optionals, a level at a time.

    A level of the chain is a message written as every encoder writes a
    nested list's element: the one-byte tag and one-byte value of its
    head field (:func:`chain_head`: the element type), then its tail element
    (a tag and a one- or two-byte length) running to the end.  The loop
    tests those bytes at once and makes the level's objects, where the
    general loop reads two tags and tests each against the fields; at any
    other bytes (a name, an unknown field, a longer value, the leaf) it
    stops and the general loop reads on from the same offset.  It stores
    what the general loop would, and never raises: its reads stay before
    ``end`` and the depth it spends is checked first.
    """
    head = chain_head(spec, f)
    if head is None:
        return "pass"
    head_bytes, tail_bytes = head.tag_for(KINDS[head.kind].wire_type), f.tag_for(LEN)
    if len(head_bytes) > 1 or len(tail_bytes) > 1:  # the test reads one-byte tags only
        return "pass"
    head_tag, tail_tag = head_bytes[0], tail_bytes[0]
    made = (
        f"values = msg.{f.slot} = list_{f.name}()\n{blank}\nvalues.append(sub)"
        if f.repeated
        else f"{blank}\nmsg.{f.slot} = sub"
    )
    # The tail's tag first: where the chain ends (at a leaf) it is the test that fails.
    test = f"end - pos > 3 and buf[pos + 2] == {tail_tag} and buf[pos] == {head_tag} and depth > 0"
    return f"while {test}:\n" + indent(
        "v = buf[pos + 1]\n"
        "n = buf[pos + 3]\n"
        "k = pos + 4  # the element's first byte\n"
        "if n >= 0x80:\n"
        "    m = buf[k] if k < end else 0x80\n"
        "    n = n & 0x7F | m << 7\n"
        "    k += 1\n"
        "    if m >= 0x80:\n"
        "        break\n"
        "if v >= 0x80 or k + n != end:\n"
        "    break\n"
        f"msg.{head.slot} = v\n{made}\nmsg = sub\ndepth -= 1\npos = k"
    )


def chain_head(spec: MessageSpec, tail: FieldSpec) -> FieldSpec | None:
    """The field written before ``tail`` in a level of a chain (see
    :func:`chain`): the one singular integer field numbered below it
    (the element type), whose one-byte values are stored as read.  None if
    there is no such field, or more than one."""
    heads = [
        g
        for g in spec.fields
        if g.number < tail.number and not g.repeated and g.kind in ("int32", "int64", "uint64")
    ]
    return heads[0] if len(heads) == 1 else None


def tail_path(err: DecodeError, top: Any, msg: Any, f: FieldSpec) -> None:
    """Add to ``err``'s path the elements of ``f`` from ``top`` down to ``msg``,
    each the last of its message (as the calls of a recursive decode would)."""
    parts = []
    held = top
    for _ in range(MAX_DEPTH + 1):  # the chain is never longer: its depth was checked
        if held is msg:
            break
        held = getattr(held, f.slot)
        if f.repeated:
            parts.append(f"{f.name}[{len(held) - 1}]")
            held = held[-1]
        else:
            parts.append(f.name)
    for part in reversed(parts):
        err.within(part)


def int_tag(tag: bytes) -> int:
    """An encoded tag as the integer the generated loop compares ``tag`` with."""
    v, _ = read_varint(tag, 0, len(tag))
    return v
