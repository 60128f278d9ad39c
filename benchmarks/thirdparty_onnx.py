"""ONNX's data messages declared with two third-party protobuf libraries.

Written as a user of each library would write them, from onnx.proto and
onnx-data.proto (proto2): the same message names, field names and numbers.
``benchmarks/fuzz_findings.py`` fuzzes them against onnxdata's reference
reading; :func:`check_against_schema` checks the declarations against
onnxdata's schema, so a typo here cannot pass for a parser bug.

- betterproto2 (``pip install betterproto2``): dataclasses with
  ``betterproto2.field(number, TYPE_...)``, as its compiler generates them
  (nested types flattened to ``TensorProtoSegment``); proto2 ``optional``
  scalars are declared ``optional=True``, betterproto2's way to keep presence.
  Parsed with ``Cls.parse(data)``.
- pure-protobuf (``pip install pure-protobuf``): ``Annotated[T, Field(n)]``
  attributes on a ``BaseMessage`` dataclass.  It has no ``int32`` type:
  ``int`` is a two's-complement varint, as for ``int64``.  Parsed with
  ``Cls.loads(data)``.

pure-protobuf resolves annotations when a class is created and has no
forward references (its open issue eigenein/protobuf#108), so the cycle
SequenceProto -> MapProto -> SequenceProto cannot be declared directly.
:class:`_Deferred` postpones the classes whose annotations name a class not
yet defined and builds their fields once all are defined, with the library's
own ``BaseMessage.__init_subclass__``.
"""

# ruff: noqa: RUF009 - betterproto2's fields are declared with calls, as its compiler writes them

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Annotated, ClassVar

import betterproto2
from pure_protobuf.annotations import Field, double, uint
from pure_protobuf.message import BaseMessage

import onnxdata
from onnxdata._core.schema import spec_of

# -- betterproto2 ---------------------------------------------------------------------------

B = betterproto2


class TensorProtoDataLocation(betterproto2.Enum):
    DEFAULT = 0
    EXTERNAL = 1


@dataclass(eq=False, repr=False)
class StringStringEntryProto(betterproto2.Message):
    key: str | None = B.field(1, B.TYPE_STRING, optional=True)
    value: str | None = B.field(2, B.TYPE_STRING, optional=True)


@dataclass(eq=False, repr=False)
class TensorProtoSegment(betterproto2.Message):
    begin: int | None = B.field(1, B.TYPE_INT64, optional=True)
    end: int | None = B.field(2, B.TYPE_INT64, optional=True)


@dataclass(eq=False, repr=False)
class TensorProto(betterproto2.Message):
    dims: list[int] = B.field(1, B.TYPE_INT64, repeated=True)
    data_type: int | None = B.field(2, B.TYPE_INT32, optional=True)
    segment: TensorProtoSegment | None = B.field(3, B.TYPE_MESSAGE, optional=True)
    float_data: list[float] = B.field(4, B.TYPE_FLOAT, repeated=True)
    int32_data: list[int] = B.field(5, B.TYPE_INT32, repeated=True)
    string_data: list[bytes] = B.field(6, B.TYPE_BYTES, repeated=True)
    int64_data: list[int] = B.field(7, B.TYPE_INT64, repeated=True)
    name: str | None = B.field(8, B.TYPE_STRING, optional=True)
    raw_data: bytes | None = B.field(9, B.TYPE_BYTES, optional=True)
    double_data: list[float] = B.field(10, B.TYPE_DOUBLE, repeated=True)
    uint64_data: list[int] = B.field(11, B.TYPE_UINT64, repeated=True)
    doc_string: str | None = B.field(12, B.TYPE_STRING, optional=True)
    external_data: list[StringStringEntryProto] = B.field(13, B.TYPE_MESSAGE, repeated=True)
    data_location: TensorProtoDataLocation | None = B.field(14, B.TYPE_ENUM, optional=True)
    metadata_props: list[StringStringEntryProto] = B.field(16, B.TYPE_MESSAGE, repeated=True)


