"""Real models decode and re-encode to upb's bytes.

Every ``.onnx`` file of the installed onnx package (its backend test models:
node, simple, real, PyTorch-converted, light) is decoded as a ``ModelProto``
in both decode modes, compared field by field with upb's parse, and
re-encoded to exactly the bytes upb writes.  The slow test does the same
for every ``.onnx`` file under the folder named by ``ONNXDATA_MODELS_DIR``
(onnx's node-test models, as ``onnx.backend.test.case.node`` builds them,
or any collection of real models).
"""

from __future__ import annotations

import os
from pathlib import Path

import onnx
import pytest

from onnxdata import ModelProto
from tests.support.oracle import assert_same

PACKAGE = Path(onnx.__file__).parent
PACKAGE_MODELS = sorted(PACKAGE.rglob("*.onnx"))
MODELS_DIR = os.environ.get("ONNXDATA_MODELS_DIR", "")


def check_model(path: Path) -> None:
    data = path.read_bytes()
    theirs = onnx.ModelProto.FromString(data)
    expected = theirs.SerializeToString()
    ours = ModelProto.decode(data)
    assert ours.encode() == expected, path
    assert_same(ours, theirs)
    # raw_data and other large bytes as views into ``data``: the same model
    views = ModelProto.decode(data, copy=False)
    assert views == ours
    assert views.encode() == expected, path
    # and what was written decodes to the same model again
    assert ModelProto.decode(expected) == ours


def test_the_package_holds_models() -> None:
    assert len(PACKAGE_MODELS) >= 100


@pytest.mark.parametrize("path", PACKAGE_MODELS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_model_of_onnx_s_package(path: Path) -> None:
    check_model(path)


@pytest.mark.slow
@pytest.mark.skipif(not MODELS_DIR, reason="ONNXDATA_MODELS_DIR names no folder of models")
def test_every_model_of_a_folder() -> None:
    paths = sorted(Path(MODELS_DIR).rglob("*.onnx"))
    assert paths, f"no .onnx file under {MODELS_DIR}"
    failed = []
    for path in paths:
        try:
            check_model(path)
        except AssertionError as exc:  # the whole folder is checked, then every failure named
            failed.append(f"{path}: {exc}")
    assert not failed, "\n".join(failed[:20])
