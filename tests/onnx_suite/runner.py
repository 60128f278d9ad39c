"""Run onnx's own data-API tests with ``import onnx`` pointed at onnxdata.

The test files come from onnx's source distribution (the wheel has none):
``pip download onnx==1.23.2 --no-deps --no-binary :all:`` leaves
``onnx-1.23.2.tar.gz`` (GitHub's archive of the ``v1.23.2`` tag serves too);
``ONNXDATA_ONNX_SOURCE`` (or ``--source``) names the archive, its unpacked
folder, or that folder's ``tests/python``.  The files of
:data:`.scope.FILES` are copied to a temporary folder, their onnx imports
rewritten (:mod:`.rewrite`), and pytest runs them in a subprocess with
:mod:`.plugin`, which keeps the in-scope tests (:mod:`.scope`) and records
each one's outcome and first error line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.onnx_suite import scope
from tests.onnx_suite.rewrite import SWITCHED, rewrite
from tests.support.paths import ROOT

HERE = Path(__file__).resolve().parent
PLUGIN = "onnx_suite_plugin"

ONNX_VERSION = "1.23.2"
SOURCE_VARIABLE = "ONNXDATA_ONNX_SOURCE"
# A generous bound: the run takes well under it; reaching it means a hang.
TIMEOUT_SECONDS = 1800


class SourceError(LookupError):
    """onnx's test sources are not where they were said to be, or are another version."""


@dataclass(frozen=True)
class Result:
    """One in-scope test (a parametrized case counts once per case)."""

    nodeid: str
    outcome: str  # "passed", "failed", "error", "skipped", or "not run"
    message: str  # the first error line, "" when it passed


@dataclass(frozen=True)
class Run:
    results: tuple[Result, ...]
    excluded: tuple[tuple[str, str], ...]  # (file::test, the out-of-scope name)

    def count(self, outcome: str) -> int:
        return sum(r.outcome == outcome for r in self.results)


def _tests_folder(root: Path) -> Path:
    for candidate in (root, root / "tests" / "python"):
        if all((candidate / name).is_file() for name in scope.FILES):
            return candidate
    raise SourceError(f"{root}: no onnx tests/python with {', '.join(scope.FILES)}")


def _check_version(root: Path) -> None:
    """Refuse the tests of another onnx than the one the project pins."""
    for folder in (root, *root.parents):
        number = folder / "VERSION_NUMBER"
        if number.is_file():
            found = number.read_text(encoding="utf-8").strip()
            if found != ONNX_VERSION:
                raise SourceError(f"{folder}: onnx {found}, expected {ONNX_VERSION}")
            return
    raise SourceError(f"{root}: no VERSION_NUMBER: which onnx is this?")


def find_source(given: str | None, work: Path) -> Path:
    """onnx's ``tests/python`` folder from ``given`` or ``$ONNXDATA_ONNX_SOURCE``;
    an archive is unpacked into ``work``.

    Raises:
        SourceError: neither names onnx 1.23.2's sources.
    """
    named = given or os.environ.get(SOURCE_VARIABLE)
    if not named:
        raise SourceError(
            f"set {SOURCE_VARIABLE} to onnx's sdist (pip download onnx=={ONNX_VERSION} "
            "--no-deps --no-binary :all:) or its unpacked folder"
        )
    path = Path(named)
    if path.is_file() and tarfile.is_tarfile(path):
        with tarfile.open(path) as archive:
            members = [
                m for m in archive.getmembers()
                if m.isfile() and ("/tests/python/" in m.name or m.name.endswith("/VERSION_NUMBER"))
                and not m.name.startswith("/") and ".." not in Path(m.name).parts
            ]  # fmt: skip
            if hasattr(tarfile, "data_filter"):  # Python 3.12, and 3.10.12/3.11.4 backports
                archive.extractall(work / "sdist", members=members, filter="data")
            else:  # pragma: no cover - only regular files under the archive's folder
                archive.extractall(work / "sdist", members=members)
        unpacked = sorted((work / "sdist").iterdir())
        if len(unpacked) != 1:
            raise SourceError(f"{path}: not one folder at the top of the archive")
        path = unpacked[0]
    if not path.is_dir():
        raise SourceError(f"{path}: neither onnx's sdist nor a folder")
    folder = _tests_folder(path)
    _check_version(folder)
    return folder


