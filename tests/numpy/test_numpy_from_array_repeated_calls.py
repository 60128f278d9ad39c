"""numpy_helper's fast paths give what its general paths give.

``from_array`` remembers the dtypes whose values go to ``raw_data`` as they
are and then builds the message in a few steps; ``from_list`` skips checks
for plain ndarrays.  Every array is converted twice (the second time from
what the first remembered) and compared with onnx's bytes and with a message
decoded from onnx's bytes.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import numpy_helper as onh

from onnxdata import SequenceProto, TensorProto
from onnxdata import numpy_helper as nh

ARRAYS = [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.arange(12, dtype=np.float32).reshape(3, 4).T,  # not contiguous
    np.arange(6, dtype=">f4"),  # big-endian: not remembered
    np.arange(6, dtype="<i8"),
    np.array(3.5, dtype=np.float64),  # 0-d
    np.zeros((0, 3), dtype=np.int16),
    np.array([True, False]),
    np.arange(4, dtype=np.uint8),
    np.arange(4, dtype=np.float16),
    np.arange(4, dtype=np.complex64),
    np.arange(4).astype(ml_dtypes.bfloat16),
    np.arange(4).astype(ml_dtypes.float8_e4m3fn),
    np.arange(4).astype(ml_dtypes.int4),  # packed: not remembered
    np.array(["a", "bc"]),
    np.float32(2.5),  # a numpy scalar
]


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{np.asarray(a).dtype}{np.shape(a)}")
@pytest.mark.parametrize("name", [None, "", "x"])
def test_from_array(array: np.ndarray, name: str | None) -> None:
    native = array.dtype.isnative or array.dtype.itemsize == 1
    ref = array if native else array.astype(array.dtype.newbyteorder("="))  # onnx refuses ">f4"
    reference = onh.from_array(ref, name)
    expected = reference.SerializeToString()
    first = nh.from_array(array, name)
    second = nh.from_array(array, name)
    assert first.encode() == second.encode() == expected
    assert first == second == TensorProto.decode(expected)
    assert first.name == reference.name == (name or "")
    assert first.HasField("name") == reference.HasField("name") == bool(name)
    second.float_data.append(1.0)  # the two share no field
    second.dims.append(7)
    assert len(first.float_data) == 0
    assert first.dims == list(np.shape(array))


def test_from_list_elements() -> None:
    arrays = [np.arange(4, dtype=np.float32).reshape(2, 2), np.arange(3, dtype=np.float32)]
    assert nh.from_list([nh.from_array(a) for a in arrays]) == nh.from_list(arrays)
    with pytest.raises(TypeError):
        nh.from_list([arrays[0], nh.from_array(arrays[1])])

    class Sub(np.ndarray):
        pass

    subs = [a.view(Sub) for a in arrays]
    expected = onh.from_list(arrays).SerializeToString()
    assert nh.from_list(subs).encode() == nh.from_list(arrays).encode() == expected
    with pytest.raises(TypeError):
        nh.from_list([arrays[0], [1, 2]])


def test_enum_type_fields_encode_as_ints() -> None:
    s = nh.from_list([[np.zeros(2, np.float32)]])
    # protobuf's enum values are plain ints, as set and as decoded
    assert type(onh.from_list([[np.zeros(2, np.float32)]]).elem_type) is int
    assert type(s.elem_type) is int and s.elem_type == SequenceProto.SEQUENCE
    plain = SequenceProto.decode(s.encode())
    assert type(plain.elem_type) is int
    assert (
        plain.encode()
        == s.encode()
        == onh.from_list([[np.zeros(2, np.float32)]]).SerializeToString()
    )
    t = TensorProto(data_type=TensorProto.FLOAT, dims=[1])
    assert t.encode() == onnx.TensorProto(data_type=1, dims=[1]).SerializeToString()
