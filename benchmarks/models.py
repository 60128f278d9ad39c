"""Opening whole ONNX models: onnxdata beside onnx.load (upb), onnx-ir and tinygrad's parser.

    python -m benchmarks.models                 # small models: 256 MiB of weights, 20,000 nodes
    python -m benchmarks.models --full          # the issue's sizes: 1.26 GB, 100,000 nodes
    python -m benchmarks.models --nodes 5000 --weights 8x4 --repeat 1 --dir /tmp/m
    python -m benchmarks.models --loads --full  # the weights model: read, mapped, onnx.load

(``ONNXDATA_BENCH_FULL=1`` is ``--full``.)  Models (``model_files.py``, written
once into ``--dir``): weights-heavy, graph-heavy, external-data, and every
``.onnx`` file of the onnx package (node tests, in one timed loop).  The
workload is what opening a model is for: open the file and read its graph
(every node's name, op type, inputs, outputs and attribute values, every
value's type and shape, every initializer's name, type and dims, not its
data); then, where the library can, save it again.

Each measurement runs in a fresh process (the library imported before the
clock starts), so its peak resident set is the load's own: the table gives
the best time of ``--repeat`` processes and the peak above the process's
size before loading.  An anchor that is not installed, or fails on a model,
says so in its cell.  Writes its section into ``docs/benchmarks.md``
(``--output``) between the model markers, leaving the rest of the file as is.

onnxdata opens a model mapped there (``load_model(path, mmap=True)``): the
O(metadata) way those targets are about.  ``--loads`` compares its ways of
loading the weights-heavy model instead, in a section of its own: the default
``load_model(path)``, which reads the file into one buffer the model owns,
the mapped one, and ``onnx.load``; time, peak resident memory and the private
(anonymous) memory the loaded model holds.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks import model_files
from benchmarks.common import ROOT, machine, md_table, proc_status, reset_peak_rss

TOOLS = ("onnxdata", "onnx", "onnx_ir", "tinygrad")
LABEL = {"onnxdata": "onnxdata", "onnx": "onnx.load (upb)", "onnx_ir": "onnx-ir",
         "tinygrad": "tinygrad's parser"}  # fmt: skip
START = "<!-- model benchmarks: start -->"
END = "<!-- model benchmarks: end -->"
X = "\N{MULTIPLICATION SIGN}"

# The targets: (model, quantity, anchor, comparison, limit) on onnxdata ÷ anchor.
TARGETS = [
    ("weights", "seconds", "onnx", "≤", 0.05),
    ("weights", "peak", "onnx", "≤", 0.05),
    ("graph", "open", "onnx", "≤", 4.0),
    ("graph", "open", "onnx_ir", "<", 1.0),
    ("graph", "open", "tinygrad", "≤", 0.1),
]


# -- in the child: open a model and read its graph, one way per library --------------


def open_onnxdata(path: str, mmap: bool = True) -> Any:
    """onnxdata's model loader: ``load_model`` where there is one, else a mapped decode.

    ``mmap``: mapped (the mapping stays open as long as the model, its
    ``raw_data`` are views of it); else the default load, which reads the file.
    """
    import onnxdata

    loader = getattr(onnxdata, "load_model", None)
    if loader is not None:
        if not mmap:
            return loader(path, load_external_data=False)
        return loader(path, load_external_data=False, mmap=True)
    import mmap

    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    return onnxdata.ModelProto.decode(mapped, copy=False)


def _attribute_value(a: Any) -> Any:
    """The value of an AttributeProto as ``onnx.helper.get_attribute_value`` reads it."""
    kind = a.type
    if kind == 1:
        return a.f
    if kind == 2:
        return a.i
    if kind == 3:
        return a.s
    if kind == 4:
        return a.t.name
    if kind == 5:
        return walk_proto(a.g)
    single = {6: a.floats, 7: a.ints, 8: a.strings}.get(kind)
    if single is not None:
        return list(single)
    if kind == 10:
        return [walk_proto(g) for g in a.graphs]
    return None


def _value_infos(values: Any) -> int:
    n = 0
    for v in values:
        t = v.type.tensor_type
        n += len(v.name) + t.elem_type
        n += len([d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.shape.dim])
    return n


def walk_proto(g: Any) -> int:
    """Read a graph through the protobuf message API (onnx's and onnxdata's): a count."""
    n = 0
    for node in g.node:
        n += len(node.name) + len(node.op_type) + len(node.domain)
        n += len(list(node.input)) + len(list(node.output))
        for a in node.attribute:
            _attribute_value(a)
            n += len(a.name)
    n += _value_infos(g.input) + _value_infos(g.output) + _value_infos(g.value_info)
    for t in g.initializer:
        n += len(t.name) + len(list(t.dims)) + t.data_type
    return n


def walk_ir(g: Any) -> int:
    """The same reading through onnx-ir's objects."""
    import onnx_ir

    n = 0
    for node in g:
        n += len(node.name or "") + len(node.op_type) + len(node.domain)
        n += len([v.name if v is not None else "" for v in node.inputs])
        for out in node.outputs:
            n += len(out.name or "") + len(str(out.shape)) + len(str(out.type))
        for a in node.attributes.values():
            value = a.value
            if isinstance(value, onnx_ir.Graph):
                walk_ir(value)
            n += len(a.name)
    for v in [*g.inputs, *g.outputs]:
        n += len(v.name or "") + len(str(v.shape)) + len(str(v.type))
    for v in g.initializers.values():
        n += len(v.name or "") + len(str(v.shape)) + len(str(v.dtype))
    return n


