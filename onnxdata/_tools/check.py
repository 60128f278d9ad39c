"""The validator: every MUST of the reference protos, as a list of violations.

The decoder accepts whatever protobuf accepts, so a well-formed ``.pb`` may
still break the ONNX rules (a FLOAT tensor with ``int64_data``, a map with
more keys than values).  :func:`check` reports each such break with the field
path, and never raises for a bad value: a report is more useful than the first
exception.  Only the standard library is used.

The walk is generic, driven by the schema: every field's value is checked
against its kind (what the encoder would refuse: a ``str`` in ``dims``, a
number in ``raw_data``, a ``TensorProto`` where a ``MapProto`` belongs), and
every sub-message is visited once, however many times it is shared, by the
package's one walk (``_core/walk.py``: an explicit stack instead of recursion,
a message met inside itself reported as one cycle).  The ONNX rules then apply per message,
looked up by the message's schema name, to messages whose values all have the
right types; so a copy of the schema with the same message names gets the
same rules.
"""

from __future__ import annotations

import operator
from array import array

from .._core.access import gather
from .._core.codegen import Emitter
from .._core.foreign import describe, foreign_name
from .._core.kinds import integer
from .._core.schema import (
    BYTES,
    DOUBLE,
    FLOAT,
    KINDS,
    MESSAGE,
    STRING,
    UNKNOWN_FIELDS,
    is_boolean_type,
    spec_of,
)
from .._core.walk import Step, walk
from .._core.wire import MAX_DEPTH
from .._messages.catalog import all_message_types
from .._messages.convert import as_message
from .model_rules import MODEL_RULES
from .rules import RULES

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec
    from .._messages.declarations import Message
    from .rules import Rule

    _Bad = Callable[[str, str], None]
    _Reader = Callable[[Any], tuple[Any, str, str | None]]
    _Sub = tuple[str, bool, Any]  # a message field: name, repeated, class
    _Readers = tuple[
        tuple[tuple[str, _Reader], ...],
        tuple[_Sub, ...],
        Callable[[Any], tuple[dict[str, Any], list[tuple[str, str]]]],
    ]

__all__ = ["Violation", "check"]


class Violation:
    """One broken rule: where (``path``) and what (``message``).

    ``str(v)`` is ``"path: message"``, e.g.
    ``"SequenceProto.tensor_values[1].data_type: ..."``.
    """

    __slots__ = ("message", "path")

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def __repr__(self) -> str:
        return f"Violation({self.path!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Violation):
            return NotImplemented
        return (self.path, self.message) == (other.path, other.message)

    __hash__ = None  # type: ignore[assignment]


def check(message: Message) -> list[Violation]:
    """Every violation of the ONNX rules in ``message`` and the messages inside it.

    An empty list means the message is valid.  Paths start with the type name,
    as :class:`DecodeError` paths do.  Element counts are not checked for
    tensors stored externally or in segments, whose data is elsewhere.

    A value of the wrong type or out of its field's range is a violation (the
    encoder would refuse it), and so is nesting deeper than protobuf's 100
    levels or a message that contains itself.  A message shared by several
    fields is checked once, at the path where the walk meets it first.

    A model (``ModelProto``) gets, besides the rules of every tensor in it,
    the model rules that need no operator schema (``model_rules.py``); any
    other message of ``onnx-ml.proto`` gets the rules of the data messages
    inside it.  An onnx protobuf message is checked through its bytes (as an
    onnxdata copy of it).

    Raises:
        TypeError: ``message`` is not a message of ``onnx-ml.proto``
            (onnxdata's or onnx's).
        MappedFileError: (an ``OSError``) a tensor's values are views of a
            file loaded with ``mmap=True`` that shrank since (reading them
            would kill the process with ``SIGBUS``).
    """
    try:
        spec = spec_of(type(message))
    except TypeError:
        if foreign_name(message) is None:
            raise TypeError(f"check() takes an onnxdata message, not {describe(message)}") from None
        message = as_message(message, *all_message_types())
        spec = spec_of(type(message))
    return _Walk().run(message, spec)


