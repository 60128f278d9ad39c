"""The same random sequence of operations on an onnxdata message and on onnx's (upb) one.

A hypothesis state machine keeps one message of each implementation, of one
of the 31 types of onnx-ml.proto and onnx-data.proto, and applies every
operation to both: setting a scalar
(its default included), ``ClearField``, ``Clear``, reading an unset
sub-message and keeping the reference, writing through that reference later,
``CopyFrom``/``MergeFrom``/``SetInParent``/``ParseFromString``/
``MergeFromString``/``DiscardUnknownFields`` on a sub-message (set or not)
or the message itself, the repeated fields' ``append``/``extend``/``add``/
``del``/slice assignment (on a stand-in's repeated fields too), a
constructor with keywords (``None`` and defaults included),
``copy.deepcopy`` and ``dataclasses.replace`` (whose protobuf equivalent is
a copy with the field set or cleared); on a message with a oneof, setting a
member (scalar, or a message member through ``SetInParent`` or a field of
it), ``ClearField`` of the oneof's name, and writing through a member that
is not the one set (it becomes the one set).  Every path is
read anew from the root, through unset sub-messages as onnx code reads them.

After each step, at every level of the message (set sub-messages, repeated
elements, and unset sub-messages read through, two levels deep): ``HasField``
of every singular field, ``WhichOneof`` and ``HasField`` of every oneof, the
value every field reads, ``ListFields`` names, ``ByteSize``,
``SerializeToString`` bytes; ``==`` agrees with protobuf's against the state
before the step, and against an empty message.

Two documented differences are kept out by construction.  ``dataclasses.replace``
cannot tell a default it is given from one it read, so ``replace(t, name="")``
of an unset ``name`` leaves it unset: the machine's protobuf equivalent does
the same.  And protobuf gives the same object to every read of an unset
sub-message, where each read here gives a new stand-in, so two references
read separately and both written differ: the machine keeps one reference at
a time, and drops it when anything but a write through it changes the
message, except for protobuf's rule that ``ClearField``, ``Clear`` and
``ParseFromString`` of its parent unlink it (a rule of its own checks that).
A quirk of upb is kept out too: once a oneof member that is not the one set
has been read, ``ClearField`` of that member clears the member that is set
(without the read it clears nothing); onnxdata clears nothing either way.
"""

from __future__ import annotations

import copy
import dataclasses
import struct
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from onnxdata._core.schema import FieldSpec, spec_of
from tests.support.message_strategies import messages_of, scaled
from tests.support.oracle import ALL_MESSAGE_TYPES, ORACLE, OURS, to_oracle

_INT_BOUNDS = {"int32": 31, "int64": 63}
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=4)
_READ_THROUGH_UNSET = 2  # levels of unset sub-messages read through by the checks


def scalars(f: FieldSpec) -> st.SearchStrategy[Any]:
    """Values of ``f``'s kind that protobuf takes, its default often."""
    kind = f.kind
    if kind in _INT_BOUNDS:
        bits = _INT_BOUNDS[kind]
        values: st.SearchStrategy[Any] = st.integers(-(2**bits), 2**bits - 1)
    elif kind == "uint64":
        values = st.integers(0, 2**64 - 1)
    elif kind == "float":
        values = st.floats(width=32)
    elif kind == "double":
        values = st.floats()
    elif kind == "string":
        values = _TEXT
    elif kind == "bytes":
        values = st.binary(max_size=4)
    elif kind == "enum":
        assert f.enum is not None
        return st.sampled_from(f.enum.values())
    else:  # pragma: no cover - a message field has no scalar values
        raise AssertionError(kind)
    return st.one_of(st.just(f.zero), values)


def _floats_bits(values: Any, code: str) -> bytes:
    return struct.pack(f"<{len(values)}{code}", *values)


