"""What the fuzzing toolkit finds in third-party ONNX parsers, next to byte-level baselines.

    python -m benchmarks.fuzz_findings                      # the table of docs/fuzzing.md
    python -m benchmarks.fuzz_findings --budget 500 --seeds 1
    python -m benchmarks.fuzz_findings --parsers betterproto2 --sources mutate-empty

Four parsers, each checked against onnxdata's reference reading (protobuf's):

* ``protobuf-python``: onnx's classes on protobuf's pure-Python backend
  (``PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python``, set for that job's process);
* ``betterproto2`` and ``pure-protobuf``: the classes of ``thirdparty_onnx.py``;
* ``onnx.numpy_helper``: ``to_array`` (tensors, sparse tensors), ``to_list``,
  ``to_dict``, ``to_optional`` of ``onnx.<Message>.FromString(data)`` (upb),
  against the same function of ``onnxdata.numpy_helper`` on
  ``onnxdata.<Message>.decode(data)``, which follows the MUST rules of
  onnx.proto (docs/numpy.md).

The first three use the documented property, ``onnxdata.fuzz.check_parser``
(``presence=True``: every class declares proto2 presence as ``None``).

Input sources, each given the same number of executions (``--budget``):

* ``strategies``: hypothesis, ``onnxdata.strategies``: protobuf's bytes of
  ``messages()``, ``noncanonical_encodings()`` and ``malformed_encodings()``
  (one of the three per example), for the five root messages;
* ``random``: random bytes, 0 to 64 of them;
* ``mutate-empty`` / ``bytes-empty``: ``onnxdata.fuzz.mutate`` / a
  libFuzzer-like byte mutation (1 to 3 of: insert 1-4 random bytes, set a byte,
  flip a bit, erase 1-3 bytes), from an empty input;
* ``mutate-corpus`` / ``bytes-corpus``: the same two, from the seed corpus
  (``onnxdata.fuzz.corpus_files(seed=0, count=1)``, the root's folder);
* ``corpus``: each seed file of the five folders once (no mutation, no seeds).

The two mutations run the same loop: execution k reads its input as the k-th
root message (TensorProto, SparseTensorProto, SequenceProto, MapProto,
OptionalProto in turn), mutates an input picked from that root's pool, and adds
the result to the pool when it shows something new: a (message, field) set in
the reference reading, a reason for the reference's rejection, or an outcome of
the parser under test.  Both sides get the same feedback.

A divergence class is its kind (the parser accepts what protobuf rejects and
why, rejects with which exception where, reads a different value, holds a value of
another type (``onnxdata.fuzz.WrongType``), loses or adds presence, changes float
bits, reads a different count) and the field path with
indices removed.  A cause is the same without the path.  For each (parser,
source, seed) the script records the execution at which each class and each
cause is first seen, and the shortest input of each cause.  It prints, as
Markdown: the classes and causes per run with the median over seeds of the
executions to the first divergence; the same by kind (accepts, rejects, reads
otherwise, float bits); each cause with the median execution of its first
occurrence per source.  It then replays the shortest input of every cause of
the three protobuf parsers on upb, which must read it as the reference does.
``--json FILE`` keeps every run's results, ``--report FILE`` prints the tables
of such a file again.

Jobs run as subprocesses (``--jobs`` at a time), each in a fresh temporary
directory (``to_array`` of external data reads files relative to it).  A
benchmark, not a test: nothing here fails a build.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

import onnxdata  # noqa: E402
from onnxdata import fuzz  # noqa: E402
from onnxdata._core.schema import MESSAGE, spec_of  # noqa: E402

ROOTS: list[type[onnxdata.Message]] = [
    onnxdata.TensorProto,
    onnxdata.SparseTensorProto,
    onnxdata.SequenceProto,
    onnxdata.MapProto,
    onnxdata.OptionalProto,
]
PARSERS = ["protobuf-python", "betterproto2", "pure-protobuf", "onnx.numpy_helper"]
SOURCES = [
    "corpus",
    "strategies",
    "random",
    "mutate-empty",
    "bytes-empty",
    "mutate-corpus",
    "bytes-corpus",
]
MAX_SIZE = 4096
CASES_ENV = "FUZZ_FINDINGS_CASES"  # a file of hypothesis examples, drawn once per seed

# -- classifying a divergence -------------------------------------------------------------

_INDEX = re.compile(r"\[\d+\]")


def strip_indices(path: str) -> str:
    """A field path without indices; a path more than 6 fields deep keeps its ends."""
    parts = _INDEX.sub("", path).split(".")
    if len(parts) > 6:
        parts = [*parts[:3], "...", *parts[-2:]]
    return ".".join(parts)


def normalise(text: str) -> str:
    """An error message without its numbers, lists and offsets."""
    text = text.split("\n")[0]
    text = re.sub(r"\[[^\]]*\]", "[...]", text)
    text = re.sub(r"'[^']*'", "'...'", text)
    text = re.sub(r" at offset \d+", "", text)
    text = re.sub(r"0x[0-9a-fA-F]+|\d+", "N", text)
    text = text.replace("N byte left", "N bytes left")
    return text[:100]


def where(exc: BaseException) -> str:
    """``module.function`` of the innermost frame that raised ``exc``."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    last = frames[-1]
    return f"{Path(last.filename).stem}.{last.name}"


