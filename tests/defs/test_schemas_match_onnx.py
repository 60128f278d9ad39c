"""Every operator schema reads through onnxdata.defs as through onnx.defs (onnx 1.23.2).

Every public attribute of all 659 schemas is compared, the prose excepted (onnx's ``doc`` and
descriptions are not copied: docs/compat.md); attribute defaults and function bodies are
compared as bytes (a function body without its ``doc_string``, which is the schema's prose).
Lookups are compared for every operator name, every domain and every version from 0 to one
above the highest opset: the same schema, or SchemaError from both.
"""

from __future__ import annotations

from typing import Any

import onnx
import onnx.defs
import pytest

import onnxdata.defs as defs
from tests.support.defs_generate import strip_function_prose
from tests.support.outcomes import outcome

ONNX_ALL = onnx.defs.get_all_schemas_with_history()
KEYS = sorted({(s.domain, s.name) for s in ONNX_ALL})
DOMAINS = sorted(onnx.defs.C.schema_version_map())


def _key(s: Any) -> tuple[str, str, int]:
    return (s.domain, s.name, s.since_version)


def _param(p: Any) -> tuple[Any, ...]:
    return (
        p.name, p.type_str, p.types, p.option.name, int(p.option), p.is_homogeneous,
        p.min_arity, p.differentiation_category.name, int(p.differentiation_category),
    )  # fmt: skip


def _attribute(a: Any) -> tuple[Any, ...]:
    return (a.name, a.type.name, int(a.type), a.required, a._default_value)


def facts(s: Any) -> dict[str, Any]:
    """Every public attribute of a schema, prose aside, in comparable form."""
    return {
        "key": _key(s),
        "deprecated": s.deprecated,
        "support_level": (s.support_level.name, int(s.support_level)),
        "arity": (s.min_input, s.max_input, s.min_output, s.max_output),
        "infinite": (s.is_infinite(s.max_input), s.is_infinite(s.max_output)),
        "inputs": [_param(p) for p in s.inputs],
        "outputs": [_param(p) for p in s.outputs],
        "attributes": {n: _attribute(a) for n, a in s.attributes.items()},
        "attribute_defaults": {
            n: a.default_value.SerializeToString() for n, a in s.attributes.items()
        },
        "type_constraints": [(t.type_param_str, t.allowed_type_strs) for t in s.type_constraints],
        "inference": (s.has_type_and_shape_inference_function, s.has_data_propagation_function),
        "determinism": (s.node_determinism.name, s.non_deterministic),
        "functions": (
            s.has_function, s.function_opset_versions, s.has_context_dependent_function,
            s.context_dependent_function_opset_versions, s.all_function_opset_versions,
        ),
        "function_body": strip_function_prose(s._function_body),
        "function_body_message": strip_function_prose(s.function_body.SerializeToString()),
        "bodies": [
            strip_function_prose(s.get_function_with_opset_version(v)) for v in range(0, 30)
        ],
    }  # fmt: skip


ONNX_FACTS = {_key(s): facts(s) for s in ONNX_ALL}


def _catalog(schemas: list[Any]) -> list[Any]:
    """The schemas of onnx's own domains: other tests (and the docs' examples) may register
    schemas, and domains, of their own for a while."""
    return [s for s in schemas if s.domain in DOMAINS]


def test_the_counts_are_onnx_s() -> None:
    assert len(_catalog(defs.get_all_schemas_with_history())) == len(ONNX_ALL) == 659
    assert len(_catalog(defs.get_all_schemas())) == 227
    assert len(_catalog(onnx.defs.get_all_schemas())) == 227
    assert defs.onnx_opset_version() == onnx.defs.onnx_opset_version() == 28
    assert defs.onnx_ml_opset_version() == onnx.defs.onnx_ml_opset_version()
    ours, theirs = defs.schema_version_map(), onnx.defs.C.schema_version_map()
    assert {d: ours[d] for d in DOMAINS} == {d: theirs[d] for d in DOMAINS}