def prepare(tests: Path, work: Path) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """Copy and rewrite the files into ``work``; the in-scope names and the excluded ones."""
    in_scope: dict[str, list[str]] = {}
    excluded: list[tuple[str, str]] = []
    for name in scope.FILES:
        source = (tests / name).read_text(encoding="utf-8")
        (work / name).write_text(rewrite(source), encoding="utf-8")
        for verdict in scope.verdicts(source):
            if verdict.excluded_by:
                excluded.append((f"{name}::{verdict.name}", verdict.excluded_by))
            else:
                in_scope.setdefault(name, []).append(verdict.name)
    return in_scope, excluded


def _pytest(work: Path, in_scope: dict[str, list[str]], library: Path) -> dict[str, dict[str, str]]:
    scope_file, report_file = work / "scope.json", work / "report.json"
    scope_file.write_text(
        json.dumps({"tests": in_scope, "parameters": sorted(scope.OUT_OF_SCOPE_PARAMETERS)}),
        encoding="utf-8",
    )
    # The helpers sit beside the tests: nothing of this checkout but ``library``'s onnxdata.
    shutil.copyfile(HERE / "plugin.py", work / f"{PLUGIN}.py")
    shutil.copyfile(HERE / "switched.py", work / f"{SWITCHED}.py")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(library)
    env["ONNXDATA_SUITE_SCOPE"] = str(scope_file)
    env["ONNXDATA_SUITE_REPORT"] = str(report_file)
    command = [
        sys.executable, "-m", "pytest", "-p", PLUGIN,
        "-p", "no:cacheprovider", "-q", "--continue-on-collection-errors",
        "--rootdir", str(work), *scope.FILES,
    ]  # fmt: skip
    try:
        subprocess.run(
            command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=TIMEOUT_SECONDS, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"<run>": {"outcome": "error", "message": f"no end after {TIMEOUT_SECONDS} s"}}
    if not report_file.is_file():
        return {"<run>": {"outcome": "error", "message": "pytest wrote no report"}}
    report: dict[str, dict[str, str]] = json.loads(report_file.read_text(encoding="utf-8"))
    return report


def run(given: str | None = None, library: Path = ROOT) -> Run:
    """Run the in-scope tests against the onnxdata in the folder ``library``
    (this checkout's by default); every in-scope test is a row, run or not.

    Raises:
        SourceError: see :func:`find_source`.
    """
    with tempfile.TemporaryDirectory(prefix="onnx-suite-") as temp:
        work = Path(temp)
        tests = find_source(given, work)
        copies = work / "switched"
        copies.mkdir()
        in_scope, excluded = prepare(tests, copies)
        report = _pytest(copies, in_scope, library)
    results = [
        Result(nodeid, e["outcome"], e["message"])
        for nodeid, e in report.items() if e["outcome"] != "excluded"
    ]  # fmt: skip
    excluded.extend(
        (nodeid, e["message"]) for nodeid, e in report.items() if e["outcome"] == "excluded"
    )
    ran = {(Path(nodeid.split("::")[0]).name, nodeid.split("::", 1)[1].split("[")[0])
           for nodeid in report if "::" in nodeid}  # fmt: skip
    broken = {r.nodeid.split("::")[0]: r.message for r in results if r.outcome == "error"
              and (r.nodeid.endswith("<collection>") or r.nodeid == "<run>")}  # fmt: skip
    for file, names in in_scope.items():
        why = broken.get(file, broken.get("<run>", "not collected"))
        results.extend(
            Result(f"{file}::{name}", "not run", why)
            for name in names if (file, name) not in ran
        )  # fmt: skip
    return Run(tuple(sorted(results, key=lambda r: r.nodeid)), tuple(excluded))


def table(outcome: Run, *, show_excluded: bool = False) -> str:
    """The results as text: one line per test that did not pass, then the counts."""
    lines = []
    for r in outcome.results:
        if r.outcome != "passed":
            lines.append(f"{r.outcome:8} {r.nodeid}\n         {r.message}")
    if show_excluded:
        lines.extend(f"excluded {test}  ({name})" for test, name in outcome.excluded)
    counts = ", ".join(
        f"{outcome.count(o)} {o}" for o in ("passed", "failed", "error", "skipped", "not run")
    )
    lines.append(f"{len(outcome.results)} in-scope tests of onnx {ONNX_VERSION}: {counts}")
    return "\n".join(lines)