def same_value(f: FieldSpec, mine: Any, theirs: Any, where: str) -> None:
    """A scalar field's value as read from both, exactly (floats by their bits)."""
    if f.kind in ("float", "double"):
        code = "f" if f.kind == "float" else "d"
        if f.repeated:
            assert _floats_bits(mine, code) == _floats_bits(theirs, code), where
        else:
            assert struct.pack(code, mine) == struct.pack(code, theirs), where
    elif f.kind == "string" and not f.repeated and type(theirs) is bytes:
        # protobuf reads a parsed string that is not UTF-8 as bytes; onnxdata
        # as a str carrying those bytes (surrogateescape)
        assert type(mine) is str, where
        assert mine.encode("utf-8", "surrogateescape") == theirs, where
    elif f.kind == "string" and f.repeated:  # the same, element by element
        assert all(type(x) is str for x in mine), where
        raw = [x if type(x) is bytes else x.encode("utf-8") for x in theirs]
        assert [x.encode("utf-8", "surrogateescape") for x in mine] == raw, where
    elif f.repeated:
        assert list(mine) == list(theirs), where
        assert [type(x) for x in mine] == [type(x) for x in theirs], where
    else:
        assert type(mine) is type(theirs) and mine == theirs, f"{where}: {mine!r} != {theirs!r}"


def agree(ours: Any, theirs: Any, where: str, unset_depth: int = 0) -> None:
    """Both messages read the same at this level and below."""
    data = theirs.SerializeToString()
    assert ours.SerializeToString() == data, where
    assert ours.ByteSize() == theirs.ByteSize() == len(data), where
    assert [f.name for f, _ in ours.ListFields()] == [fd.name for fd, _ in theirs.ListFields()]
    # A stand-in equals an empty message, as protobuf's default instance does.
    empty = ours._SPEC.cls()
    assert (ours == empty) == (empty == ours) == (theirs == type(theirs)()), where
    for name in ours._SPEC.oneofs:
        assert ours.WhichOneof(name) == theirs.WhichOneof(name), f"{where}: oneof {name}"
        assert ours.HasField(name) == theirs.HasField(name), f"{where}: oneof {name}"
    for f in ours._SPEC.fields:
        at = f"{where}.{f.name}"
        mine, other = getattr(ours, f.name), getattr(theirs, f.name)
        if f.repeated:
            assert len(mine) == len(other), at
            if f.kind == "message":
                for i, (a, b) in enumerate(zip(mine, other, strict=True)):
                    agree(a, b, f"{at}[{i}]", unset_depth)
            else:
                same_value(f, mine, other, at)
            continue
        present = theirs.HasField(f.name)
        assert ours.HasField(f.name) == present, at
        if f.kind != "message":
            same_value(f, mine, other, at)
        elif present:
            agree(mine, other, at, unset_depth)
        elif unset_depth < _READ_THROUGH_UNSET:
            agree(mine, other, at, unset_depth + 1)
    if unset_depth == 0:
        # Reading through unset sub-messages set nothing.
        assert ours.SerializeToString() == data, f"{where}: reading changed the message"


def _message_fields(cls: type, *, repeated: bool | None = None) -> list[FieldSpec]:
    return [
        f
        for f in spec_of(cls).fields
        if f.kind == "message" and (repeated is None or f.repeated == repeated)
    ]


