"""The containers of repeated fields, and how a value assigned to one becomes one.

protobuf's repeated fields are containers of their own: a packed numeric
field compares equal to a list of its values, takes ``[:] = [...]`` from any
iterable, and a repeated message field has ``add(**fields)``.  Code written
against ``onnx`` relies on all of that, so the fields hold:

- :class:`RepeatedScalars` for packed numeric fields: an ``array.array`` in
  the wire width (every float32 bit kept, 8 bytes per int64, numpy reads it in
  place through the buffer protocol) that behaves like protobuf's container in
  comparisons, slicing and assignment;
- a :class:`RepeatedMessages` (a ``list``) for repeated message fields, one
  subclass per element class, with ``add``;
- a plain ``list`` for the other repeated fields (``dims``, ``keys``,
  ``string_data``, ``string_keys``), which already behaves like protobuf's.

Whatever the container, a value assigned is copied into a new one
(:func:`to_scalars`, :func:`to_messages`, :func:`to_list`): as with
protobuf, changing the caller's list afterwards never changes the message.

A message makes the container of a repeated field on first access, so an
empty field costs no object (see ``_core/classes.py``).  A value assigned to the
field (in ``__init__`` or by ``=``) is converted to the container; a value
that cannot be (a string in ``float_data``, ``True`` in ``int64_data``, an
int32 out of range) is kept as given, so that ``encode()`` refuses it with
the field's path, as it always did.
"""

from __future__ import annotations

from array import array

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable
    from typing import Any

    from typing_extensions import Self

__all__ = [
    "RepeatedMessages",
    "RepeatedScalars",
    "message_list",
    "messages_of",
    "to_list",
    "to_messages",
    "to_scalars",
]


def _refuse_booleans(code: str, values: Iterable[Any]) -> None:
    """protobuf refuses a bool (Python's or numpy's) in an integer field: so do we."""
    if code not in "fd":
        for kind in set(map(type, values)):
            if kind is bool or (kind.__name__ in ("bool", "bool_") and kind.__module__ == "numpy"):
                raise TypeError(f"{kind.__name__} is not an integer for this field")


def _error(code: str, exc: BaseException) -> BaseException:
    if isinstance(exc, OverflowError):
        return ValueError(f"value out of range for '{code}' ({exc})")
    return exc


