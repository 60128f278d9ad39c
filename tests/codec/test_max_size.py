"""``max_size`` bounds decode, encode, encode_to, load and save, with the same wording."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from onnxdata import (
    DecodeError,
    EncodeValueError,
    SequenceProto,
    TensorProto,
    load,
    save,
)
from tests.support.numpy_support import sample_tensor


def test_max_size() -> None:
    t = sample_tensor()
    data = t.encode()
    n = len(data)
    assert TensorProto.decode(data, max_size=n) == t
    with pytest.raises(DecodeError) as info:
        TensorProto.decode(data, max_size=n - 1)
    assert info.value.path == "TensorProto" and info.value.offset == n - 1
    assert f"{n} bytes is more than max_size={n - 1}" in str(info.value)
    assert t.encode(max_size=n) == data
    with pytest.raises(EncodeValueError, match=f"{n} bytes, more than max_size={n - 1}") as e:
        t.encode(max_size=n - 1)
    assert isinstance(e.value, ValueError) and e.value.path == "TensorProto"
    seq = SequenceProto(tensor_values=[t, t])
    buf = io.BytesIO()
    with pytest.raises(EncodeValueError, match="max_size"):
        seq.encode_to(buf, max_size=2 * n)
    assert buf.getvalue() == b""
    assert seq.encode_to(buf, max_size=2 * n + 4) == 2 * n + 4
    buf = io.BytesIO()
    with pytest.raises(EncodeValueError, match="max_size"):
        t.encode_to(buf, max_size=n - 1)
    assert buf.getvalue() == b""


def test_max_size_on_files(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    t = sample_tensor()
    n = save(t, path)
    assert load(path, TensorProto, max_size=n) == t
    with pytest.raises(DecodeError, match="max_size"):
        load(path, TensorProto, max_size=n - 1)
    with pytest.raises(DecodeError, match="max_size"):
        load(path, max_size=n - 1)
    with pytest.raises(EncodeValueError, match="max_size"):
        save(t, tmp_path / "u.pb", max_size=n - 1)
    assert sorted(os.listdir(tmp_path)) == ["t.pb"]
