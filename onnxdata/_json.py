"""protobuf's canonical JSON mapping for the data messages, without protobuf.

:func:`to_json` gives what ``google.protobuf.json_format.MessageToJson`` gives
(lowerCamelCase names, 64-bit integers as strings, bytes as base64, float32 in
its shortest round-tripping form, ``"NaN"``/``"Infinity"``, enum fields such
as ``data_location`` by name, unknown fields dropped); :func:`from_json`
accepts what ``json_format.Parse`` accepts for these messages: either field
name spelling, integers as numbers or strings, enums by name or number (a
closed proto2 enum takes only its own numbers), standard or URL-safe base64
with or without padding, ``null`` for "not set", 100 levels of messages.

Both walk the schema (``spec_of(cls).fields``: kind, label, JSON name, enum,
message class), so they work for any message class built with
``_schema.message`` and name no field.
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

from ._schema import BYTES, DOUBLE, ENUM, FLOAT, INT32, INT64, MESSAGE, UINT64, spec_of
from ._wire import MAX_DEPTH

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from ._messages import Message
    from ._schema import FieldSpec, MessageSpec

__all__ = ["JSONError", "from_json", "from_json_object", "to_json", "to_json_object"]

_F32 = struct.Struct("<f")
_INTEGERS = frozenset({INT32, INT64, UINT64})
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


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


def _float_out(value: Any, single: bool) -> Any:
    value = float(value)
    if single:  # a list may hold doubles: write what the wire would hold
        try:
            value = _F32.unpack(_F32.pack(value))[0]
        except OverflowError:
            value = math.copysign(math.inf, value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return _shortest_float(value) if single else value


def _enum_out(f: FieldSpec, value: Any) -> Any:
    number = int(value)
    assert f.enum is not None
    try:
        return f.enum(number).name
    except ValueError:  # set by hand to a number the enum lacks: protobuf writes the number
        return number


def _scalar_out(f: FieldSpec, value: Any) -> Any:
    kind = f.kind
    if kind in (INT64, UINT64):
        return str(int(value))
    if kind == INT32:
        return int(value)
    if kind in (FLOAT, DOUBLE):
        return _float_out(value, kind == FLOAT)
    if kind == BYTES:
        return base64.b64encode(bytes(value)).decode("ascii")
    if kind == ENUM:
        return _enum_out(f, value)
    return str(value)


def to_json_object(message: Message) -> dict[str, Any]:
    """The message as the dict ``json_format.MessageToDict`` would give.

    Raises:
        TypeError: ``message`` is not an onnxdata message, or a message field
            holds something else.
        ValueError: messages are nested more than 100 deep (as the encoder,
            which refuses them too; a message that contains itself is one).
    """
    return _to_object(message, 0)


def _to_object(message: Any, depth: int) -> dict[str, Any]:
    try:
        spec = spec_of(type(message))
    except TypeError:
        raise TypeError(f"not an onnxdata message: {type(message).__name__}") from None
    if depth > MAX_DEPTH:
        raise ValueError(
            f"{spec.name}: messages nested more than {MAX_DEPTH} deep "
            "(a message that contains itself?)"
        )
    out: dict[str, Any] = {}
    for f in spec.fields:
        value = getattr(message, f.name)
        if f.repeated:
            if value is None or not len(value):
                continue
            if f.kind == MESSAGE:
                out[f.json_name] = [_to_object(v, depth + 1) for v in value]
            else:
                out[f.json_name] = [_scalar_out(f, v) for v in value]
        elif value is not None:
            out[f.json_name] = (
                _to_object(value, depth + 1) if f.kind == MESSAGE else _scalar_out(f, value)
            )
    return out


def to_json(message: Message, indent: int | None = 2) -> str:
    """The message as the text ``json_format.MessageToJson`` gives (same JSON value).

    Raises:
        TypeError: ``message`` is not an onnxdata message, or a message field
            holds something else.
        ValueError: messages are nested more than 100 deep.
    """
    return json.dumps(to_json_object(message), indent=indent)


def _int_in(value: Any, f: FieldSpec, path: str) -> int:
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
                as_float = float(value)
            except ValueError:
                raise JSONError(f"{value!r} is not an integer", path) from None
            if not as_float.is_integer():
                raise JSONError(f"{value!r} is not an integer", path) from None
            number = int(as_float)
    else:
        raise JSONError(f"{type(value).__name__} is not an integer", path)
    assert f.bounds is not None
    lo, hi = f.bounds
    if not lo <= number <= hi:
        raise JSONError(f"{number} is out of range for {f.kind}", path)
    return number


def _float_in(value: Any, kind: str, path: str) -> float:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise JSONError(f'{value} must be quoted ("NaN", "Infinity", "-Infinity")', path)
        if kind == FLOAT:
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
        except OverflowError:  # an integer of hundreds of digits
            raise JSONError(f"{value} is out of range for {kind}", path) from None
        if value in _SPECIAL:
            return _SPECIAL[value]
    raise JSONError(f"{value!r} is not a number", path)


def _bytes_in(value: Any, path: str) -> bytes:
    if not isinstance(value, str):
        raise JSONError(f"{type(value).__name__} is not base64 text", path)
    try:
        data = value.encode("utf-8")
        return base64.urlsafe_b64decode(data + b"=" * (4 - len(data) % 4))
    except (binascii.Error, ValueError) as err:
        raise JSONError(f"invalid base64: {err}", path) from None


def _enum_in(f: FieldSpec, value: Any, path: str) -> int:
    enum = f.enum
    assert enum is not None
    if isinstance(value, str) and value in enum.__members__:
        return int(enum[value])
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise JSONError(f"{value!r} is not a {enum.__qualname__}", path) from None
    try:
        return int(enum(number))
    except ValueError:  # a closed (proto2) enum takes no other number
        raise JSONError(f"{value!r} is not a {enum.__qualname__}", path) from None


def _scalar_in(f: FieldSpec, value: Any, path: str) -> Any:
    kind = f.kind
    if kind in _INTEGERS:
        return _int_in(value, f, path)
    if kind in (FLOAT, DOUBLE):
        return _float_in(value, kind, path)
    if kind == BYTES:
        return _bytes_in(value, path)
    if kind == ENUM:
        return _enum_in(f, value, path)
    if not isinstance(value, str):
        raise JSONError(f"{type(value).__name__} is not a string", path)
    if re.search("[\ud800-\udfff]", value):
        raise JSONError("unpaired surrogate", path)
    return value


_NAMES: dict[MessageSpec, dict[str, FieldSpec]] = {}


def _names(spec: MessageSpec) -> dict[str, FieldSpec]:
    """Both spellings of every field name (JSON name first, as protobuf looks them up)."""
    names = _NAMES.get(spec)
    if names is None:
        names = {f.name: f for f in spec.fields}
        names.update((f.json_name, f) for f in spec.fields)
        _NAMES[spec] = names
    return names


def from_json_object(cls: type[Message], obj: Any, path: str = "") -> Message:
    """Build a message of type ``cls`` from a parsed JSON object.

    Raises:
        JSONError: a name is unknown, a value has the wrong form, or messages
            are nested more than 100 deep (``json_format.Parse``'s limit).
        TypeError: ``cls`` is not a message class.
    """
    message: Message = _from_object(spec_of(cls), obj, path, 1)
    return message


def _from_object(spec: MessageSpec, obj: Any, path: str, depth: int) -> Any:
    path = path or spec.name
    if depth > MAX_DEPTH:
        raise JSONError(f"messages nested more than {MAX_DEPTH} deep", path)
    if not isinstance(obj, dict):
        raise JSONError(f"expected an object for {spec.name}", path)
    names = _names(spec)
    message = spec.cls()
    for key, value in obj.items():
        f = names.get(key)
        if f is None:
            raise JSONError(f"{spec.name} has no field {key!r}", path)
        name = f.name
        where = f"{path}.{name}"
        if value is None:
            setattr(message, name, f.container() if f.repeated else None)
            continue
        sub = spec_of(f.message) if f.kind == MESSAGE else None
        if not f.repeated:
            if sub is not None:
                setattr(message, name, _from_object(sub, value, where, depth + 1))
            else:
                setattr(message, name, _scalar_in(f, value, where))
            continue
        if not isinstance(value, list):
            raise JSONError(f"a repeated field takes a list, not {value!r}", where)
        items: list[Any] = []
        for i, item in enumerate(value):
            at = f"{where}[{i}]"
            if item is None:
                raise JSONError("null is not allowed in a repeated field", at)
            if sub is not None:
                items.append(_from_object(sub, item, at, depth + 1))
            else:
                items.append(_scalar_in(f, item, at))
        setattr(message, name, array(f.typecode, items) if f.typecode else items)
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
    except RecursionError:  # arrays or objects nested thousands deep
        raise JSONError("not JSON this parser can read: nested too deep", "") from None
    return from_json_object(cls, obj)
