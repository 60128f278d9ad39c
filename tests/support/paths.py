"""Where the checkout's files are, for tests in any folder."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
DATA = TESTS / "data"
FUZZ = TESTS / "fuzz"
BENCHMARKS = ROOT / "benchmarks"
