"""Every operator family's rules, registered: the one place the walk asks for a rule."""

from __future__ import annotations

from . import elementwise, reshaping, shape_ops  # each registers its rules when imported
from .propagation import propagator_for
from .rulebook import Rule, registered
from .rulebook import rule_for as _registered_rule

FAMILIES = (elementwise, reshaping, shape_ops)
__all__ = ["FAMILIES", "covered", "propagator_for", "rule_for"]


def rule_for(domain: str, op_type: str, since_version: int) -> Rule | None:
    """The rule of that schema version, or None when onnxdata has none yet."""
    return _registered_rule(domain, op_type, since_version)


def covered() -> list[tuple[str, str, int]]:
    """Every (domain, operator, since_version) whose inference onnxdata has, sorted."""
    return registered()