class Parity(RuleBasedStateMachine):
    """onnxdata's message and onnx's, changed alike, read alike."""

    def __init__(self) -> None:
        super().__init__()
        self.ours: Any = None
        self.theirs: Any = None
        self.kept: tuple[Any, Any] | None = None
        self.before: tuple[Any, Any] | None = None

    @initialize(cls=st.sampled_from(ALL_MESSAGE_TYPES))
    def start(self, cls: type) -> None:
        self.ours, self.theirs = cls(), ORACLE[cls]()

    # -- where an operation applies ------------------------------------------

    def walk(self, data: st.DataObject) -> tuple[Any, Any]:
        """A message inside the root, read from the root as onnx code reads it:
        through set and unset sub-messages and repeated elements."""
        ours, theirs = self.ours, self.theirs
        for _ in range(data.draw(st.integers(0, 3), label="depth")):
            fields = _message_fields(type(ours))
            if not fields:
                break
            f = data.draw(st.sampled_from(fields), label="through")
            if f.repeated:
                count = len(getattr(theirs, f.name))
                if not count:
                    break
                i = data.draw(st.integers(0, count - 1), label="index")
                ours, theirs = getattr(ours, f.name)[i], getattr(theirs, f.name)[i]
            else:
                ours, theirs = getattr(ours, f.name), getattr(theirs, f.name)
        return ours, theirs

    def target(self, data: st.DataObject) -> tuple[Any, Any]:
        """The kept reference now and then, else a message walked to.  Anything
        written elsewhere than through the kept reference drops it: protobuf
        would then differ only by the documented difference."""
        if self.kept is not None and data.draw(st.booleans(), label="through the kept one"):
            return self.kept
        self.kept = None
        return self.walk(data)

    def source(self, data: st.DataObject, cls: type) -> tuple[Any, Any]:
        cls = OURS.get(cls, cls)._SPEC.cls  # a stand-in's class is its message's
        mine = data.draw(messages_of(cls, 2, False), label="source")
        return mine, to_oracle(mine)

    # -- the operations ---------------------------------------------------------

    @rule(data=st.data())
    def set_scalar(self, data: st.DataObject) -> None:
        ours, theirs = self.target(data)
        fields = [f for f in ours._SPEC.fields if not f.repeated and f.kind != "message"]
        if not fields:
            return
        f = data.draw(st.sampled_from(fields), label="field")
        value = data.draw(scalars(f), label="value")
        setattr(theirs, f.name, value)
        setattr(ours, f.name, value)

    @rule(data=st.data())
    def clear_field(self, data: st.DataObject) -> None:
        ours, theirs = self.target(data)
        f = data.draw(st.sampled_from(ours._SPEC.fields), label="field")
        theirs.ClearField(f.name)
        ours.ClearField(f.name)

    @rule(data=st.data())
    def set_a_oneof_member(self, data: st.DataObject) -> None:
        """A member set (a scalar, its default included; a message member by
        ``SetInParent`` or by a field of it): it becomes the one set."""
        ours, theirs = self.target(data)
        members = [f for fs in ours._SPEC.oneofs.values() for f in fs]
        if not members:
            return
        f = data.draw(st.sampled_from(members), label="member")
        if f.kind != "message":
            value = data.draw(scalars(f), label="value")
            setattr(theirs, f.name, value)
            setattr(ours, f.name, value)
            return
        mine, other = getattr(ours, f.name), getattr(theirs, f.name)
        scalar = [g for g in mine._SPEC.fields if not g.repeated and g.kind != "message"]
        if scalar and data.draw(st.booleans(), label="through a field"):
            g = data.draw(st.sampled_from(scalar), label="member's field")
            value = data.draw(scalars(g), label="value")
            setattr(other, g.name, value)
            setattr(mine, g.name, value)
        else:
            other.SetInParent()
            mine.SetInParent()

    @rule(data=st.data())
    def clear_a_oneof(self, data: st.DataObject) -> None:
        ours, theirs = self.target(data)
        if ours._SPEC.oneofs:
            name = data.draw(st.sampled_from(sorted(ours._SPEC.oneofs)), label="oneof")
            theirs.ClearField(name)
            ours.ClearField(name)

    @rule(data=st.data())
    def keep_a_member_not_set(self, data: st.DataObject) -> None:
        """A reference to a message member other than the one set, kept to be
        written through later (``set_scalar`` and friends on the kept one)."""
        ours, theirs = self.walk(data)
        unset = [
            f
            for fs in ours._SPEC.oneofs.values()
            for f in fs
            if f.kind == "message" and not theirs.HasField(f.name)
        ]
        if unset:
            f = data.draw(st.sampled_from(unset), label="member")
            self.kept = (getattr(ours, f.name), getattr(theirs, f.name))

    @rule(data=st.data())
    def clear(self, data: st.DataObject) -> None:
        ours, theirs = self.target(data)
        theirs.Clear()
        ours.Clear()

    @rule(data=st.data())
    def keep_a_sub_message(self, data: st.DataObject) -> None:
        ours, theirs = self.walk(data)
        fields = _message_fields(type(ours), repeated=False)
        if fields:
            f = data.draw(st.sampled_from(fields), label="kept field")
            self.kept = (getattr(ours, f.name), getattr(theirs, f.name))

    @rule(data=st.data(), op=st.sampled_from(["ClearField", "Clear", "ParseFromString"]))
    def clear_under_a_kept_sub_message(self, data: st.DataObject, op: str) -> None:
        """A sub-message read, its parent cleared, then the reference written:
        it no longer sets the field (and stays kept, a message of its own)."""
        ours, theirs = self.walk(data)
        fields = _message_fields(type(ours), repeated=False)
        if not fields:
            return
        f = data.draw(st.sampled_from(fields), label="kept field")
        if op == "ClearField" and f.siblings and theirs.WhichOneof(f.oneof) not in (None, f.name):
            # upb's quirk, kept out: ClearField of a oneof member that is not the
            # one set, after that member was read, clears the member that is set.
            return
        self.kept = (getattr(ours, f.name), getattr(theirs, f.name))
        for parent in (theirs, ours):
            if op == "ClearField":
                parent.ClearField(f.name)
            elif op == "Clear":
                parent.Clear()
            else:
                parent.ParseFromString(b"")
        mine, other = self.kept
        g = data.draw(st.sampled_from(mine._SPEC.fields), label="written field")
        if g.repeated and g.kind != "message":
            values = data.draw(st.lists(scalars(g), max_size=2), label="values")
            getattr(other, g.name).extend(values)
            getattr(mine, g.name).extend(values)
        elif g.repeated:
            getattr(other, g.name).add()
            getattr(mine, g.name).add()
        elif g.kind == "message":
            getattr(other, g.name).SetInParent()
            getattr(mine, g.name).SetInParent()
        else:
            value = data.draw(scalars(g), label="value")
            setattr(other, g.name, value)
            setattr(mine, g.name, value)

    @rule(
        data=st.data(),
        op=st.sampled_from(
            [
                "CopyFrom",
                "MergeFrom",
                "SetInParent",
                "ParseFromString",
                "MergeFromString",
                "DiscardUnknownFields",
            ]
        ),
    )
    def sub_message_op(self, data: st.DataObject, op: str) -> None:
        ours, theirs = self.target(data)
        fields = _message_fields(type(ours), repeated=False)
        if fields and data.draw(st.booleans(), label="on a sub-message"):
            f = data.draw(st.sampled_from(fields), label="sub-message")
            ours, theirs = getattr(ours, f.name), getattr(theirs, f.name)
        if op in ("SetInParent", "DiscardUnknownFields"):
            getattr(theirs, op)()
            getattr(ours, op)()
            return
        mine, other = self.source(data, type(ours))
        if op.endswith("String"):
            payload = other.SerializeToString()
            assert getattr(ours, op)(payload) == getattr(theirs, op)(payload) == len(payload)
        else:
            getattr(theirs, op)(other)
            # onnxdata's methods take onnx's messages too
            getattr(ours, op)(other if data.draw(st.booleans(), label="onnx's") else mine)

    @rule(data=st.data())
    def repeated_op(self, data: st.DataObject) -> None:
        ours, theirs = self.target(data)
        fields = [f for f in ours._SPEC.fields if f.repeated]
        if not fields:
            return
        f = data.draw(st.sampled_from(fields), label="field")
        mine, other = getattr(ours, f.name), getattr(theirs, f.name)
        n = len(other)
        ops = ["append", "extend", "del_slice"] + (["del"] if n else [])
        if f.kind == "message":
            ops.append("add")
        else:
            ops.append("assign_slice")
        op = data.draw(st.sampled_from(ops), label="op")
        if op == "del":
            i = data.draw(st.integers(-n, n - 1), label="index")
            del other[i]
            del mine[i]
        elif op in ("del_slice", "assign_slice"):
            a = data.draw(st.integers(-n - 1, n + 1), label="start")
            b = data.draw(st.integers(-n - 1, n + 1), label="stop")
            if op == "del_slice":
                del other[a:b]
                del mine[a:b]
            else:
                values = data.draw(st.lists(scalars(f), max_size=3), label="values")
                other[a:b] = values
                mine[a:b] = values
        elif op == "add":
            added_mine, added_other = mine.add(), other.add()
            scalar = [g for g in added_mine._SPEC.fields if not g.repeated and g.kind != "message"]
            if scalar and data.draw(st.booleans(), label="set in the added"):
                g = data.draw(st.sampled_from(scalar), label="added field")
                value = data.draw(scalars(g), label="added value")
                setattr(added_other, g.name, value)
                setattr(added_mine, g.name, value)
        elif f.kind == "message":
            sources = [self.source(data, f.message) for _ in range(data.draw(st.integers(1, 2)))]
            if op == "append":
                other.append(sources[0][1])
                mine.append(sources[0][0])
            else:
                other.extend([s[1] for s in sources])
                mine.extend([s[0] for s in sources])
        elif op == "append":
            value = data.draw(scalars(f), label="value")
            other.append(value)
            mine.append(value)
        else:
            values = data.draw(st.lists(scalars(f), max_size=3), label="values")
            other.extend(values)
            mine.extend(values)

    @rule(data=st.data(), cls=st.sampled_from(ALL_MESSAGE_TYPES))
    def construct(self, data: st.DataObject, cls: type) -> None:
        self.kept = None
        mine: dict[str, Any] = {}
        other: dict[str, Any] = {}
        for f in spec_of(cls).fields:
            how = data.draw(st.sampled_from(["left out", "None", "default", "value"]), label=f.name)
            if how == "left out":
                continue
            if how == "None" or (f.repeated and how == "default"):
                mine[f.name] = other[f.name] = None if how == "None" else []
            elif f.kind == "message" and f.repeated:
                made = [self.source(data, f.message) for _ in range(data.draw(st.integers(0, 2)))]
                mine[f.name], other[f.name] = [m for m, _ in made], [o for _, o in made]
            elif f.kind == "message":
                mine[f.name], other[f.name] = (
                    (f.message(), ORACLE[f.message]())
                    if how == "default"
                    else self.source(data, f.message)
                )
            elif f.repeated:
                mine[f.name] = data.draw(st.lists(scalars(f), max_size=3), label=f.name)
                other[f.name] = list(mine[f.name])
            else:
                mine[f.name] = other[f.name] = (
                    f.zero if how == "default" else data.draw(scalars(f), label=f.name)
                )
        self.ours, self.theirs = cls(**mine), ORACLE[cls](**other)
        self.before = None

    @rule()
    def deep_copy(self) -> None:
        self.kept = None
        self.ours, self.theirs = copy.deepcopy(self.ours), copy.deepcopy(self.theirs)

    @rule(data=st.data())
    def replace(self, data: st.DataObject) -> None:
        """``dataclasses.replace``; for protobuf a copy with the field set (or cleared)."""
        self.kept = None
        f = data.draw(st.sampled_from(self.ours._SPEC.fields), label="field")
        copied = type(self.theirs)()
        copied.CopyFrom(self.theirs)
        copied.ClearField(f.name)
        if f.kind == "message" and not f.repeated:
            value, other = (
                (None, None) if data.draw(st.booleans()) else self.source(data, f.message)
            )
            if other is not None:
                getattr(copied, f.name).CopyFrom(other)
        elif f.kind == "message":
            made = [self.source(data, f.message) for _ in range(data.draw(st.integers(0, 2)))]
            value = [m for m, _ in made]
            getattr(copied, f.name).extend([o for _, o in made])
        elif f.repeated:
            value = data.draw(st.lists(scalars(f), max_size=3), label="values")
            getattr(copied, f.name).extend(value)
        else:
            value = data.draw(st.none() | scalars(f), label="value")
            # The documented difference: ``replace`` cannot tell a default it
            # is given from one it read, so an unset field given its default
            # object stays unset.
            kept_unset = value is f.zero and not self.ours.HasField(f.name)
            if value is not None and not kept_unset:
                setattr(copied, f.name, value)
        self.ours = dataclasses.replace(self.ours, **{f.name: value})
        self.theirs = copied

    # -- the checks ------------------------------------------------------------

    @invariant()
    def both_read_the_same(self) -> None:
        if self.ours is None:
            return
        agree(self.ours, self.theirs, type(self.ours).__name__)
        assert self.ours == OURS[type(self.theirs)].FromString(self.theirs.SerializeToString())
        if self.before is not None and type(self.before[0]) is type(self.ours):
            mine, other = self.before
            assert (self.ours == mine) == (self.theirs == other), "== disagrees"
            assert (self.ours != mine) == (self.theirs != other), "!= disagrees"
        self.before = (copy.deepcopy(self.ours), copy.deepcopy(self.theirs))

    @precondition(lambda self: self.kept is not None)
    @invariant()
    def the_kept_reference_reads_the_same(self) -> None:
        assert self.kept is not None
        agree(*self.kept, "kept")


Parity.TestCase.settings = settings(max_examples=scaled(0.4), stateful_step_count=25, deadline=None)
TestParity = Parity.TestCase
