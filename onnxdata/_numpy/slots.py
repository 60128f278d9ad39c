"""The slot names the bridge's fast paths read and write directly.

A field's value lives in the slot ``_<name>`` (``FieldSpec.slot``), ``None``
while unset.  The fast paths of ``to_array``, ``from_array`` and
``to_optional`` run once per message over thousands of freshly decoded
messages, so they read the slots as plain attributes (``t._raw_data``): one
specialised attribute load each, where a property is a Python call and
``operator.attrgetter`` a generic lookup several times slower.  Writing the
names out relies on the schema's naming rule, checked here once at import.
"""

from __future__ import annotations

from .._core.schema import spec_of

__all__ = ["require_slots"]


def require_slots(cls: type, names: tuple[str, ...]) -> None:
    """Check that each field ``names`` of ``cls`` keeps its value in the slot ``_<name>``.

    Raises:
        RuntimeError: a slot has another name (the schema's rule changed: the
            fast paths that write the names out must change with it).
    """
    spec = spec_of(cls)
    wrong = {n: spec.by_name[n].slot for n in names if spec.by_name[n].slot != f"_{n}"}
    if wrong:  # pragma: no cover - a change of the schema's naming rule
        raise RuntimeError(f"{spec.name}: the numpy bridge reads these slots by name: {wrong}")