def field_of(root: type[onnxdata.Message], path: str) -> Any:
    """The FieldSpec a path like ``SequenceProto.tensor_values.dims`` ends at, or None."""
    spec = spec_of(root)
    found = None
    for name in _INDEX.sub("", path).split(" ")[0].split(".")[1:]:
        found = spec.by_name.get(name)
        if found is None:
            return None
        if found.kind == MESSAGE:
            spec = spec_of(found.message)
    return found


def field_kind(root: type[onnxdata.Message], path: str) -> str:
    f = field_of(root, path)
    return "?" if f is None else str(f.kind)


def classify(exc: fuzz.Disagreement, root: type[onnxdata.Message]) -> tuple[str, str]:
    """(cause, class) of one Disagreement."""
    text = str(exc)
    if text.startswith("the parser accepted"):
        try:
            root.decode(exc.data)
        except onnxdata.DecodeError as refused:
            reason = normalise(str(refused).split(": ", 1)[-1])
            cause = f"accepts what protobuf rejects: {reason}"
            return cause, f"{cause} @ {strip_indices(refused.path)}"
        return "accepts what protobuf rejects", "accepts what protobuf rejects"
    if text.startswith("the parser rejected"):
        error = exc.__cause__
        assert error is not None
        cause = f"rejects what protobuf accepts: {type(error).__name__} in {where(error)}"
        return cause, cause
    path = strip_indices(exc.path)
    f = field_of(root, exc.path)
    if isinstance(exc.parsed, fuzz.WrongType):  # an int where bytes belong, a list in data_type
        if f is None:
            cause = "a result of another type than a message"
        else:
            how = "repeated" if f.repeated else "singular"
            cause = f"value of another type in a {how} {f.kind} field"
        return cause, f"value of another type @ {path}"
    whole = f is not None and f.repeated and not exc.path.endswith("]")
    if path.endswith(" (count)") or whole:
        kind = "count"  # an empty repeated field is absent from a reading
        path = path.removesuffix(" (count)")
    elif exc.reference is None or exc.parsed is None:
        kind = "presence"
    elif isinstance(exc.reference, fuzz.Bits):
        kind = "float bits"
    else:
        kind = "value"
    cause = f"{kind} of a {field_kind(root, exc.path)} field"
    return cause, f"{kind} @ {path}"


# -- the parsers --------------------------------------------------------------------------

Check = Callable[[type[onnxdata.Message], bytes], "tuple[str, str] | None"]


