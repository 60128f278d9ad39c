"""The knowledge of a field lives in the schema, for every field of every message.

A field's name, number and tag are written once, in its declaration under
``onnxdata/_messages/``.  Every other module reaches a field through the Python
API (``model.graph``) or through the schema (``spec_of(cls).fields``, or one
field's ``FieldSpec`` by identifier: ``spec_of(ModelProto).named.graph``, whose
``.number``, ``.tag`` and ``.name`` go stale never), not by spelling it again:

- (a) no string constant equal to a field's (or a oneof's) name selects a field: the second
  argument of ``getattr``/``setattr``/``hasattr``/``delattr``, the argument of
  ``HasField``/``ClearField``/``WhichOneof``, a key of ``by_name`` or
  ``fields_by_name`` (or of a name bound to one: ``tensor = spec.by_name``), a key
  of a dict spread as keyword arguments, any argument of ``_core/access.py``'s
  readers (``gather``, ``counter``, ``alone``, and ``held``, which they replaced)
  or of ``blank_maker``,
  a side of a comparison with a ``WhichOneof`` result (or a name bound to one) or
  with a field's name (``f.name``, ``field.name``, ``member.name``), the keys or the
  values of a dict literal that are all field names (a table keyed by fields, or
  of fields), or a module-level constant that is a field name or a tuple, list or
  set of field names only (``_BINARY = "raw_data"``), or a tuple, list or set of
  two or more field names only anywhere (a loop over fields by name);
- (b) no integer literal stands for a field number or a tag: a tag computed
  (``7 << 3``), ``tag_bytes(7, ...)`` or ``tag_for``, a field looked up by number
  (``by_number[7]``), or a comparison of a decoded field number or tag
  (``number == 7``, ``tag != 0x0A``, ``fnum in (1, 2)``).

The names are every field of every message (``all_message_types()``), so a
field added to the declarations is covered with no edit here.

The checks read the source (``ast``), so each is also fed a snippet with a
violation, to show that it can fail.

How to fix a module this test refuses (the convention everywhere outside
``_messages/`` and the ``NAMING`` modules): take the field from the schema by
identifier, once, at module level, and use its ``FieldSpec``.  ``_NODE =
spec_of(NodeProto).named`` then ``_NODE.attribute`` (the field), ``_NODE.attribute.held``
(what a message holds in it, ``None`` while unset: what was ``held(NodeProto,
"attribute")``), ``gather((_NODE.input, _NODE.output))`` (was ``gather(NodeProto,
("input", "output"))``), ``counter(*fields)``, ``alone(field, others)``; where a
name is needed as a string (a ``WhichOneof`` answer, ``HasField``, a dict of
``check()``'s values, an error message), ``_TP = spec_of(TypeProto).named`` then
``which == _TP.tensor_type.name``, or a constant ``_TENSOR = _TP.tensor_type.name``.
A name computed at run time goes through ``spec.by_name[name]``.  A field renamed
in the declarations then fails at import (``AttributeError``), never silently.
Keywords of a syntax that happen to equal field names (onnx's text syntax) are
grammar, not selection: list them in ``NOT_A_FIELD`` with the reason.  A module
written before this rule (a parser's ``held(GraphProto, "node")``, a
``which == "tensor_type"``) fails here and at import (``held`` is gone from
``_core/access.py``); each of its lines is fixed as above, one for one.

Not seen (left to review): a field's name used as a key of ``check()``'s value
dicts (``m["opset_import"]`` in ``_tools/model_rules.py`` and ``_tools/rules.py``)
or as a plain string passed to a helper that selects with it.
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
    # onnx's text syntax: the model's keywords (the grammar's words, which equal the
    # fields' names; print_models reads each field through the schema by keyword).
    "_syntax.lexicon": {
        "ir_version", "opset_import", "producer_name", "producer_version", "domain",
        "model_version", "doc_string", "metadata_props", "overload",
    },
    # onnx's test runner's file kinds (input_0.pb, output_0.pb), keyed in dicts.
    "_tools.testcase": {"input", "output"},
}  # fmt: skip
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
# _core/access.py's readers (and ``held``, which they replaced): they take FieldSpecs.
ACCESS_CALLS = {"held", "gather", "counter", "alone", "blank_maker"}
# Names that hold a FieldSpec by convention: ``f.name == "raw_data"`` selects a field.
FIELD_VARIABLES = {"f", "field", "member"}
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


def _field_strings(node: ast.AST, fields: frozenset[str]) -> list[ast.AST]:
    """The string constants equal to a field's name anywhere inside ``node``."""
    return [n for n in ast.walk(node) if _str(n) in fields]


