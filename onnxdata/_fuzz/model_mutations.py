"""Mutations that know the model messages' structure, for the structure-aware mutator.

Each takes one message of the input's tree (a :class:`~.tree.Node` with its
schema) and changes it the way a model loader's assumptions break: the
members of a oneof swapped or repeated (the last one wins), an attribute's
``type`` set out of step with its value field (or back in step), a singular
sub-message split in two occurrences (protobuf merges them: a ``graph`` in
halves), nodes reordered among themselves, a node input renamed to a name
nothing defines, subgraphs nested down to protobuf's depth limit.  Which
apply is read from the schema (:func:`model_ops`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .._core.schema import MESSAGE, MessageSpec, spec_of
from .._core.wire import LEN, MAX_DEPTH, VARINT
from .._messages.graphs import AttributeProto, NodeProto
from .model_samples import ATTRIBUTE_FIELDS
from .samples import deep_path
from .tree import Field, Node, known_fields, split, varint

Op = Callable[[Node, random.Random, list[bytes], int], None]


def _oneof(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """A oneof's member replaced by another, or another written after it (which wins)."""
    assert node.spec is not None
    members = rng.choice(list(node.spec.oneofs.values()))
    numbers = {f.number for f in members}
    present = [k for k, f in enumerate(node.fields) if f.number in numbers]
    other = rng.choice(members)
    new = known_fields(other, rng, depth, pool)[:1]
    if present and rng.random() < 0.5:
        k = rng.choice(present)
        node.fields[k : k + 1] = new
    else:
        at = (max(present) + 1) if present else rng.randrange(len(node.fields) + 1)
        node.fields[at:at] = new


def _attribute_type(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """An attribute's ``type`` set, and a value field added: the one the type names (its
    other value fields dropped), or another one, out of step with it."""
    spec = spec_of(AttributeProto)
    type_field = spec.named.type
    kind = rng.choice([*ATTRIBUTE_FIELDS, 0, 15, 1000])  # UNDEFINED and values outside the enum
    values = {spec.by_name[name].number for name in ATTRIBUTE_FIELDS.values()}
    consistent = kind in ATTRIBUTE_FIELDS and rng.random() < 0.6
    name = ATTRIBUTE_FIELDS[kind] if consistent else rng.choice(list(ATTRIBUTE_FIELDS.values()))
    kept = [f for f in node.fields if f.number != type_field.number]
    if consistent:
        kept = [f for f in kept if f.number not in values]
    kept.append(Field(type_field.number, VARINT, varint(kind)))
    kept.extend(known_fields(spec.by_name[name], rng, depth, pool))
    node.fields = kept


def _split_message(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """A singular sub-message written as two occurrences, which protobuf merges."""
    assert node.spec is not None
    singular = {f.number: f for f in node.spec.children() if not f.repeated}
    found = [k for k, f in enumerate(node.fields) if f.number in singular and f.wire_type == LEN]
    if not found:
        return
    k = rng.choice(found)
    f = node.fields[k]
    inner = split(f.encoded_body(), spec_of(singular[f.number].message))
    if len(inner.fields) < 2 or inner.tail:
        node.fields.insert(k + 1, f.copy())  # a second, merged copy of it
        return
    cut = rng.randrange(1, len(inner.fields))
    first = b"".join([x.join() for x in inner.fields[:cut]])
    second = b"".join([x.join() for x in inner.fields[cut:]])
    node.fields[k : k + 1] = [Field(f.number, LEN, first, f.tag), Field(f.number, LEN, second)]


def _reorder_same(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """Two occurrences of one repeated field swapped (two nodes of a graph)."""
    by_number: dict[int, list[int]] = {}
    for k, f in enumerate(node.fields):
        by_number.setdefault(f.number, []).append(k)
    runs = [ks for ks in by_number.values() if len(ks) >= 2]
    if runs:
        i, j = rng.sample(rng.choice(runs), 2)
        node.fields[i], node.fields[j] = node.fields[j], node.fields[i]


def _dangle(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """A node input renamed to a name nothing defines (or to the empty name)."""
    number = spec_of(NodeProto).named.input.number
    found = [k for k, f in enumerate(node.fields) if f.number == number and f.wire_type == LEN]
    name = rng.choice((b"", b"dangling", b"\xff", b"x" * 200)) + b"%d" % rng.randrange(100)
    if found:
        k = rng.choice(found)
        node.fields[k] = Field(number, LEN, name, node.fields[k].tag)
    else:
        node.fields.insert(0, Field(number, LEN, name))


def _deep_nest(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """A chain of sub-messages (a subgraph's node's attribute's graph...) reaching
    protobuf's depth limit of 100, or one past it."""
    assert node.spec is not None
    levels = max(MAX_DEPTH - depth + rng.choice((-2, -1, 0, 0, 1)), 1)
    path = deep_path(node.spec.cls, levels)
    if path is None:
        return
    body = b""
    for f in reversed(path[1:]):
        body = Field(f.number, LEN, body).join()
    node.fields.insert(rng.randrange(len(node.fields) + 1), Field(path[0].number, LEN, body))


def _applicable(spec: MessageSpec) -> list[Op]:
    ops: list[Op] = []
    if spec.oneofs:
        ops.append(_oneof)
    if spec.cls is AttributeProto:
        ops.append(_attribute_type)
    if spec.cls is NodeProto:
        ops.append(_dangle)
    if any(not f.repeated for f in spec.children()):
        ops.append(_split_message)
    if any(f.repeated and f.kind == MESSAGE for f in spec.fields):
        ops.append(_reorder_same)
    if deep_path(spec.cls, 1) is not None:
        ops.append(_deep_nest)
    return ops


_OPS: dict[str, list[Op]] = {}


def model_ops(spec: MessageSpec) -> list[Op]:
    """The model mutations that apply to messages of ``spec`` (read from its schema)."""
    found = _OPS.get(spec.name)
    if found is None:
        found = _OPS[spec.name] = _applicable(spec)
    return found
