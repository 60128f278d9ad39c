"""onnxdata inside Pyodide: CPython compiled to WebAssembly, run by Node.js.

The fixture installs the pinned ``pyodide`` npm package into
``tests/pyodide/node_modules`` (git-ignored) with ``npm ci``; the package
carries the interpreter and its standard library, so nothing else is
downloaded.  ``tests/pyodide/run.mjs`` writes ``onnxdata/*.py``, the sample
``.pb`` files and ``tests/pyodide/check.py`` into Pyodide's in-memory file
system and runs the check there, refusing any network access (and, where
``unshare -n`` is allowed, in a network namespace with no network at all).
The same check runs on this CPython, and both timings are printed side by
side.  A second run installs the built wheel instead, with
``pyodide.unpackArchive``, as a web page would.

Skipped only when ``node`` is not on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import TESTS

TESTS = TESTS
ROOT = TESTS.parent
PYODIDE_DIR = TESTS / "pyodide"
DATA = TESTS / "data"
CHECK = PYODIDE_DIR / "check.py"


def _pinned_version() -> str:
    spec: str = json.loads((PYODIDE_DIR / "package.json").read_text())["dependencies"]["pyodide"]
    return spec


def _result(stdout: str) -> dict[str, Any]:
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, stdout
    result: dict[str, Any] = json.loads(lines[0][len("RESULT ") :])
    return result


def _offline_prefix() -> list[str]:
    """``unshare -n`` (no network at all) where this user may use it; else nothing.

    run.mjs refuses fetch() and sockets on its own; a private network
    namespace makes the proof independent of how Pyodide reaches the network.
    """
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    probe = subprocess.run([unshare, "-n", "true"], capture_output=True, check=False)
    return [unshare, "-n"] if probe.returncode == 0 else []


@pytest.fixture(scope="module")
def node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the Pyodide check needs Node.js")
    installed = PYODIDE_DIR / "node_modules" / "pyodide" / "package.json"
    want = _pinned_version()
    if not installed.exists() or json.loads(installed.read_text())["version"] != want:
        npm = shutil.which("npm")
        assert npm is not None, "node is installed but npm is not"
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=PYODIDE_DIR,
            check=True,
            timeout=300,
        )
    assert json.loads(installed.read_text())["version"] == want
    return node


def test_pyodide_pin_is_exact() -> None:
    version = _pinned_version()
    assert version[0].isdigit() and all(c.isdigit() or c == "." for c in version), version
    lock = json.loads((PYODIDE_DIR / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/pyodide"]["version"] == version


def _cpython_check() -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, str(CHECK), str(DATA)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _result(proc.stdout)


def test_check_on_cpython() -> None:
    result = _cpython_check()
    assert result["platform"] != "emscripten"
    assert Path(result["onnxdata_file"]).resolve() == ROOT / "onnxdata" / "__init__.py"


def _in_pyodide(node: str, package: Path) -> tuple[dict[str, Any], str]:
    """Run check.py in Pyodide with onnxdata from ``package`` (folder or wheel)."""
    proc = subprocess.run(
        [*_offline_prefix(), node, "run.mjs", str(package), str(DATA), str(CHECK)],
        cwd=PYODIDE_DIR,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "NETWORK ACCESS" not in proc.stderr
    result = _result(proc.stdout)
    assert result["platform"] == "emscripten"
    assert result["python"].startswith("3.")
    loaded = next(line for line in proc.stdout.splitlines() if line.startswith("PYODIDE "))
    return result, loaded


@pytest.mark.slow
def test_check_in_pyodide(node: str, capsys: pytest.CaptureFixture[str]) -> None:
    wasm, loaded = _in_pyodide(node, ROOT / "onnxdata")
    assert wasm["onnxdata_file"] == "/work/src/onnxdata/__init__.py"

    native = _cpython_check()
    for key in ("golden", "samples", "bad_inputs"):
        assert wasm[key] == native[key] > 0, key

    rows = [
        f"{loaded}; Python {wasm['python']} (emscripten) vs CPython {native['python']} "
        "(best of 5, ms, not asserted):"
    ]
    for case, t in native["timing"].items():
        w = wasm["timing"][case]
        rows.append(
            f"  {case:<24} {t['bytes']:>7} B  decode {w['decode_ms']:>8.3f} wasm"
            f" / {t['decode_ms']:>8.3f} cpython   encode {w['encode_ms']:>8.3f} wasm"
            f" / {t['encode_ms']:>8.3f} cpython"
        )
    with capsys.disabled():
        print("\n" + "\n".join(rows))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pyodide-wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
         "--quiet", "--wheel-dir", str(out), str(ROOT)],
        check=True,
        timeout=300,
    )  # fmt: skip
    (built,) = out.glob("*.whl")
    return built


@pytest.mark.slow
def test_wheel_in_pyodide(node: str, wheel: Path) -> None:
    """The wheel, unpacked by pyodide.unpackArchive into site-packages, passes the check."""
    wasm, _ = _in_pyodide(node, wheel)
    assert wasm["onnxdata_file"].endswith("/site-packages/onnxdata/__init__.py")
    assert wasm["golden"] > 0 and wasm["samples"] > 0 and wasm["bad_inputs"] > 0