def message_check(parse_for: dict[Any, Callable[[bytes], Any]]) -> Check:
    def check(root: type[onnxdata.Message], data: bytes) -> tuple[str, str] | None:
        try:
            fuzz.check_parser(parse_for[root], data, message=root, presence=True)
        except fuzz.Disagreement as exc:
            return classify(exc, root)
        return None

    return check


def _onnx_classes() -> dict[Any, Any]:
    import onnx

    return {cls: getattr(onnx, spec_of(cls).name) for cls in ROOTS}


def protobuf_python_check() -> Check:
    from google.protobuf.internal import api_implementation

    assert api_implementation.Type() == "python", api_implementation.Type()
    classes = _onnx_classes()
    return message_check({cls: classes[cls].FromString for cls in ROOTS})


def betterproto2_check() -> Check:
    from benchmarks.thirdparty_onnx import BETTERPROTO2

    return message_check({cls: BETTERPROTO2[cls].parse for cls in ROOTS})


def pure_protobuf_check() -> Check:
    from benchmarks.thirdparty_onnx import PURE_PROTOBUF

    return message_check({cls: PURE_PROTOBUF[cls].loads for cls in ROOTS})


def _same(a: Any, b: Any, path: str) -> tuple[str, str] | None:
    """(aspect, path) of the first difference between two numpy_helper results."""
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return "result type", path
        if a.dtype != b.dtype:
            return "dtype", path
        if a.shape != b.shape:
            return "shape", path
        if a.dtype == object:
            return None if a.tolist() == b.tolist() else ("values", path)
        if a.tobytes() != b.tobytes():
            return ("float bits" if a.dtype.kind in "fc" else "values"), path
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "count", path
        for x, y in zip(a, b, strict=True):
            found = _same(x, y, path + "[]")
            if found:
                return found
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return "keys", path
        for k in a:
            found = _same(a[k], b[k], path + "{}")
            if found:
                return found
        return None
    if type(a) is not type(b):
        return "result type", path
    return None if a == b else ("values", path)


_RULES = [  # onnxdata.numpy_helper's refusals, by the rule of onnx.proto they enforce
    (r"keeps its values in \w+, but \w+ holds", "data in two storage fields"),
    (r"holds \d+, dims \[[^\]]*\] need", "storage size does not match dims"),
    (r"has elem_type \w+ but \w+ is set", "a value field other than elem_type's"),
    (r"key_type .* as a map key must be", "key_type not INT8..UINT64 or STRING"),
]


def rule(text: str) -> str:
    for pattern, name in _RULES:
        if re.search(pattern, text):
            return name
    return normalise(text)


def numpy_helper_check() -> Check:
    import numpy as np
    from onnx import numpy_helper as onh

    from onnxdata import numpy_helper as nh

    classes = _onnx_classes()
    ours = {
        onnxdata.TensorProto: nh.to_array,
        onnxdata.SparseTensorProto: nh.to_array,
        onnxdata.SequenceProto: nh.to_list,
        onnxdata.MapProto: nh.to_dict,
        onnxdata.OptionalProto: nh.to_optional,
    }
    theirs = {
        onnxdata.TensorProto: onh.to_array,
        onnxdata.SparseTensorProto: onh.to_array,
        onnxdata.SequenceProto: onh.to_list,
        onnxdata.MapProto: onh.to_dict,
        onnxdata.OptionalProto: onh.to_optional,
    }
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")

    def check(root: type[onnxdata.Message], data: bytes) -> tuple[str, str] | None:
        name = spec_of(root).name
        function = theirs[root].__name__
        try:
            message = root.decode(data)
        except onnxdata.DecodeError:
            message = None
        try:
            their_message = classes[root].FromString(data)
        except Exception:
            their_message = None
        if (message is None) != (their_message is None):
            cause = "protobuf (upb) and onnxdata disagree on the bytes"
            return cause, cause
        if message is None:
            return None
        try:
            expected, refused = ours[root](message), None
        except Exception as exc:
            expected, refused = None, exc
        try:
            got, error = theirs[root](their_message), None
        except Exception as exc:
            got, error = None, exc
        if refused is not None and error is not None:
            return None
        if refused is not None:
            cause = f"{function} returns where onnxdata refuses: {rule(str(refused))}"
            return cause, f"{cause} @ {name}"
        if error is not None:
            cause = (
                f"{function} raises {type(error).__name__} in {where(error)}: "
                f"{normalise(str(error))[:60]}"
            )
            return cause, f"{cause} @ {name}"
        found = _same(expected, got, name)
        if found is None:
            return None
        aspect, path = found
        cause = f"{function}: {aspect} differ"
        return cause, f"{cause} @ {path}"

    return check


