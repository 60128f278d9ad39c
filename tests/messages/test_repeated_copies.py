"""A repeated field never shares the caller's container (issue 31, class 7).

protobuf copies what a repeated field is given: after ``TensorProto(dims=d)``,
changing ``d`` leaves the message alone.  Every repeated field of every
message is checked here (packed numbers, plain lists, messages), on every
way a value gets in: construction, attribute assignment,
``dataclasses.replace``, ``CopyFrom``, ``MergeFrom``, ``extend``, and a
decoded message's container handed on; from a list, a tuple, a generator and
another message's container.  After the caller's container is changed, the
message's bytes are still protobuf's bytes for the values given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from onnxdata._core.schema import FieldSpec, spec_of
from tests.support.oracle import MESSAGE_TYPES, ORACLE

REPEATED = [
    (cls, f) for cls in MESSAGE_TYPES for f in spec_of(cls).fields if f.repeated
]  # fmt: skip
IDS = [f"{spec_of(cls).name}.{f.name}" for cls, f in REPEATED]


def _values(f: FieldSpec) -> list[Any]:
    """Three distinct values of the field's kind, for onnxdata's class."""
    if f.kind == "message":
        element = f.message
        g = next(g for g in spec_of(element).fields if g.kind in ("string", "int64"))
        sample: Any = {"string": "x", "int64": 7}[g.kind]
        set_one = {g.name: [sample] if g.repeated else sample}
        return [element(**set_one), element(), element(**set_one)]
    return {
        "int64": [3, -4, 5],
        "int32": [3, -4, 5],
        "uint64": [3, 4, 5],
        "float": [1.5, -2.5, 3.0],
        "double": [1.5, -2.5, 3.0],
        "bytes": [b"ab", b"", b"cd"],
        "string": ["ab", "", "cd"],
    }[f.kind]


def _oracle_values(f: FieldSpec, values: list[Any]) -> list[Any]:
    if f.kind == "message":
        return [ORACLE[type(v)].FromString(v.encode()) for v in values]
    return list(values)


def _expected(cls: type, f: FieldSpec, values: list[Any]) -> bytes:
    """protobuf's bytes for ``cls`` holding ``values`` in field ``f``."""
    theirs = ORACLE[cls](**{f.name: _oracle_values(f, values)})
    encoded: bytes = theirs.SerializeToString()
    return encoded


def _spoil(container: Any, f: FieldSpec) -> None:
    """Change a caller's container in place: one element replaced, one added."""
    fresh = _values(f)
    container[0] = fresh[2]
    container.append(fresh[0])


def _forms(f: FieldSpec) -> dict[str, Callable[[list[Any]], tuple[Any, Callable[[], None]]]]:
    """Each way of handing values over: (the value passed, how the caller then changes it)."""

    def as_list(values: list[Any]) -> tuple[Any, Callable[[], None]]:
        given = list(values)
        return given, lambda: _spoil(given, f)

    def as_tuple(values: list[Any]) -> tuple[Any, Callable[[], None]]:
        return tuple(values), lambda: None

    def as_generator(values: list[Any]) -> tuple[Any, Callable[[], None]]:
        def gen() -> Iterator[Any]:
            yield from values

        return gen(), lambda: None

    def as_container(values: list[Any]) -> tuple[Any, Callable[[], None]]:
        donor = f.owner(**{f.name: values})
        given = getattr(donor, f.name)
        return given, lambda: _spoil(given, f)

    return {
        "list": as_list,
        "tuple": as_tuple,
        "generator": as_generator,
        "container": as_container,
    }


def _construct(cls: type, f: FieldSpec, given: Any) -> Any:
    return cls(**{f.name: given})


def _assign(cls: type, f: FieldSpec, given: Any) -> Any:
    m = cls()
    setattr(m, f.name, given)
    return m


def _replace(cls: type, f: FieldSpec, given: Any) -> Any:
    return dataclasses.replace(cls(), **{f.name: given})


