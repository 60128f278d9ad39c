"""No module outside ``_core`` and ``_codec`` reads or writes a message's slots.

A message keeps each field's value in a private slot (``FieldSpec.slot``,
``_<name>`` today); only the schema's own layer (``_core``, which builds the
classes and their accessors) and the code generated from it (``_codec``)
know that.  Everything else reads a field by its public name, or through a
``_core`` accessor (``_core/access.py``: ``held``, ``gather``...) where it
needs the value as held (``None`` while unset, no container or stand-in
made) or one call for several fields.

The slot names are taken from the schema, for every field of every message
class (nested ones too), not from a hand list; a module is refused when it
names one as an attribute (``x._raw_data``, read, written or deleted) or as
a string given to ``getattr``, ``setattr``, ``delattr``, ``hasattr``,
``operator.attrgetter`` or ``__getattribute__``/``__setattr__``/
``__delattr__``.

A slot reached through the schema (``getattr(m, f.slot)``, ``f.siblings``,
``all_slots``) names no slot, but reads one all the same: no module outside
``_core`` and ``_codec`` does that either.  They read a field as held through
``FieldSpec.held`` (an ``operator.attrgetter`` of the slot, built once with
the field), store what ``held`` gave with ``FieldSpec.put``, and read several
fields through ``_core/access.py`` (``gather``...), which takes ``FieldSpec``
objects; a message's cloner is generated in ``_core/clones.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import onnxdata
from onnxdata._core.schema import UNKNOWN_FIELDS, all_slots, spec_of
from onnxdata._messages.catalog import all_message_types

PACKAGE = Path(onnxdata.__file__).parent
# The layers that know how a message stores its fields.
KNOWING = ("_core", "_codec")
# Calls whose string argument names an attribute.
_NAMING_CALLS = frozenset(
    {"getattr", "setattr", "delattr", "hasattr", "attrgetter",
     "__getattribute__", "__setattr__", "__delattr__"}
)  # fmt: skip


def _slots() -> frozenset[str]:
    """Every field's slot, of every message class: ``unknown_fields`` is public."""
    found: set[str] = set()
    for cls in all_message_types():
        found.update(slot for slot in all_slots(spec_of(cls)) if slot != UNKNOWN_FIELDS)
    return frozenset(found)


SLOTS = _slots()


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def slot_uses(source: str, slots: frozenset[str] = SLOTS) -> list[str]:
    """Where ``source`` names one of ``slots``: ``line: how``, in order."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in slots:
            what = type(node.ctx).__name__.lower()  # load, store, del
            found.append((node.lineno, f"{what} .{node.attr}"))
        elif isinstance(node, ast.Call) and _called(node) in _NAMING_CALLS:
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    named = [part for part in arg.value.split(".") if part in slots]
                    found.extend((node.lineno, f"{_called(node)}({name!r})") for name in named)
    return [f"{line}: {how}" for line, how in sorted(found)]


def schema_slot_uses(source: str) -> list[int]:
    """The lines of ``source`` that reach a slot through the schema."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if (isinstance(node, ast.Attribute) and node.attr in ("slot", "siblings"))
        or (isinstance(node, ast.Name) and node.id == "all_slots")
        or (isinstance(node, ast.alias) and node.name == "all_slots")
    )


def _outside() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in KNOWING
    ]


def test_every_message_class_gives_its_slots() -> None:
    classes = all_message_types()
    assert len(classes) > 30  # the data messages, the model messages and their nested ones
    for cls in classes:
        spec = spec_of(cls)
        assert spec.fields, spec.name
        assert {f.slot for f in spec.fields} <= SLOTS, spec.name


@pytest.mark.parametrize(
    "path", _outside(), ids=lambda p: p.relative_to(PACKAGE).with_suffix("").as_posix()
)
def test_no_slot_is_named_outside_core_and_codec(path: Path) -> None:
    uses = slot_uses(path.read_text(encoding="utf-8"))
    assert uses == [], f"{path.relative_to(PACKAGE)} names message slots: {uses}"


def test_the_checker_finds_every_slot_in_every_form() -> None:
    """The checker can fail: a use of each slot, in each form, is found."""
    for slot in sorted(SLOTS):
        snippet = (
            f"v = m.{slot}\n"
            f"m.{slot} = v\n"
            f"del m.{slot}\n"
            f"getattr(m, {slot!r})\n"
            f"setattr(m, {slot!r}, v)\n"
            f"delattr(m, {slot!r})\n"
            f"hasattr(m, {slot!r})\n"
            f"operator.attrgetter('graph.{slot}')\n"
            f"object.__setattr__(m, {slot!r}, v)\n"
        )
        assert len(slot_uses(snippet)) == 9, (slot, slot_uses(snippet))


def test_the_checker_leaves_public_names_and_other_strings_alone() -> None:
    snippet = (
        "v = m.raw_data\n"
        "m.dims = [1]\n"
        "getattr(m, 'raw_data')\n"
        "name.endswith('_type')\n"
        "f'{x}_raw_data'\n"
        "m.unknown_fields\n"
        "getattr(m, f.slot)\n"
    )
    assert slot_uses(snippet) == []


@pytest.mark.parametrize(
    "path", _outside(), ids=lambda p: p.relative_to(PACKAGE).with_suffix("").as_posix()
)
def test_no_slot_is_reached_through_the_schema_outside_core_and_codec(path: Path) -> None:
    lines = schema_slot_uses(path.read_text(encoding="utf-8"))
    assert lines == [], f"{path.relative_to(PACKAGE)} reads FieldSpec.slot/siblings: lines {lines}"


def test_the_schema_checker_finds_each_form() -> None:
    snippet = "getattr(m, f.slot)\nfor s in f.siblings: pass\nfrom x import all_slots\n"
    assert schema_slot_uses(snippet) == [1, 2, 3]
    assert schema_slot_uses("getattr(m, f.name)\nf.held(m)\nf.put(m, v)\n") == []