_ALL_RULES = {**RULES, **MODEL_RULES}


# -- the generic walk --------------------------------------------------------------


class _Fields:
    """One message's field values as the rules read them, or why they cannot."""

    __slots__ = ("children", "problems", "rule", "values")

    def __init__(
        self,
        rule: Rule | None,
        values: dict[str, Any] | None,
        problems: list[tuple[str, str]],
        children: list[tuple[str, Any, None]],
    ) -> None:
        self.rule = rule  # the ONNX rules of the message, by its schema name
        self.values = values  # None when a value has the wrong type: no rule applies
        self.problems = problems  # (field path relative to the message, what is wrong)
        self.children = children  # (field path, sub-message, None), in declaration order


class _Walk:
    """One ``check()``: the messages met so far, by identity, and the report."""

    def __init__(self) -> None:
        self.out: list[Violation] = []
        self.fields_of: dict[int, _Fields] = {}

    def fields(self, msg: Any) -> _Fields:
        """The checked fields of ``msg`` (a message), computed once."""
        key = id(msg)
        found = self.fields_of.get(key)
        if found is None:
            found = self.fields_of[key] = _read_fields(msg, spec_of(type(msg)))
        return found

    def values(self, msg: Any) -> dict[str, Any] | None:
        """The field values of a sub-message, or None if it is missing or mistyped."""
        return None if msg is None else self.fields(msg).values

    def children(self, step: Step) -> list[tuple[str, Any, None]]:
        return self.fields_of[id(step.obj)].children

    def cycle(self, where: Step, first: Step) -> None:
        cycle = f"a cycle: the message at {first.text()} is nested inside itself"
        self.out.append(Violation(where.text(), cycle))

    def run(self, root: Any, spec: MessageSpec) -> list[Violation]:
        """The shared walk (``_core/walk.py``): each message once, at the first path
        that meets it; a message met inside itself is one violation."""
        out = self.out
        for step in walk([(spec.name, root, None)], self.children, self.cycle):
            msg = step.obj
            if step.depth == MAX_DEPTH + 1:
                deep = f"messages nested more than {MAX_DEPTH} deep: protobuf cannot encode it"
                out.append(Violation(step.text(), deep))
            fields = self.fields(msg)
            for where, problem in fields.problems:
                out.append(Violation(f"{step.text()}.{where}", problem))
            if fields.values is not None and fields.rule is not None:
                fields.rule(self.values, msg, fields.values, _reporter(out, step))
        return out


def _read_fields(msg: Any, spec: MessageSpec) -> _Fields:
    readers, subs, fast = _READERS.get(spec) or _make_readers(spec)
    try:
        values, problems = fast(msg)
    except AttributeError:  # a field's slot was deleted: one field at a time
        values, problems = {}, []
        for f, (name, read) in zip(spec.fields, readers, strict=True):
            try:
                # The slot, as the fast path reads it: by name, an unset
                # sub-message would read as a stand-in, walked forever.
                value = f.held(msg)
            except AttributeError:
                problems.append((name, "has no value (its attribute was deleted)"))
                value = None
            else:
                value, where, problem = read(value)
                if problem is not None:
                    problems.append((where, problem))
            values[name] = value
    children: list[tuple[str, Any, None]] = []
    for name, repeated, cls in subs:
        value = values[name]
        if not repeated:
            if value is not None and isinstance(value, cls):
                children.append((name, value, None))
        elif len(value):
            children.extend(
                (f"{name}[{i}]", m, None) for i, m in enumerate(value) if isinstance(m, cls)
            )
    try:
        unknown = getattr(msg, UNKNOWN_FIELDS)
    except AttributeError:
        problems.append((UNKNOWN_FIELDS, "has no value (its attribute was deleted)"))
    else:
        if not isinstance(unknown, (bytes, bytearray, memoryview)):
            problems.append((UNKNOWN_FIELDS, f"expected bytes, found {_type(unknown)}"))
        elif len(unknown):
            problem = _unknown_problem(spec, unknown)
            if problem is not None:
                problems.append((UNKNOWN_FIELDS, problem))
    return _Fields(_ALL_RULES.get(spec.name), None if problems else values, problems, children)