def walk_tinygrad(g: dict[str, Any]) -> int:
    """The same reading through the dicts tinygrad's parser makes (it keeps no value_info)."""
    n = 0
    for node in g["node"]:
        parsed = node["parsed_node"]
        n += len(node.get("name", "")) + len(parsed.op) + len(parsed.inputs) + len(parsed.outputs)
        n += len(parsed.opts)
    for v in [*g["input"], *g["output"]]:
        n += len(v.get("name", ""))
    for t in g["initializer"]:
        n += len(t.get("name", "")) + len(t["dims"])
    return n


def open_model(tool: str, path: str) -> Any:
    """Open ``path`` with ``tool``: the model object, graph and all, weights not read."""
    if tool == "onnxdata":
        return open_onnxdata(path)
    if tool == "onnxdata_read":
        return open_onnxdata(path, mmap=False)
    if tool == "onnx":
        import onnx

        return onnx.load(path, load_external_data=False)
    if tool == "onnx_ir":
        import onnx_ir

        return onnx_ir.load(path)
    from tinygrad.nn.onnx import OnnxPBParser

    return OnnxPBParser(path, load_external_data=False).parse()


def read_graph(tool: str, model: Any) -> int:
    """Read the graph of a model ``tool`` opened: a count of what was read."""
    if tool in ("onnxdata", "onnxdata_read", "onnx"):
        return walk_proto(model.graph)
    if tool == "onnx_ir":
        return walk_ir(model.graph)
    return walk_tinygrad(model["graph"])


def save(tool: str, model: Any, out: str) -> None:
    """Write ``model`` back to ``out`` as ``tool`` saves a model."""
    if tool == "onnxdata":
        with open(out, "wb") as f:
            model.encode_to(f)
    elif tool == "onnx":
        import onnx

        onnx.save_model(model, out)
    elif tool == "onnx_ir":
        import onnx_ir

        onnx_ir.save(model, out)
    else:
        raise NotImplementedError("tinygrad's parser does not write models")


def import_tool(tool: str) -> None:
    """Import what ``tool`` needs before the clock starts: ImportError if not installed."""
    module = {"onnxdata": "onnxdata", "onnxdata_read": "onnxdata", "onnx": "onnx",
              "onnx_ir": "onnx_ir", "tinygrad": "tinygrad.nn.onnx"}[tool]  # fmt: skip
    __import__(module)
    if module == "onnxdata":
        import onnxdata

        onnxdata.ModelProto  # noqa: B018 (the lazy export, made before timing)


