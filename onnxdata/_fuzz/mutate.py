"""A structure-aware mutator for protobuf-encoded ONNX messages, in the manner of
libprotobuf-mutator, with libFuzzer's custom-mutator signature.

The input is split into wire fields without a schema (:func:`split`): each
field keeps its raw tag and length bytes, so joining the fields gives the
input back byte for byte, non-canonical varints included, and whatever does
not parse as a field is kept as a raw tail.  A field whose schema says
"sub-message" is split the same way when the mutator goes into it.  One
mutation is then applied to one message of that tree, chosen at random (the
root or any sub-message: tensors in sequences, maps' values, optionals):
add a field (known, of its wire type, or unknown), drop, duplicate or
reorder fields, set a value to an edge, switch packed and unpacked forms,
lengthen a varint without changing its value, splice in a sub-message found
elsewhere (or in the other input, for crossover), or give a tensor a data
type and a storage field from the data-type table.  About one call in ten
breaks the encoding on purpose instead, with one defect from the catalog the
corpus and the strategies use (``defects.py``: truncations, bad wire types,
lengths past the end, field number 0 or 2^29 and above, over-long varints,
group errors, nesting deeper than 100).

Everything is drawn from a ``random.Random`` seeded with the call's
arguments, so a call is replayed from ``(data, max_size, seed)`` alone.
"""

from __future__ import annotations

import random
from typing import Any

from .._core.errors import DecodeError
from .._core.schema import MESSAGE, MessageSpec, spec_of
from .._core.wire import (
    I32,
    I64,
    LEN,
    MAX_DEPTH,
    VARINT,
    overlong_varint,
    packed_elements,
    read_varint,
)
from .._messages.datatypes import DATA_TYPES, element_fields
from .._messages.declarations import MESSAGE_TYPES, Message, SequenceProto, TensorProto
from .defects import CATALOG, Defect, applies, place
from .model_mutations import model_ops
from .tree import (
    Field,
    Node,
    known_fields,
    packed_body,
    random_message,
    scalar_body,
    split,
    unknown_field,
    varint,
)

# The element type field of SequenceProto and OptionalProto, named through the schema.
_ELEM_TYPE = spec_of(SequenceProto).named.elem_type.name

BREAK_SHARE = 0.1  # the share of calls that break the encoding on purpose

# -- the tree -------------------------------------------------------------------


def _child_spec(node: Node, f: Field) -> MessageSpec | None:
    if node.spec is None or f.wire_type != LEN:
        return None
    known = node.spec.by_number.get(f.number)
    if known is None or known.kind != MESSAGE:
        return None
    return spec_of(known.message)


def _descend(root: Node, rng: random.Random) -> tuple[Node, int]:
    """A message of the tree reached by a random walk from the root: the root
    itself a third of the time, each level below about two thirds as often
    as the one above.  Only the sub-messages on the way are split."""
    node, depth = root, 0
    while depth < MAX_DEPTH and rng.random() < 0.65:
        subs = [(f, spec) for f in node.fields if (spec := _child_spec(node, f)) is not None]
        if not subs:
            break
        f, spec = rng.choice(subs)
        if f.sub is None:
            f.sub = split(f.body, spec)
        node, depth = f.sub, depth + 1
    return node, depth


def _pool(node: Node, out: list[bytes], limit: int = 32) -> list[bytes]:
    """Payloads of the sub-messages of ``node``, for splicing."""
    for f in node.fields:
        if len(out) >= limit:
            break
        if f.wire_type == LEN and _child_spec(node, f) is not None:
            out.append(f.encoded_body())
            if f.sub is not None:
                _pool(f.sub, out, limit)
    return out


# -- mutations of one message ------------------------------------------------------


