"""The schema registry: the catalog, loaded on first use, plus what Python registers.

``import onnxdata`` and ``import onnxdata.defs`` load no schema; the first lookup imports the
generated tables (``table*.py``) and indexes them by (domain, operator).  Each (domain,
operator) keeps its versions sorted, so a lookup is a dict access and a bisection; a record
becomes an ``OpSchema`` the first time it is asked for.  onnx returns copies of registered
schemas (setting a copy's ``name`` changes nothing registered): so does this registry.

Registration is process-wide, as onnx's: ``register_schema`` and ``deregister_schema``
change what every later lookup sees, under a lock.
"""

from __future__ import annotations

import bisect
import json
import re
import threading
from collections.abc import Sequence
from typing import Any

from .opschema import DOMAIN, NAME, SINCE, OpSchema, from_record
from .schema_parts import SchemaError, c_int

_UNSET_VERSION = -1  # onnx's kUninitializedSinceVersion: registered as version 1


# The head of a schema's JSON line: name, domain, version (the index needs no more).
_HEAD = re.compile(r'\["((?:[^"\\]|\\.)*)","((?:[^"\\]|\\.)*)",(-?\d+),')


def _head(line: str) -> tuple[str, str, int]:
    """(name, domain, since_version) of a schema's JSON line, reading only its start."""
    match = _HEAD.match(line)
    if match is None or "\\" in match[0]:  # escapes: let json read them
        record = json.loads(line)
        return record[NAME], record[DOMAIN], record[SINCE]
    return match[1], match[2], int(match[3])


class _Catalog:
    """The index: (domain, name) -> [sorted versions, JSON lines or built schemas].

    Only the head of each line is read when the catalog loads; the rest of a line is parsed
    when its schema is first asked for.
    """

    def __init__(self) -> None:
        from . import table

        self.type_lists: Sequence[Sequence[str]] = [
            tuple(json.loads(line)) for line in table.TYPE_LISTS.splitlines()
        ]
        self.version_map: dict[str, tuple[int, int]] = dict(table.VERSION_MAP)
        self.ops: dict[tuple[str, str], tuple[list[int], list[Any]]] = {}
        for line in table.SCHEMAS.splitlines():
            name, domain, since = _head(line)
            versions, items = self.ops.setdefault((domain, name), ([], []))
            versions.append(since)  # the generator writes them in version order
            items.append(line)

    def built(self, items: list[Any], at: int) -> OpSchema:
        item = items[at]
        if not isinstance(item, OpSchema):
            item = items[at] = from_record(json.loads(item), self.type_lists)
        return item


_LOCK = threading.Lock()
_CATALOG: list[_Catalog] = []


def catalog() -> _Catalog:
    """The catalog, loaded (once, under the lock) on first use."""
    if not _CATALOG:
        with _LOCK:
            if not _CATALOG:
                _CATALOG.append(_Catalog())
    return _CATALOG[0]


def lookup(op_type: str, version: int | None, domain: str) -> OpSchema | None:
    """The registered schema of the highest version not above ``version`` (any if None).

    The registry's own object, not a copy: for the library's layers above (the checker asks
    once per node), which must not change it; users get copies from :func:`get_schema`.
    """
    cat = catalog()
    entry = cat.ops.get((domain, op_type))
    if entry is None or not entry[0]:
        return None
    versions, items = entry
    at = len(versions) if version is None else bisect.bisect_right(versions, version)
    return cat.built(items, at - 1) if at else None


def _error(message: str) -> SchemaError:
    """SchemaError with onnx's message, which its C++ cuts at the first NUL."""
    return SchemaError(message.partition("\0")[0])


