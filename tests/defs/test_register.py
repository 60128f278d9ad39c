"""Schemas built and registered from Python behave as onnx's: the same fields, the same errors.

Registration is process-wide in both libraries, so every test registers under names of its
own and deregisters what it registered; domains it adds stay (neither library removes one).
A catalog schema is deregistered and put back only in a process of its own.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import onnx
import onnx.defs
import pytest

import onnxdata
import onnxdata.defs as defs
from tests.defs.test_schemas_match_onnx import facts
from tests.support import outcomes
from tests.support.outcomes import class_of_type_errors

BOTH = pytest.mark.parametrize("lib", [onnx, onnxdata], ids=["onnx", "onnxdata"])


def _defs(lib: Any) -> Any:
    return onnx.defs if lib is onnx else defs


# What a call gives: its value, or its exception's type name and message.
outcome = partial(outcomes.outcome, error=class_of_type_errors)


def build(lib: Any, name: str, domain: str, version: int, **kw: Any) -> Any:
    """An OpSchema of ``lib`` with one of each kind of part, or what ``kw`` says."""
    d = _defs(lib)
    op = d.OpSchema
    kw.setdefault(
        "inputs",
        [
            op.FormalParameter("X", "T", "the input", differentiation_category=(
                op.DifferentiationCategory.Differentiable)),
            op.FormalParameter("B", "tensor(int64)",
                               param_option=op.FormalParameterOption.Optional),
            op.FormalParameter("R", "T", param_option=op.FormalParameterOption.Variadic,
                               min_arity=2, is_homogeneous=False),
        ],
    )  # fmt: skip
    kw.setdefault("outputs", [op.FormalParameter("Y", "T")])
    kw.setdefault("type_constraints", [("T", ["tensor(float)", "seq(map(int64, float))"], "t")])
    kw.setdefault(
        "attributes",
        [
            op.Attribute("alpha", lib.helper.make_attribute("alpha", 0.5), "a"),
            op.Attribute("mode", op.AttrType.STRING, required=False),
            op.Attribute("body", op.AttrType.GRAPH),
        ],
    )
    return op(name, domain, version, "prose", **kw)


def _fields(s: Any) -> dict[str, Any]:
    found = facts(s)
    found["settable"] = (s.name, s.domain, s.doc)
    found["where"] = (s.file, s.line)
    found["descriptions"] = (
        [p.description for p in (*s.inputs, *s.outputs)],
        {n: a.description for n, a in s.attributes.items()},
        [t.description for t in s.type_constraints],
    )
    return found


@BOTH
def test_a_built_schema_reads_as_onnx_s(lib: Any) -> None:
    theirs, ours = build(onnx, "Built", "", 3), build(onnxdata, "Built", "", 3)
    del lib
    assert _fields(ours) == _fields(theirs)
    empty = (onnx.defs.OpSchema("E", "d", 1), defs.OpSchema("E", "d", 1))
    assert _fields(empty[1]) == _fields(empty[0])
    assert (empty[1].doc, empty[1].function_body.SerializeToString()) == (None, b"")


@pytest.fixture
def registered() -> Iterator[list[tuple[str, int, str]]]:
    """Schemas a test registers in both libraries, deregistered afterwards."""
    done: list[tuple[str, int, str]] = []
    yield done
    for key in done:
        for d in (onnx.defs, defs):
            if d.has(key[0], key[1], key[2]) and d.get_schema(*key).since_version == key[1]:
                d.deregister_schema(*key)


def test_register_and_deregister_as_onnx(registered: list[tuple[str, int, str]]) -> None:
    name, domain = "OnnxdataRegistered", "test.onnxdata.register"
    for version in (2, 5, 1):
        results = [outcome(lambda lib=lib, v=version: _defs(lib).register_schema(  # type: ignore[misc]
            build(lib, name, domain, v))) for lib in (onnx, onnxdata)]  # fmt: skip
        assert results[0] == results[1] == ("value", None)
        registered.append((name, version, domain))
        assert defs.schema_version_map()[domain] == onnx.defs.C.schema_version_map()[domain]
    for version in range(0, 8):
        got = [outcome(lambda d=d, v=version: d.get_schema(name, v, domain).since_version)
               for d in (onnx.defs, defs)]  # fmt: skip
        assert got[0] == got[1], version
    assert _fields(defs.get_schema(name, 5, domain)) == _fields(
        onnx.defs.get_schema(name, 5, domain)
    )
    listed = [
        sorted(s.since_version for s in d.get_all_schemas_with_history() if s.name == name)
        for d in (onnx.defs, defs)
    ]
    assert listed[0] == listed[1] == [1, 2, 5]
    latest = [[s.since_version for s in d.get_all_schemas() if s.name == name]
              for d in (onnx.defs, defs)]  # fmt: skip
    assert latest[0] == latest[1] == [5]
    again = [outcome(lambda lib=lib: _defs(lib).register_schema(  # type: ignore[misc]
        build(lib, name, domain, 2))) for lib in (onnx, onnxdata)]  # fmt: skip
    assert again[0][1][0] == again[1][1][0] == "SchemaError"
    assert again[1][1][1].split(" from file")[0] == again[0][1][1].split(" from file")[0]
    for d in (onnx.defs, defs):
        d.deregister_schema(name, 2, domain)
    gone = [outcome(lambda d=d: d.get_schema(name, 4, domain).since_version)
            for d in (onnx.defs, defs)]  # fmt: skip
    assert gone[0] == gone[1] == ("value", 1)
    twice = [outcome(lambda d=d: d.deregister_schema(name, 2, domain)) for d in (onnx.defs, defs)]
    assert twice[0] == twice[1]
    assert twice[0][1][0] == "SchemaError"


def test_registering_widens_the_domain_range_as_onnx(
    registered: list[tuple[str, int, str]],
) -> None:
    name, domain = "OnnxdataWidened", "test.onnxdata.widen"
    for version in (4, 9, 2):
        for lib in (onnx, onnxdata):
            _defs(lib).register_schema(build(lib, name, domain, version))
        registered.append((name, version, domain))
        assert defs.schema_version_map()[domain] == onnx.defs.C.schema_version_map()[domain]


def test_a_registered_schema_is_a_copy(registered: list[tuple[str, int, str]]) -> None:
    name, domain = "OnnxdataCopied", "test.onnxdata.copy"
    for lib in (onnx, onnxdata):
        schema = build(lib, name, domain, 1)
        _defs(lib).register_schema(schema)
        schema.name = "Changed"
        assert _defs(lib).get_schema(name, domain).name == name
        assert not _defs(lib).has("Changed", domain)
    registered.append((name, 1, domain))


_DEREGISTER_RELU = """
import onnx.defs, onnxdata.defs