def _op_add(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    if node.spec is not None and rng.random() < 0.8:
        new = known_fields(rng.choice(node.spec.fields), rng, depth, pool)
    else:
        new = [unknown_field(node.spec, rng)]
    at = rng.randrange(len(node.fields) + 1)
    node.fields[at:at] = new


def _op_drop(node: Node, rng: random.Random) -> None:
    if node.fields:
        del node.fields[rng.randrange(len(node.fields))]


def _op_duplicate(node: Node, rng: random.Random) -> None:
    if node.fields:
        f = rng.choice(node.fields)
        node.fields.insert(rng.randrange(len(node.fields) + 1), f.copy())


def _op_reorder(node: Node, rng: random.Random) -> None:
    if len(node.fields) >= 2:
        if rng.random() < 0.5:
            rng.shuffle(node.fields)
        else:
            i, j = rng.randrange(len(node.fields)), rng.randrange(len(node.fields))
            node.fields[i], node.fields[j] = node.fields[j], node.fields[i]


def _op_edge(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """Replace the value of one field with an edge value of its kind."""
    if not node.fields:
        _op_add(node, rng, pool, depth)
        return
    i = rng.randrange(len(node.fields))
    f = node.fields[i]
    known = node.spec.by_number.get(f.number) if node.spec is not None else None
    if known is None or known.kind == MESSAGE:
        kind = {VARINT: "int64", I64: "double", I32: "float", LEN: "bytes"}.get(f.wire_type)
        if kind is None:
            return
    else:
        kind = known.kind
    if (
        f.wire_type == LEN
        and known is not None
        and known.repeated
        and known.kind not in ("string", "bytes", MESSAGE)
    ):  # a packed run: rewrite its elements
        size = {"float": 4, "double": 8}.get(kind)
        count = len(f.encoded_body()) // size if size else rng.randrange(1, 5)
        node.fields[i] = Field(f.number, LEN, packed_body(kind, max(count, 1), rng), f.tag)
        return
    wt, body = scalar_body(kind, rng, known)
    if wt == f.wire_type:
        node.fields[i] = Field(f.number, wt, body, f.tag)


def _elements(f: Field, wire_type: int) -> list[bytes] | None:
    """The element bodies of a packed run, or None if it does not split cleanly."""
    try:
        return packed_elements(f.encoded_body(), wire_type)  # type: ignore[return-value]
    except DecodeError:
        return None


def _packable(spec: MessageSpec) -> list[Any]:
    return [f for f in spec.fields if f.repeated and len(f.accepted_wire_types()) == 2]


def _op_packing(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """Switch one repeated numeric field between its packed and unpacked forms.

    One pass over the fields whatever their number: packing a run of a
    hundred thousand scalars builds one new list, never one per element.
    """
    packable = _packable(node.spec) if node.spec is not None else []
    if not packable:
        return
    numbers = {x.number for x in node.fields}
    present = [f for f in packable if f.number in numbers]
    field = rng.choice(present or packable)
    scalar_wt = field.accepted_wire_types()[0]
    at = [k for k, x in enumerate(node.fields) if x.number == field.number]
    if not at:
        node.fields.extend(known_fields(field, rng, depth, pool))
        return
    k = rng.choice(at)
    f = node.fields[k]
    if f.wire_type == LEN:
        parts = _elements(f, scalar_wt)
        if parts is not None:
            node.fields[k : k + 1] = [Field(f.number, scalar_wt, p) for p in parts]
    elif f.wire_type == scalar_wt:
        _pack_run(node, k, f.number, scalar_wt)


def _pack_run(node: Node, k: int, number: int, wire_type: int) -> None:
    """Replace every ``number`` field of ``wire_type`` with one packed field, at ``k``
    (or at the end, when fewer fields are left)."""
    run = [x for x in node.fields if x.number == number and x.wire_type == wire_type]
    packed = Field(number, LEN, b"".join([x.body for x in run]))
    kept = [x for x in node.fields if x.number != number or x.wire_type != wire_type]
    kept.insert(min(k, len(kept)), packed)
    node.fields = kept


def _op_overlong(node: Node, rng: random.Random) -> None:
    """Lengthen a varint (a value, a tag or a length) without changing what it says."""
    if not node.fields:
        return
    f = rng.choice(node.fields)
    what = rng.randrange(3)
    if what == 0 and f.wire_type == VARINT:
        try:
            value = read_varint(f.body, 0, len(f.body))[0]
        except DecodeError:
            return
        f.body = overlong_varint(value, rng.randrange(len(f.body), 11))
    elif what == 1:
        tag = f.number << 3 | f.wire_type
        f.tag = overlong_varint(tag, rng.randrange(len(varint(tag)), 6))
    elif f.wire_type == LEN:
        n = len(f.encoded_body())
        f.lenpre = overlong_varint(n, rng.randrange(len(varint(n)), 6))


def _op_splice(node: Node, rng: random.Random, pool: list[bytes]) -> None:
    """Replace a sub-message with one found elsewhere, or add one there."""
    if not pool or node.spec is None:
        return
    children = list(node.spec.children())
    if not children:
        return
    subs = [f for f in node.fields if _child_spec(node, f) is not None]
    body = rng.choice(pool)
    if subs and rng.random() < 0.6:
        f = rng.choice(subs)
        f.body, f.sub, f.lenpre = body, None, None
    else:
        field = rng.choice(children)
        node.fields.insert(rng.randrange(len(node.fields) + 1), Field(field.number, LEN, body))


def _op_types(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    """Give a message a type field and matching contents: a tensor's data_type and a
    storage field (or raw_data) from the data-type table; a sequence's or an
    optional's elem_type and an element of that type."""
    spec = node.spec
    if spec is None:
        return
    if spec.cls is TensorProto:
        type_field = spec.named.data_type
        dt = rng.choice(list(DATA_TYPES.values()))
        node.fields = [
            f for f in node.fields if f.number != type_field.number or rng.random() < 0.2
        ]
        node.fields.append(Field(type_field.number, VARINT, varint(dt.value)))
        if rng.random() < 0.4:
            raw = spec.named.raw_data
            count = rng.randrange(4)
            node.fields.append(Field(raw.number, LEN, rng.randbytes(dt.raw_size(count))))
        else:
            storage = spec.by_name[dt.storage]
            for _ in range(rng.randrange(1, 3)):
                node.fields.extend(known_fields(storage, rng, depth, pool))
        return
    table = element_fields(spec.cls)
    elem = spec.by_name.get(_ELEM_TYPE)
    if not table or elem is None:
        return
    elem_type = rng.choice(list(table))
    node.fields.append(Field(elem.number, VARINT, varint(elem_type)))
    node.fields.extend(known_fields(table[elem_type], rng, depth, pool))


def _applicable(spec: MessageSpec | None) -> tuple[bool, bool, bool]:
    """Whether a message has packable fields, sub-messages, a type field with contents."""
    if spec is None:
        return False, False, False
    found = _APPLICABLE.get(spec.name)
    if found is None:
        packable = any(f.repeated and len(f.accepted_wire_types()) == 2 for f in spec.fields)
        children = any(True for _ in spec.children())
        typed = spec.cls is TensorProto or bool(element_fields(spec.cls))
        found = _APPLICABLE[spec.name] = (packable, children, typed)
    return found


_APPLICABLE: dict[str, tuple[bool, bool, bool]] = {}


# The share of mutations of a model message (not one of the seven data messages,
# whose mix is measured in docs/fuzzing.md) that are model mutations.
MODEL_SHARE = 0.4


def _mutate_node(node: Node, rng: random.Random, pool: list[bytes], depth: int) -> None:
    spec = node.spec
    if spec is not None and spec.cls not in MESSAGE_TYPES:
        ops = model_ops(spec)
        if ops and rng.random() < MODEL_SHARE:
            rng.choice(ops)(node, rng, pool, depth)
            return
    packable, children, typed = _applicable(spec)
    r = rng.randrange(10)
    if (r == 6 and not packable) or (r == 8 and not (children and pool)) or (r == 9 and not typed):
        r = rng.randrange(6)
    if r == 0:
        _op_add(node, rng, pool, depth)
    elif r == 1:
        _op_drop(node, rng)
    elif r == 2:
        _op_duplicate(node, rng)
    elif r == 3:
        _op_reorder(node, rng)
    elif r <= 5:
        _op_edge(node, rng, pool, depth)
    elif r == 6:
        _op_packing(node, rng, pool, depth)
    elif r == 7:
        _op_overlong(node, rng)
    elif r == 8:
        _op_splice(node, rng, pool)
    else:
        _op_types(node, rng, pool, depth)


# -- breaking the encoding -----------------------------------------------------------


def _break(out: bytes, cls: type[Message], rng: random.Random) -> bytes:
    """``out`` with one defect of the catalog in it (the one the corpus and the
    strategies use): one that can occur in ``cls``, between its fields or at the end,
    or a cut inside a field."""
    defects = _BREAKABLE.get(cls)
    if defects is None:
        defects = _BREAKABLE[cls] = [d for d in CATALOG if applies(d, cls)]
    for _ in range(4):  # a cut needs a field of two bytes or more
        broken = place(rng.choice(defects), cls, out, rng)
        if broken is not None:
            return broken
    return out[: rng.randrange(len(out))] if out else b"\x00"


_BREAKABLE: dict[type[Message], list[Defect]] = {}


# -- size ----------------------------------------------------------------------------


def _fit(root: Node, out: bytes, max_size: int, rng: random.Random) -> bytes:
    """``out`` cut down to ``max_size`` bytes: whole top-level fields dropped first."""
    if len(out) <= max_size:
        return out
    parts = [f.join() for f in root.fields]
    size = sum(map(len, parts)) + len(root.tail)
    if size == len(out):
        keep = list(range(len(parts)))
        rng.shuffle(keep)
        for k in sorted(keep, key=lambda k: -len(parts[k])):
            if size <= max_size:
                break
            size -= len(parts[k])
            parts[k] = b""
        if size <= max_size:
            return b"".join(parts) + root.tail
    return out[:max_size]


# -- interleaving -----------------------------------------------------------------------


def interleave(base: list[Field], items: list[Field], places: list[int]) -> list[Field]:
    """``base`` with ``items[i]`` at index ``places[i]`` of the result (``places``
    ascending, below ``len(base) + len(items)``): one pass, where inserting
    each item into the list would move the fields after it, once per item.
    """
    out: list[Field] = []
    taken = 0
    for item, at in zip(items, places, strict=True):
        more = at - len(out)
        out.extend(base[taken : taken + more])
        taken += more
        out.append(item)
    out.extend(base[taken:])
    return out


# -- entry points ----------------------------------------------------------------------


def _rng(tag: bytes, seed: int, max_size: int, *datas: bytes) -> random.Random:
    key = b"%s:%d:%d:" % (tag, seed, max_size)
    for d in datas:
        key += b"%d:" % len(d) + d
    return random.Random(key)


def _as_bytes(data: Any) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return bytes(memoryview(data).cast("B"))
    except TypeError:
        raise TypeError(f"data must be a bytes-like object, not {type(data).__name__}") from None


def _check_args(max_size: Any, seed: Any) -> None:
    if not isinstance(max_size, int) or isinstance(max_size, bool):
        raise TypeError(f"max_size must be an int, not {type(max_size).__name__}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")


def mutate(data: Any, max_size: int, seed: int, cls: type = TensorProto) -> bytes:
    _check_args(max_size, seed)
    if max_size <= 0:
        return b""
    buf = _as_bytes(data)
    rng = _rng(b"m", seed, max_size, buf)
    root = split(buf, spec_of(cls))
    if rng.random() < BREAK_SHARE:
        out = _break(buf, cls, rng)
        return out[:max_size]
    targets = [_descend(root, rng) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
    pool = _pool(root, [])  # the sub-messages split on the way down included
    for node, depth in targets:
        _mutate_node(node, rng, pool, depth)
    if not root.fields and not root.tail and rng.random() < 0.5:
        root = split(random_message(root.spec, rng, 0, pool), root.spec) if root.spec else root
    return _fit(root, root.join(), max_size, rng)


def crossover(data1: Any, data2: Any, max_size: int, seed: int, cls: type = TensorProto) -> bytes:
    _check_args(max_size, seed)
    if max_size <= 0:
        return b""
    a, b = _as_bytes(data1), _as_bytes(data2)
    rng = _rng(b"x", seed, max_size, a, b)
    spec = spec_of(cls)
    root, other = split(a, spec), split(b, spec)
    r = rng.randrange(3)
    if r == 0:  # protobuf's merge: the concatenation of two messages is one message
        root = split(a + b, spec) if rng.random() < 0.5 else split(b + a, spec)
    elif r == 1 and other.fields:  # fields of the other input, interleaved
        chosen = rng.sample(other.fields, rng.randrange(1, len(other.fields) + 1))
        # Uniform places, the items in their (random) sampled order: what inserting
        # each at a uniform index gives, without moving the fields after it each time.
        places = sorted(rng.sample(range(len(root.fields) + len(chosen)), len(chosen)))
        root.fields = interleave(root.fields, [f.copy() for f in chosen], places)
    else:  # a sub-message of the other input spliced into this one, at any depth
        _descend(other, rng)
        pool = _pool(other, []) or [b]
        node, _ = _descend(root, rng)
        _op_splice(node, rng, pool)
    return _fit(root, root.join(), max_size, rng)