def _all_fields(node: ast.AST | None, fields: frozenset[str]) -> bool:
    """Whether ``node`` is a field's name, or a tuple/list/set (or ``frozenset``
    or ``tuple`` of one) of field names only."""
    if isinstance(node, ast.Call) and _callee(node) in {"frozenset", "tuple", "set"}:
        return len(node.args) == 1 and _all_fields(node.args[0], fields)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_str(e) in fields for e in node.elts)
    return _str(node) in fields


def _aliases(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Names bound to a ``by_name`` table (``tensor = spec.by_name``), and names
    bound to a ``WhichOneof`` result (``which = t.WhichOneof(...)``)."""
    tables: set[str] = set()
    chosen: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if isinstance(value, ast.Attribute) and value.attr in BY_NAME:
                tables |= names
            elif isinstance(value, ast.Call) and _callee(value) == "WhichOneof":
                chosen |= names
    return tables, chosen


def _selects(node: ast.AST, tables: set[str]) -> bool:
    """Whether ``node`` is a name table (``by_name``, or a name bound to one)."""
    if isinstance(node, ast.Attribute):
        return node.attr in BY_NAME
    return isinstance(node, ast.Name) and node.id in tables


def _a_choice(node: ast.AST, chosen: set[str]) -> bool:
    """Whether ``node`` reads which field is chosen: a ``WhichOneof`` result, or
    a field's name (``f.name``, ``field.name``, ``member.name``)."""
    if isinstance(node, ast.Call):
        return _callee(node) == "WhichOneof"
    if isinstance(node, ast.Name):
        return node.id in chosen
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "name"
        and isinstance(node.value, ast.Name)
        and node.value.id in FIELD_VARIABLES
    )


def _picked(
    node: ast.AST, fields: frozenset[str], tables: set[str], chosen: set[str]
) -> list[ast.AST]:
    """The arguments of ``node`` that select a field, in any of the forms of check (a)."""
    picked: list[ast.AST] = []
    if isinstance(node, ast.Call):
        name = _callee(node)
        if isinstance(node.func, ast.Name) and name in SELECTORS and len(node.args) >= 2:
            picked.append(node.args[1])
        elif isinstance(node.func, ast.Attribute) and name in METHOD_SELECTORS:
            picked.extend(node.args[:1])
        elif name in ACCESS_CALLS:  # held(cls, "name"), gather(cls, ("a", "b")), ...
            for arg in (*node.args, *(kw.value for kw in node.keywords)):
                picked.extend(_field_strings(arg, fields))
        elif (
            isinstance(node.func, ast.Attribute)
            and name in {"get", "pop", "setdefault"}
            and _selects(node.func.value, tables)
        ):
            picked.extend(node.args[:1])
        for kw in node.keywords:
            if kw.arg is None and isinstance(kw.value, ast.Dict):
                picked.extend(k for k in kw.value.keys if k is not None)
    elif isinstance(node, ast.Subscript):
        if _selects(node.value, tables):
            picked.append(node.slice)
    elif isinstance(node, ast.Compare) and all(isinstance(op, _SAME) for op in node.ops):
        sides = [node.left, *node.comparators]
        if any(_a_choice(side, chosen) for side in sides):  # which == "tensor_type"
            for side in sides:
                picked.extend(_field_strings(side, fields))
    elif isinstance(node, ast.Dict):  # a table keyed by fields, or of fields
        keys = [k for k in node.keys if k is not None]
        for column in (keys, node.values):
            if len(column) >= 2 and all(_str(k) in fields for k in column):
                picked.extend(column)
    return picked


def _module_constants(tree: ast.Module, fields: frozenset[str]) -> list[ast.AST]:
    """Field names a module keeps as constants: ``_BINARY = "raw_data"``,
    ``_FIELDS = ("dims", "data_type")`` (at module level)."""
    found: list[ast.AST] = []
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in {"__slots__", "__all__"} for t in node.targets
        ):
            continue
        if value is not None and _all_fields(value, fields):
            found.extend(_field_strings(value, fields))
    return found