class RepeatedScalars(array):  # type: ignore[type-arg, unused-ignore]
    """The values of a packed numeric field (``float_data``, ``int64_data``...).

    An ``array.array`` of the field's wire type, so values keep every bit and
    numpy reads them in place; it compares and assigns as protobuf's repeated
    field does: ``t.int32_data == [1, 2]``, ``t.float_data[:] = [3.0]``,
    ``t.dims[1:]`` is a list, ``bytes(t.int32_data)`` is ``bytes([1, 2])``.

    Raises (from the methods that add values):
        TypeError: a value of the wrong type, a bool in an integer field.
        ValueError: an integer out of the field's range.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, array):
            return array.__eq__(self, other)
        if isinstance(other, (list, tuple, range)):
            return self.tolist() == (other if isinstance(other, list) else None)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment, unused-ignore]

    def __repr__(self) -> str:
        return repr(self.tolist())

    def __bytes__(self) -> bytes:
        return bytes(self.tolist())

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            value = to_scalars(self.typecode, value, strict=True)
        else:
            _refuse_booleans(self.typecode, (value,))
        try:
            array.__setitem__(self, index, value)
        except OverflowError as exc:
            raise _error(self.typecode, exc) from None

    def append(self, value: Any) -> None:
        _refuse_booleans(self.typecode, (value,))
        try:
            array.append(self, value)
        except OverflowError as exc:
            raise _error(self.typecode, exc) from None

    def insert(self, index: int, value: Any) -> None:
        _refuse_booleans(self.typecode, (value,))
        try:
            array.insert(self, index, value)
        except OverflowError as exc:
            raise _error(self.typecode, exc) from None

    def extend(self, values: Iterable[Any]) -> None:
        if isinstance(values, array) and values.typecode == self.typecode:
            array.extend(self, values)  # the codec's own path: no check needed
        else:
            array.extend(self, to_scalars(self.typecode, values, strict=True))

    def __iadd__(self, values: Iterable[Any]) -> Self:  # type: ignore[override, misc, unused-ignore]
        self.extend(values)
        return self

    def MergeFrom(self, values: Iterable[Any]) -> None:  # noqa: N802 - protobuf's name
        """Append ``values`` (protobuf's name for ``extend``)."""
        self.extend(values)

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        """Sort in place, as a list would (protobuf's containers have ``sort``)."""
        self[:] = sorted(self.tolist(), key=key, reverse=reverse)

    def __copy__(self) -> Self:
        return type(self)(self.typecode, self)

    def __deepcopy__(self, memo: Any) -> Self:
        return self.__copy__()


def to_scalars(code: str, values: Any, strict: bool = False) -> Any:
    """``values`` as a :class:`RepeatedScalars` of typecode ``code``: a copy, never an alias.

    A buffer of the same item type (an ``array``, a contiguous numpy array
    of the wire's type) is copied in one step; anything else is read as an
    iterable.  What cannot be converted is returned as given unless
    ``strict``: the encoder then refuses it with the field's path.

    Raises (only with ``strict``):
        TypeError: not an iterable of numbers, or a bool in an integer field.
        ValueError: an integer out of range.
    """
    made = RepeatedScalars(code)
    try:
        view = memoryview(values)
    except TypeError:
        pass
    else:
        with view:
            if view.format.lstrip("@=") == code and view.c_contiguous and view.ndim <= 1:
                made.frombytes(view.cast("B"))
                return made
    if strict and code not in "fd" and isinstance(values, (bytes, bytearray)):
        array.extend(made, values)  # a sequence of small integers, as for a list
        return made
    if isinstance(values, (str, bytes, bytearray, memoryview)) or not hasattr(values, "__iter__"):
        if strict:
            raise TypeError(f"expected an iterable of numbers, got {type(values).__name__}")
        return values
    items = values if isinstance(values, (list, tuple)) else list(values)
    try:
        _refuse_booleans(code, items)
        array.extend(made, items)
    except (TypeError, ValueError, OverflowError) as exc:
        if strict:
            raise _error(code, exc) from None
        return values if hasattr(values, "__len__") else items  # a one-shot iterator: listed
    return made


class RepeatedMessages(list):  # type: ignore[type-arg]
    """The values of a repeated message field, with protobuf's ``add``.

    One subclass per element class (:func:`message_list`), so ``add`` knows
    what to make.
    """

    __slots__ = ()
    element: type

    def add(self, **fields: Any) -> Any:
        """Append a new element made from ``fields`` and return it."""
        made = self.element(**fields)
        self.append(made)
        return made

    def MergeFrom(self, values: Iterable[Any]) -> None:  # noqa: N802 - protobuf's name
        """Append ``values`` (protobuf's name for ``extend``)."""
        self.extend(values)

    def __copy__(self) -> Self:
        return type(self)(self)

    def __repr__(self) -> str:
        """protobuf's: each element in the text format, in brackets (``str(graph.input)``
        is searched for ``"dim_value: 2"`` by code written for onnx)."""
        return f"[{', '.join(str(m) for m in self)}]"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        # The subclass is made at run time: pickle it as its element class and items.
        return (messages_of, (self.element, list(self)))


def messages_of(element: type, items: Iterable[Any] = ()) -> RepeatedMessages:
    """A new :class:`RepeatedMessages` of ``element`` holding ``items`` (how pickle remakes one)."""
    made: RepeatedMessages = message_list(element)(items)
    return made


_LISTS: dict[type, type[RepeatedMessages]] = {}


def message_list(element: type) -> type[RepeatedMessages]:
    """The :class:`RepeatedMessages` subclass whose ``add`` makes ``element``."""
    made = _LISTS.get(element)
    if made is None:
        name = f"Repeated{element.__name__}"
        made = type(name, (RepeatedMessages,), {"__slots__": (), "element": element})
        made.__qualname__ = f"RepeatedMessages[{element.__qualname__}]"
        _LISTS[element] = made
    return made


def to_messages(container: type[RepeatedMessages], values: Any) -> Any:
    """``values`` as a new ``container`` (a shallow copy: the elements are kept).

    What is not an iterable (or is a one-shot iterator that fails) is returned
    as given, for the encoder to refuse with the field's path.
    """
    if isinstance(values, (str, bytes, bytearray, memoryview)) or not hasattr(values, "__iter__"):
        return values
    try:
        return container(values)
    except Exception:  # whatever iterating raised: the encoder reports it
        return values


def to_list(values: Any) -> Any:
    """``values`` as a new ``list`` (a shallow copy: the elements are kept).

    For the repeated fields that are plain lists (``dims``, ``string_data``,
    ``keys``, ``string_keys``).  A ``str``, which protobuf refuses, and what is
    not an iterable are returned as given: the encoder refuses both with the
    field's path.  A bytes-like object is a sequence of small integers, as
    protobuf iterates it.  What iterating raises (a generator that fails) is
    raised here.
    """
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        return values
    tolist = getattr(values, "tolist", None)
    if tolist is not None and not isinstance(values, list) and hasattr(values, "dtype"):
        return tolist()  # a numpy array: its values as Python's own ints and bytes
    return list(values)
