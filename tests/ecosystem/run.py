"""Run real packages written for onnx, and their own test suites, on onnxdata.

    python -m tests.ecosystem.run setup VENV               # make the venv (once)
    python -m tests.ecosystem.run run VENV SOURCES OUT     # each suite on onnxdata
    python -m tests.ecosystem.run run VENV SOURCES OUT --onnx   # the same with real onnx
    python -m tests.ecosystem.run report OUT               # the table, both runs compared

Never part of the test suite: it installs packages and runs thousands of their tests.

``setup`` makes a venv at ``VENV`` (outside the checkout) with the packages of
:data:`PACKAGES` installed ``--no-deps`` at their pinned versions, their runtime
dependencies but onnx and protobuf, pytest, this checkout's onnxdata (editable), and a
``sitecustomize.py`` that calls ``onnxdata.install_as_onnx()``; and, in
``VENV/onnx-site``, onnx and protobuf alone, which ``run --onnx`` puts on ``PYTHONPATH``
to measure the same suites on the real onnx (``install_as_onnx`` then does nothing).

``SOURCES/<name>`` holds each package's source tree at the version installed (its
tests): the repository and tag of each are in :data:`PACKAGES` (``git clone --depth 1
--branch TAG URL SOURCES/<name>``).  ``run`` runs each suite in its tree with pytest
(``-p no:cacheprovider``, a per-test timeout, a time box per suite, on one core), and
records every test's outcome and its error's last line, as each test ends, in
``OUT/<mode>/<name>.jsonl``: a suite cut by its time box keeps what it ran.  ``report``
counts, per package, the tests that pass, fail, error and skip in each mode, the tests
passing with onnx that also pass on onnxdata, and groups the others by cause
(:data:`CAUSES`: the first pattern that matches the error).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

# name: (pip requirement, repository, tag or commit, test paths in the source tree,
# the folder of the package in the repository when it is not the root)
PACKAGES: dict[str, dict[str, Any]] = {
    "skl2onnx": {
        "pip": "skl2onnx==1.20.0",
        "repo": "onnx/sklearn-onnx",
        "tag": "1.20.0",
        "tests": ["tests"],
    },
    "onnxmltools": {
        "pip": "onnxmltools==1.16.0",
        "repo": "onnx/onnxmltools",
        "tag": "1.16.0",
        "tests": ["tests"],
    },
    "onnxconverter-common": {
        "pip": "onnxconverter-common==1.16.0",
        "repo": "microsoft/onnxconverter-common",
        "tag": "a84c006",  # the 1.16.0 release commit (untagged)
        "tests": ["tests"],
    },
    "onnxslim": {
        "pip": "onnxslim==0.1.96",
        "repo": "inisis/OnnxSlim",
        "tag": "v0.1.96",
        "tests": [  # its pyproject's testpaths (test_folder.py reads the command line)
            f"tests/test_{name}.py"
            for name in (
                "onnxslim",
                "modelzoo",
                "pattern_matcher",
                "pattern_generator",
                "dead_node_elimination",
                "subexpression_elimination",
                "elimination_patterns",
                "fusion_patterns",
                "cli_main",
                "utils",
                "symbolic_shape_inference",
                "nvidia",
                "shape_folding",
                "coverage",
                "amd",
            )
        ],
    },
    "onnx-tool": {
        "pip": "onnx-tool==1.0.1",
        "repo": "ThanatosShinji/onnx-tool",
        "tag": "00f5f0a",  # setup.py says 1.0.1 (untagged)
        "tests": ["tests"],
    },
    "onnx-array-api": {
        "pip": "onnx-array-api==0.3.3",
        "repo": "sdpython/onnx-array-api",
        "tag": "0.3.3",
        "tests": ["_unittests"],
    },
    "onnx-graphsurgeon": {
        "pip": "onnx-graphsurgeon==0.6.1",
        "repo": "NVIDIA/TensorRT",
        "tag": "v10.16",
        "folder": "tools/onnx-graphsurgeon",
        "tests": ["tests"],
    },
}

# What the packages need at run time and in their tests, onnx and protobuf left out
# (onnxruntime is installed --no-deps: it declares protobuf, which it does not import).
DEPENDENCIES = [
    "numpy",
    "scipy",
    "scikit-learn",
    "pandas",
    "ml-dtypes",
    "sympy",
    "packaging",
    "colorama",
    "tabulate",
    "coloredlogs",
    "flatbuffers",
    "pytest",
    "pytest-timeout",
    # what their tests import (torch, pyspark, coremltools, catboost, h2o are left out: the
    # tests needing them fail alike on onnx and on onnxdata)
    "matplotlib",
    "hypothesis",
    "lightgbm",
    "xgboost-cpu",
]
NO_DEPS = ["onnxruntime"]
ONNX = ["onnx==1.23.2", "protobuf", "typing_extensions"]

SITECUSTOMIZE = """\
# Packages written for onnx run on onnxdata here (onnx and protobuf are not installed).
import onnxdata

