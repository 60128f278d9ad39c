"""protobuf's canonical JSON mapping for the data messages, without protobuf.

:func:`to_json` gives what ``google.protobuf.json_format.MessageToJson`` gives
(lowerCamelCase names, 64-bit integers as strings, bytes as base64, float32 in
its shortest round-tripping form, ``"NaN"``/``"Infinity"``, ``data_location``
by enum name, unknown fields dropped); :func:`from_json` accepts what
``json_format.Parse`` accepts for these messages: either field name spelling,
integers as numbers or strings, enums by name or number, standard or URL-safe
base64 with or without padding, ``null`` for "not set".
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from array import array
from typing import Any

from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)

__all__ = ["JSONError", "from_json", "from_json_object", "to_json", "to_json_object"]

_F32 = struct.Struct("<f")

# field name -> (kind, repeated); kind is a scalar kind or a message class.
_Spec = dict[str, tuple[Any, bool]]
_SPECS: dict[type[Message], _Spec] = {
    StringStringEntryProto: {"key": ("string", False), "value": ("string", False)},
    TensorProto.Segment: {"begin": ("int64", False), "end": ("int64", False)},
}
_SPECS[TensorProto] = {
    "dims": ("int64", True),
    "data_type": ("int32", False),
    "segment": (TensorProto.Segment, False),
    "float_data": ("float", True),
    "int32_data": ("int32", True),
    "string_data": ("bytes", True),
    "int64_data": ("int64", True),
    "name": ("string", False),
    "doc_string": ("string", False),
    "raw_data": ("bytes", False),
    "external_data": (StringStringEntryProto, True),
    "data_location": ("location", False),
    "double_data": ("double", True),
    "uint64_data": ("uint64", True),
    "metadata_props": (StringStringEntryProto, True),
}
_SPECS[SparseTensorProto] = {
    "values": (TensorProto, False),
    "indices": (TensorProto, False),
    "dims": ("int64", True),
}
_SPECS[SequenceProto] = {
    "name": ("string", False),
    "elem_type": ("int32", False),
    "tensor_values": (TensorProto, True),
    "sparse_tensor_values": (SparseTensorProto, True),
    "sequence_values": (SequenceProto, True),
    "map_values": (MapProto, True),
    "optional_values": (OptionalProto, True),
}
_SPECS[MapProto] = {
    "name": ("string", False),
    "key_type": ("int32", False),
    "keys": ("int64", True),
    "string_keys": ("bytes", True),
    "values": (SequenceProto, False),
}
_SPECS[OptionalProto] = {
    "name": ("string", False),
    "elem_type": ("int32", False),
    "tensor_value": (TensorProto, False),
    "sparse_tensor_value": (SparseTensorProto, False),
    "sequence_value": (SequenceProto, False),
    "map_value": (MapProto, False),
    "optional_value": (OptionalProto, False),
}
_LOCATIONS = {"DEFAULT": 0, "EXTERNAL": 1}
_LOCATION_NAMES = {v: k for k, v in _LOCATIONS.items()}
_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


_JSON_NAMES = {cls: {_camel(n): n for n in spec} for cls, spec in _SPECS.items()}


class JSONError(ValueError):
    """The JSON is not a valid mapping of the message; ``path`` says where."""

    def __init__(self, reason: str, path: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.reason = reason
        self.path = path


def _shortest_float(value: float) -> float:
    # json_format's ToShortestFloat: fewest digits (from 6) that read back as the same float32.
    precision = 6
    rounded = float(f"{value:.{precision}g}")
    while _F32.unpack(_F32.pack(rounded))[0] != value:
        precision += 1
        rounded = float(f"{value:.{precision}g}")
    return rounded


def _scalar_out(kind: str, value: Any) -> Any:
    if kind in ("int64", "uint64"):
        return str(int(value))
    if kind == "int32":
        return int(value)
    if kind in ("float", "double"):
        value = float(value)
        if kind == "float":  # a list may hold doubles: store what the wire would
            try:
                value = _F32.unpack(_F32.pack(value))[0]
            except OverflowError:
                value = math.copysign(math.inf, value)
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return _shortest_float(value) if kind == "float" else value
    if kind == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    if kind == "location":
        return _LOCATION_NAMES.get(int(value), int(value))
    return str(value)


def to_json_object(message: Message) -> dict[str, Any]:
    """The message as the dict ``json_format.MessageToDict`` would give.

    Raises:
        TypeError: ``message`` is not an onnxdata message.
    """
    spec = _SPECS.get(type(message))
    if spec is None:
        raise TypeError(f"not an onnxdata message: {type(message).__name__}")
    out: dict[str, Any] = {}
    for name, (kind, repeated) in spec.items():
        value = getattr(message, name)
        if repeated:
            if not len(value):
                continue
            if isinstance(kind, type):
                out[_camel(name)] = [to_json_object(v) for v in value]
            else:
                out[_camel(name)] = [_scalar_out(kind, v) for v in value]
        elif value is not None:
            out[_camel(name)] = (
                to_json_object(value) if isinstance(kind, type) else _scalar_out(kind, value)
            )
    return out


def to_json(message: Message, indent: int | None = 2) -> str:
    """The message as the text ``json_format.MessageToJson`` gives (same JSON value).

    Raises:
        TypeError: ``message`` is not an onnxdata message.
    """
    return json.dumps(to_json_object(message), indent=indent)


def _int_in(value: Any, kind: str, path: str) -> int:
    if isinstance(value, bool):
        raise JSONError(f"bool {value} is not an integer", path)
    if isinstance(value, float):
        if not value.is_integer():
            raise JSONError(f"{value} is not an integer", path)
        number = int(value)
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str):
        if " " in value:
            raise JSONError(f"{value!r} is not an integer", path)
        try:
            number = int(value)
        except ValueError:
            try:
                f = float(value)
            except ValueError:
                raise JSONError(f"{value!r} is not an integer", path) from None
            if not f.is_integer():
                raise JSONError(f"{value!r} is not an integer", path) from None
            number = int(f)
    else:
        raise JSONError(f"{type(value).__name__} is not an integer", path)
    lo, hi = _RANGES[kind]
    if not lo <= number <= hi:
        raise JSONError(f"{number} is out of range for {kind}", path)
    return number


def _float_in(value: Any, kind: str, path: str) -> float:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise JSONError(f'{value} must be quoted ("NaN", "Infinity", "-Infinity")', path)
        if kind == "float":
            # protobuf refuses 3.4028235e+38, which its own writer prints for
            # FLT_MAX; onnxdata takes any number that rounds to a finite float32.
            try:
                _F32.pack(value)
            except OverflowError:
                raise JSONError(f"{value} is out of range for float", path) from None
    if value == "nan":
        raise JSONError('use "NaN", not "nan"', path)
    if isinstance(value, (int, float, str)):
        try:
            return float(value)
        except ValueError:
            pass
        special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
        if value in special:
            return special[value]
    raise JSONError(f"{value!r} is not a number", path)


def _bytes_in(value: Any, path: str) -> bytes:
    if not isinstance(value, str):
        raise JSONError(f"{type(value).__name__} is not base64 text", path)
    data = value.encode("utf-8")
    try:
        return base64.urlsafe_b64decode(data + b"=" * (4 - len(data) % 4))
    except (binascii.Error, ValueError) as err:
        raise JSONError(f"invalid base64: {err}", path) from None


def _scalar_in(kind: str, value: Any, path: str) -> Any:
    if kind in _RANGES:
        return _int_in(value, kind, path)
    if kind in ("float", "double"):
        return _float_in(value, kind, path)
    if kind == "bytes":
        return _bytes_in(value, path)
    if kind == "location":
        if isinstance(value, str) and value in _LOCATIONS:
            return _LOCATIONS[value]
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise JSONError(f"{value!r} is not a DataLocation", path) from None
        if number not in _LOCATION_NAMES:
            raise JSONError(f"{value!r} is not a DataLocation", path)
        return number
    if not isinstance(value, str):
        raise JSONError(f"{type(value).__name__} is not a string", path)
    if re.search("[\ud800-\udfff]", value):
        raise JSONError("unpaired surrogate", path)
    return value


def from_json_object(cls: type[Message], obj: Any, path: str = "") -> Message:
    """Build a message of type ``cls`` from a parsed JSON object.

    Raises:
        JSONError: a name is unknown or repeated, or a value has the wrong form.
    """
    path = path or cls.__qualname__
    spec = _SPECS[cls]
    if not isinstance(obj, dict):
        raise JSONError(f"expected an object for {cls.__qualname__}", path)
    names = _JSON_NAMES[cls]
    message = cls()
    for key, value in obj.items():
        name = names.get(key) or (key if key in spec else None)
        if name is None:
            raise JSONError(f"{cls.__qualname__} has no field {key!r}", path)
        kind, repeated = spec[name]
        where = f"{path}.{name}"
        if value is None:
            setattr(message, name, type(getattr(cls(), name))() if repeated else None)
            continue
        if repeated:
            if not isinstance(value, list):
                raise JSONError(f"a repeated field takes a list, not {value!r}", where)
            items: list[Any] = []
            for i, item in enumerate(value):
                if item is None:
                    raise JSONError("null is not allowed in a repeated field", f"{where}[{i}]")
                if isinstance(kind, type):
                    items.append(from_json_object(kind, item, f"{where}[{i}]"))
                else:
                    items.append(_scalar_in(kind, item, f"{where}[{i}]"))
            current = getattr(cls(), name)
            if isinstance(current, array):
                setattr(message, name, array(current.typecode, items))
            else:
                setattr(message, name, items)
        elif isinstance(kind, type):
            setattr(message, name, from_json_object(kind, value, where))
        else:
            setattr(message, name, _scalar_in(kind, value, where))
    return message


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a repeated name as ``json_format.Parse`` does."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONError(f"the name {key!r} appears twice in one object", "")
        out[key] = value
    return out


def from_json(cls: type[Message], text: str | bytes) -> Message:
    """Parse JSON text (as ``json_format.Parse`` would) into a message of type ``cls``.

    Raises:
        JSONError: the text is not JSON, or not a valid mapping of ``cls``.
    """
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates)
    except JSONError:
        raise
    except ValueError as err:
        raise JSONError(f"not JSON: {err}", "") from None
    return from_json_object(cls, obj)