CHECKS: dict[str, Callable[[], Check]] = {
    "protobuf-python": protobuf_python_check,
    "betterproto2": betterproto2_check,
    "pure-protobuf": pure_protobuf_check,
    "onnx.numpy_helper": numpy_helper_check,
}


# -- the input sources --------------------------------------------------------------------


def features(message: onnxdata.Message) -> set[str]:
    """The (message, field) pairs set anywhere in a decoded message."""
    out: set[str] = set()
    stack = [message]
    while stack:
        m = stack.pop()
        spec = spec_of(type(m))
        for f in spec.fields:
            value = getattr(m, f.slot)  # None while unset: reading the name gives a default
            if value is None or (f.repeated and len(value) == 0):
                continue
            out.add(f"{spec.name}.{f.name}")
            if f.kind == MESSAGE:
                stack.extend(value if f.repeated else [value])
    return out


def byte_mutate(data: bytes, max_size: int, seed: int) -> bytes:
    """libFuzzer-like: 1 to 3 of insert, set, flip, erase."""
    rng = random.Random(seed)
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(4)
        if op == 0 or not b:
            at = rng.randrange(len(b) + 1)
            b[at:at] = rng.randbytes(rng.randint(1, 4))
        elif op == 1:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 2:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        else:
            at = rng.randrange(len(b))
            del b[at : at + rng.randint(1, 3)]
    return bytes(b[:max_size])


def structure_mutate(root: type[onnxdata.Message]) -> Callable[[bytes, int, int], bytes]:
    return fuzz.mutator_for(root)[0]


def seed_files() -> dict[type[onnxdata.Message], list[bytes]]:
    files = fuzz.corpus_files(seed=0, count=1)
    out: dict[type[onnxdata.Message], list[bytes]] = {cls: [] for cls in ROOTS}
    for name, data in sorted(files.items()):
        for cls in ROOTS:
            if name.startswith(spec_of(cls).name + "/"):
                out[cls].append(data)
    return out


def guided(check: Check, seed: int, budget: int, from_corpus: bool, structure: bool,
           found: dict[str, int], causes: dict[str, int]) -> int:  # fmt: skip
    """The shared mutation loop; returns the executions run."""
    rng = random.Random(seed)
    pools = seed_files() if from_corpus else {cls: [b""] for cls in ROOTS}
    mutators = {cls: structure_mutate(cls) if structure else byte_mutate for cls in ROOTS}
    seen: set[tuple[str, str]] = set()
    for k in range(budget):
        root = ROOTS[k % len(ROOTS)]
        parent = rng.choice(pools[root])
        data = mutators[root](parent, MAX_SIZE, seed * 1_000_003 + k)
        outcome = check(root, data)
        new = record(outcome, k + 1, found, causes, root, data)
        marks: set[str] = {f"outcome {outcome[1] if outcome else 'agree'}"}
        try:
            marks |= features(root.decode(data))
        except onnxdata.DecodeError as exc:
            marks.add(f"rejected {normalise(str(exc))}")
        name = spec_of(root).name
        fresh = {(name, m) for m in marks} - seen
        if fresh or new:
            seen |= fresh
            pools[root].append(data)
    return budget


EXAMPLES: dict[str, str] = {}  # cause -> "Root hex" of the shortest input seen


