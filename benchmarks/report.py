"""Targets, the Markdown report, the console summary and the chart."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

OP_LABELS = {
    "decode": "decode",
    "encode": "encode",
    "to_numpy": "decode→numpy",
    "from_numpy": "numpy→bytes",
}
MiB = 1 << 20

TIMES = "\N{MULTIPLICATION SIGN}"

# The targets of issue 4: onnxdata / upb at most (workload, op, ratio), and the speed-up over
# the pure-Python backend at least (workload, speed-up, measured with numpy blocked).
_RATIO_TARGETS = [
    ("raw16MB", "to_numpy", 0.5),
    ("float1M", "to_numpy", 1.0),
    ("int64_1M", "to_numpy", 2.0),
    ("seq10k", "to_numpy", 1.0),
    ("map10k", "to_numpy", 1.0),
    ("strings100k", "to_numpy", 1.0),
    ("nested50", "to_numpy", 2.0),
    ("sparse100k", "to_numpy", 1.0),
] + [
    (w, "from_numpy", 1.0)
    for w in (
        "raw16MB",
        "float1M",
        "int64_1M",
        "seq10k",
        "map10k",
        "strings100k",
        "nested50",
        "sparse100k",
    )
]
_SPEEDUP_TARGETS = [
    ("raw16MB", 1.0, False),
    ("float1M", 10.0, False),
    ("int64_1M", 3.0, True),
    ("seq10k", 3.0, False),
    ("map10k", 3.0, False),
    ("strings100k", 3.0, False),
    ("nested50", 3.0, False),
    ("sparse100k", 10.0, False),
]
IMPORT_TARGET = 0.015
WHEEL_TARGET = 300_000
COPY_SLACK = 1.05  # "at most one extra copy": 5 % for everything else a decode allocates


def _median(times: dict[str, Any], w: str, op: str, impl: str) -> float | None:
    cell = times.get(w, {}).get(op, {}).get(impl)
    return cell["median"] if cell else None


def _status(times: dict[str, Any], w: str, op: str) -> str:
    return times.get(w, {}).get(op, {}).get("status", "not run")


def ratio(results: dict[str, Any], w: str, op: str) -> float | None:
    od = _median(results["times"], w, op, "onnxdata")
    pb = _median(results["times"], w, op, "upb")
    return od / pb if od and pb else None


def speedup(results: dict[str, Any], w: str, op: str, nonumpy: bool = False) -> float | None:
    pp = _median(results["times"], w, op, "purepy")
    if nonumpy:
        cell = results.get("nonumpy", {}).get(w, {}).get(op)
        od = cell["median"] if cell else None
    else:  # onnxdata as timed right after the pure-Python backend, in its process
        od = _median(results["times"], w, op, "onnxdata_paired")
    return pp / od if pp and od else None


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target of issue 4 with its measured value: met, missed (by how much) or n/a."""
    names = {w["name"] for w in results["workloads"]}
    out: list[dict[str, Any]] = []

    def add(
        label: str,
        measured: float | None,
        target: float,
        cmp: str,
        unit: str,
        na: str = "not measured",
        **extra: Any,
    ) -> None:
        row: dict[str, Any] = {
            "label": label,
            "measured": measured,
            "target": target,
            "cmp": cmp,
            "unit": unit,
        }
        row.update(extra)
        if measured is None:
            row["status"] = "FAIL" if na.startswith("FAIL") else "n/a"
            row["note"] = na
        elif (measured <= target) if cmp == "≤" else (measured >= target):
            row["status"], row["note"] = "met", ""
        else:
            row["status"] = "missed"
            factor = measured / target if cmp == "≤" else target / measured
            f = f"{factor:.3f}" if factor < 1.1 else f"{factor:.2f}"
            row["note"] = f"off by {f}{TIMES}"
            if unit == TIMES:
                row["note"] += f": onnxdata needs to be {f}{TIMES} faster"
        out.append(row)

    for w, op, t in _RATIO_TARGETS:
        if w in names:
            add(
                f"{OP_LABELS[op]} {w}: onnxdata ÷ (upb + onnx.numpy_helper)",
                ratio(results, w, op),
                t,
                "≤",
                TIMES,
                _status(results["times"], w, op),
                workload=w,
                op=op,
            )
    for w, t, nonumpy in _SPEEDUP_TARGETS:
        if w not in names:
            continue
        for op in ("decode", "encode"):
            label = f"{op} {w}: pure-Python backend ÷ onnxdata" + (
                " (numpy blocked)" if nonumpy else ""
            )
            add(
                label,
                speedup(results, w, op, nonumpy),
                t,
                "≥",
                TIMES,
                "pure-Python backend not run",
                workload=w,
                op=op,
                nonumpy=nonumpy,
            )
    imp = results.get("imports", {}).get("import onnxdata", {})
    add(
        "`import onnxdata` (ms)",
        1e3 * imp["seconds"] if imp.get("seconds") else None,
        1e3 * IMPORT_TARGET,
        "≤",
        "ms",
        imp.get("error", "not measured"),
    )
    wheel = results.get("wheel", {})
    add(
        "wheel size (KB)",
        wheel["bytes"] / 1000 if wheel.get("bytes") else None,
        WHEEL_TARGET / 1000,
        "≤",
        "KB",
    )
    mem = results.get("memory", {}).get("raw16MB")
    for op in ("decode", "to_numpy"):
        cell = mem.get(f"onnxdata {op}", {}) if mem else {}
        copies = cell["peak"] / mem["input"] if "peak" in cell else None
        add(
            f"peak memory, {OP_LABELS[op]} raw16MB (copies of the payload)",
            copies,
            1.0 * COPY_SLACK,
            "≤",
            "copies",
            cell.get("skipped") or cell.get("error") or "not measured",
            workload="raw16MB",
            op=op,
        )
    return out