def child_main(tool: str, workload: str, paths: list[str]) -> dict[str, Any]:
    """One measurement: open (and read, or save) every path once; time and peak memory.

    ``warm``: the first path is a small model opened (and read) before the
    clock, so the library's one-time costs (lazy imports, generated decoders)
    are paid, as in a process that has opened a model before; then ``load``.
    """
    try:
        import_tool(tool)
    except ImportError:
        return {"error": "not installed"}
    if workload == "warm":
        read_graph(tool, open_model(tool, paths[0]))
        workload, paths = "load", paths[1:]
    gc.collect()
    reset_peak_rss()
    before = proc_status("VmRSS")
    anon = proc_status("RssAnon")
    try:
        if workload == "save":
            models = [open_model(tool, p) for p in paths]
            # Removed with what was written, whatever happens.
            with tempfile.TemporaryDirectory(prefix="onnxdata-save-") as out:
                t0 = time.perf_counter()
                for k, model in enumerate(models):
                    save(tool, model, os.path.join(out, f"{k}.onnx"))
                seconds = time.perf_counter() - t0
                written = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
            return {"seconds": seconds, "bytes": written}
        t0 = time.perf_counter()
        held = [open_model(tool, p) for p in paths]
        opened = time.perf_counter() - t0
        count = sum(read_graph(tool, model) for model in held)
        seconds = time.perf_counter() - t0
        peak = proc_status("VmHWM") - before
        private = proc_status("RssAnon") - anon  # what the loaded models hold of their own
    except NotImplementedError as exc:
        return {"error": str(exc)}
    except Exception as exc:  # an anchor that fails on a model: the cell says so
        return {"error": f"{type(exc).__name__}: {exc}"[:200]}
    return {"open": opened, "seconds": seconds, "peak": peak, "private": private, "count": count,
            "rss_before": before}  # fmt: skip