def _field_lists(tree: ast.AST, fields: frozenset[str]) -> list[ast.AST]:
    """Field names in a tuple, list or set literal of two or more field names only,
    anywhere (``for name in ("values", "indices"): m.HasField(name)``), but a class's
    ``__slots__`` or a module's ``__all__`` (attribute names, not fields)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in {"__slots__", "__all__"} for t in node.targets
        ):
            skipped.add(id(node.value))
    return [
        e
        for node in ast.walk(tree)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set))
        and id(node) not in skipped
        and len(node.elts) >= 2
        and all(_str(e) in fields for e in node.elts)
        for e in node.elts
    ]


def named_fields(source: str, fields: frozenset[str]) -> list[str]:
    """Where ``source`` selects a field by a string constant that is its name (check a)."""
    tree = ast.parse(source)
    tables, chosen = _aliases(tree)
    hits: dict[int, ast.AST] = {}  # one hit per constant, however many forms see it
    for node in ast.walk(tree):
        for arg in _picked(node, fields, tables, chosen):
            if _str(arg) in fields:
                hits[id(arg)] = arg
    for arg in (*_module_constants(tree, fields), *_field_lists(tree, fields)):
        hits[id(arg)] = arg
    ordered = sorted(hits.values(), key=lambda a: (a.lineno, a.col_offset))
    return [f"line {a.lineno}: {_str(a)!r}" for a in ordered]


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
        "held(TensorProto, 'raw_data')",
        "gather(NodeProto, ('name', 'not_a_field'))",
        "counter(TensorProto, STORAGE, extra='dims')",
        "alone(SequenceProto, 'tensor_values', others)",
        "blank_maker(spec, ('dims',))",
        "tensor = spec.by_name\nx = tensor['raw_data']",
        "tensor = spec_of(T).by_name\nx = tensor.get('dims')",
        "if t.WhichOneof(ONEOF) == 'tensor_type': pass",
        "which = t.WhichOneof(ONEOF)\nif which != 'map_type': pass",
        "which = t.WhichOneof(ONEOF)\nok = which in ('tensor_type', 'not_a_field')",
        "if f.name != 'external_data': pass",
        "_BINARY = 'raw_data'",
        "_FIELDS: tuple[str, ...] = ('raw_data',)",
        "_USED = frozenset(('raw_data',))",
    ],
)
def test_the_name_check_flags_a_field_named(snippet: str) -> None:
    assert len(named_fields(snippet, FIELD_NAMES)) == 1, named_fields(snippet, FIELD_NAMES)


def test_the_name_check_flags_each_field_of_a_table_once() -> None:
    snippet = (
        "_NEEDS = {'tensor_type': 1, 'map_type': 2}\n_BOTH = ('dims', 'raw_data')\n"
        "def f():\n    return {A: 'tensor_values', B: 'map_values'}\n"
        "def g(s):\n    for name in ('values', 'indices'): s.HasField(name)\n"
    )
    assert named_fields(snippet, FIELD_NAMES) == [
        "line 1: 'tensor_type'", "line 1: 'map_type'", "line 2: 'dims'", "line 2: 'raw_data'",
        "line 4: 'tensor_values'", "line 4: 'map_values'", "line 6: 'values'", "line 6: 'indices'",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "snippet",
    [
        "getattr(model, name)",
        "getattr(model, 'not_a_field_at_all')",
        "m.HasField(f.name)",
        "d['graph'] = 1",  # a plain dict's key selects no field
        "print('graph')",
        "held(_TENSOR.raw_data)",  # FieldSpecs: the convention
        "gather((_NODE.input, _NODE.output))",
        "if t.WhichOneof(ONEOF) == _TP.tensor_type.name: pass",
        "if kind == 'graph': pass",  # not a WhichOneof answer nor a field's name
        "if node.name == 'graph': pass",  # a node's name, not a field's
        "def f():\n    x = 'raw_data'",  # a local, not a module constant
        "_MIXED = ('raw_data', 'not_a_field')",  # not only field names
        "class C:\n    __slots__ = ('name', 'dims')",  # attribute names
        "__all__ = ['graph', 'node']",
        "_ONE = {'graph': 5}",  # one key: no table of fields
        "_WORDS = {'float': 1, 'graph': 5}",  # words of a syntax, some not fields
        "x = other_table['raw_data']",  # not bound to by_name
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