def record(outcome: tuple[str, str] | None, k: int,
           found: dict[str, int], causes: dict[str, int],
           root: type[onnxdata.Message] | None = None, data: bytes = b"") -> bool:  # fmt: skip
    if outcome is None:
        return False
    cause, cls = outcome
    causes.setdefault(cause, k)
    if root is not None:
        example = f"{spec_of(root).name} {data.hex()}"
        old = EXAMPLES.get(cause)
        if old is None or len(example) < len(old):
            EXAMPLES[cause] = example
    if cls in found:
        return False
    found[cls] = k
    return True


def strategy_cases(seed: int, budget: int) -> list[tuple[type[onnxdata.Message], bytes]]:
    """``budget`` hypothesis examples, as a user of ``onnxdata.strategies`` draws them."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    from onnxdata import strategies as ods

    messages = ods.messages(types=ROOTS)
    cases = st.one_of(
        messages.map(lambda m: (type(m), m.encode())),
        ods.noncanonical_encodings(messages).map(lambda p: (type(p[0]), p[1])),
        ods.malformed_encodings(messages).map(lambda c: (c[0], c[1])),
    )
    out: list[tuple[type[onnxdata.Message], bytes]] = []

    @hypothesis_seed(seed)
    @settings(max_examples=budget, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(cases)
    def run(case: tuple[type[onnxdata.Message], bytes]) -> None:
        out.append(case)

    run()
    return out


def from_cases(check: Check, cases: list[tuple[type[onnxdata.Message], bytes]],
               found: dict[str, int], causes: dict[str, int]) -> int:  # fmt: skip
    for k, (root, data) in enumerate(cases, 1):
        record(check(root, data), k, found, causes, root, data)
    return len(cases)


def save_cases(path: Path, cases: list[tuple[type[onnxdata.Message], bytes]]) -> None:
    path.write_text("".join(f"{spec_of(cls).name} {data.hex()}\n" for cls, data in cases))


def load_cases(path: Path) -> list[tuple[type[onnxdata.Message], bytes]]:
    by_name = {spec_of(cls).name: cls for cls in ROOTS}
    rows = (line.split(" ") for line in path.read_text().splitlines())
    return [(by_name[name], bytes.fromhex(data)) for name, data in rows]


def from_random(check: Check, seed: int, budget: int,
                found: dict[str, int], causes: dict[str, int]) -> int:  # fmt: skip
    rng = random.Random(seed)
    for k in range(budget):
        data = rng.randbytes(rng.randint(0, 64))
        record(
            check(ROOTS[k % len(ROOTS)], data), k + 1, found, causes, ROOTS[k % len(ROOTS)], data
        )
    return budget


def from_corpus(check: Check, found: dict[str, int], causes: dict[str, int]) -> int:
    k = 0
    for root, files in seed_files().items():
        for data in files:
            k += 1
            record(check(root, data), k, found, causes, root, data)
    return k


def run_job(parser: str, source: str, seed: int, budget: int) -> dict[str, Any]:
    check = CHECKS[parser]()
    found: dict[str, int] = {}
    causes: dict[str, int] = {}
    start = time.perf_counter()
    if source == "corpus":
        runs = from_corpus(check, found, causes)
    elif source == "strategies":
        cached = os.environ.get(CASES_ENV)
        cases = load_cases(Path(cached)) if cached else strategy_cases(seed, budget)
        runs = from_cases(check, cases, found, causes)
    elif source == "random":
        runs = from_random(check, seed, budget, found, causes)
    else:
        how, start_from = source.split("-")
        runs = guided(check, seed, budget, start_from == "corpus", how == "mutate", found, causes)
    return {
        "parser": parser,
        "source": source,
        "seed": seed,
        "executions": runs,
        "seconds": round(time.perf_counter() - start, 1),
        "classes": found,
        "causes": causes,
        "examples": EXAMPLES,
    }


# -- the driver -----------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    """The environment of a job: this checkout's onnxdata and benchmarks first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    return env


