"""docs/vendoring.md, done exactly as written.

The code blocks are taken from the document's own text: the script copies this
checkout's ``onnxdata/`` into a fresh ``src/yourpkg/_vendor/onnxdata/``, the
module ``yourpkg/tensors.py`` uses the copy, and the pin test from the document
runs against it.  A separate interpreter then round-trips messages through the
vendored copy and checks that no top-level ``onnxdata`` (and no numpy) was
imported, even though one may be installed in this environment.
"""

from __future__ import annotations

import filecmp
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DOC = ROOT / "docs" / "vendoring.md"


def _block(first_line: str) -> str:
    """The ```python block of the document whose first line is ``first_line``."""
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
    found = [b for b in blocks if b.splitlines()[0].startswith(first_line)]
    assert len(found) == 1, f"docs/vendoring.md should have one block starting {first_line!r}"
    return str(found[0])


def _run(args: list[str], cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with ``src/yourpkg`` vendoring onnxdata by the document's script."""
    project = tmp_path_factory.mktemp("project")
    package = project / "src" / "yourpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A package that vendors onnxdata."""\n')
    (package / "tensors.py").write_text(_block("# yourpkg/tensors.py"))
    (project / "tests").mkdir()
    (project / "tests" / "test_vendored.py").write_text(_block("# tests/test_vendored.py"))
    (project / "vendor_onnxdata.py").write_text(_block("# vendor_onnxdata.py"))
    out = _run(["vendor_onnxdata.py", str(ROOT), "src/yourpkg"], cwd=project)
    assert out.startswith("vendored onnxdata ")
    return project


def test_copy_has_the_documented_files(project: Path) -> None:
    vendor = project / "src" / "yourpkg" / "_vendor"
    copy = vendor / "onnxdata"
    package = ROOT / "onnxdata"
    source = {p.relative_to(package).as_posix() for p in package.rglob("*.py")}
    copied = {p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file()}
    assert copied == source | {"py.typed", "LICENSE"}
    for name in source:
        assert filecmp.cmp(ROOT / "onnxdata" / name, copy / name, shallow=False), name
    assert filecmp.cmp(ROOT / "LICENSE", copy / "LICENSE", shallow=False)
    assert (ROOT / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert (vendor / "__init__.py").read_text() == ""
    version = re.search(
        r'^__version__ = "([^"]+)"', (ROOT / "onnxdata" / "__init__.py").read_text(), re.M
    )
    assert version
    assert (vendor / "vendor.txt").read_text() == f"onnxdata=={version.group(1)}\n"


ROUND_TRIP = """
import sys
sys.path.insert(0, "src")
sys.path.insert(1, "tests")
from pathlib import Path
from yourpkg import tensors
from yourpkg._vendor import onnxdata
import test_vendored

test_vendored.test_vendored_onnxdata_is_the_pinned_release()
sample = Path(sys.argv[1])
t = tensors.load_tensor(sample)
assert list(t.dims) == [1, 1000], t.dims
tensors.save_tensor(t, "copy.pb")
assert Path("copy.pb").read_bytes() == sample.read_bytes()
seq = onnxdata.SequenceProto(elem_type=onnxdata.SequenceProto.TENSOR, tensor_values=[t, t])
assert onnxdata.SequenceProto.decode(seq.encode()) == seq
Path("bad.pb").write_bytes(sample.read_bytes()[:-1])
try:
    tensors.load_tensor("bad.pb")
except tensors.DecodeError as err:
    assert isinstance(err, ValueError) and type(err).__module__.startswith("yourpkg._vendor.")
else:
    raise AssertionError("truncated file decoded")
top = sorted(m for m in sys.modules if m.split(".")[0] in ("onnxdata", "numpy", "google"))
print(onnxdata.__file__)
print(top)
"""


def test_vendored_copy_round_trips_without_top_level_onnxdata(project: Path) -> None:
    sample = ROOT / "tests" / "data" / "onnx_float_1x1000.pb"
    out = _run(["-c", ROUND_TRIP, str(sample)], cwd=project).splitlines()
    assert Path(out[0]).resolve().is_relative_to(project.resolve() / "src" / "yourpkg" / "_vendor")
    assert out[1] == "[]", f"imported outside the vendored copy: {out[1]}"
