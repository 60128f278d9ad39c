"""The wheel: pure Python, no runtime dependencies, works in a bare venv.

Builds the wheel with pip (the build backend, hatchling, comes from the
package index in pip's isolated build environment), checks its tag and
metadata, installs it with ``--no-index`` into a fresh virtual environment
that has no numpy and no protobuf, and runs the README's main job there.
The sizes are printed next to those of ``onnx`` + ``protobuf``.
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT

ROOT = ROOT
DATA = ROOT / "tests" / "data"
BIN = "Scripts" if sys.platform == "win32" else "bin"
EXE = ".exe" if sys.platform == "win32" else ""


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _run(cmd: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        cmd, cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=timeout,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, f"{shlex.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
         "--quiet", "--wheel-dir", str(out), str(ROOT)],
        cwd=out,
        timeout=300,
    )  # fmt: skip
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def env(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no system site-packages) with only the wheel installed, offline."""
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=False)
    python = home / BIN / f"python{EXE}"
    _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
         "--disable-pip-version-check", "--quiet", str(wheel)],
        cwd=home,
    )  # fmt: skip
    return python


def test_wheel_is_pure_and_has_no_dependencies(wheel: Path) -> None:
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (info,) = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
        tags = z.read(f"{info}/WHEEL").decode()
        meta = email.parser.Parser().parsestr(z.read(f"{info}/METADATA").decode())
    assert "Tag: py3-none-any" in tags.splitlines()
    assert "Root-Is-Purelib: true" in tags.splitlines()
    requires = meta.get_all("Requires-Dist") or []
    assert [r for r in requires if "extra ==" not in r] == [], requires
    assert meta["Requires-Python"] == ">=3.10"
    assert f"{info}/licenses/LICENSE" in names
    # Only the package and its metadata: no tests, docs or data.
    assert {n.split("/")[0] for n in names} == {"onnxdata", info}
    package = ROOT / "onnxdata"
    sources = {f"onnxdata/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")}
    assert sources <= set(names)
    assert "onnxdata/py.typed" in names


def _readme_main_job() -> list[str]:
    """The ``python -m onnxdata ...`` command of the README, as an argument list."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"python -m onnxdata [^`\n&|;]+", readme)
    assert found, "README.md has no `python -m onnxdata ...` command"
    return shlex.split(found.group(0))


def test_readme_main_job_in_fresh_venv(wheel: Path, env: Path, tmp_path: Path) -> None:
    probe = _run(
        [str(env), "-c",
         "import importlib.util as u, onnxdata; "
         "print(onnxdata.__file__); "
         "print([m for m in ('numpy', 'google', 'onnx') if u.find_spec(m)])"],
        cwd=tmp_path,
    )  # fmt: skip
    location, present = probe.stdout.splitlines()
    assert Path(location).is_relative_to(env.parent.parent), location
    assert present == "[]", f"the venv should have no numpy/protobuf/onnx: {present}"

    # The README's command, run against a copy of the files it names, outside the
    # source tree (so that `python -m` cannot pick up ./onnxdata).
    job = _readme_main_job()
    shutil.copytree(DATA, tmp_path / "tests" / "data")
    installed = _run([str(env), *job[1:]], cwd=tmp_path)
    from_source = _run([sys.executable, *job[1:]], cwd=ROOT)
    assert installed.stdout.strip()
    assert installed.stdout == from_source.stdout

    script = env.parent / f"onnxdata{EXE}"
    version = _run([str(script), "--version"], cwd=tmp_path)
    assert version.stdout.strip() == f"onnxdata {wheel.name.split('-')[1]}"


ROUND_TRIP = """
import sys
from pathlib import Path
import onnxdata
kinds = {"tensor": onnxdata.TensorProto, "onnx": onnxdata.TensorProto,
         "sequence": onnxdata.SequenceProto, "map": onnxdata.MapProto,
         "optional": onnxdata.OptionalProto, "sparse": onnxdata.SparseTensorProto}
n = 0
for path in sorted(Path(sys.argv[1]).glob("*.pb")):
    cls = kinds.get(path.name.split("_")[0])
    if cls is None:
        continue
    data = path.read_bytes()
    assert cls.decode(data).encode() == data, path.name
    n += 1
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "google", "onnx"))
print(n, heavy)
"""


def test_round_trip_in_fresh_venv(env: Path, tmp_path: Path) -> None:
    proc = _run([str(env), "-c", ROUND_TRIP, str(DATA)], cwd=tmp_path)
    count, heavy = proc.stdout.split(maxsplit=1)
    assert int(count) >= 8
    assert heavy.strip() == "[]"


def _installed_bytes(dist: importlib.metadata.Distribution) -> tuple[int, int]:
    sizes = [
        p.stat().st_size
        for p in (Path(str(dist.locate_file(f))) for f in dist.files or [])
        if p.is_file()
    ]
    return sum(sizes), len(sizes)


def test_sizes(wheel: Path, env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = next((env.parent.parent / "lib").glob("python*/site-packages"), None)
    if site is None:  # Windows layout
        site = env.parent.parent / "Lib" / "site-packages"
    (ours,) = importlib.metadata.distributions(name="onnxdata", path=[str(site)])
    installed, files = _installed_bytes(ours)
    wheel_size = wheel.stat().st_size
    # About 440 kB: the library's ~150 modules (every message of onnx-ml.proto, the
    # model half of onnx's API), the fuzzing toolkit included, and onnx's operator
    # catalog (onnxdata/_defs/table*.py, ~50 kB compressed); the budget is 650 kB.
    # Tests and data would add megabytes, so a wheel far above that packed them by mistake.
    assert wheel_size < 650_000, "the wheel grew: data or tests packed by mistake?"
    rows = [
        f"onnxdata wheel {wheel.name}: {wheel_size / 1e3:.1f} kB;"
        f" installed {installed / 1e3:.1f} kB in {files} files (with .pyc)"
    ]
    total = 0
    for name in ("onnx", "protobuf"):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        size, n = _installed_bytes(dist)
        total += size
        rows.append(f"  {name} {dist.version}: installed {size / 1e6:.1f} MB in {n} files")
    if total:
        rows.append(f"  onnx + protobuf: {total / 1e6:.1f} MB = {total / installed:.0f}x onnxdata")
    with capsys.disabled():
        print("\n" + "\n".join(rows))
