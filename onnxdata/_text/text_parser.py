"""protobuf's text-format parser (``Parse``, ``Merge`` and their ``Lines`` forms), over the schema.

It accepts what protobuf's parser accepts (comments, ``<>`` or ``{}``, ``[1,
2]`` lists, concatenated strings, hexadecimal and octal integers,
``inf``/``nan``, ``1.5f``, enum names or numbers, an optional ``:`` before a
message, ``,`` or ``;`` between fields) and refuses the rest with protobuf's
``line:column`` and message.  Sub-messages are made from the schema
(``FieldSpec.message``); integer ranges are the kinds' (``_core.kinds``).
"""

from __future__ import annotations

from .._core.kinds import in_range
from .._core.own_values import to_float32
from .._core.schema import (
    BYTES,
    DOUBLE,
    FLOAT,
    INT32,
    INT64,
    MESSAGE,
    PACKAGE,
    STRING,
    UINT64,
    is_message,
    spec_of,
)
from .._core.wire import MAX_DEPTH
from .numbers import ParseInteger, parse_any_integer
from .text_errors import ParseError
from .tokenizer import Tokenizer
from .values import count

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable, Iterator
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["Parser", "lines_of", "parse", "parse_enum", "run"]

_INTEGERS = (INT32, INT64, UINT64)


def parse_enum(f: FieldSpec, text: str) -> int:
    enum = f.enum
    assert enum is not None
    full = f"{PACKAGE}{enum.__qualname__}"
    try:
        number = int(text, 0)
    except ValueError:
        member = enum.__members__.get(text)
        if member is None:
            raise ValueError(f'Enum type "{full}" has no value named {text}.') from None
        return int(member)
    try:
        enum.Name(number)
    except ValueError:
        raise ValueError(f'Enum type "{full}" has no value with number {number}.') from None
    return number


