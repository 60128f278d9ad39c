"""Run every fuzz target, one after another, and summarise what libFuzzer reports.

    python -m tests.fuzz.run                      # 1,000,000 executions per target
    python -m tests.fuzz.run --runs 20000         # a quick pass
    python -m tests.fuzz.run --only tensor map    # some targets
    python -m tests.fuzz.run --export tests/fuzz/regressions.txt   # no fuzzing: see below

Needs ``pip install -e .[test] atheris``.  Builds the seeds with
:mod:`seeds` into ``WORK/seeds``, keeps each target's growing corpus in
``WORK/corpus/<type>`` (reused by the next run), writes libFuzzer's log to
``WORK/logs/<type>.log`` and any crash to ``WORK/findings/<type>-crash-*``.
Targets run one at a time on one core.  Prints one row per target: executions,
final ``cov`` (coverage counters of onnxdata's instrumented code hit) and
``ft`` (libFuzzer features), corpus size, wall time, findings; and writes the
rows to ``WORK/summary.json``.  Exit status 1 if any target found something.

``--export FILE`` fuzzes nothing: it minimises each target's corpus (libFuzzer
``-merge=1`` over the grown corpus and the seeds, keeping one input per
coverage feature), and writes the inputs of at most ``--export-max`` bytes, and
every saved finding, as ``<type> <hex>`` lines: the regression file that
``tests/codec/test_robustness.py`` replays.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.support.paths import FUZZ, ROOT

HERE = FUZZ

TARGETS = ["tensor", "segment", "entry", "sparse", "sequence", "map", "optional"]
_STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)")
_DONE = re.compile(r"^Done (\d+) in (\d+) second")


def run_target(name: str, work: Path, runs: int, max_len: int, timeout: int) -> dict[str, object]:
    corpus = work / "corpus" / name
    findings = work / "findings"
    logs = work / "logs"
    for d in (corpus, findings, logs):
        d.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        f"tests.fuzz.fuzz_{name}",
        str(corpus),
        str(work / "seeds" / name),
        f"-dict={work / 'seeds' / 'wire.dict'}",
        f"-max_len={max_len}",
        f"-atheris_runs={runs}",
        f"-timeout={timeout}",
        "-rss_limit_mb=2048",
        f"-artifact_prefix={findings}/{name}-",
        "-print_final_stats=1",
    ]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    log = logs / f"{name}.log"
    start = time.monotonic()
    with log.open("w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    wall = time.monotonic() - start
    row: dict[str, object] = {"target": name, "rc": rc, "wall_s": round(wall, 1), "log": str(log)}
    for line in log.read_text(errors="replace").splitlines():
        m = _STATUS.match(line)
        if m:
            row.update(execs=int(m[1]), cov=int(m[2]), ft=int(m[3]), corpus=int(m[4]))
        m = _DONE.match(line)
        if m:
            row.update(execs=int(m[1]), fuzz_s=int(m[2]))
    row["findings"] = sorted(p.name for p in findings.glob(f"{name}-*"))
    return row


def export(work: Path, out: Path, max_size: int, targets: list[str]) -> None:
    lines = [
        "# Fuzz regressions: <type> <input hex>, replayed by tests/codec/test_robustness.py.",
        "# Written by: python -m tests.fuzz.run --export tests/fuzz/regressions.txt",
        "# (every saved finding, then each target's -merge=1 minimised corpus,",
        f"# inputs of at most {max_size} bytes).",
    ]
    for name in targets:
        # Crashes of this run and of earlier ones kept aside (findings*/); slow units are no bug.
        for crash in sorted(work.glob(f"findings*/{name}-crash-*")):
            lines.append(f"{name} {crash.read_bytes().hex()}")
        merged = work / "merged" / name
        if merged.exists():
            for f in merged.iterdir():
                f.unlink()
        merged.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", f"tests.fuzz.fuzz_{name}", "-merge=1", str(merged),
               str(work / "corpus" / name), str(work / "seeds" / name)]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        kept = sorted(
            (f.read_bytes() for f in merged.iterdir() if f.stat().st_size <= max_size),
            key=lambda b: (len(b), b),
        )
        lines.extend(f"{name} {b.hex()}" for b in kept)
        print(f"{name}: {len(kept)} inputs kept of {sum(1 for _ in merged.iterdir())} merged")
    out.write_text("\n".join(lines) + "\n")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=1_000_000)
    p.add_argument("--max-len", type=int, default=4096)
    p.add_argument("--timeout", type=int, default=20, help="seconds per input (libFuzzer)")
    p.add_argument("--work", type=Path, default=Path("/tmp/onnxdata-fuzz"))
    p.add_argument("--only", nargs="*", choices=TARGETS)
    p.add_argument("--export", type=Path, metavar="FILE", help="write the regression file")
    p.add_argument("--export-max", type=int, default=128, metavar="BYTES")
    args = p.parse_args()
    from tests.fuzz import seeds  # needs onnx; imported late so --help works without it

    counts = seeds.write(args.work / "seeds", args.max_len)
    if args.export:
        export(args.work, args.export, args.export_max, args.only or TARGETS)
        return 0
    rows = []
    for name in args.only or TARGETS:
        print(f"fuzzing {name} ({counts[name]} seeds, {args.runs} runs) ...", flush=True)
        row = run_target(name, args.work, args.runs, args.max_len, args.timeout)
        row["seeds"] = counts[name]
        rows.append(row)
        print(
            "  {target}: {execs} execs, cov {cov}, ft {ft}, corpus {corpus}, "
            "{wall_s} s, rc {rc}, findings {findings}".format(
                **{"execs": "?", "cov": "?", "ft": "?", "corpus": "?", **row}
            ),
            flush=True,
        )
        summary = args.work / "summary.json"
        summary.write_text(json.dumps(rows, indent=1))
    return 1 if any(r["findings"] or r["rc"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
