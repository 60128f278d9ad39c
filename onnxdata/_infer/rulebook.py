"""The inference rule of each operator, by (domain, operator, since_version).

A rule is registered for the exact schema versions whose onnx inference function it
reproduces (tests/infer compares each with onnx); the walk finds a node's schema through the
catalog, then its rule by the schema's own version (through ``operators``, which imports
every family first).  A schema with an inference function in
onnx but no rule here is what :class:`ShapeInferenceUnavailableError` reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .context import InferenceContext

Rule = Callable[[InferenceContext], None]

_RULES: dict[tuple[str, str, int], Rule] = {}


def register(domain: str, op_type: str, versions: Iterable[int], rule: Rule) -> None:
    """``rule`` as the inference of each of those schema versions of the operator."""
    for version in versions:
        _RULES[(domain, op_type, version)] = rule


def rule_for(domain: str, op_type: str, since_version: int) -> Rule | None:
    """The rule registered for that schema, or None."""
    return _RULES.get((domain, op_type, since_version))


def registered() -> list[tuple[str, str, int]]:
    """Every (domain, operator, since_version) registered so far, sorted."""
    return sorted(_RULES)
