"""Any arguments to get_schema and has give onnx's answer: a schema, SchemaError or TypeError.

A differential property over drawn names (catalog names, near misses, any text), versions
(C int bounds and beyond, booleans) and domains, with onnx's two overloads.
"""

from __future__ import annotations

from typing import Any

import onnx.defs
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata.defs as defs
from tests.support.message_strategies import scaled
from tests.support.outcomes import class_of_type_errors, outcome

NAMES = sorted({s.name for s in onnx.defs.get_all_schemas_with_history()})
DOMAINS = sorted(onnx.defs.C.schema_version_map())

names = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(NAMES).map(str.lower),
    st.text(max_size=12),
)
domains = st.one_of(st.sampled_from(DOMAINS), st.text(max_size=8))
versions = st.one_of(
    st.integers(-3, 30),
    st.sampled_from([2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**64]),
    st.booleans(),
)


def _found(value: Any) -> Any:
    """What a lookup found: ``has``'s answer, or the schema's domain, name and version."""
    if isinstance(value, bool):
        return value
    return (value.domain, value.name, value.since_version)


def _outcome(call: Any) -> tuple[str, Any]:
    errors = (TypeError, defs.SchemaError, onnx.defs.SchemaError)
    return outcome(call, errors, value=_found, error=class_of_type_errors)


@settings(max_examples=scaled(0.5))
@given(name=names, version=versions, domain=domains, form=st.integers(0, 3))
def test_any_lookup_answers_as_onnx(name: str, version: int, domain: str, form: int) -> None:
    forms: list[tuple[Any, ...]] = [(name,), (name, domain), (name, version),
                                    (name, version, domain)]  # fmt: skip
    args = forms[form]
    for ours, theirs in ((defs.get_schema, onnx.defs.get_schema), (defs.has, onnx.defs.has)):
        assert _outcome(lambda f=ours: f(*args)) == _outcome(lambda f=theirs: f(*args)), args
