"""The catalog loads on first use: ``import onnxdata`` and ``import onnxdata.defs`` load none.

Checked in a fresh interpreter (the modules a process has loaded are the point); the first
lookup loads it once, and threads racing to be first all see one catalog.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnxdata
import onnxdata.defs as defs

_PROBE = r"""
import json, sys
import onnxdata
after_import = sorted(m for m in sys.modules if m.startswith("onnxdata._defs"))
import onnxdata.defs
after_defs = sorted(m for m in sys.modules if m.startswith("onnxdata._defs.table"))
onnxdata.defs.get_schema("Relu")
after_lookup = sorted(m for m in sys.modules if m.startswith("onnxdata._defs.table"))
print(json.dumps([after_import, after_defs, after_lookup, onnxdata.defs is onnxdata.defs]))
"""


def test_import_loads_no_catalog() -> None:
    root = Path(onnxdata.__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(root)!r})\n" + _PROBE],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    after_import, after_defs, after_lookup, _ = json.loads(done.stdout)
    assert after_import == []
    assert after_defs == []
    assert "onnxdata._defs.table" in after_lookup


def test_defs_is_an_attribute_of_the_package_as_in_onnx() -> None:
    assert onnxdata.defs is defs
    assert "defs" in dir(onnxdata)


_RACE = r"""
import json, sys, threading
from onnxdata._defs import registry
seen = []
start = threading.Barrier(8)
def first():
    start.wait()
    seen.append(id(registry.catalog()))
threads = [threading.Thread(target=first) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(seen))
"""


def test_threads_racing_to_load_see_one_catalog() -> None:
    root = Path(onnxdata.__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(root)!r})\n" + _RACE],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    seen = json.loads(done.stdout)
    assert len(seen) == 8 and len(set(seen)) == 1