def test_every_schema_reads_as_onnx_s() -> None:
    ours = {_key(s): s for s in _catalog(defs.get_all_schemas_with_history())}
    assert sorted(ours) == sorted(ONNX_FACTS)
    for key, expected in ONNX_FACTS.items():
        assert facts(ours[key]) == expected, key


def test_the_latest_schemas_are_onnx_s() -> None:
    assert sorted(map(_key, _catalog(defs.get_all_schemas()))) == sorted(
        map(_key, _catalog(onnx.defs.get_all_schemas()))
    )
    assert sorted(map(_key, _catalog(defs.get_function_ops()))) == sorted(
        map(_key, _catalog(onnx.defs.get_function_ops()))
    )


def test_prose_reads_as_documented() -> None:
    for s in _catalog(defs.get_all_schemas_with_history()):
        assert s.doc == "" and (s.file, s.line) == ("", 0)
        assert all(p.description == "" for p in (*s.inputs, *s.outputs))
        assert all(a.description == "" for a in s.attributes.values())
        assert all(t.description == "" for t in s.type_constraints)
        assert not s.function_body.doc_string


def _answer(module: Any, *args: Any) -> tuple[str, Any]:
    """The schema a lookup finds, or the ``SchemaError``'s text."""
    return outcome(lambda: _key(module.get_schema(*args)), module.SchemaError, error=str)


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_lookup_answers_as_onnx(domain: str) -> None:
    names = sorted({name for d, name in KEYS} | {"NoSuchOp"})
    top = onnx.defs.C.schema_version_map()[domain][1]
    for name in names:
        assert _answer(defs, name, domain) == _answer(onnx.defs, name, domain)
        assert defs.has(name, domain) == onnx.defs.has(name, domain)
        assert defs.has(name, domain=domain) == onnx.defs.has(name, domain=domain)
        for version in range(-1, top + 2):
            args = (name, version, domain)
            assert _answer(defs, *args) == _answer(onnx.defs, *args), args
            assert defs.has(*args) == onnx.defs.has(*args), args
    for name in ("Relu", "LinearClassifier"):
        assert _answer(defs, name) == _answer(onnx.defs, name)
        assert defs.has(name) == onnx.defs.has(name)
        assert _answer(defs, name, 12) == _answer(onnx.defs, name, 12)


def test_keywords_are_onnx_s() -> None:
    kw = {"op_type": "Relu", "max_inclusive_version": 13, "domain": ""}
    assert _key(defs.get_schema(**kw)) == _key(onnx.defs.get_schema(**kw))
    assert defs.has(**kw) == onnx.defs.has(**kw)
    assert _key(defs.get_schema(op_type="Relu")) == _key(onnx.defs.get_schema(op_type="Relu"))


@pytest.mark.parametrize("enum", ["AttrType", "FormalParameterOption", "DifferentiationCategory",
                                  "NodeDeterminism", "SupportType"])  # fmt: skip
def test_the_enums_are_onnx_s(enum: str) -> None:
    ours, theirs = getattr(defs.OpSchema, enum), getattr(onnx.defs.OpSchema, enum)
    assert [(m.name, m.value) for m in ours] == [(m.name, m.value) for m in theirs]
    for member in theirs:
        mine = getattr(ours, member.name)
        assert (repr(mine), str(mine)) == (repr(member), str(member))
        assert isinstance(mine, int) == isinstance(member, int)


def test_the_domain_constants_are_onnx_s() -> None:
    for name in ("ONNX_DOMAIN", "ONNX_ML_DOMAIN", "AI_ONNX_PREVIEW_DOMAIN",
                 "AI_ONNX_PREVIEW_TRAINING_DOMAIN"):  # fmt: skip
        assert getattr(defs, name) == getattr(onnx.defs, name)


def test_a_lookup_returns_a_copy_as_onnx_does() -> None:
    for module in (defs, onnx.defs):
        s = module.get_schema("Relu")
        s.name = "Renamed"
        assert module.get_schema("Relu").name == "Relu"
        assert not module.has("Renamed")