_READERS: dict[MessageSpec, _Readers] = {}


def _make_readers(spec: MessageSpec) -> _Readers:
    """Per field of ``spec``: a function from its value to (value as the rules read it,
    where it is wrong, what is wrong); the message fields, to walk into; and
    all the readers in one generated function."""
    readers = tuple((f.name, _reader(f)) for f in spec.fields)
    made = (
        readers,
        tuple((f.name, f.repeated, f.message) for f in spec.fields if f.kind == MESSAGE),
        _make_fast(spec, readers),
    )
    _READERS[spec] = made
    return made


def _make_fast(
    spec: MessageSpec, readers: tuple[tuple[str, _Reader], ...]
) -> Callable[[Any], tuple[dict[str, Any], list[tuple[str, str]]]]:
    """Generate one function that reads every field of a ``spec`` message.

    As ``dataclasses`` generates ``__init__``: the attributes are read in one
    ``attrgetter`` call, each value passes a test inlined for its kind (unset,
    an empty list, an int in range, ``bytes``, an ASCII ``str``, an ``array``
    of the field's typecode, a message of the field's class), and only other
    values go through the field's reader.  Raises AttributeError if a slot
    was deleted.
    """
    # As held (gather, FieldSpec.held), not by the fields' names: an unused
    # repeated field is None (read here as an empty list, never mutated), and
    # reading the property would make its container.
    names = spec.fields
    emit = Emitter({"array": array, "EMPTY": []})
    env = emit.env
    with emit.block("def read_fields(msg):"):
        emit("problems = []")
        if len(names) == 1:  # one field: its getter gives the value (gather's, a 1-tuple)
            env["get"] = names[0].held
            emit("v0 = get(msg)")
        elif names:
            env["get"] = gather(names)
            emit(f"({', '.join(f'v{i}' for i in range(len(names)))},) = get(msg)")
        for i, f in enumerate(spec.fields):
            if f.repeated:
                emit(f"if v{i} is None:\n    v{i} = EMPTY")
        _read_each(emit, spec, readers)
        fields = ", ".join(f"{name!r}: v{i}" for i, (name, _) in enumerate(readers))
        emit(f"return {{{fields}}}, problems")
    made: Callable[[Any], tuple[dict[str, Any], list[tuple[str, str]]]] = emit.build(
        f"<onnxdata check reader {spec.name}>"
    )["read_fields"]
    return made


def _read_each(emit: Emitter, spec: MessageSpec, readers: tuple[tuple[str, _Reader], ...]) -> None:
    """Each field's inline test, then its reader for any value the test does not pass."""
    env = emit.env
    for i, (f, (_, read)) in enumerate(zip(spec.fields, readers, strict=True)):
        v = f"v{i}"
        env[f"read{i}"] = read
        if f.repeated:
            test = f"{v} is EMPTY or (type({v}) is list and not {v})"
            code = KINDS[f.kind].typecode
            if code is not None:
                test += f" or (isinstance({v}, array) and {v}.typecode == {code!r})"
            elif f.kind == STRING:  # a node's inputs and outputs: lists of short names
                env["ascii_strs"] = _ascii_strs
                test += f" or (type({v}) is list and ascii_strs({v}))"
        elif f.bounds is not None:
            lo, hi = f.bounds
            test = f"{v} is None or (type({v}) is int and {lo} <= {v} <= {hi})"
        elif f.kind == BYTES:
            test = f"{v} is None or type({v}) is bytes"
        elif f.kind == STRING:
            test = f"{v} is None or (type({v}) is str and {v}.isascii())"
        elif f.kind == MESSAGE:
            env[f"cls{i}"] = f.message
            test = f"{v} is None or type({v}) is cls{i}"
        else:
            test = f"{v} is None"
        with emit.labelled(f.name), emit.block(f"if not ({test}):"):
            emit(f"{v}, where, problem = read{i}({v})")
            emit("if problem is not None:\n    problems.append((where, problem))")


