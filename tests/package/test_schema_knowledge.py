"""The knowledge of a field lives in the schema, for every field of every message.

A field's name, number and tag are written once, in its declaration under
``onnxdata/_messages/``.  Every other module reaches a field through the Python
API (``model.graph``) or through the schema (``spec_of(cls).fields``, or one
field's ``FieldSpec`` by identifier: ``spec_of(ModelProto).named.graph``, whose
``.number``, ``.tag`` and ``.name`` go stale never), not by spelling it again:

- (a) no string constant equal to a field's (or a oneof's) name selects a field: the second
  argument of ``getattr``/``setattr``/``hasattr``/``delattr``, the argument of
  ``HasField``/``ClearField``/``WhichOneof``, a key of ``by_name`` or
  ``fields_by_name``, or a key of a dict spread as keyword arguments;
- (b) no integer literal stands for a field number or a tag: a tag computed
  (``7 << 3``), ``tag_bytes(7, ...)`` or ``tag_for``, a field looked up by number
  (``by_number[7]``), or a comparison of a decoded field number or tag
  (``number == 7``, ``tag != 0x0A``, ``fnum in (1, 2)``).

The names are every field of every message (``all_message_types()``), so a
field added to the declarations is covered with no edit here.

The checks read the source (``ast``), so each is also fed a snippet with a
violation, to show that it can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import onnxdata
from onnxdata._core.schema import spec_of
from onnxdata._messages.catalog import all_message_types

PACKAGE = Path(onnxdata.__file__).parent

# Where fields are named on purpose: the declarations, and the modules that
# reproduce onnx's own API signatures (onnx.helper's ``doc_string=``,
# ``strip_doc_string``, onnx.printer's field-by-field layout), which name
# fields as onnx does.  Kept in step with test_layers.py's ``_DECLARING``.
NAMING = {
    "helper",
    "_tools.makers",
    "_tools.typemakers",
    "_tools.attributes",
    "_tools.printable",
}
# Generic wire code: it computes tags from numbers it is given, or checks the
# numbers protobuf allows (1 to 2**29 - 1, 19000-19999 reserved); no field's own.
WIRE = {"_core.wire", "_core.schema", "_core.descriptors"}

# Strings flagged that select no field: the name of a Python object's attribute that
# a field happens to share.  Module -> strings.
NOT_A_FIELD: dict[str, set[str]] = {
    "_io.choosing": {"name"},  # getattr(f, "name"): a file object's name
}
# Literals flagged that are the number of no field: byte patterns for fuzzers.
NOT_A_NUMBER: dict[str, set[str]] = {
    # Dictionary entries for libFuzzer: a group's tags and an over-long tag, of any
    # field (15 and 1 are the numbers of one-byte tags, not of a declared field).
    "_fuzz.dictionary": {
        "tag_bytes(15, SGROUP)",
        "tag_bytes(15, EGROUP)",
        "tag_bytes(1, VARINT, 6)",
    },
}
SELECTORS = {"getattr", "setattr", "hasattr", "delattr"}
METHOD_SELECTORS = {"HasField", "ClearField", "WhichOneof"}
BY_NAME = {"by_name", "fields_by_name"}
BY_NUMBER = {"by_number", "fields_by_number"}
# Names that hold a decoded field number or tag.
NUMBER_NAMES = {"number", "fnum", "field_number", "tag", "first_tag"}
TAG_CALLS = {"tag_bytes", "tag_for", "encode_tag"}


def _field_names() -> frozenset[str]:
    """Every field's name, and every oneof's (``WhichOneof`` selects by it)."""
    specs = [spec_of(cls) for cls in all_message_types()]
    return frozenset(f.name for s in specs for f in s.fields) | {o for s in specs for o in s.oneofs}


FIELD_NAMES = _field_names()


def _str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _ints(node: ast.AST) -> list[int]:
    """The integer literals ``node`` is, or holds as a tuple, list or set."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [v for e in node.elts for v in _ints(e)]
    return []


def _callee(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


_SAME = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _holds_number(node: ast.AST) -> bool:
    """Whether ``node`` reads as a decoded field number or tag: ``number``,
    ``f.number``, ``tag >> 3``, ``tag & 7`` is not (a wire type)."""
    if isinstance(node, ast.Name):
        return node.id in NUMBER_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in NUMBER_NAMES
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.RShift):
        return _ints(node.right) == [3]
    return False


