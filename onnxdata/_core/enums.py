"""The enums of the .proto, as protobuf's generated classes show them.

protobuf gives an enum as an ``EnumTypeWrapper`` object, not a class: its
values are plain ``int`` (``TensorProto.FLOAT`` is ``1``, prints as ``1``,
and is a key like any other ``1``), and the wrapper has ``Name``, ``Value``,
``keys``, ``values`` and ``items``.  Code written against onnx builds tables
from those, prints the values, compares ``type(v) is int``: an ``IntEnum``
would differ in all of these (its ``repr``, its ``str`` on Python 3.10).

A declaration reads as the .proto does::

    class DataType(ProtoEnum):
        UNDEFINED = 0
        FLOAT = 1

and the class statement makes an :class:`EnumType` object (the wrapper), not a
class, through ``ProtoEnum``'s metaclass.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["EnumDescriptor", "EnumType", "EnumValueDescriptor", "ProtoEnum"]

# The .proto's package: the first part of every full name protobuf gives.
PACKAGE = "onnx"


class EnumValueDescriptor:
    """One value of an enum as protobuf's descriptor gives it: ``name``, ``index``,
    ``number`` and ``type`` (the enum's descriptor)."""

    __slots__ = ("index", "name", "number", "type")

    def __init__(self, name: str, index: int, number: int, type: EnumDescriptor) -> None:
        self.name = name
        self.index = index
        self.number = number
        self.type = type

    def __repr__(self) -> str:
        return f"<EnumValueDescriptor {self.type.full_name}.{self.name} = {self.number}>"


class EnumDescriptor:
    """The data of protobuf's ``EnumDescriptor`` that code written for onnx reads
    (``TensorProto.DataType.DESCRIPTOR.values_by_name``): ``name``, ``full_name``,
    ``values`` in declaration order, ``values_by_name`` and ``values_by_number`` (an
    aliased number gives its first value, as protobuf).  There is no descriptor pool."""

    __slots__ = ("full_name", "name", "values", "values_by_name", "values_by_number")

    def __init__(self, name: str, qualname: str, members: dict[str, int]) -> None:
        self.name = name
        self.full_name = f"{PACKAGE}.{qualname}"
        self.values = [
            EnumValueDescriptor(key, index, number, self)
            for index, (key, number) in enumerate(members.items())
        ]
        self.values_by_name = {v.name: v for v in self.values}
        self.values_by_number: dict[int, EnumValueDescriptor] = {}
        for v in self.values:
            self.values_by_number.setdefault(v.number, v)

    def __repr__(self) -> str:
        return f"<EnumDescriptor {self.full_name}>"


class EnumType:
    """An enum of the .proto: its values by name, as protobuf's ``EnumTypeWrapper``.

    Not callable and not iterable, like protobuf's; ``values()`` gives the
    numbers, ``items()`` the pairs, in declaration order.
    """

    ValueType = int  # protobuf's alias of the values' type, used in annotations

    def __init__(self, name: str, qualname: str, members: dict[str, int]) -> None:
        self._name = name
        self._qualname = qualname
        self._members = members
        self.__qualname__ = qualname  # for error messages: "onnx.TensorProto.DataType"
        self.__members__ = members
        self._names: dict[int, str] = {}
        for key, number in members.items():
            self._names.setdefault(number, key)  # an alias keeps the first name, as protobuf

    def __getattr__(self, name: str) -> int:
        members = self.__dict__.get("_members")
        if members is not None and name in members:
            number: int = members[name]
            return number
        raise AttributeError(f"Enum {self._name} has no value defined for name {name!r}")

    def Name(self, number: int) -> str:  # noqa: N802 - protobuf's name
        """The name of the value ``number``.

        Raises:
            TypeError: ``number`` is not an int (protobuf's error).
            ValueError: no value has that number (protobuf's error).
        """
        if not isinstance(number, int):
            raise TypeError(
                f"Enum value for {self._name} must be an int, but got {type(number)} {number!r}."
            )
        found = self._names.get(number)
        if found is None:
            raise ValueError(f"Enum {self._name} has no name defined for value {number!r}")
        return found

    def Value(self, name: str) -> int:  # noqa: N802 - protobuf's name
        """The number of the value called ``name``.

        Raises:
            ValueError: no value has that name (protobuf's error).
        """
        found = self._members.get(name) if isinstance(name, str) else None
        if found is None:
            raise ValueError(f"Enum {self._name} has no value defined for name {name!r}")
        return found

    @property
    def DESCRIPTOR(self) -> EnumDescriptor:  # noqa: N802 - protobuf's name
        """The enum's names and numbers as protobuf's ``EnumDescriptor`` holds them."""
        found = self.__dict__.get("_descriptor")
        if found is None:
            found = self.__dict__["_descriptor"] = EnumDescriptor(
                self._name, self._qualname, self._members
            )
        return found

    def keys(self) -> list[str]:
        """The names, in declaration order."""
        return list(self._members)

    def values(self) -> list[int]:
        """The numbers, in declaration order."""
        return list(self._members.values())

    def items(self) -> list[tuple[str, int]]:
        """``(name, number)`` pairs, in declaration order."""
        return list(self._members.items())

    def __repr__(self) -> str:
        return f"<enum {self._qualname}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (EnumType, (self._name, self._qualname, self._members))


class _EnumMeta(type):
    """Makes ``class X(ProtoEnum): A = 0`` an :class:`EnumType` named ``X``."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if not bases:
            return super().__new__(mcs, name, bases, namespace)
        members = {
            key: value
            for key, value in namespace.items()
            if not key.startswith("__") and type(value) is int
        }
        return EnumType(name, namespace.get("__qualname__", name), members)


if TYPE_CHECKING:  # pragma: no cover - what type checkers see of a declaration

    class ProtoEnum:
        """The base of an enum declaration (for type checkers: the EnumType's methods)."""

        ValueType = int

        @classmethod
        def Name(cls, number: int) -> str: ...  # noqa: N802

        @classmethod
        def Value(cls, name: str) -> int: ...  # noqa: N802

        @classmethod
        def keys(cls) -> list[str]: ...

        @classmethod
        def values(cls) -> list[int]: ...

        @classmethod
        def items(cls) -> list[tuple[str, int]]: ...

else:

    class ProtoEnum(metaclass=_EnumMeta):
        """The base of an enum declaration: the class statement makes an :class:`EnumType`."""
