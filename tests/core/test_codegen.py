"""Generated source is registered with linecache, so tracebacks show generated lines.

The sources compiled while ``import onnxdata`` runs wait for ``linecache`` (which
imports ``tokenize``) until something loads it or the codec compiles its first
function; every source is registered by then.
"""

from __future__ import annotations

import subprocess
import sys
import traceback
from collections.abc import Iterator

import pytest

import onnxdata
from onnxdata._core import codegen
from tests.support.paths import ROOT

_PROBE = r"""
import sys
loaded = "linecache" in sys.modules  # CPython 3.13 loads it at start-up
import onnxdata
assert loaded or "linecache" not in sys.modules, "import onnxdata loaded linecache"
onnxdata.TensorProto.decode(onnxdata.TensorProto(dims=[2]).encode())
import linecache
line = linecache.getline("<onnxdata __init__ TensorProto>", 1)
assert line.startswith("def __init__(m, *,"), line
from onnxdata._core.codegen import generated
names = generated("decoder TensorProto")  # one per mode, and per switch state
firsts = [linecache.getline(name, 1) for name in names]
assert any(line.startswith("def decode_TensorProto(") for line in firsts), names
print("ok")
"""


def test_import_waits_and_the_codec_registers_every_source() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + _PROBE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def _failing() -> Iterator[int]:
    yield 1
    raise ValueError("the caller's generator failed")


def test_a_traceback_in_a_generated_init_shows_its_line() -> None:
    with pytest.raises(ValueError, match="generator failed") as caught:
        onnxdata.TensorProto(dims=_failing())
    text = "".join(traceback.format_exception(caught.value))
    assert "<onnxdata __init__ TensorProto>" in text
    assert "m._dims = " in text  # the generated line itself


def test_a_second_source_of_the_same_name_gets_its_own() -> None:
    first = codegen.build("def f():\n    return 1\n", "<onnxdata test probe>", {})
    second = codegen.build("def f():\n    return 2\n", "<onnxdata test probe>", {})
    assert first["f"].__code__.co_filename == "<onnxdata test probe>"
    assert second["f"].__code__.co_filename == "<onnxdata test probe #2>"
    sources = codegen.generated("onnxdata test probe")
    assert sources["<onnxdata test probe #2>"].endswith("return 2\n")