def named_fields(source: str, fields: frozenset[str]) -> list[str]:
    """Where ``source`` selects a field by a string constant that is its name (check a)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        picked: list[ast.AST] = []
        if isinstance(node, ast.Call):
            name = _callee(node)
            if isinstance(node.func, ast.Name) and name in SELECTORS and len(node.args) >= 2:
                picked.append(node.args[1])
            elif isinstance(node.func, ast.Attribute) and name in METHOD_SELECTORS:
                picked.extend(node.args[:1])
            elif isinstance(node.func, ast.Attribute) and name in {"get", "pop", "setdefault"}:
                owner = node.func.value
                if isinstance(owner, ast.Attribute) and owner.attr in BY_NAME:
                    picked.extend(node.args[:1])
            for kw in node.keywords:
                if kw.arg is None and isinstance(kw.value, ast.Dict):
                    picked.extend(k for k in kw.value.keys if k is not None)
        elif isinstance(node, ast.Subscript):
            owner = node.value
            if isinstance(owner, ast.Attribute) and owner.attr in BY_NAME:
                picked.append(node.slice)
        for arg in picked:
            text = _str(arg)
            if text in fields:
                found.append(f"line {getattr(arg, 'lineno', '?')}: {text!r}")
    return found


def numbered_fields(source: str) -> list[str]:
    """Where ``source`` writes a field number or a tag as an integer literal (check b)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        literals: list[int] = []
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.LShift):
            if _ints(node.right) == [3]:  # number << 3: a tag
                literals = _ints(node.left)
        elif isinstance(node, ast.Call) and _callee(node) in TAG_CALLS:
            literals = [v for a in node.args[:1] for v in _ints(a)]
        elif isinstance(node, ast.Subscript):
            owner = node.value
            if isinstance(owner, ast.Attribute) and owner.attr in BY_NUMBER:
                literals = _ints(node.slice)
        elif isinstance(node, ast.Call) and _callee(node) == "get":
            owner = node.func.value if isinstance(node.func, ast.Attribute) else None
            if isinstance(owner, ast.Attribute) and owner.attr in BY_NUMBER:
                literals = [v for a in node.args[:1] for v in _ints(a)]
        elif isinstance(node, ast.Compare) and all(isinstance(op, _SAME) for op in node.ops):
            # (an ordering, ``tag < 0x80``, asks whether a varint takes one byte)
            sides = [node.left, *node.comparators]
            if any(_holds_number(s) for s in sides):  # 0 is no field's: the wire's rule
                literals = [v for s in sides for v in _ints(s) if v != 0]
        if literals:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


def _checked(exempt: set[str]) -> list[Path]:
    return [
        p for p in _modules() if not _dotted(p).startswith("_messages") and _dotted(p) not in exempt
    ]


def _named(path: Path) -> set[str]:
    """The field names ``path`` selects fields by (the strings, without line numbers)."""
    return {
        hit.split(": ", 1)[1][1:-1] for hit in named_fields(path.read_text("utf-8"), FIELD_NAMES)
    }


def _numbered(path: Path) -> set[str]:
    return {hit.split(": ", 1)[1] for hit in numbered_fields(path.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("path", _checked(NAMING), ids=_dotted)
def test_no_field_is_selected_by_its_name_outside_the_schema(path: Path) -> None:
    module = _dotted(path)
    assert _named(path) - NOT_A_FIELD.get(module, set()) == set(), module


@pytest.mark.parametrize("path", _checked(WIRE), ids=_dotted)
def test_no_field_number_or_tag_is_written_outside_the_schema(path: Path) -> None:
    module = _dotted(path)
    assert _numbered(path) - NOT_A_NUMBER.get(module, set()) == set(), module


def test_every_exception_is_still_needed() -> None:
    """An entry that the code no longer needs is removed, so the lists only shrink."""
    paths = {_dotted(p): p for p in _modules()}
    for table, found in ((NOT_A_FIELD, _named), (NOT_A_NUMBER, _numbered)):
        for module, allowed in table.items():
            assert module in paths, module
            assert allowed <= found(paths[module]), (module, allowed - found(paths[module]))


def test_every_field_of_every_message_is_checked() -> None:
    """The names the check looks for are every field's: a field added to the
    declarations is covered without a change here."""
    every = {(cls, f.name) for cls in all_message_types() for f in spec_of(cls).fields}
    oneofs = {o for cls in all_message_types() for o in spec_of(cls).oneofs}
    assert every and {name for _, name in every} | oneofs == FIELD_NAMES
    for cls, name in every:
        snippet = f"getattr(m, {name!r})\nm.HasField({name!r})\nspec.by_name[{name!r}]\n"
        assert len(named_fields(snippet, FIELD_NAMES)) == 3, (cls.__qualname__, name)


@pytest.mark.parametrize(
    "snippet",
    [
        "getattr(model, 'graph')",
        "setattr(node, 'op_type', 'Relu')",
        "hasattr(t, 'raw_data')",
        "delattr(t, 'dims')",
        "m.HasField('doc_string')",
        "m.ClearField('metadata_props')",
        "spec.by_name['elem_type']",
        "spec.by_name.get('name')",
        "d.fields_by_name['opset_import']",
        "ModelProto(**{'ir_version': 7})",
    ],
)
def test_the_name_check_flags_a_field_named(snippet: str) -> None:
    assert len(named_fields(snippet, FIELD_NAMES)) == 1


@pytest.mark.parametrize(
    "snippet",
    [
        "getattr(model, name)",
        "getattr(model, 'not_a_field_at_all')",
        "m.HasField(f.name)",
        "d['graph'] = 1",  # a plain dict's key selects no field
        "print('graph')",
    ],
)
def test_the_name_check_passes_what_selects_no_field(snippet: str) -> None:
    assert named_fields(snippet, FIELD_NAMES) == []


@pytest.mark.parametrize(
    "snippet",
    [
        "tag = 7 << 3 | 2",
        "tag_bytes(7, LEN)",
        "f.tag_for(7)",
        "spec.by_number[7]",
        "spec.by_number.get(8)",
        "if number == 7: pass",
        "if tag != 0x0A: pass",
        "if fnum in (1, 2): pass",
        "if tag >> 3 == 14: pass",
        "if f.number == 20: pass",
    ],
)
def test_the_number_check_flags_a_field_number_written(snippet: str) -> None:
    assert len(numbered_fields(snippet)) == 1


@pytest.mark.parametrize(
    "snippet",
    [
        "tag = number << 3 | wire_type",
        "tag_bytes(f.number, LEN)",
        "spec.by_number[ModelProto.GRAPH_FIELD_NUMBER]",
        "if number == 0: pass",
        "if tag & 7 == 2: pass",  # a wire type, not a field
        "if count == 7: pass",
    ],
)
def test_the_number_check_passes_what_names_no_field(snippet: str) -> None:
    assert numbered_fields(snippet) == []