for d in (onnx.defs, onnxdata.defs):
    schema = d.get_schema("Relu", 14)
    d.deregister_schema("Relu", 14, "")
    try:
        assert d.get_schema("Relu").since_version == 13
    finally:
        d.register_schema(schema)
    assert d.get_schema("Relu").since_version == 14
"""


def test_deregistering_a_catalog_schema_as_onnx() -> None:
    """In a process of its own: onnx's schema put back from Python is not the one its
    catalog built (the inliner then expands Relu otherwise), and nothing removes it."""
    done = subprocess.run(
        [sys.executable, "-c", _DEREGISTER_RELU], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def _both(make: Callable[[Any], Any]) -> tuple[tuple[str, Any], tuple[str, Any]]:
    def run(lib: Any) -> tuple[str, Any]:
        got = outcome(lambda: make(lib))
        if got[0] == "value" and hasattr(got[1], "since_version"):
            return (got[0], _fields(got[1]))
        return got

    return run(onnx), run(onnxdata)


def _params(lib: Any, *options: str) -> list[Any]:
    op = _defs(lib).OpSchema
    return [
        op.FormalParameter(f"p{i}", "T", param_option=getattr(op.FormalParameterOption, o))
        for i, o in enumerate(options)
    ]


BAD_SCHEMAS: dict[str, Callable[[Any], Any]] = {
    "variadic not last": lambda lib: build(lib, "V", "", 1, inputs=_params(
        lib, "Variadic", "Single")),
    "variadic output not last": lambda lib: build(lib, "V", "", 1, outputs=_params(
        lib, "Single", "Variadic", "Optional")),
    "optional then single": lambda lib: build(lib, "V", "", 1, inputs=_params(
        lib, "Optional", "Single", "Optional")),
    "unnamed input": lambda lib: build(lib, "V", "", 1, inputs=[
        _defs(lib).OpSchema.FormalParameter("", "T")]),
    "unnamed output": lambda lib: build(lib, "V", "", 1, outputs=[
        _defs(lib).OpSchema.FormalParameter("", "T")]),
    "repeated constraint": lambda lib: build(lib, "V", "", 1, type_constraints=[
        ("T", ["tensor(float)"], ""), ("T", ["tensor(int8)"], "")]),
    "unknown type in constraint": lambda lib: build(lib, "V", "", 1, type_constraints=[
        ("T", ["tensor(float)", "tensor(undefined)"], "")]),
    "unconstrained type name": lambda lib: build(lib, "V", "", 1, type_constraints=[]),
    "bad type string": lambda lib: build(lib, "V", "", 1, type_constraints=[
        ("T", ["Tensor(float)"], "")]),
    "bare element types": lambda lib: build(lib, "V", "", 1, type_constraints=[
        ("T", ["float", "seq(float)", "optional(seq(map(bool, float)))", " tensor( int8 ) "],
         "")]),
    "repeated attribute": lambda lib: build(lib, "V", "", 1, attributes=[
        _defs(lib).OpSchema.Attribute("a", _defs(lib).OpSchema.AttrType.INT),
        _defs(lib).OpSchema.Attribute("a", _defs(lib).OpSchema.AttrType.FLOAT)]),
    "undefined default": lambda lib: _defs(lib).OpSchema.Attribute(
        "a", lib.AttributeProto()
    ).type,
    "default of no message": lambda lib: _defs(lib).OpSchema.Attribute("a", 3),
    "unset version": lambda lib: build(lib, "V", "", -1),
    "parts given as generators": lambda lib: build(
        lib, "V", "", 1,
        inputs=(_defs(lib).OpSchema.FormalParameter(n, "T") for n in "ab"),
        attributes=(_defs(lib).OpSchema.Attribute(n, _defs(lib).OpSchema.AttrType.INT)
                    for n in "xy"),
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SCHEMAS))
def test_building_refuses_and_accepts_as_onnx(case: str) -> None:
    theirs, ours = _both(BAD_SCHEMAS[case])
    assert ours == theirs


def test_an_unset_version_registers_as_onnx(registered: list[tuple[str, int, str]]) -> None:
    name = "OnnxdataUnset"
    got = []
    for lib in (onnx, onnxdata):
        got.append(outcome(lambda lib=lib: _defs(lib).register_schema(  # type: ignore[misc]
            build(lib, name, "test.onnxdata.unset", -1))))  # fmt: skip
    assert got[0] == got[1]
    assert defs.has(name, "test.onnxdata.unset") == onnx.defs.has(name, "test.onnxdata.unset")
    if defs.has(name, "test.onnxdata.unset"):
        registered.append((name, 1, "test.onnxdata.unset"))
    assert (
        defs.schema_version_map()["test.onnxdata.unset"]
        == onnx.defs.C.schema_version_map()["test.onnxdata.unset"]
    )


def test_attributes_read_as_onnx_s() -> None:
    made = []
    for lib in (onnx, onnxdata):
        op = _defs(lib).OpSchema
        made.append([
            op.Attribute("a", op.AttrType.INTS, "d", required=False),
            op.Attribute("b", op.AttrType.TENSOR),
            op.Attribute("c", lib.helper.make_attribute("zz", [1.5, 2.5]), "e"),
            op.Attribute(name="d", default_value=lib.helper.make_attribute("d", "text")),
        ])  # fmt: skip
    for theirs, ours in zip(*made, strict=True):
        assert (ours.name, ours.type.name, ours.required, ours.description) == (
            theirs.name, theirs.type.name, theirs.required, theirs.description)  # fmt: skip
        assert ours._default_value == theirs._default_value
        assert ours.default_value.SerializeToString() == theirs.default_value.SerializeToString()
        assert repr(ours) == repr(theirs)