def child_env() -> dict[str, str]:
    """The children's environment: bytecode cached (outside the checkout) as an installed
    package's is, so that a library's lazy imports cost what they cost users; tinygrad's
    parser on its pure-Python device, which needs no compiler (the parser computes nothing)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "onnxdata-bench-pyc"))
    env.setdefault("DEV", "PYTHON")
    return env


def run_child(tool: str, workload: str, paths: list[str], timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.models", "--child", tool, workload, *paths]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=child_env()
        )
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:g} s"}
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-2:]
        return {"error": f"exit status {proc.returncode}: {' | '.join(tail)}"[:300]}
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def measure(tool: str, workload: str, paths: list[str], repeat: int) -> dict[str, Any]:
    """The best of each figure over ``repeat`` fresh processes (one when a run takes
    over :data:`SLOW` seconds: tinygrad's parser on a large graph)."""
    best: dict[str, Any] = {}
    for _ in range(repeat):
        r = run_child(tool, workload, paths, timeout=1800)
        if "error" in r:
            return r
        for key in ("open", "seconds", "peak", "private"):
            if key in r:
                best[key] = min(r[key], best.get(key, r[key]))
        best.setdefault("count", r.get("count"))
        if r["seconds"] > SLOW:
            break
    return best


SLOW = 20.0


# -- the models, the runs, the report --------------------------------------------------


def onnx_package_models() -> list[str]:
    """Every ``.onnx`` file in the installed onnx package (its node tests), sorted."""
    try:
        import onnx
    except ImportError:
        return []
    root = Path(onnx.__file__).parent
    return sorted(str(p) for p in root.rglob("*.onnx"))


def build(folder: Path, nodes: int, weights: tuple[int, float]) -> dict[str, list[str]]:
    """Write (or reuse) the generated models; check onnx reads each back to the same bytes."""
    count, mb = weights
    made = {
        "weights": [str(model_files.make(folder, "weights", count, mb))],
        "graph": [str(model_files.make(folder, "graph", nodes))],
        "external": [str(model_files.make(folder, "external", count, mb))],
    }
    import onnx

    graph = made["graph"][0]
    if onnx.load(graph).SerializeToString() != Path(graph).read_bytes():
        sys.exit(f"{graph}: onnx does not write back the same bytes")
    real = onnx_package_models()
    if real:
        made["real"] = real
    return made


def ratio(ours: dict[str, Any], theirs: dict[str, Any], key: str) -> float | None:
    a, b = ours.get(key), theirs.get(key)
    if a is None or b is None or b <= 0:
        return None
    return float(a) / float(b)


def cell(r: dict[str, Any], key: str, ours: dict[str, Any] | None = None) -> str:
    if "error" in r:
        return r["error"][:80]
    value = r.get(key)
    if value is None:
        return "-"
    mb = key in ("peak", "private")
    text = f"{value / (1 << 20):.1f} MB" if mb else f"{value * 1000:.1f} ms"
    if ours is not None and ours is not r:
        q = ratio(ours, r, key)
        if q is not None:
            text += f" ({q:.3g}{X})"
    return text


SIZES = {"weights": "weights-heavy", "graph": "graph-heavy", "external": "external data",
         "real": "onnx's package models"}  # fmt: skip


def report(r: dict[str, Any]) -> str:
    """The model section of docs/benchmarks.md."""
    lines = [START, "## Whole models (`python -m benchmarks.models`)", ""]
    lines += [
        f"Run {r['date']} with `{r['command']}` ({r['seconds']:.0f} s), best of "
        f"{r['repeat']} fresh processes; load average {r['machine']['load'][0]:.2f}; "
        f"onnx {r['machine'].get('onnx')}, onnx-ir {r['versions'].get('onnx_ir')}, "
        f"tinygrad {r['versions'].get('tinygrad')}.",
        "",
        "*Open*: the library's load call; *open + read graph*: then read every node's "
        "name, op type, inputs, outputs and attribute values, every value's type and shape, "
        "every initializer's name, type and dims (not their data). Peak: resident memory "
        "above the process's size before loading, through both. In "
        f"brackets onnxdata's figure ÷ that library's (below 1{X}: onnxdata is faster or "
        "smaller).",
        "",
    ]
    header = ["model", "size", *[LABEL[t] for t in TOOLS]]
    rows = []
    for model, m in r["models"].items():
        ours = m["load"]["onnxdata"]
        for key, what in (("open", "open"), ("seconds", "open + read graph"),
                          ("peak", "peak memory")):  # fmt: skip
            rows.append(
                [f"{SIZES[model]}: {what}", m["size"],
                 *[cell(m["load"][t], key, ours) for t in TOOLS]]
            )  # fmt: skip
        if "save" in m:
            ours = m["save"]["onnxdata"]
            rows.append([f"{SIZES[model]}: save", m["size"],
                         *[cell(m["save"][t], "seconds", ours) for t in TOOLS]])  # fmt: skip
    lines += [md_table(header, rows), "", "Targets (issue 33):", ""]
    lines += [md_table(["target", "measured", "status"], target_rows(r)), ""]
    lines += [HOW, END]
    return "\n".join(lines) + "\n"


HOW = """\
How to run: `python -m benchmarks.models` (about two minutes: 16 x 16 MiB of weights,
20,000 nodes); `--full` (or `ONNXDATA_BENCH_FULL=1`) for the issue's sizes, 100 x
12.6 MiB = 1.32 GB of initializers and 100,000 nodes (about 1.3 GB of disk for each
weights model, written once into `--dir`, default the temp dir, and reused); `--nodes`,
`--weights COUNTxMIB`, `--repeat`, `--no-save` to change them. onnx-ir and tinygrad are
optional (`pip install onnx-ir tinygrad`): a library that is missing, or that fails on
a model, says so in its cell. onnxdata opens a model by mapping the file
(`onnxdata.load_model(path, mmap=True)`, or a mapped `ModelProto.decode(..., copy=False)`
before `load_model` existed; its default load, which reads the file, is in the next section);
onnx.load and tinygrad are asked not to read external data, as onnxdata and onnx-ir
(lazy) do not. Each process is new, so onnxdata's figures include generating its
decoders (once per process and message type). The machine is shared: compare the
ratios of one run, not times across runs."""


def target_rows(r: dict[str, Any]) -> list[list[str]]:
    rows = []
    for model, key, anchor, cmp, limit in TARGETS:
        m = r["models"].get(model)
        if m is None:
            continue
        q = ratio(m["load"]["onnxdata"], m["load"][anchor], key)
        what = {"open": "open", "seconds": "open + read graph", "peak": "peak memory"}[key]
        label = f"{SIZES[model]} {what} ≤ {limit:g}{X} {LABEL[anchor]}".replace(
            "≤", cmp if cmp != "<" else "<"
        )
        if q is None:
            rows.append([label, "-", "not measured"])
            continue
        met = q < limit if cmp == "<" else q <= limit
        rows.append([label, f"{q:.3g}{X}", "✅ met" if met else "❌ missed"])
    return rows


def write_section(output: Path, section: str, start: str = START, end: str = END) -> None:
    """Put ``section`` in ``output`` between the markers (replacing an older one, or at the end)."""
    text = output.read_text(encoding="utf-8") if output.exists() else ""
    if start in text and end in text:
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section
    output.write_text(text, encoding="utf-8")


# -- --loads: the weights model read, mapped, and by onnx.load ---------------------------

LOADS_START = "<!-- model loads: start -->"
LOADS_END = "<!-- model loads: end -->"
LOADS = {
    "onnxdata_read": "onnxdata: `load_model(path)` (reads)",
    "onnxdata": "onnxdata: `load_model(path, mmap=True)`",
    "onnx": "onnx.load (upb)",
}


def loads_report(r: dict[str, Any]) -> str:
    """The section of docs/benchmarks.md on onnxdata's ways of loading the weights model."""
    m = r["models"]["weights"]
    read, onnx_ = m["load"]["onnxdata_read"], m["load"]["onnx"]
    lines = [
        LOADS_START,
        "## Loading the weights model: read, mapped, onnx.load (`--loads`)",
        "",
        f"Run {r['date']} with `{r['command']}` ({r['seconds']:.0f} s), best of "
        f"{r['repeat']} fresh processes; load average {r['machine']['load'][0]:.2f}; "
        f"onnx {r['machine'].get('onnx')}. The weights-heavy model: {m['size']} of "
        f"initializers in one file of {m['bytes'] / 1e9:.2f} GB.",
        "",
        "Each process opens a small model first, before the clock: the figures are the "
        "load's own, without the one-time costs of a library's first use (onnxdata's "
        "lazy imports and generated decoders, about 3 MB and 60 ms).",
        "",
        "*Open*: the load call; *peak*: resident memory above the process's size before "
        "loading (for the default load and onnx.load all of it is private, anonymous "
        "memory; a mapping's pages are the file's, shared with the page cache); "
        "*private held*: the anonymous memory the loaded model holds afterwards. In brackets "
        "the figure ÷ onnx.load's.",
        "",
    ]
    rows = []
    for tool, label in LOADS.items():
        got = m["load"][tool]
        # cell() gives the row's figure and, in brackets, ``ours`` ÷ it: here ÷ onnx.load's.
        cells = [cell(got, k) for k in ("open", "seconds", "peak", "private")]
        if tool != "onnx" and "error" not in got:
            for i, k in enumerate(("open", "seconds", "peak", "private")):
                q = ratio(got, onnx_, k)
                cells[i] += "" if q is None else f" ({q:.3g}{X})"
        rows.append([label, *cells])
    lines += [md_table(["load", "open", "open + read graph", "peak", "private held"], rows), ""]
    lines += ["Target (issue 38): the default load in at most half of onnx.load's time and "
              "private memory.", ""]  # fmt: skip
    target = []
    for key, what in (("open", "time (open)"), ("peak", "peak private memory")):
        q = ratio(read, onnx_, key)
        shown = "-" if q is None else f"{q:.3g}{X}"
        met = q is not None and q <= 0.5
        target.append([f"default load {what} ≤ 0.5{X} onnx.load", shown,
                       "✅ met" if met else "❌ missed"])  # fmt: skip
    lines += [md_table(["target", "measured", "status"], target), "", LOADS_HOW, LOADS_END]
    return "\n".join(lines) + "\n"


LOADS_HOW = """\
How to run: `python -m benchmarks.models --loads --full` (the 1.32 GB model, written once
into `--dir` and reused; `--weights COUNTxMIB` for another size). The default load reads
the file into one buffer (`read` of its exact size, one copy) and the initializers'
`raw_data` are read-only views of it, so the model holds one copy of the file where
onnx.load, which reads the file and then copies every field out of it, peaks at two; the
model owns its bytes and the file may be overwritten at once. The mapped load holds none
(the pages are the file's, read when touched) and depends on the file. In a fresh process
the first load also pays the one-time costs named above, which puts the default load's
peak at the file's size plus about 3 MB: just above half of onnx.load's twice the file."""


def run_loads(args: argparse.Namespace, folder: Path, weights: tuple[int, float]) -> int:
    """``--loads``: the weights model, opened each way; its section of the output."""
    start = time.perf_counter()
    path = str(model_files.make(folder, "weights", *weights))
    small = str(model_files.make(folder, "weights", 2, 0.01))
    count, mb = weights
    m: dict[str, Any] = {"size": f"{count} {X} {mb:g} MiB", "bytes": os.path.getsize(path),
                         "load": {}}  # fmt: skip
    for tool in LOADS:
        m["load"][tool] = measure(tool, "warm", [small, path], args.repeat)
        print("weights load", tool, m["load"][tool], flush=True)
    r: dict[str, Any] = {
        "command": " ".join(["python -m benchmarks.models", *sys.argv[1:]]),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": machine(), "repeat": args.repeat, "models": {"weights": m},
    }  # fmt: skip
    r["seconds"] = time.perf_counter() - start
    write_section(Path(args.output), loads_report(r), LOADS_START, LOADS_END)
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1, default=str), encoding="utf-8")
    return 0