def _utf8(value: object, what: str) -> str:
    """``value`` if it is a str onnx's C++ could take (UTF-8 encodable), else TypeError."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be str, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise TypeError(f"{what} is not valid UTF-8 (a lone surrogate)") from None
    return value


def _arguments(
    op_type: object, max_inclusive_version: object, domain: object
) -> tuple[str, int | None, str]:
    """onnx's two overloads: (op_type, domain="") and (op_type, max_inclusive_version, domain).

    A version is a C int, as onnx's: True is 1, and beyond 32 bits is a TypeError.
    """
    if isinstance(max_inclusive_version, str):
        max_inclusive_version, domain = None, max_inclusive_version
    op_type, domain = _utf8(op_type, "op_type"), _utf8(domain, "domain")
    if max_inclusive_version is None:
        return op_type, None, domain
    return op_type, c_int(max_inclusive_version, "max_inclusive_version"), domain


def get_schema(
    op_type: str, max_inclusive_version: int | str | None = None, domain: str = ""
) -> OpSchema:
    """The schema of ``op_type`` in ``domain``: the highest version not above
    ``max_inclusive_version`` (the latest when it is not given).

    As onnx's overloads, a str second argument is the domain.  Raises SchemaError when no such
    schema is registered, with onnx's message; TypeError for arguments of the wrong type.
    """
    op_type, version, domain = _arguments(op_type, max_inclusive_version, domain)
    found = lookup(op_type, version, domain)
    if found is None:
        at = "" if version is None else f" version '{version}'"
        raise _error(f"No schema registered for '{op_type}'{at} and domain '{domain}'!")
    return found.copy()


def has(op_type: str, max_inclusive_version: int | str | None = None, domain: str = "") -> bool:
    """Whether :func:`get_schema` with the same arguments finds a schema (TypeError as it)."""
    op_type, version, domain = _arguments(op_type, max_inclusive_version, domain)
    return lookup(op_type, version, domain) is not None


def get_all_schemas() -> list[OpSchema]:
    """The latest version of every registered operator, by domain then name."""
    cat = catalog()
    return [
        cat.built(items, len(items) - 1).copy()
        for _, (_, items) in sorted(cat.ops.items())
        if items
    ]


def get_all_schemas_with_history() -> list[OpSchema]:
    """Every version of every registered operator, by domain, name, then version."""
    cat = catalog()
    return [
        cat.built(items, at).copy()
        for _, (_, items) in sorted(cat.ops.items())
        for at in range(len(items))
    ]


def schema_version_map() -> dict[str, tuple[int, int]]:
    """domain -> (lowest opset, highest opset): onnx's ``C.schema_version_map()``."""
    return dict(catalog().version_map)


def set_domain_to_version(
    domain: str, min_version: int, max_version: int, last_release_version: int = -1
) -> None:
    """Set a domain's opset range (added when new), as onnx's ``C.set_domain_to_version``.

    ``last_release_version`` is accepted for onnx's signature; nothing here reads it.
    """
    domain = _utf8(domain, "domain")
    low, high = c_int(min_version, "min_version"), c_int(max_version, "max_version")
    c_int(last_release_version, "last_release_version")
    with _LOCK:
        catalog().version_map[domain] = (low, high)


def _where(schema: OpSchema) -> str:
    return (
        f"Trying to register schema with name {schema.name} (domain: {schema.domain} version: "
        f"{schema.since_version}) from file {schema.file} line {schema.line}"
    )


def _insert(schema: OpSchema) -> None:
    """onnx's ``OpSchemaRegisterImpl``, under the lock."""
    cat = catalog()
    versions, items = cat.ops.setdefault((schema.domain, schema.name), ([], []))
    at = bisect.bisect_left(versions, schema.since_version)
    if at < len(versions) and versions[at] == schema.since_version:
        there = cat.built(items, at)
        raise _error(
            f"{_where(schema)}, but it is already registered from file {there.file} line "
            f"{there.line}\n"
        )
    low, high = cat.version_map.get(schema.domain, (None, None))
    if low is None or high is None:
        raise _error(f"{_where(schema)}, but its domain is not known by the checker.\n")
    if not low <= schema.since_version <= high:
        raise _error(
            f"{_where(schema)}, but its version is not in the inclusive range [{low}, {high}] "
            "(usually, this means you bumped the operator version but forgot to update the "
            "version range in DomainToVersionRange in onnx/defs/schema.h).\n"
        )
    versions.insert(at, schema.since_version)
    items.insert(at, schema)


def register_schema(schema: OpSchema) -> None:
    """Register ``schema`` (a copy of it), widening its domain's opset range as onnx does.

    Raises SchemaError when the same (name, domain, version) is registered already, TypeError
    when ``schema`` is not an ``OpSchema``.
    """
    if not isinstance(schema, OpSchema):
        raise TypeError(f"register_schema takes an OpSchema, not {type(schema).__name__}")
    cat = catalog()
    with _LOCK:
        # onnx/defs/__init__.py widens the range with the version as given; its C++ then
        # registers an unset version (-1) as version 1
        version = schema.since_version
        low, high = cat.version_map.get(schema.domain, (version, version))
        if schema.domain not in cat.version_map or not low <= version <= high:
            cat.version_map[schema.domain] = (min(low, version), max(high, version))
        _insert(schema.copy(since_version=1 if version == _UNSET_VERSION else version))


def deregister_schema(op_type: str, version: int, domain: str) -> None:
    """Remove the schema registered as exactly (op_type, version, domain), catalog ones too.

    Raises SchemaError, with onnx's message, when there is none.
    """
    op_type, domain = _utf8(op_type, "op_type"), _utf8(domain, "domain")
    version = c_int(version, "version")
    cat = catalog()
    with _LOCK:
        versions, items = cat.ops.get((domain, op_type), ([], []))
        at = bisect.bisect_left(versions, version)
        if at == len(versions) or versions[at] != version:
            raise _error(
                "Attempting to deregister an unregistered schema with name: "
                f"{op_type} domain: {domain} version: {version}\n"
            )
        del versions[at], items[at]