def _ascii_strs(items: list[Any]) -> bool:
    """Every item is an ASCII ``str`` (so encodable), tested in two C-level passes."""
    return operator.countOf(map(type, items), str) == len(items) and "".join(items).isascii()


def _reader(f: FieldSpec) -> _Reader:
    """The check of one field's value, with the common right values tested first."""
    name = f.name
    if f.repeated:
        code = KINDS[f.kind].typecode

        def read_repeated(value: Any) -> tuple[Any, str, str | None]:
            kind = type(value)
            if (kind is list and not value) or (
                isinstance(value, array) and value.typecode == code
            ):
                return value, name, None
            return _repeated(f, value)

        if f.bounds is None:
            return read_repeated
        lo, hi = f.bounds

        def read_ints(value: Any) -> tuple[Any, str, str | None]:
            if type(value) is list and len(value) <= 8:  # dims: short lists of ints
                for x in value:
                    if type(x) is not int or x < lo or x > hi:
                        break
                else:
                    return value, name, None
            return read_repeated(value)

        return read_ints
    if f.bounds is not None:
        lo, hi = f.bounds

        def read_int(value: Any) -> tuple[Any, str, str | None]:
            if value is None or (type(value) is int and lo <= value <= hi):
                return value, name, None
            problem = _scalar(f, value)
            return (value if problem else operator.index(value)), name, problem

        return read_int
    if f.kind == BYTES:

        def read_bytes(value: Any) -> tuple[Any, str, str | None]:
            if value is None or type(value) is bytes:
                return value, name, None
            problem = _scalar(f, value)
            return (value if problem else _byte_view(value)), name, problem

        return read_bytes
    if f.kind == STRING:

        def read_string(value: Any) -> tuple[Any, str, str | None]:
            if value is None or (type(value) is str and value.isascii()):
                return value, name, None
            return value, name, _scalar(f, value)

        return read_string

    def read(value: Any) -> tuple[Any, str, str | None]:
        return value, name, _single(f, value)

    return read


def _unknown_problem(spec: MessageSpec, data: bytes | bytearray | memoryview) -> str | None:
    """What the encoder would refuse in ``unknown_fields``: bytes that are not
    well-formed fields, or that hold fields the message knows (protobuf would
    read them back as those fields)."""
    from .._codec.decode import decode_message
    from .._core.errors import DecodeError

    try:
        data = _byte_view(data)
        decoded: Any = decode_message(spec.cls, data)
    except DecodeError as err:
        return f"not well-formed protobuf fields: {err}"
    if bytes(getattr(decoded, UNKNOWN_FIELDS)) != bytes(data):
        return "holds fields this message knows: protobuf would read them as those fields"
    return None


def _type(value: Any) -> str:
    if foreign_name(value) is not None:
        return describe(value)  # onnx's message: say so, its class name is the same
    return type(value).__qualname__


def _byte_view(value: Any) -> bytes | memoryview:
    """A bytes-like value as something whose ``len`` counts bytes."""
    if type(value) is bytes:
        return value
    view = memoryview(value)
    return view.cast("B") if view.c_contiguous else memoryview(view.tobytes())


def _single(f: FieldSpec, value: Any) -> str | None:
    """What is wrong with a singular field's value, or None."""
    return None if value is None else _element(f, value)