# -- formatting ----------------------------------------------------------------------------------


def ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    v = seconds * 1e3
    if v < 0.1:
        return f"{v:.4f}"
    if v < 10:
        return f"{v:.3f}"
    if v < 100:
        return f"{v:.1f}"
    return f"{v:.0f}"


def x(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v:.2f}{TIMES}" if v < 10 else f"{v:.0f}{TIMES}"


def _target_of(
    targets: list[dict[str, Any]], w: str, op: str, speed: bool
) -> dict[str, Any] | None:
    for t in targets:
        if (
            t.get("workload") == w
            and t.get("op") == op
            and t["unit"] == TIMES
            and (("pure-Python" in t["label"]) == speed)
        ):
            return t
    return None


def _mark(t: dict[str, Any] | None) -> str:
    if t is None or t["status"] == "n/a":
        return ""
    return " ✅" if t["status"] == "met" else " ❌"


def times_rows(results: dict[str, Any]) -> list[list[str]]:
    rows = []
    targets = results["targets"]
    for wl in results["workloads"]:
        w = wl["name"]
        for op in ("decode", "encode", "to_numpy", "from_numpy"):
            status = _status(results["times"], w, op)
            od = _median(results["times"], w, op, "onnxdata")
            pb = _median(results["times"], w, op, "upb")
            pp = _median(results["times"], w, op, "purepy")
            r = ratio(results, w, op)
            s = speedup(results, w, op)
            t_r = _target_of(targets, w, op, False)
            t_s = _target_of(targets, w, op, True)
            if t_s and t_s.get("nonumpy"):
                t_s = None  # int64_1M's target is on the numpy-blocked row
            if status != "ok" and od is None:
                short = "FAIL" if status.startswith("FAIL") else status.split(":")[0]
                rows.append([w, OP_LABELS[op], short, ms(pb), ms(pp), "—", "—"])
                continue
            rows.append(
                [
                    w,
                    OP_LABELS[op],
                    ms(od),
                    ms(pb),
                    ms(pp) if op in ("decode", "encode") else "",
                    x(r) + _mark(t_r),
                    (x(s) + _mark(t_s)) if op in ("decode", "encode") else "",
                ]
            )
        for op in ("decode", "encode"):
            cell = results.get("nonumpy", {}).get(w, {}).get(op)
            if cell:
                pp = _median(results["times"], w, op, "purepy")
                s = speedup(results, w, op, True)
                t_s = _target_of([t for t in targets if t.get("nonumpy")], w, op, True)
                rows.append(
                    [
                        w,
                        f"{op} (numpy blocked)",
                        ms(cell["median"]),
                        "",
                        ms(pp),
                        "",
                        x(s) + _mark(t_s),
                    ]
                )
    return rows


