"""``python -m tests.onnx_suite [--source PATH] [--library DIR] [--all] [--excluded]``: run onnx's
own data-API tests against onnxdata and print what did not pass (``--all``:
every test) and the counts; the exit status is 1 if any test did not pass."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.onnx_suite.runner import SOURCE_VARIABLE, SourceError, run, table
from tests.support.paths import ROOT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.onnx_suite", description=__doc__)
    parser.add_argument("--source", help=f"onnx's sdist or its folder (else ${SOURCE_VARIABLE})")
    parser.add_argument(
        "--library", type=Path, default=ROOT,
        help="the folder whose onnxdata is tested (default: this checkout)",
    )  # fmt: skip
    parser.add_argument("--all", action="store_true", help="list the passed tests too")
    parser.add_argument("--excluded", action="store_true", help="list the out-of-scope tests")
    args = parser.parse_args(argv)
    try:
        outcome = run(args.source, args.library)
    except SourceError as exc:
        print(f"onnx's tests not found: {exc}", file=sys.stderr)
        return 2
    if args.all:
        print(
            "\n".join(f"{r.outcome:8} {r.nodeid}" for r in outcome.results if r.outcome == "passed")
        )
    print(table(outcome, show_excluded=args.excluded))
    return 0 if outcome.count("passed") == len(outcome.results) else 1


if __name__ == "__main__":
    sys.exit(main())
