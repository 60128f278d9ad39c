"""The one walk of a message tree: each object once, a cycle caught on the path.

Decoded messages form a tree, but a message built in Python may share a
sub-message between several fields (a graph held by two ``If`` branches) or
hold itself (``node.attribute[0].g = graph`` where the graph holds the
node).  protobuf cannot: its messages copy what they are given.  A walker
that follows every path then repeats a shared part once per path (twice per
level: fifteen levels of shared subgraphs are 32,768 walks of the last one)
and never ends on a cycle.

:func:`walk` is the walk every walker of the package takes (the validator,
the model rules, the tensor walkers of external data, the doc-string stripper,
``printable_graph``'s check): depth first, without recursion, each object
visited once, at the first path that reaches it; an object met again while
it is still on the current path is a cycle, refused with the error
``encode()`` raises for one (:func:`cycle_error`) or handed to the caller's
``on_cycle``.  The work is linear in the distinct objects and their edges.
What a step leads to is the caller's (``children``): the fields of the
schema (:func:`message_children`), or only the graphs and tensors of a model.
"""

from __future__ import annotations

from .errors import EncodeValueError
from .schema import MESSAGE, spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    Child = tuple[str, Any, Any]  # the field path part, the object, the caller's data
    Children = Callable[["Step"], Iterable[Child]]

__all__ = ["Step", "cycle_error", "message_children", "refuse_cycles", "walk"]


class Step:
    """One visited object: where the walk met it first (``parent``, ``part``), how
    deep (roots are 0) and the caller's ``data`` given with it.

    Paths are linked, not joined, as the walk goes: the text of a path
    ``depth`` steps long is made only when asked for (:meth:`text`), so a
    chain of thousands of messages costs no quadratic text.
    """

    __slots__ = ("data", "depth", "obj", "parent", "part")

    def __init__(self, parent: Step | None, part: str, obj: Any, data: Any) -> None:
        self.parent = parent
        self.part = part
        self.obj = obj
        self.data = data
        self.depth: int = 0 if parent is None else parent.depth + 1

    def text(self) -> str:
        """The path, its parts joined by dots (``ModelProto.graph.node[0]``)."""
        parts = []
        node: Step | None = self
        while node is not None:
            parts.append(node.part)
            node = node.parent
        return ".".join(reversed(parts))


def cycle_error(where: Step, first: Step) -> EncodeValueError:
    """The error for a cycle: the object ``first`` met again at ``where``, inside itself.

    It is the error ``encode()`` raises for the same message (an
    ``EncodeValueError``, so a ``ValueError``), with the path where the cycle
    closes, and names the message that holds itself.
    """
    err = EncodeValueError(
        f"a cycle: the message at {first.text()} is nested inside itself "
        "(protobuf cannot hold it: encode() refuses it too)"
    )
    err.within(where.text())
    return err


def walk(
    roots: Iterable[Child],
    children: Children,
    on_cycle: Callable[[Step, Step], None] | None = None,
    visited: dict[int, Step] | None = None,
) -> Iterator[Step]:
    """Each object reachable from ``roots`` through ``children``, once, depth first.

    ``roots`` and ``children(step)`` give ``(path part, object, data)``
    triples, in the order to visit them; a step is yielded before its
    children are asked for, so the caller sees a parent before what it holds
    (and may compute the children while visiting).  An object met again is
    skipped (shared: it was visited at its first path); met again while it
    is on the current path, it is a cycle: ``on_cycle(where, first)`` is
    called, or, without one, :func:`cycle_error` is raised.  ``visited``
    (id to step) may be shared by several walks so that none of them visits
    what another did; it keeps every object visited alive, so no id is
    reused while the walk runs.

    Raises:
        EncodeValueError: a cycle, when ``on_cycle`` is None.
    """
    seen: dict[int, Step] = {} if visited is None else visited
    inside: set[int] = set()  # the ids on the current path
    stack: list[tuple[Step | None, Iterator[Child]]] = [(None, iter(roots))]
    while stack:
        parent, todo = stack[-1]
        for part, obj, data in todo:
            key = id(obj)
            if key in seen:
                if key in inside:
                    where = Step(parent, part, obj, data)
                    if on_cycle is None:
                        raise cycle_error(where, seen[key])
                    on_cycle(where, seen[key])
                continue
            step = seen[key] = Step(parent, part, obj, data)
            inside.add(key)
            yield step
            stack.append((step, iter(children(step))))
            break
        else:
            stack.pop()
            if parent is not None:
                inside.discard(id(parent.obj))


def message_children(step: Step) -> Iterator[Child]:
    """The sub-messages of ``step.obj`` (a message), in declaration order, by the
    schema: ``(field name, message, None)``, ``(name[i], message, None)``.

    Fields are read from their slots (None while unset): read by name, an unset
    sub-message would be an empty stand-in, made anew at every level of an
    ``OptionalProto``, forever.  A value that is not the field's message class
    (a deleted slot, a list of something else) is left out: ``check()``
    reports it, ``encode()`` refuses it.
    """
    msg = step.obj
    fields = _MESSAGE_FIELDS.get(type(msg))
    if fields is None:
        fields = _MESSAGE_FIELDS[type(msg)] = tuple(
            (f.slot, f.name, f.repeated, f.message)
            for f in spec_of(type(msg)).fields
            if f.kind == MESSAGE
        )
    for slot, name, repeated, cls in fields:
        value = getattr(msg, slot, None)
        if value is None:
            continue
        if not repeated:
            if isinstance(value, cls):
                yield name, value, None
        elif isinstance(value, (list, tuple)):
            for i, sub in enumerate(value):
                if isinstance(sub, cls):
                    yield f"{name}[{i}]", sub, None


_MESSAGE_FIELDS: dict[type, tuple[tuple[str, str, bool, Any], ...]] = {}
"""Per message class: the slot, name, repetition and class of each message field."""


def refuse_cycles(msg: Any) -> None:
    """Walk every message in ``msg`` once, to refuse a cycle before anything is
    changed (a save that would write external data and drop ``raw_data``
    first, then fail to encode).

    Raises:
        EncodeValueError: a message holds itself.
    """
    for _ in walk([(spec_of(type(msg)).name, msg, None)], message_children):
        pass