def spawn(parser: str, source: str, seed: int, budget: int, cases: Path) -> dict[str, Any]:
    env = child_env()
    if source == "strategies":
        env[CASES_ENV] = str(cases / f"strategies-{seed}-{budget}.txt")
    if parser == "protobuf-python":
        env["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
    else:
        env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.fuzz_findings",
                "--job",
                parser,
                source,
                str(seed),
                str(budget),
            ],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"{parser} {source} {seed}: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


KINDS = ["accepts", "rejects", "reads otherwise", "float bits"]


def kind_of(cause: str) -> str:
    """accepts (what the reference refuses), rejects (what it accepts), reads otherwise, or
    float bits."""
    if cause.startswith("accepts") or " returns where onnxdata refuses" in cause:
        return "accepts"
    if cause.startswith("rejects") or " raises " in cause:
        return "rejects"
    if cause.startswith("float bits"):
        return "float bits"
    return "reads otherwise"


def verify_with_upb(results: list[dict[str, Any]]) -> str:
    """Check that upb reads the shortest example of each cause as the reference does."""
    from google.protobuf.internal import api_implementation

    if api_implementation.Type() == "python":
        return "(upb not checked: this process runs protobuf's pure-Python backend)"
    upb = message_check({cls: cls_ for cls, cls_ in _onnx_parsers().items()})
    examples = {
        (r["parser"], cause): example
        for r in results
        if r["parser"] != "onnx.numpy_helper"
        for cause, example in r["examples"].items()
    }
    wrong = []
    for (parser, cause), example in sorted(examples.items()):
        name, data = example.split(" ")
        root = next(cls for cls in ROOTS if spec_of(cls).name == name)
        if upb(root, bytes.fromhex(data)) is not None:
            wrong.append(f"{parser}: {cause}: {example}")
    if wrong:
        return "upb disagrees with the reference on:\n" + "\n".join(wrong)
    return f"upb reads the shortest input of each of the {len(examples)} causes as the reference."


def _onnx_parsers() -> dict[Any, Callable[[bytes], Any]]:
    return {cls: c.FromString for cls, c in _onnx_classes().items()}


def median(values: list[int]) -> str:
    return f"{statistics.median(values):,.0f}" if values else "-"


