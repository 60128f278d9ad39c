"""protobuf's JSON reader (``Parse``, ``ParseDict``), over the schema.

It accepts what protobuf accepts: either name spelling, ``null`` for "not
set", ``max_recursion_depth`` levels of messages, and the values of
:mod:`.json_values`.  It fills the given message in place, as protobuf does:
a repeated field given is replaced, a message field is merged into.
Sub-messages are made from the schema (``FieldSpec.message``).
"""

from __future__ import annotations

import json
import re

from .._core.schema import MESSAGE, is_message, spec_of
from .._core.wire import MAX_DEPTH
from .json_errors import EnumStringValueParseError, ParseError
from .json_values import scalar

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec

__all__ = ["Parser", "load", "parse_dict", "target"]

_EXTENSION_NAME = re.compile(r"\[[a-zA-Z0-9\._]*\]$")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ParseError(f"Failed to load JSON: duplicate key {key}.")
        out[key] = value
    return out


_NAMES: dict[MessageSpec, dict[str, FieldSpec]] = {}


def _names(spec: MessageSpec) -> dict[str, FieldSpec]:
    """Both spellings of every field name, the JSON name winning a clash."""
    names = _NAMES.get(spec)
    if names is None:
        names = {f.name: f for f in spec.fields}
        names.update((f.json_name, f) for f in spec.fields)
        _NAMES[spec] = names
    return names


class Parser:
    def __init__(self, ignore_unknown_fields: bool, max_depth: int) -> None:
        self.ignore_unknown = ignore_unknown_fields
        self.max_depth = max_depth
        self.depth = 0

    def convert(self, js: Any, message: Any, path: str) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise ParseError(f"Message too deep. Max recursion depth is {self.max_depth}")
        if self.depth > MAX_DEPTH + 1:  # the codec's bound, whatever max_recursion_depth says
            raise ParseError(
                f"Message too deep: more than {MAX_DEPTH} messages inside one another at {path}"
            )
        spec = spec_of(type(message))
        path = path or spec.name.rpartition(".")[2]
        self.fields(js, message, spec, path)
        self.depth -= 1

    def fields(self, js: Any, message: Any, spec: MessageSpec, path: str) -> None:
        if isinstance(js, dict):
            keys: Any = js
        elif isinstance(js, (list, tuple, str)):
            keys = js  # protobuf iterates any iterable: [] and "" are empty messages
        else:
            raise TypeError(f"'{type(js).__name__}' object is not iterable")
        names = _names(spec)
        seen: list[Any] = []
        full = spec.full_name
        for name in keys:
            f = None
            try:
                f = names.get(name) if isinstance(name, str) else None
                if f is None:
                    _check_name(name)
                    if _EXTENSION_NAME.match(name):
                        raise ParseError(f"Message type {full} does not have extensions at {path}")
                    if self.ignore_unknown:
                        continue
                    known = [g.json_name for g in spec.fields]
                    raise ParseError(
                        f'Message type "{full}" has no field named "{name}" at "{path}".\n'
                        f' Available Fields(except extensions): "{known}"'
                    )
                if name in seen:
                    raise ParseError(
                        f'Message type "{full}" should not have multiple "{name}" fields '
                        f'at "{path}".'
                    )
                seen.append(name)
                value = js[name]
                if f.oneof is not None and value is not None:
                    # One list for names and oneofs, as protobuf keeps it.
                    if f.oneof in seen:
                        raise ParseError(
                            f'Message type "{full}" should not have multiple "{f.oneof}" '
                            f'oneof fields at "{path}".'
                        )
                    seen.append(f.oneof)
                self.field(message, f, name, value, path)
            except ParseError as err:
                if f is None:  # protobuf names the field only once it has found it
                    raise
                if f.oneof is not None:  # nor a oneof member's, whose error goes up as it is
                    raise ParseError(str(err)) from None
                raise ParseError(f"Failed to parse {name} field: {err}.") from None
            except (ValueError, TypeError, OverflowError) as err:
                raise ParseError(f"Failed to parse {name} field: {err}.") from None

    def field(self, message: Any, f: FieldSpec, name: str, value: Any, path: str) -> None:
        at = f"{path}.{name}"
        if value is None:
            # protobuf's ClearField: it sets a stand-in ``message`` in its parent
            # (the property's deleter does), and leaves the field unset.
            delattr(message, f.name)
            return
        if f.repeated:
            container = _clear(message, f)
            if not isinstance(value, (list, tuple)):
                raise ParseError(f"repeated field {name} must be in [] which is {value} at {path}")
            for index, item in enumerate(value):
                where = f"{at}[{index}]"
                if item is None:
                    raise ParseError(
                        "null is not allowed to be used as an element in a repeated field "
                        f"at {where}"
                    )
                if f.kind == MESSAGE:
                    sub = f.message()
                    container.append(sub)
                    self.convert(item, sub, where)
                else:
                    try:
                        container.append(scalar(f, item, where))
                    except EnumStringValueParseError:
                        if not self.ignore_unknown:
                            raise
            return
        if f.kind == MESSAGE:
            sub = f.held(message)  # None while unset: the property gives a stand-in
            if sub is None:  # set first, as protobuf's SetInParent: an empty {} sets it
                sub = f.message()
                setattr(message, f.name, sub)
            self.convert(value, sub, at)
            return
        try:
            setattr(message, f.name, scalar(f, value, at))
        except EnumStringValueParseError:
            if not self.ignore_unknown:
                raise