onnxdata.install_as_onnx()
"""

# Records each test's outcome as it ends, so that a suite cut by its time box keeps them.
PLUGIN = """\
import json, os

_OUT = open(os.environ["ECOSYSTEM_LOG"], "a", encoding="utf-8")


def _write(report, outcome):
    crash = getattr(report.longrepr, "reprcrash", None)
    message = "" if report.passed else str(report.longrepr)
    if crash is not None:
        message = crash.message
    where = crash.path if crash is not None else ""
    row = {"id": report.nodeid, "when": report.when, "outcome": outcome,
           "message": message[:3000], "where": str(where)}
    _OUT.write(json.dumps(row) + "\\n")
    _OUT.flush()


def pytest_runtest_logreport(report):
    if report.when == "call" or not report.passed:
        _write(report, report.outcome)


def pytest_collectreport(report):
    if report.failed:
        _write(report, "collect-error")
"""

# The cause of a failure: the first pattern found in its error's last line or location.
CAUSES = [
    ("not run on onnxdata (time box or not collected)", r"^not run on onnxdata"),
    (
        "onnx.defs (operator schemas)",
        r"onnx\.defs|name 'defs'|onnx_cpp2py_export\.defs|get_schema|onnx_opset_version|"
        r"OpSchema|SchemaError|get_all_schemas",
    ),
    ("checker (check_model...)", r"check_model|check_node|check_graph|CheckerContext|checker"),
    (
        "shape inference",
        r"shape_inference|ShapeInferenceUnavailable|infer_shapes|InferenceError|infer shape",
    ),
    ("reference evaluator", r"onnx\.reference|ReferenceEvaluator|reference"),
    ("onnx.backend (onnx's backend test runner and node tests)", r"onnx\.backend"),
    ("version converter", r"version_converter|convert_version"),
    ("textual syntax (parser, printer)", r"onnx\.parser|onnx\.printer|parse_model|parse_graph"),
    (
        "other onnx modules onnxdata lacks",
        r"No module named 'onnx\.|module 'onnx' has no attribute",
    ),
    # a skip the suite decides from what it finds (skl2onnx: "onnx too old" when
    # onnx.reference cannot be imported)
    ("skipped on onnxdata", r"Skipped: "),
    ("onnxruntime rejects the model", r"ONNXRuntimeError"),
]


def setup(venv: Path) -> None:
    """Make the venv: the packages, their dependencies but onnx, onnxdata, the hook."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    pinned = [p["pip"] for p in PACKAGES.values()]
    subprocess.run([*pip, "--no-deps", *pinned, *NO_DEPS], check=True)
    subprocess.run([*pip, *DEPENDENCIES], check=True)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True)
    subprocess.run([*pip, "--no-deps", "--target", str(venv / "onnx-site"), *ONNX], check=True)
    site = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    check = "import onnx, onnxdata; assert onnx.TensorProto is onnxdata.TensorProto"
    subprocess.run([str(venv / "bin" / "python"), "-c", check], check=True)