def kept_section(output: Path) -> str:
    """The model section of ``output`` as it is, for a runner that rewrites the rest."""
    text = output.read_text(encoding="utf-8") if output.exists() else ""
    if START in text and END in text:
        return "\n" + START + text.split(START, 1)[1].split(END, 1)[0] + END + "\n"
    return ""


def versions() -> dict[str, str]:
    out = {}
    for name, dist in (("onnx_ir", "onnx-ir"), ("tinygrad", "tinygrad")):
        try:
            out[name] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--full", action="store_true", help="the issue's sizes (1.26 GB, 100k nodes)")
    p.add_argument("--nodes", type=int, help="nodes of the graph-heavy model")
    p.add_argument("--weights", help="COUNTxMIB: initializers of the weights-heavy model")
    p.add_argument("--repeat", type=int, default=3, help="fresh processes per measurement")
    p.add_argument("--no-save", action="store_true", help="skip the save workload")
    p.add_argument("--only", help="comma-separated: weights,graph,external,real")
    p.add_argument("--dir", help="where the generated models go (default: the temp dir)")
    p.add_argument("--output", default=str(ROOT / "docs" / "benchmarks.md"))
    p.add_argument("--json", help="also write the raw results here")
    p.add_argument("--loads", action="store_true",
                   help="the weights model only, by each onnxdata load and onnx.load")  # fmt: skip
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        print(json.dumps(child_main(args.child[0], args.child[1], args.child[2:])))
        return 0
    full = args.full or os.environ.get("ONNXDATA_BENCH_FULL") == "1"
    nodes = args.nodes or (100_000 if full else 20_000)
    count, mb = (args.weights or ("100x12.6" if full else "16x16")).split("x")
    folder = Path(args.dir or Path(tempfile.gettempdir()) / "onnxdata-model-bench")
    if args.loads:
        return run_loads(args, folder, (int(count), float(mb)))
    start = time.perf_counter()
    print(f"writing or reusing models in {folder}", flush=True)
    paths = build(folder, nodes, (int(count), float(mb)))
    weights = f"{count} {X} {mb} MiB"
    sizes = {"weights": weights, "graph": f"{nodes:,} nodes", "external": weights,
             "real": f"{len(paths.get('real', []))} files"}  # fmt: skip
    only = args.only.split(",") if args.only else list(paths)
    r: dict[str, Any] = {
        "command": " ".join(["python -m benchmarks.models", *sys.argv[1:]]),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": machine(), "versions": versions(), "repeat": args.repeat, "models": {},
    }  # fmt: skip
    for model in only:
        m: dict[str, Any] = {"size": sizes[model], "load": {}}
        for tool in TOOLS:
            m["load"][tool] = measure(tool, "load", paths[model], args.repeat)
            print(model, "load", tool, m["load"][tool], flush=True)
        if not args.no_save and model != "external":
            m["save"] = {t: measure(t, "save", paths[model], 1) for t in TOOLS}
            print(
                model, "save", {t: v.get("seconds", v.get("error")) for t, v in m["save"].items()}
            )
        r["models"][model] = m
    r["seconds"] = time.perf_counter() - start
    write_section(Path(args.output), report(r))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1, default=str), encoding="utf-8")
    for row in target_rows(r):
        print(" | ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