def _copy_from(cls: type, f: FieldSpec, given: Any) -> Any:
    m = cls()
    m.CopyFrom(cls(**{f.name: given}))
    return m


def _merge_from(cls: type, f: FieldSpec, given: Any) -> Any:
    m = cls()
    m.MergeFrom(cls(**{f.name: given}))
    return m


def _extend(cls: type, f: FieldSpec, given: Any) -> Any:
    m = cls()
    getattr(m, f.name).extend(given)
    return m


PATHS = {
    "construct": _construct,
    "assign": _assign,
    "replace": _replace,
    "CopyFrom": _copy_from,
    "MergeFrom": _merge_from,
    "extend": _extend,
}
FORMS = ["list", "tuple", "generator", "container"]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize(("cls", "f"), REPEATED, ids=IDS)
def test_changing_the_callers_container_leaves_the_message(
    cls: type, f: FieldSpec, path: str, form: str
) -> None:
    values = _values(f)
    expected = _expected(cls, f, values)
    given, spoil = _forms(f)[form](values)
    m = PATHS[path](cls, f, given)
    assert m.encode() == expected
    spoil()
    assert m.encode() == expected, f"{path} from a {form} shares the caller's container"
    assert getattr(m, f.name) is not given


@pytest.mark.parametrize(("cls", "f"), REPEATED, ids=IDS)
def test_the_oracle_copies_too(cls: type, f: FieldSpec) -> None:
    # The rule the tests above hold onnxdata to is protobuf's own.
    values = _oracle_values(f, _values(f))
    given = list(values)
    theirs = ORACLE[cls](**{f.name: given})
    before = theirs.SerializeToString()
    given.append(given[0])
    given.pop(0)
    assert theirs.SerializeToString() == before


@pytest.mark.parametrize(("cls", "f"), REPEATED, ids=IDS)
def test_a_decoded_container_handed_on_is_copied(cls: type, f: FieldSpec) -> None:
    values = _values(f)
    expected = _expected(cls, f, values)
    decoded = cls.decode(expected)
    container = getattr(decoded, f.name)
    m = cls(**{f.name: container})
    other = dataclasses.replace(decoded)
    _spoil(container, f)
    assert m.encode() == expected
    assert other.encode() == expected
    assert decoded.encode() != expected  # the decoded message itself did change


@pytest.mark.parametrize(("cls", "f"), REPEATED, ids=IDS)
def test_two_messages_never_share_a_container(cls: type, f: FieldSpec) -> None:
    a = cls(**{f.name: _values(f)})
    b = cls()
    setattr(b, f.name, getattr(a, f.name))
    c = dataclasses.replace(a)
    assert getattr(a, f.name) is not getattr(b, f.name)
    assert getattr(a, f.name) is not getattr(c, f.name)
    getattr(a, f.name).append(_values(f)[0])
    assert len(getattr(b, f.name)) == len(getattr(c, f.name)) == 3


def test_what_cannot_be_a_container_is_still_refused_by_encode() -> None:
    from onnxdata import EncodeTypeError, MapProto, TensorProto

    for bad in ("12", 12, b"12"):  # protobuf: bytes are a sequence of ints, not of bytes
        with pytest.raises(EncodeTypeError, match="string_keys"):
            MapProto(string_keys=bad).encode()
        with pytest.raises(TypeError):
            ORACLE[MapProto](string_keys=bad)
    for bad in ("12", 12):
        with pytest.raises(EncodeTypeError, match="dims"):
            TensorProto(dims=bad).encode()


def test_a_bytearray_is_read_as_protobuf_reads_it_and_copied() -> None:
    from onnxdata import TensorProto

    given = bytearray(b"12")
    m = TensorProto(dims=given)
    given[0] = 0x39
    assert m.encode() == ORACLE[TensorProto](dims=b"12").SerializeToString()


def test_a_failing_generator_raises_at_once() -> None:
    from onnxdata import TensorProto

    def failing() -> Iterator[int]:
        yield 1
        raise RuntimeError("no more")

    with pytest.raises(RuntimeError, match="no more"):
        TensorProto(dims=failing())