class Parser:
    def __init__(
        self,
        allow_unknown_extension: bool,
        allow_field_number: bool,
        allow_unknown_field: bool,
        max_recursion_depth: int | None,
        merge: bool,
    ) -> None:
        self.allow_unknown_extension = allow_unknown_extension
        self.allow_field_number = allow_field_number
        self.allow_unknown_field = allow_unknown_field
        self.max_depth = max_recursion_depth
        self.merge = merge
        self.depth = 0

    def enter(self, tokenizer: Tokenizer) -> None:
        self.depth += 1
        if self.max_depth is not None and self.depth > self.max_depth:
            raise ParseError(f"Message too deep. Max recursion depth is {self.max_depth}")
        if self.depth > MAX_DEPTH + 1:
            # The codec's bound (upb's too): deeper, the message could be neither
            # written nor printed, and the parser's stack would grow with the text.
            raise tokenizer.ParseErrorPreviousToken(
                f"Message too deep: more than {MAX_DEPTH} messages inside one another"
            )

    def parse(self, lines: Iterable[str | bytes], message: Any) -> None:
        tokenizer = Tokenizer(_decoded(lines))
        self.enter(tokenizer)
        while not tokenizer.AtEnd():
            self.field(tokenizer, message)
        self.depth -= 1

    def sub_message(self, tokenizer: Tokenizer, message: Any, end_token: str) -> None:
        self.enter(tokenizer)
        while not tokenizer.TryConsume(end_token):
            if tokenizer.AtEnd():
                raise tokenizer.ParseErrorPreviousToken(f'Expected "{end_token}".')
            self.field(tokenizer, message)
        self.depth -= 1

    def field(self, tokenizer: Tokenizer, message: Any) -> None:
        spec = spec_of(type(message))
        full = spec.full_name
        if tokenizer.TryConsume("["):
            name = [tokenizer.ConsumeIdentifier()]
            while tokenizer.TryConsume("."):
                name.append(tokenizer.ConsumeIdentifier())
            raise tokenizer.ParseErrorPreviousToken(
                f'Message type "{full}" does not have extensions.'
            )
        name_text = tokenizer.ConsumeIdentifierOrNumber()
        f: FieldSpec | None
        if self.allow_field_number and name_text.isdigit():
            try:
                number = ParseInteger(name_text, True, True)
            except ValueError as err:
                raise tokenizer.ParseErrorPreviousToken(str(err)) from None
            f = spec.by_number.get(number)
        else:
            f = spec.by_name.get(name_text)
        if f is None:
            if not self.allow_unknown_field:
                raise tokenizer.ParseErrorPreviousToken(
                    f'Message type "{full}" has no field named "{name_text}".'
                )
            self.skip_contents(tokenizer)
        else:
            if f.oneof is not None and not self.merge:
                _check_oneof(tokenizer, message, f, full)
            if f.kind == MESSAGE:
                tokenizer.TryConsume(":")
                merger = self.message_field
            else:
                tokenizer.Consume(":")
                merger = self.scalar_field
            if f.repeated and tokenizer.TryConsume("["):
                if not tokenizer.TryConsume("]"):
                    while True:
                        merger(tokenizer, message, f, full)
                        if tokenizer.TryConsume("]"):
                            break
                        tokenizer.Consume(",")
            else:
                merger(tokenizer, message, f, full)
        if not tokenizer.TryConsume(","):
            tokenizer.TryConsume(";")

    def message_field(self, tokenizer: Tokenizer, message: Any, f: FieldSpec, full: str) -> None:
        if tokenizer.TryConsume("<"):
            end_token = ">"
        else:
            tokenizer.Consume("{")
            end_token = "}"
        cls = f.message
        if f.repeated:
            sub = cls()
            _container(message, f).append(sub)
        else:
            # The slot tells presence (the property would give a stand-in); a
            # message set through the property sets ``message`` too, if it is
            # itself a stand-in read from its parent, as SetInParent does.
            sub = f.held(message)
            if sub is not None and not self.merge:
                raise tokenizer.ParseErrorPreviousToken(
                    f'Message type "{full}" should not have multiple "{f.name}" fields.'
                )
            if sub is None:
                sub = cls()
                setattr(message, f.name, sub)
        self.sub_message(tokenizer, sub, end_token)

    def scalar_field(self, tokenizer: Tokenizer, message: Any, f: FieldSpec, full: str) -> None:
        kind = f.kind
        value: Any
        if kind in _INTEGERS:
            value = _consume_int(tokenizer, kind)
        elif kind == FLOAT:
            value = to_float32(tokenizer.ConsumeFloat())
        elif kind == DOUBLE:
            value = tokenizer.ConsumeFloat()
        elif kind == STRING:
            value = tokenizer.ConsumeString()
        elif kind == BYTES:
            value = tokenizer.ConsumeByteString()
        else:
            try:
                value = parse_enum(f, tokenizer.token)
            except ValueError as err:
                raise tokenizer.ParseError(str(err)) from None
            tokenizer.NextToken()
        if f.repeated:
            _container(message, f).append(value)
        else:
            if not self.merge and f.held(message) is not None:  # HasField
                raise tokenizer.ParseErrorPreviousToken(
                    f'Message type "{full}" should not have multiple "{f.name}" fields.'
                )
            setattr(message, f.name, value)

    # -- skipping unknown fields (allow_unknown_field) --

    def skip_contents(self, tokenizer: Tokenizer) -> None:
        if (
            tokenizer.TryConsume(":")
            and not tokenizer.LookingAt("{")
            and not tokenizer.LookingAt("<")
        ):
            if tokenizer.LookingAt("["):
                self.skip_list(tokenizer)
            else:
                _skip_value(tokenizer)
        else:
            self.skip_message(tokenizer)

    def skip_field(self, tokenizer: Tokenizer) -> None:
        if tokenizer.TryConsume("["):
            tokenizer.ConsumeIdentifier()
            count = 1
            while tokenizer.TryConsume("."):
                tokenizer.ConsumeIdentifier()
                count += 1
            if count == 3 and tokenizer.TryConsume("/"):
                tokenizer.ConsumeIdentifier()
                while tokenizer.TryConsume("."):
                    tokenizer.ConsumeIdentifier()
            tokenizer.Consume("]")
        else:
            tokenizer.ConsumeIdentifierOrNumber()
        self.skip_contents(tokenizer)
        if not tokenizer.TryConsume(","):
            tokenizer.TryConsume(";")

    def skip_message(self, tokenizer: Tokenizer) -> None:
        if tokenizer.TryConsume("<"):
            delimiter = ">"
        else:
            tokenizer.Consume("{")
            delimiter = "}"
        while not tokenizer.LookingAt(">") and not tokenizer.LookingAt("}"):
            self.skip_field(tokenizer)
        tokenizer.Consume(delimiter)

    def skip_list(self, tokenizer: Tokenizer) -> None:
        tokenizer.Consume("[")
        if not tokenizer.TryConsume("]"):
            while True:
                if tokenizer.LookingAt("<") or tokenizer.LookingAt("{"):
                    self.skip_message(tokenizer)
                else:
                    _skip_value(tokenizer)
                if tokenizer.TryConsume("]"):
                    break
                tokenizer.Consume(",")