@dataclass(eq=False, repr=False)
class SparseTensorProto(betterproto2.Message):
    values: TensorProto | None = B.field(1, B.TYPE_MESSAGE, optional=True)
    indices: TensorProto | None = B.field(2, B.TYPE_MESSAGE, optional=True)
    dims: list[int] = B.field(3, B.TYPE_INT64, repeated=True)


@dataclass(eq=False, repr=False)
class SequenceProto(betterproto2.Message):
    name: str | None = B.field(1, B.TYPE_STRING, optional=True)
    elem_type: int | None = B.field(2, B.TYPE_INT32, optional=True)
    tensor_values: list[TensorProto] = B.field(3, B.TYPE_MESSAGE, repeated=True)
    sparse_tensor_values: list[SparseTensorProto] = B.field(4, B.TYPE_MESSAGE, repeated=True)
    sequence_values: list[SequenceProto] = B.field(5, B.TYPE_MESSAGE, repeated=True)
    map_values: list[MapProto] = B.field(6, B.TYPE_MESSAGE, repeated=True)
    optional_values: list[OptionalProto] = B.field(7, B.TYPE_MESSAGE, repeated=True)


@dataclass(eq=False, repr=False)
class MapProto(betterproto2.Message):
    name: str | None = B.field(1, B.TYPE_STRING, optional=True)
    key_type: int | None = B.field(2, B.TYPE_INT32, optional=True)
    keys: list[int] = B.field(3, B.TYPE_INT64, repeated=True)
    string_keys: list[bytes] = B.field(4, B.TYPE_BYTES, repeated=True)
    values: SequenceProto | None = B.field(5, B.TYPE_MESSAGE, optional=True)


@dataclass(eq=False, repr=False)
class OptionalProto(betterproto2.Message):
    name: str | None = B.field(1, B.TYPE_STRING, optional=True)
    elem_type: int | None = B.field(2, B.TYPE_INT32, optional=True)
    tensor_value: TensorProto | None = B.field(3, B.TYPE_MESSAGE, optional=True)
    sparse_tensor_value: SparseTensorProto | None = B.field(4, B.TYPE_MESSAGE, optional=True)
    sequence_value: SequenceProto | None = B.field(5, B.TYPE_MESSAGE, optional=True)
    map_value: MapProto | None = B.field(6, B.TYPE_MESSAGE, optional=True)
    optional_value: OptionalProto | None = B.field(7, B.TYPE_MESSAGE, optional=True)


BETTERPROTO2 = {
    onnxdata.TensorProto: TensorProto,
    onnxdata.SparseTensorProto: SparseTensorProto,
    onnxdata.SequenceProto: SequenceProto,
    onnxdata.MapProto: MapProto,
    onnxdata.OptionalProto: OptionalProto,
    onnxdata.TensorProto.Segment: TensorProtoSegment,
    onnxdata.StringStringEntryProto: StringStringEntryProto,
}


# -- pure-protobuf --------------------------------------------------------------------------


class _Deferred(BaseMessage):
    """A BaseMessage whose fields may name classes defined after it."""

    pending: ClassVar[list[type[BaseMessage]]] = []

    def __init_subclass__(cls) -> None:
        try:
            super().__init_subclass__()
        except NameError:
            _Deferred.pending.append(cls)

    @staticmethod
    def resolve() -> None:
        for cls in _Deferred.pending:
            super(_Deferred, cls).__init_subclass__()  # type: ignore[misc]
        _Deferred.pending.clear()


class DataLocation(IntEnum):
    DEFAULT = 0
    EXTERNAL = 1


@dataclass
class PStringStringEntryProto(_Deferred):
    key: Annotated[str | None, Field(1)] = None
    value: Annotated[str | None, Field(2)] = None


@dataclass
class PSegment(_Deferred):
    begin: Annotated[int | None, Field(1)] = None
    end: Annotated[int | None, Field(2)] = None


