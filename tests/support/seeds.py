"""Run the hypothesis tests several times, each run with a seed of its own.

    python -m tests.support.seeds 20                 # every test file that uses hypothesis
    python -m tests.support.seeds 20 tests/core/test_parity_machine.py
    ONNXDATA_GENERAL_PATHS=1 python -m tests.support.seeds 5

Each run is ``python -m pytest -q -p no:cacheprovider --hypothesis-seed=SEED FILES``
with a new, empty example database (``HYPOTHESIS_STORAGE_DIRECTORY`` set to a
temporary folder, removed after the run): a run never replays the examples
another run saved, so the runs are independent draws and the count of failed
runs measures how often the suite fails by chance (it must be 0: no test may
depend on anything but its drawn data).  The seeds are drawn at random and
printed, so a failed run is repeated with its seed; its failing tests are
listed, and hypothesis' own report (with ``print_blob``, the
``@reproduce_failure`` blob) is in the output printed for it.

The exit status is 1 if any run failed, 2 on a bad argument.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import tempfile

from tests.support.paths import ROOT

_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)
_USES_HYPOTHESIS = re.compile(r"^\s*(?:from|import) hypothesis\b", re.MULTILINE)


def hypothesis_test_files() -> list[str]:
    """The test files under ``tests/`` that import hypothesis, relative to the checkout."""
    files = sorted((ROOT / "tests").rglob("test_*.py"))
    return [
        str(p.relative_to(ROOT))
        for p in files
        if _USES_HYPOTHESIS.search(p.read_text(encoding="utf-8"))
    ]


def run_once(seed: int, files: list[str]) -> tuple[bool, list[str], str]:
    """One pytest run of ``files`` with ``seed`` and an empty example database:
    whether it passed, the failed test ids, and its output."""
    with tempfile.TemporaryDirectory(prefix="hypothesis-db-") as database:
        env = {**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": database}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        done = subprocess.run(
            [*command, f"--hypothesis-seed={seed}", *files],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    output = done.stdout + done.stderr
    return done.returncode == 0, _FAILED.findall(output), output


def main(argv: list[str]) -> int:
    if not argv or not argv[0].isdecimal() or int(argv[0]) < 1:
        print("usage: python -m tests.support.seeds RUNS [TEST_FILE ...]", file=sys.stderr)
        return 2
    runs, files = int(argv[0]), argv[1:] or hypothesis_test_files()
    missing = [f for f in files if not (ROOT / f).exists()]
    if missing:
        print(f"no such test file: {missing[0]}", file=sys.stderr)
        return 2
    chooser = random.SystemRandom()
    failed_runs = 0
    for n in range(1, runs + 1):
        seed = chooser.randrange(2**32)
        passed, failed, output = run_once(seed, files)
        print(f"run {n}/{runs} seed {seed}: {'passed' if passed else 'FAILED'}", flush=True)
        if not passed:
            failed_runs += 1
            for test in failed or ["(no test named: see the output)"]:
                print(f"    {test}")
            print(output, file=sys.stderr)
    print(f"{runs - failed_runs} of {runs} runs passed, {failed_runs} failed ({len(files)} files)")
    return 1 if failed_runs else 0


if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main(sys.argv[1:]))