def _check_oneof(tokenizer: Tokenizer, message: Any, f: FieldSpec, full: str) -> None:
    """Refuse ``f`` when another member of its oneof is set (``Parse``; ``Merge`` switches).

    The member set may come from this text or from before the parse, as in
    protobuf; the same member again is the "multiple fields" check's.

    Raises:
        ParseError: at the field's name, in protobuf's words.
    """
    assert f.oneof is not None
    for member in spec_of(type(message)).oneofs[f.oneof]:
        if member is not f and member.held(message) is not None:
            raise tokenizer.ParseErrorPreviousToken(
                f'Field "{f.name}" is specified along with field "{member.name}", another '
                f'member of oneof "{f.oneof}" for message type "{full}".'
            )


def _skip_value(tokenizer: Tokenizer) -> None:
    if tokenizer.TryConsumeByteString() or tokenizer.TryConsumeIdentifier():
        return
    for kind in (INT64, UINT64):
        try:
            _consume_int(tokenizer, kind)
        except ParseError:
            continue
        return
    if not tokenizer.TryConsumeFloat():
        raise ParseError("Invalid field value: " + tokenizer.token)


def _consume_int(tokenizer: Tokenizer, kind: str) -> int:
    try:
        result = parse_any_integer(tokenizer.token)
        if not in_range(kind, result):
            raise ValueError(f"Value out of range: {result}")
    except ValueError as err:
        raise tokenizer.ParseError(str(err)) from None
    tokenizer.NextToken()
    return result


def _container(message: Any, f: FieldSpec) -> Any:
    """The repeated field's container, copied out if it is a read-only view.

    Read through the property: a stand-in's container sets the stand-in in
    its parent when appended to, as protobuf's does.
    """
    values = getattr(message, f.name)
    if not hasattr(values, "append"):
        # a read-only view of a message decoded with copy=False: copy it out
        made = f.container()
        made.extend(values)
        setattr(message, f.name, made)
        return getattr(message, f.name)  # assigning stores a copy: the field's own
    return values


def _decoded(lines: Iterable[str | bytes]) -> Iterator[str]:
    for number, line in enumerate(lines, 1):
        if isinstance(line, str):
            yield line
            continue
        try:
            yield bytes(line).decode("utf-8")
        except UnicodeDecodeError as err:
            raise ParseError(f"not UTF-8: {err}", number, err.start + 1) from None


def _target(message: Any) -> Any:
    if is_message(message):
        return message
    raise TypeError(
        f"expected an onnxdata message to fill, got {type(message).__module__}."
        f"{type(message).__qualname__}"
    )


def run(
    lines: Iterable[str | bytes],
    message: Any,
    allow_unknown_extension: bool,
    allow_field_number: bool,
    allow_unknown_field: bool,
    max_recursion_depth: int | None,
    merge: bool,
) -> Any:
    target = _target(message)
    if max_recursion_depth is not None:
        max_recursion_depth = count(max_recursion_depth, "max_recursion_depth")
    parser = Parser(
        bool(allow_unknown_extension),
        bool(allow_field_number),
        bool(allow_unknown_field),
        max_recursion_depth,
        merge,
    )
    try:
        parser.parse(lines, target)
    except RecursionError:
        raise ParseError("Message too deep: nested further than Python can follow") from None
    return target


def lines_of(text: str | bytes) -> list[str] | list[bytes]:
    if isinstance(text, str):
        return text.split("\n")
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text).split(b"\n")
    raise TypeError(f"text must be str or bytes, not {type(text).__name__}")


def parse(text: str | bytes, message: Any) -> Any:
    """``Parse(text, message)`` with every option at protobuf's default.

    Raises:
        ParseError: the text is not valid text format for the message.
        TypeError: as :func:`run`.
    """
    return run(lines_of(text), message, False, False, False, None, merge=False)