def report(results: list[dict[str, Any]], seeds: list[int], budget: int) -> str:
    lines = []
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in results:
        by.setdefault((r["parser"], r["source"]), []).append(r)
    parsers = [p for p in PARSERS if any(k[0] == p for k in by)]
    sources = [s for s in SOURCES if any(k[1] == s for k in by)]
    lines.append(f"Budget: {budget:,} executions per run (corpus: each seed file once); "
                 f"seeds {', '.join(map(str, seeds))}.\n")  # fmt: skip
    lines.append("Classes found per run (each seed), causes found (each seed), and the median")
    lines.append("over seeds of the executions to the first divergence.\n")
    lines.append("| parser | source | classes | causes | first divergence (median) |")
    lines.append("| --- | --- | --- | --- | ---: |")
    for p in parsers:
        for s in sources:
            runs = by.get((p, s))
            if not runs:
                continue
            classes = ", ".join(str(len(r["classes"])) for r in runs)
            causes = ", ".join(str(len(r["causes"])) for r in runs)
            firsts = [min(r["classes"].values()) for r in runs if r["classes"]]
            missed = sum(1 for r in runs if not r["classes"])
            first = median(firsts) + (f" ({missed} runs found none)" if missed else "")
            lines.append(f"| {p} | {s} | {classes} | {causes} | {first} |")
    lines.append("\nBy kind: causes found (median over seeds) and the median executions to the")
    lines.append("first of that kind, with the number of runs that found one.\n")
    lines.append("| parser | source | " + " | ".join(KINDS) + " |")
    lines.append("| --- | --- |" + " ---: |" * len(KINDS))
    for p in parsers:
        for s in sources:
            runs = by.get((p, s))
            if not runs:
                continue
            cells = []
            for kind in KINDS:
                counts = [sum(1 for c in r["causes"] if kind_of(c) == kind) for r in runs]
                hits = [
                    min(k for c, k in r["causes"].items() if kind_of(c) == kind)
                    for r in runs
                    if any(kind_of(c) == kind for c in r["causes"])
                ]
                if hits:
                    n = statistics.median(counts)
                    cells.append(f"{n:g}: {median(hits)} ({len(hits)}/{len(runs)})")
                else:
                    cells.append("-")
            lines.append(f"| {p} | {s} | " + " | ".join(cells) + " |")
    for p in parsers:
        lines.append(f"\n### {p}: causes, and the median executions to the first of each\n")
        all_causes = sorted({c for s in sources for r in by.get((p, s), []) for c in r["causes"]})
        header = " | ".join(s for s in sources if (p, s) in by)
        lines.append(f"| cause | {header} |")
        lines.append("| --- |" + " ---: |" * len([s for s in sources if (p, s) in by]))
        for c in all_causes:
            cells = []
            for s in sources:
                runs = by.get((p, s))
                if not runs:
                    continue
                hits = [r["causes"][c] for r in runs if c in r["causes"]]
                cells.append(f"{median(hits)} ({len(hits)}/{len(runs)})" if hits else "-")
            lines.append(f"| {c.replace('|', '/')} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=3000, help="executions per run")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--parsers", nargs="+", default=PARSERS, choices=PARSERS)
    ap.add_argument("--sources", nargs="+", default=SOURCES, choices=SOURCES)
    ap.add_argument("--jobs", type=int, default=2, help="subprocesses at a time")
    ap.add_argument("--json", type=Path, help="also write every run's results here")
    ap.add_argument("--job", nargs=4, metavar=("PARSER", "SOURCE", "SEED", "BUDGET"),
                    help=argparse.SUPPRESS)  # fmt: skip
    ap.add_argument("--draw", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--report", type=Path, help="print the tables of an earlier --json")
    args = ap.parse_args()
    if args.job:
        parser, source, seed, budget = args.job
        print(json.dumps(run_job(parser, source, int(seed), int(budget))))
        return
    if args.report:  # tables again, from an earlier --json
        results = json.loads(args.report.read_text())
        seeds = sorted({r["seed"] for r in results})
        budget = max(r["executions"] for r in results if r["source"] != "corpus")
        print(report(results, seeds, budget))
        print("\n" + verify_with_upb(results))
        return
    if args.draw:
        seed, budget, path = args.draw
        save_cases(Path(path), strategy_cases(int(seed), int(budget)))
        return
    todo = [(p, s, seed) for p in args.parsers for s in args.sources
            for seed in (args.seeds if s != "corpus" else args.seeds[:1])]  # fmt: skip
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        cases = Path(tmp)
        if "strategies" in args.sources:  # the same examples for every parser
            draws = [[sys.executable, "-m", "benchmarks.fuzz_findings", "--draw", str(seed),
                      str(args.budget), str(cases / f"strategies-{seed}-{args.budget}.txt")]
                     for seed in args.seeds]  # fmt: skip
            list(pool.map(lambda cmd: subprocess.run(cmd, check=True, env=child_env()), draws))
        results = list(pool.map(lambda t: spawn(*t, args.budget, cases), todo))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(report(results, args.seeds, args.budget))
    print("\n" + verify_with_upb(results))
    print(f"\n{len(todo)} runs in {time.perf_counter() - start:.0f} s; Python "
          f"{sys.version.split()[0]}, {versions()}")  # fmt: skip


def versions() -> str:
    from importlib.metadata import version

    names = ["onnx", "protobuf", "numpy", "hypothesis", "betterproto2", "pure-protobuf"]
    return ", ".join(f"{n} {version(n)}" for n in names)


if __name__ == "__main__":
    main()