def run(
    venv: Path,
    sources: Path,
    out: Path,
    *,
    onnx: bool,
    only: list[str],
    budget: float,
    timeout: int,
    library: Path | None = None,
) -> None:
    """Run each package's suite in its source tree, recording outcomes as they come.

    ``library`` is a folder holding another onnxdata package (another checkout's root),
    put ahead of the installed one."""
    mode = "onnx" if onnx else "onnxdata"
    (out / mode).mkdir(parents=True, exist_ok=True)
    plugin_dir = out / "plugin"
    plugin_dir.mkdir(parents=True, exist_ok=True)
    (plugin_dir / "ecosystem_log.py").write_text(PLUGIN, encoding="utf-8")
    for name, package in PACKAGES.items():
        if only and name not in only:
            continue
        tree = sources / name / package.get("folder", "")
        log = out / mode / f"{name}.jsonl"
        log.unlink(missing_ok=True)
        paths = [str(plugin_dir)]
        if library is not None:  # another checkout's onnxdata, ahead of the installed one
            paths.append(str(library))
        if onnx:
            paths.append(str(venv / "onnx-site"))
        env = {
            **os.environ,
            "ECOSYSTEM_LOG": str(log),
            # the venv's python first: suites that run their examples call "python3"
            "PATH": os.pathsep.join([str(venv / "bin"), os.environ.get("PATH", "")]),
            "VIRTUAL_ENV": str(venv),
            "PYTHONPATH": os.pathsep.join(paths),
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        command = [
            str(venv / "bin" / "python"),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "ecosystem_log",
            "-o",
            "addopts=",
            "--timeout",
            str(timeout),
            "--continue-on-collection-errors",
            *package["tests"],
        ]
        started = time.monotonic()
        with open(out / mode / f"{name}.out", "w", encoding="utf-8") as text:
            try:
                subprocess.run(
                    command,
                    cwd=tree,
                    env=env,
                    stdout=text,
                    stderr=subprocess.STDOUT,
                    timeout=budget,
                    check=False,
                )
                cut = False
            except subprocess.TimeoutExpired:
                cut = True
        took = time.monotonic() - started
        meta = {"seconds": round(took), "cut_by_time_box": cut}
        (out / mode / f"{name}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
        print(
            f"{mode} {name}: {summary(read(log))} in {took:.0f} s{' (cut)' if cut else ''}",
            flush=True,
        )


def read(log: Path) -> dict[str, dict[str, str]]:
    """Each test's final outcome (a failure in any phase wins) and its message."""
    tests: dict[str, dict[str, str]] = {}
    if not log.exists():
        return tests
    for line in log.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        outcome = row["outcome"]
        if outcome == "failed" and row["when"] != "call":
            outcome = "error"
        if outcome == "collect-error":
            outcome = "error"
        old = tests.get(row["id"])
        if old is None or old["outcome"] in ("passed", "skipped"):
            tests[row["id"]] = {**row, "outcome": outcome}
    return tests


def summary(tests: dict[str, dict[str, str]]) -> str:
    counts = collections.Counter(t["outcome"] for t in tests.values())
    return ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped"))


def cause(test: dict[str, str]) -> str:
    text = f"{test.get('message', '')} {test.get('where', '')}"
    for label, pattern in CAUSES:
        if re.search(pattern, text):
            return label
    return "other"


def report(out: Path) -> str:
    """The markdown table: per package, both modes, and the causes on onnxdata."""
    lines = [
        "| package | with onnx: passed / failed / errors / skipped | on onnxdata | "
        "passing with onnx, passing on onnxdata |",
        "| --- | --- | --- | --- |",
    ]
    causes: dict[str, collections.Counter[str]] = {}
    others: dict[str, list[str]] = {}
    for name in PACKAGES:
        theirs = read(out / "onnx" / f"{name}.jsonl")
        ours = read(out / "onnxdata" / f"{name}.jsonl")
        if not theirs and not ours:
            continue
        passing = [k for k, t in theirs.items() if t["outcome"] == "passed"]
        kept = [k for k in passing if ours.get(k, {}).get("outcome") == "passed"]
        # a test not run on onnxdata: its module's collection error, if it had one
        lost = [
            ours.get(k) or ours.get(k.split("::")[0]) or {"message": "not run on onnxdata"}
            for k in passing
            if k not in kept
        ]
        causes[name] = collections.Counter(cause(t) for t in lost)
        others[name] = sorted(
            {
                t["message"].splitlines()[0][:160] if t["message"] else "?"
                for t in lost
                if cause(t) == "other"
            }
        )[:15]
        lines.append(
            f"| {name} | {_counts(theirs)} | {_counts(ours)} | {len(kept)} of {len(passing)} |"
        )
    lines += ["", "Tests that pass with onnx and not on onnxdata, by cause:", ""]
    for name, counter in causes.items():
        listed = ", ".join(f"{label}: {n}" for label, n in counter.most_common())
        lines.append(f"- {name}: {listed or 'none'}")
        lines += [f"    - other: {message}" for message in others[name]]
    return "\n".join(lines)


def _counts(tests: dict[str, dict[str, str]]) -> str:
    c = collections.Counter(t["outcome"] for t in tests.values())
    return f"{c['passed']} / {c['failed']} / {c['error']} / {c['skipped']}" if tests else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("setup")
    s.add_argument("venv", type=Path)
    r = sub.add_parser("run")
    r.add_argument("venv", type=Path)
    r.add_argument("sources", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--onnx", action="store_true", help="run on the real onnx instead")
    r.add_argument("--only", nargs="*", default=[], help="some packages")
    r.add_argument("--budget", type=float, default=1800, help="seconds per suite")
    r.add_argument("--timeout", type=int, default=120, help="seconds per test")
    r.add_argument("--library", type=Path, help="a checkout whose onnxdata to run instead")
    p = sub.add_parser("report")
    p.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "setup":
        setup(args.venv)
    elif args.command == "run":
        run(
            args.venv,
            args.sources,
            args.out,
            onnx=args.onnx,
            only=args.only,
            budget=args.budget,
            timeout=args.timeout,
            library=args.library,
        )
    else:
        print(report(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