@dataclass
class PTensorProto(_Deferred):
    dims: Annotated[list[int], Field(1, packed=False)] = field(default_factory=list)
    data_type: Annotated[int | None, Field(2)] = None
    segment: Annotated[PSegment | None, Field(3)] = None
    float_data: Annotated[list[float], Field(4, packed=True)] = field(default_factory=list)
    int32_data: Annotated[list[int], Field(5, packed=True)] = field(default_factory=list)
    string_data: Annotated[list[bytes], Field(6)] = field(default_factory=list)
    int64_data: Annotated[list[int], Field(7, packed=True)] = field(default_factory=list)
    name: Annotated[str | None, Field(8)] = None
    raw_data: Annotated[bytes | None, Field(9)] = None
    double_data: Annotated[list[double], Field(10, packed=True)] = field(default_factory=list)
    uint64_data: Annotated[list[uint], Field(11, packed=True)] = field(default_factory=list)
    doc_string: Annotated[str | None, Field(12)] = None
    external_data: Annotated[list[PStringStringEntryProto], Field(13)] = field(default_factory=list)
    data_location: Annotated[DataLocation | None, Field(14)] = None
    metadata_props: Annotated[list[PStringStringEntryProto], Field(16)] = field(
        default_factory=list
    )


@dataclass
class PSparseTensorProto(_Deferred):
    values: Annotated[PTensorProto | None, Field(1)] = None
    indices: Annotated[PTensorProto | None, Field(2)] = None
    dims: Annotated[list[int], Field(3, packed=False)] = field(default_factory=list)


@dataclass
class PSequenceProto(_Deferred):
    name: Annotated[str | None, Field(1)] = None
    elem_type: Annotated[int | None, Field(2)] = None
    tensor_values: Annotated[list[PTensorProto], Field(3)] = field(default_factory=list)
    sparse_tensor_values: Annotated[list[PSparseTensorProto], Field(4)] = field(
        default_factory=list
    )
    sequence_values: Annotated[list[PSequenceProto], Field(5)] = field(default_factory=list)
    map_values: Annotated[list[PMapProto], Field(6)] = field(default_factory=list)
    optional_values: Annotated[list[POptionalProto], Field(7)] = field(default_factory=list)


@dataclass
class PMapProto(_Deferred):
    name: Annotated[str | None, Field(1)] = None
    key_type: Annotated[int | None, Field(2)] = None
    keys: Annotated[list[int], Field(3, packed=False)] = field(default_factory=list)
    string_keys: Annotated[list[bytes], Field(4)] = field(default_factory=list)
    values: Annotated[PSequenceProto | None, Field(5)] = None


@dataclass
class POptionalProto(_Deferred):
    name: Annotated[str | None, Field(1)] = None
    elem_type: Annotated[int | None, Field(2)] = None
    tensor_value: Annotated[PTensorProto | None, Field(3)] = None
    sparse_tensor_value: Annotated[PSparseTensorProto | None, Field(4)] = None
    sequence_value: Annotated[PSequenceProto | None, Field(5)] = None
    map_value: Annotated[PMapProto | None, Field(6)] = None
    optional_value: Annotated[POptionalProto | None, Field(7)] = None


_Deferred.resolve()

PURE_PROTOBUF = {
    onnxdata.TensorProto: PTensorProto,
    onnxdata.SparseTensorProto: PSparseTensorProto,
    onnxdata.SequenceProto: PSequenceProto,
    onnxdata.MapProto: PMapProto,
    onnxdata.OptionalProto: POptionalProto,
    onnxdata.TensorProto.Segment: PSegment,
    onnxdata.StringStringEntryProto: PStringStringEntryProto,
}


def _declared_betterproto2(cls: type) -> dict[str, int]:
    return {f.name: f.metadata["betterproto"].number for f in dataclasses.fields(cls)}


def _declared_pure_protobuf(cls: type) -> dict[str, int]:
    by_name = cls.__PROTOBUF_FIELDS_BY_NAME__  # type: ignore[attr-defined]
    return {name: d.number for name, d in by_name.items()}


def check_against_schema() -> None:
    """Raise AssertionError unless every class declares onnxdata's field names and numbers."""
    for table, declared in ((BETTERPROTO2, _declared_betterproto2),
                            (PURE_PROTOBUF, _declared_pure_protobuf)):  # fmt: skip
        for ours, theirs in table.items():
            want = {f.name: f.number for f in spec_of(ours).fields}
            got = declared(theirs)
            assert got == want, f"{theirs.__name__}: {got} != {want}"