def _scalar(f: FieldSpec, value: Any) -> str | None:
    """What is wrong with one scalar value of ``f``'s kind, or None."""
    kind = f.kind
    if f.bounds is not None:  # an integer kind
        try:
            number = integer(value)  # a bool is not one: _core.kinds
        except TypeError:
            return f"expected an integer, found {_type(value)}"
        lo, hi = f.bounds
        if not lo <= number <= hi:
            return f"{number} is out of range for {kind}"
        return None
    if kind in (FLOAT, DOUBLE):
        if isinstance(value, (str, bytes, bytearray)):
            return f"expected a number, found {_type(value)}"
        try:
            array(KINDS[kind].typecode or "d", [value])
        except (TypeError, ValueError, OverflowError):
            return f"expected a number, found {_type(value)}"
        return None
    if kind == STRING:
        if not isinstance(value, str):
            return f"expected a str, found {_type(value)}"
        try:
            value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            return f"not encodable as UTF-8: {exc.reason} at index {exc.start}"
        return None
    if kind == BYTES:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return None
        return f"expected bytes, found {_type(value)}"
    raise AssertionError(f"no check for the kind {kind!r}")  # pragma: no cover


def _repeated(f: FieldSpec, value: Any) -> tuple[Any, str, str | None]:
    """A repeated field's values as a sized sequence, and where and what is wrong."""
    if value is None:
        return [], f.name, None  # an empty field, as protobuf's constructor takes it
    code = KINDS[f.kind].typecode
    if code is not None and isinstance(value, array) and value.typecode == code:
        return value, f.name, None  # decoded packed fields: right by construction
    if isinstance(value, (str, bytes, bytearray)):
        return [], f.name, f"expected a sequence, found {_type(value)}"
    if f.kind in (FLOAT, DOUBLE) and code is not None and _float_buffer(value, code):
        return value, f.name, None  # decode(copy=False) views, float numpy arrays
    try:
        if iter(value) is value:
            return [], f.name, f"expected a sequence, found {_type(value)} (read only once)"
        items = value if type(value) in (list, tuple) else list(value)
    except TypeError:
        return [], f.name, f"expected a sequence, found {_type(value)}"
    if _all_valid(f, items, code):
        if f.bounds is not None and operator.countOf(map(type, items), int) != len(items):
            items = [operator.index(x) for x in items]  # numpy integers, as plain ints
        return items, f.name, None
    for i, item in enumerate(items):
        problem = _element(f, item)
        if problem is not None:
            return items, f"{f.name}[{i}]", problem
    return items, f.name, None  # e.g. bytearray entries, which the fast test leaves to this loop


def _element(f: FieldSpec, value: Any) -> str | None:
    """What is wrong with one element of a repeated field (None is never one), or None."""
    if f.kind == MESSAGE:
        if isinstance(value, f.message):
            return None
        return f"expected a {spec_of(f.message).name}, found {_type(value)}"
    return _scalar(f, value)


def _all_valid(f: FieldSpec, items: Any, code: str | None) -> bool:
    """Whether every item is right, in a few C-level passes where the kind allows."""
    kind = f.kind
    if kind == BYTES:
        return operator.countOf(map(type, items), bytes) == len(items)
    if code is None:
        return False  # one by one
    try:
        array(code, items)  # refuses non-numbers and, for integers, values out of range
    except (TypeError, ValueError, OverflowError):
        return False
    return f.bounds is None or not any(map(is_boolean_type, set(map(type, items))))


def _float_buffer(value: Any, code: str) -> bool:
    """A 1-D contiguous buffer of the field's own float type (not a list)."""
    if isinstance(value, (list, tuple, array, bytes, bytearray)):
        return False
    try:
        view = memoryview(value)
    except TypeError:
        return False
    return view.ndim == 1 and view.c_contiguous and view.format.lstrip("@=<") == code


def _reporter(out: list[Violation], path: Step) -> _Bad:
    """``bad(field, message)``: report a violation at ``field`` of the message at ``path``."""

    def bad(field: str, message: str) -> None:
        where = path.text()
        out.append(Violation(f"{where}.{field}" if field else where, message))

    return bad