def _check_name(name: Any) -> None:
    """Refuse a name protobuf cannot even look up (it looks names up as UTF-8 text).

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: ``name`` holds a lone surrogate.
    """
    if not isinstance(name, str):
        try:
            hash(name)
        except TypeError:
            raise TypeError(f"unhashable type: '{type(name).__name__}'") from None
        try:  # protobuf matches the name with a regular expression: its words, this Python's
            re.compile("").match(name)
        except TypeError as exc:
            raise TypeError(str(exc)) from None
        raise TypeError(f"expected string or bytes-like object, got '{type(name).__name__}'")
    name.encode("utf-8")


def _clear(message: Any, f: FieldSpec) -> Any:
    """Empty the repeated field ``f`` in place (or give it a new container) and return it.

    As protobuf's ClearField, it sets a stand-in ``message`` in its parent even
    when nothing is added afterwards: the stand-in's container does that.
    """
    container = getattr(message, f.name)
    try:
        del container[:]
    except TypeError:  # a read-only view (a message decoded with copy=False)
        setattr(message, f.name, f.container())
        container = getattr(message, f.name)
    return container


def target(message: Any) -> Any:
    """``message``, if it is a message to fill (of a schema class).

    Raises:
        TypeError: it is not (onnx's protobuf messages are not filled here).
    """
    if is_message(message):
        return message
    raise TypeError(
        f"expected an onnxdata message to fill, got {type(message).__module__}."
        f"{type(message).__qualname__}"
    )


def load(text: Any) -> Any:
    """The JSON value of ``text`` (str, or UTF-8 bytes), duplicate keys refused.

    Raises:
        ParseError: the text is not UTF-8, or not JSON.
        TypeError: ``text`` is neither str nor bytes-like.
    """
    if not isinstance(text, str):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise ParseError(f"Failed to load JSON: {err}.") from None
        except TypeError:
            raise TypeError(f"text must be str or bytes, not {type(text).__name__}") from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as err:  # a duplicate key's ParseError too, as protobuf
        raise ParseError(f"Failed to load JSON: {err}.") from None


def parse_dict(
    js_dict: Any, message: Any, ignore_unknown_fields: bool, max_recursion_depth: int
) -> Any:
    """Fill ``message`` from the JSON value ``js_dict`` and return it.

    Raises:
        ParseError: ``js_dict`` is not a valid mapping of the message.
        TypeError: ``message`` is not a message of a schema class, or
            ``max_recursion_depth`` is not an int.
    """
    filled = target(message)
    if isinstance(max_recursion_depth, bool) or not isinstance(max_recursion_depth, int):
        raise TypeError("max_recursion_depth must be an int")
    parser = Parser(bool(ignore_unknown_fields), max_recursion_depth)
    try:
        parser.convert(js_dict, filled, "")
    except ParseError:
        raise
    except RecursionError:
        raise ParseError("Failed to parse JSON: nested too deeply.") from None
    except (TypeError, ValueError, OverflowError) as err:
        raise ParseError(f"Failed to parse JSON: {type(err).__name__}: {err}.") from None
    return filled