TIME_HEADER = [
    "workload",
    "operation",
    "onnxdata ms",
    "upb ms",
    "pure-Python ms",
    "onnxdata ÷ upb",
    "pure-Python ÷ onnxdata",
]


def md_table(header: list[str], rows: list[list[str]]) -> str:
    def cells(r: list[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |"

    lines = [cells(header), "|" + "|".join(" --- " for _ in header) + "|"]
    lines += [cells(r) for r in rows]
    return "\n".join(lines)


def text_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def target_rows(targets: list[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for t in targets:
        m = t["measured"]
        if m is None:
            measured = "—"
        elif t["unit"] == TIMES:
            measured = x(m)
        else:
            measured = f"{m:.2f}" if m < 10 else f"{m:.0f}"
        target = f"{t['cmp']} {t['target']:g}{TIMES if t['unit'] == TIMES else ''}"
        status = {"met": "✅ met", "missed": "❌ missed", "n/a": "n/a", "FAIL": "FAIL"}[t["status"]]
        rows.append([t["label"], measured, target, status, t["note"]])
    return rows


def memory_rows(results: dict[str, Any]) -> list[list[str]]:
    cols = ["onnxdata decode", "upb decode", "purepy decode", "onnxdata to_numpy", "upb to_numpy"]
    rows = []
    for w, mem in results.get("memory", {}).items():
        row = [w, f"{mem['input'] / MiB:.1f}"]
        for c in cols:
            cell = mem.get(c, {})
            if "peak" in cell:
                row.append(f"{cell['peak'] / MiB:.1f} ({cell['peak'] / mem['input']:.2f}{TIMES})")
            else:
                row.append("n/a" if "skipped" in cell else ("error" if "error" in cell else "—"))
        rows.append(row)
    return rows


MEMORY_HEADER = [
    "workload",
    "input MiB",
    "onnxdata decode",
    "upb decode",
    "pure-Python decode",
    "onnxdata decode→numpy",
    "upb + onnx.numpy_helper decode→numpy",
]


def console(results: dict[str, Any]) -> str:
    parts = [text_table(TIME_HEADER, times_rows(results)), ""]
    missed = [t for t in results["targets"] if t["status"] == "missed"]
    met = [t for t in results["targets"] if t["status"] == "met"]
    na = [t for t in results["targets"] if t["status"] in ("n/a", "FAIL")]
    parts.append(f"targets: {len(met)} met, {len(missed)} missed, {len(na)} n/a or failed")
    for t in missed:
        parts.append(
            f"  missed: {t['label']}: {t['measured']:.4g} "
            f"(target {t['cmp']} {t['target']:g}) {t['note']}"
        )
    return "\n".join(parts)


def markdown(results: dict[str, Any], chart: Path | None, out: Path, notes: Path) -> str:
    m = results["machine"]
    b = results["budget"]
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `{results['command']}` on {results['date']} ({results['mode']} run, "
        f"{results['duration']:.0f} s). Do not edit by hand: re-run the script. Analysis that "
        "should survive a re-run goes in `benchmarks/notes.md`, which is copied in at the end.",
        "",
        "onnxdata is compared, in one run on one machine, with protobuf's C backend (upb, through "
        "`onnx.<Message>.FromString` / `SerializeToString`, plus `onnx.numpy_helper` for the numpy "
        "rows) and with protobuf's pure-Python backend (a subprocess with "
        "`PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python`, reading the same bytes). Ratios below 1 "
        "in *onnxdata ÷ upb* mean onnxdata is faster; *pure-Python ÷ onnxdata* is onnxdata's "
        "speed-up over the pure-Python backend.",
        "",
        "## Machine",
        "",
        md_table(
            ["", ""],
            [
                ["CPU", m["cpu"]],
                ["cores", f"{m['cores']} ({m['usable_cores']} usable)"],
                ["memory", m["memory"]],
                ["OS", m["os"]],
                ["Python", m["python"]],
                ["onnxdata", m["onnxdata"]],
                ["numpy", m["numpy"]],
                ["protobuf", m["protobuf"]],
                ["onnx", m["onnx"]],
                ["matplotlib", m["matplotlib"]],
                [
                    "load average (1, 5, 15 min)",
                    "start "
                    + ", ".join(f"{v:.2f}" for v in m["load_start"])
                    + "; end "
                    + ", ".join(f"{v:.2f}" for v in m.get("load_end", ())),
                ],
            ],
        ),
        "",
        "A load average near or above the number of cores means other work shared the CPU and "
        "the times are noisy; ratios suffer less than absolute times, since both sides of a ratio "
        "are timed back to back.",
        "",
    ]
    if chart is not None:
        rel = os.path.relpath(chart, out.parent)
        lines += [f"![onnxdata ÷ upb and speed-up over the pure-Python backend]({rel})", ""]
    lines += [
        "## Targets (issue 4)",
        "",
        md_table(["target", "measured", "goal", "status", "note"], target_rows(results["targets"])),
        "",
    ]
    if results["failures"]:
        lines += ["**VERIFICATION FAILED** (these rows were not timed):", ""]
        lines += [f"- {f}" for f in results["failures"]] + [""]
    missing = results.get("bridge", {}).get("missing", {})
    if missing:
        lines += ["numpy rows are n/a where onnxdata's bridge is missing:", ""]
        lines += [f"- {kind}: {why}" for kind, why in sorted(missing.items())] + [""]
    if results.get("purepy_error"):
        lines += [f"The pure-Python backend run failed: `{results['purepy_error']}`", ""]
    lines += [
        "## Times",
        "",
        "Median time per call. *decode*: bytes → message; *encode*: message → bytes; "
        "*decode→numpy*: bytes → message → `to_array` / `to_list` / `to_dict` / `to_optional`; "
        "*numpy→bytes*: `from_array` / `from_list` / `from_dict` / `from_optional` → bytes. "
        "✅/❌: a target of issue 4 met/missed. *onnxdata ÷ upb* pairs the two columns "
        "before it (both timed back to back in the main process). *pure-Python ÷ onnxdata* "
        "pairs the pure-Python time with onnxdata timed right after it in the same subprocess "
        "(not shown; close to the onnxdata column when the machine is quiet), so that a change "
        "of load between phases of the run does not skew it. The two sides of every ratio are "
        "sampled alternately. The numpy-blocked rows run "
        "onnxdata in a subprocess where `import numpy` fails (the standard-library path); their "
        "speed-up divides the pure-Python time by that.",
        "",
        md_table(TIME_HEADER, times_rows(results)),
        "",
        "## Workloads",
        "",
        "Built deterministically by `benchmarks/workloads.py` and encoded by protobuf; the digest "
        "(SHA-256, first 16 hex digits) is the same on every run.",
        "",
        md_table(
            ["workload", "message", "bytes", "sha256", "what"],
            [
                [
                    w["name"],
                    w["message"],
                    f"{w['bytes']:,}",
                    f"`{w['digest']}`",
                    w["what"] + (f" ({w['notes']})" if w["notes"] else ""),
                ]
                for w in results["workloads"]
            ],
        ),
        "",
    ]
    identical = results.get("purepy_identical", {})
    if identical:
        diff = [w for w, same in identical.items() if not same]
        lines += [
            "The pure-Python backend's encodings are "
            + (
                "byte-identical to upb's on every workload."
                if not diff
                else f"NOT identical to upb's on: {', '.join(diff)}."
            ),
            "",
        ]
    if results.get("memory"):
        lines += [
            "## Peak memory",
            "",
            "Resident memory one call needs above what the process already holds (the input "
            "bytes, the imports), with its result kept alive; each cell is a fresh subprocess, "
            "peak RSS reset through `/proc/self/clear_refs`. MiB, and in brackets as a multiple "
            "of the input's size. C allocations count too (upb's arena, numpy's buffers).",
            "",
            md_table(MEMORY_HEADER, memory_rows(results)),
            "",
        ]
    imports = results.get("imports")
    if imports:
        rows = [
            [
                k,
                f"{1e3 * v['seconds']:.1f}"
                if v.get("seconds") is not None
                else v.get("error", "—"),
            ]
            for k, v in imports.items()
        ]
        lines += [
            "## Import time and wheel size",
            "",
            "Best of several fresh interpreters, timed inside the process around the import "
            "statement (interpreter start-up excluded; it is given separately, wall clock), "
            "with bytecode cached as after `pip install` (in a temporary "
            "`PYTHONPYCACHEPREFIX`).",
            "",
            md_table(["", "ms"], rows),
            "",
        ]
        wheel = results.get("wheel", {})
        if wheel.get("bytes"):
            lines += [f"Wheel: {wheel['bytes'] / 1000:.1f} KB ({wheel['how']}).", ""]
    if results.get("profiles"):
        lines += [
            "## Where onnxdata's time goes (missed targets)",
            "",
            "cProfile of onnxdata's side of each operation that misses a target, functions by "
            "own time (per call of the operation). cProfile's per-call overhead inflates "
            "functions that are called very often, so read the shares as a ranking, not as "
            "exact fractions.",
            "",
        ]
        for name, rows in results["profiles"].items():
            lines += [
                f"### {name}",
                "",
                md_table(
                    ["function", "calls", "own ms", "own %", "cumulative ms"],
                    [
                        [
                            f"`{r['function']}`",
                            f"{r['calls']:,}",
                            f"{r['own_ms']:.2f}",
                            f"{r['own_pct']:.0f}",
                            f"{r['cum_ms']:.2f}",
                        ]
                        for r in rows
                    ],
                ),
                "",
            ]
    gc_note = "enabled" if b["gc_enabled"] else "disabled inside a sample (as `timeit` does)"
    lines += [
        "## Method",
        "",
        f"- Each time is the median of at least {b['min_samples']} samples (up to "
        f"{b['max_samples']}, for about {b['seconds']:g} s per measurement); a sample times enough "
        f"back-to-back calls to last about {1e3 * b['sample_time']:g} ms, after warm-up calls "
        "(a call of 0.2 s or more counts as a sample). The two sides of a ratio are sampled "
        "alternately, A B A B, so that both see the same load. "
        f"The garbage collector is {gc_note}, the same for every implementation, with a "
        "`gc.collect()` before each sample.",
        "- Before timing, every onnxdata encoding is checked byte for byte against protobuf's "
        "(decode → encode of each workload, and numpy → bytes against `onnx.numpy_helper` + "
        "`SerializeToString`), and onnxdata's decode→numpy results against "
        "`onnx.numpy_helper`'s (dtype, shape, bits); any difference stops the run.",
        "- The pure-Python backend runs in a subprocess that checks "
        '`api_implementation.Type() == "python"`; it reads the same bytes from a temporary '
        "file.",
        "- `onnxdata.numpy_helper` is used when it imports; rows it cannot serve are n/a.",
        "- Sparse tensors: `onnx.numpy_helper` has no sparse conversion, so decode→numpy is "
        "`to_array` of `values` and of `indices`, and numpy→bytes is `from_array` of both "
        "(`onnx.helper.make_sparse_tensor` on the oracle side).",
        "",
    ]
    if notes.exists():
        lines += [
            "## Notes (hand-written, `benchmarks/notes.md`)",
            "",
            notes.read_text().strip(),
            "",
        ]
    return "\n".join(lines)


# -- chart ----------------------------------------------------------------------------------------


def chart(results: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [w["name"] for w in results["workloads"]]
    targets = results["targets"]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(12, 9.5), constrained_layout=True)
    colors = {
        "decode": "#4C72B0",
        "encode": "#55A868",
        "to_numpy": "#C44E52",
        "from_numpy": "#8172B2",
    }

    def bars(
        ax: Any,
        groups: list[str],
        series: list[tuple[str, str, list[float | None], list[dict[str, Any] | None]]],
        cap: float = float("inf"),
    ) -> None:
        """Grouped bars on a log scale; bars above ``cap`` are cut there, labelled with "↑"."""
        width = 0.8 / len(series)
        box = {"facecolor": "white", "edgecolor": "none", "pad": 0.6, "alpha": 0.85}
        for j, (op, label, values, tgts) in enumerate(series):
            xs = [i + (j - (len(series) - 1) / 2) * width for i in range(len(groups))]
            have = [(xi, min(v, cap)) for xi, v in zip(xs, values, strict=True) if v]
            ax.bar([h[0] for h in have], [h[1] for h in have], width * 0.92, label=label,
                   color=colors[op])  # fmt: skip
            for xi, v, t in zip(xs, values, tgts, strict=True):
                if t is not None:
                    ax.plot([xi - width / 2, xi + width / 2], [t["target"]] * 2, color="black",
                            linewidth=2.2, solid_capstyle="butt")  # fmt: skip
                if v is None:
                    ax.text(xi, 1, "n/a", ha="center", va="bottom", fontsize=7, rotation=90,
                            color="grey")  # fmt: skip
                    continue
                color = "black" if t is None else ("#1a7f37" if t["status"] == "met" else "#cf222e")
                text = f"{v:.2g}" if v < 10 else f"{v:.0f}"
                ax.text(xi, min(v, cap) * 1.1, text + ("↑" if v > cap else ""), ha="center",
                        va="bottom", fontsize=7, rotation=90, color=color, bbox=box,
                        fontweight="normal" if t is None else "bold")  # fmt: skip
        ax.set_xticks(range(len(groups)), groups)
        ax.set_yscale("log")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.grid(axis="y", which="major", alpha=0.3)

    series = []
    for op in ("decode", "encode", "to_numpy", "from_numpy"):
        series.append(
            (
                op,
                OP_LABELS[op],
                [ratio(results, w, op) for w in names],
                [_target_of(targets, w, op, False) for w in names],
            )
        )
    bars(ax1, names, series)
    ax1.set_title(
        "onnxdata ÷ protobuf upb (+ onnx.numpy_helper): time ratio, lower is better", loc="left"
    )
    ax1.set_ylabel("onnxdata time ÷ upb time (log)")
    ax1.legend(loc="upper left", ncol=4, fontsize=8)
    ax1.set_ylim(top=ax1.get_ylim()[1] * 3)

    groups = list(names)
    dec: list[float | None] = []
    enc: list[float | None] = []
    tdec: list[dict[str, Any] | None] = []
    tenc: list[dict[str, Any] | None] = []
    for w in names:
        for op, vals, tg in (("decode", dec, tdec), ("encode", enc, tenc)):
            vals.append(speedup(results, w, op))
            t = _target_of(targets, w, op, True)
            tg.append(None if t is None or t.get("nonumpy") else t)
    if any(results.get("nonumpy", {}).get(w) for w in names):
        groups.append("int64_1M\nnumpy blocked")
        for op, vals, tg in (("decode", dec, tdec), ("encode", enc, tenc)):
            vals.append(speedup(results, "int64_1M", op, True))
            tg.append(_target_of([t for t in targets if t.get("nonumpy")], "int64_1M", op, True))
    bars(ax2, groups, [("decode", "decode", dec, tdec), ("encode", "encode", enc, tenc)], cap=100)
    ax2.set_title(
        "speed-up over protobuf's pure-Python backend: pure-Python time ÷ onnxdata time, "
        "higher is better",
        loc="left",
    )
    ax2.set_ylabel(f"speed-up (log; bars cut at 100{TIMES})")
    ax2.legend(loc="upper left", ncol=2, fontsize=8)
    ax2.set_ylim(top=400)
    fig.suptitle(
        f"onnxdata benchmarks ({results['mode']} run, {results['date']}) — black bars: "
        "targets of issue 4; labels green = met, red = missed",
        fontsize=10,
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> None:
    """Rewrite the report and chart from a ``run.py --json`` dump (e.g. after editing notes.md)."""
    import argparse
    import json

    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=main.__doc__)
    p.add_argument("results", help="the JSON written by run.py --json")
    p.add_argument("--output", default=str(here.parent / "docs" / "benchmarks.md"))
    args = p.parse_args()
    results = json.loads(Path(args.results).read_text())
    out = Path(args.output)
    chart_path = out.with_suffix(".png")
    drawn = chart(results, chart_path)
    out.write_text(markdown(results, chart_path if drawn else None, out, here / "notes.md"))
    print(f"wrote {out}" + (f" and {chart_path}" if drawn else ""))


if __name__ == "__main__":
    main()
