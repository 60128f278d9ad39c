"""The device-configuration and sharding messages of ``onnx-ml.proto``.

A model may say how many devices it runs on (``DeviceConfigurationProto``)
and a node how its tensors are split across them
(``NodeDeviceConfigurationProto`` → ``ShardingSpecProto`` →
``ShardedDimProto`` → ``SimpleShardedDimProto``).  Names, numbers and order
follow the .proto exactly.
"""

from __future__ import annotations

from .._core.classes import message
from .._core.schema import REPEATED, field, unknown
from .message import Message

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import MutableSequence

__all__ = [
    "DeviceConfigurationProto",
    "IntIntListEntryProto",
    "NodeDeviceConfigurationProto",
    "ShardedDimProto",
    "ShardingSpecProto",
    "SimpleShardedDimProto",
]


@message
class IntIntListEntryProto(Message):
    """A key and a list of integers: one entry of a map from int to list of ints."""

    key: int = field(1, "int64", default=None)
    value: MutableSequence[int] = field(2, "int64", default_factory=REPEATED)
    unknown_fields: bytes = unknown(default=b"")


@message
class NodeDeviceConfigurationProto(Message):
    """How one node runs on a device configuration: its tensors' sharding, its stage."""

    configuration_id: str = field(1, "string", default=None)
    sharding_spec: MutableSequence[ShardingSpecProto] = field(
        2, "message", message="ShardingSpecProto", default_factory=REPEATED
    )
    pipeline_stage: int = field(3, "int32", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class ShardingSpecProto(Message):
    """How one tensor is split across devices."""

    tensor_name: str = field(1, "string", default=None)
    device: MutableSequence[int] = field(2, "int64", default_factory=REPEATED)
    index_to_device_group_map: MutableSequence[IntIntListEntryProto] = field(
        3, "message", message="IntIntListEntryProto", default_factory=REPEATED
    )
    sharded_dim: MutableSequence[ShardedDimProto] = field(
        4, "message", message="ShardedDimProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class ShardedDimProto(Message):
    """How one axis of a tensor is split."""

    axis: int = field(1, "int64", default=None)
    simple_sharding: MutableSequence[SimpleShardedDimProto] = field(
        2, "message", message="SimpleShardedDimProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class SimpleShardedDimProto(Message):
    """An axis split into ``num_shards`` equal parts."""

    dim_value: int = field(1, "int64", default=None, oneof="dim")
    dim_param: str = field(2, "string", default=None, oneof="dim")
    num_shards: int = field(3, "int64", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class DeviceConfigurationProto(Message):
    """A named set of devices a model runs on."""

    name: str = field(1, "string", default=None)
    num_devices: int = field(2, "int32", default=None)
    device: MutableSequence[str] = field(3, "string", default_factory=REPEATED)
    unknown_fields: bytes = unknown(default=b"")
